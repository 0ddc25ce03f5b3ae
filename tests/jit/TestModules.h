#pragma once
// A hand-built runtime module shared by the module and archive tests.
#include <gtest/gtest.h>

#include "ember/jit/runtime/Module.h"
#include "ember/ops/Functions.h"

namespace jittest {

using namespace ember;
using namespace ember::jit;

inline void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_TRUE(equal(a, b));
}

// Net: conv (a submodule with weight and bias parameters) -> relu -> flatten -> linear with fc_w/fc_b ->
// add the `shift` buffer -> times `scale` (a float attribute); in training mode also negated.
struct Net {
  Module conv{"__torch__.Conv"};
  Module net{"__torch__.Net"};
  Tensor cw = randn({4, 1, 3, 3}), cb = randn({4}), fw = randn({10, 4 * 6 * 6}), fb = randn({10});
  Tensor shift = randn({10});

  Net() {
    conv.register_parameter("weight", cw);
    conv.register_parameter("bias", cb);
    conv.define_method("forward", R"IR(graph(%self : __torch__.Conv, %x : Tensor):
  %w : Tensor = prim::GetAttr[name="weight"](%self)
  %b : Tensor = prim::GetAttr[name="bias"](%self)
  %l : int[] = prim::Constant[value=[1, 1]]()
  %z : int[] = prim::Constant[value=[0, 0]]()
  %g : int = prim::Constant[value=1]()
  %y : Tensor = aten::conv2d(%x, %w, %b, %l, %z, %l, %g)
  return (%y)
)IR");
    net.register_module("conv", conv);
    net.register_parameter("fc_w", fw);
    net.register_parameter("fc_b", fb);
    net.register_buffer("shift", shift);
    net.register_attribute("scale", IValue(0.5));
    net.define_method("forward", R"IR(graph(%self : __torch__.Net, %x : Tensor):
  %conv : __torch__.Conv = prim::GetAttr[name="conv"](%self)
  %c : Tensor = prim::CallMethod[name="forward"](%conv, %x)
  %r : Tensor = aten::relu(%c)
  %one : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %f : Tensor = aten::flatten(%r, %one, %m1)
  %w : Tensor = prim::GetAttr[name="fc_w"](%self)
  %b : Tensor = prim::GetAttr[name="fc_b"](%self)
  %y : Tensor = aten::linear(%f, %w, %b)
  %s : Tensor = prim::GetAttr[name="shift"](%self)
  %y2 : Tensor = aten::add(%y, %s, %one)
  %k : float = prim::GetAttr[name="scale"](%self)
  %y3 : Tensor = aten::mul(%y2, %k)
  %t : bool = prim::GetAttr[name="training"](%self)
  %out : Tensor = prim::If(%t)
    block0():
      %n : Tensor = aten::neg(%y3)
      -> (%n)
    block1():
      -> (%y3)
  return (%out)
)IR");
  }

  Tensor reference(const Tensor& x, bool training) const {
    const std::vector<int64_t> ones{1, 1}, zeros{0, 0};
    Tensor c = conv2d(x, cw, cb, IntArrayRef(ones), IntArrayRef(zeros), IntArrayRef(ones), 1);
    Tensor y = mul(add(linear(flatten(relu(c), 1, -1), fw, fb), shift), 0.5);
    return training ? neg(y) : y;
  }
};

}  // namespace jittest
