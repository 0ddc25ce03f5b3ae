// Runtime modules (ember/jit/runtime/Module.h): a hand-built module hierarchy with parameters, buffers and
// plain attributes read by prim::GetAttr, submodule method calls, training flag, errors, and many threads
// calling one module at once (Note [module thread safety]).
#include <gtest/gtest.h>

#include <thread>

#include "TestSupport.h"
#include "TestModules.h"
#include "ember/jit/runtime/Module.h"
#include "ember/ops/Functions.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;
using jittest::expect_same;
using jittest::Net;

TEST(Module, ForwardReadsAttributesAndSubmodules) {
  Net n;
  Tensor x = randn({2, 1, 8, 8});
  expect_same(n.net.forward({x}).to_tensor(), n.reference(x, true));
  n.net.eval();
  EXPECT_FALSE(n.conv.is_training());
  EXPECT_FALSE(n.net.attr("training").to_bool());
  expect_same(n.net.forward({x}).to_tensor(), n.reference(x, false));
  expect_same(n.net.run_method("forward", {x}).to_tensor(), n.reference(x, false));
  n.net.train();
  expect_same(n.net.forward({x}).to_tensor(), n.reference(x, true));
}

TEST(Module, NamedParametersBuffersAndAttr) {
  Net n;
  auto params = n.net.named_parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].first, "fc_w");
  EXPECT_EQ(params[1].first, "fc_b");
  EXPECT_EQ(params[2].first, "conv.weight");
  EXPECT_EQ(params[3].first, "conv.bias");
  EXPECT_EQ(params[2].second.impl(), n.cw.impl());
  EXPECT_EQ(n.net.named_parameters(false).size(), 2u);
  auto buffers = n.net.named_buffers();
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers[0].first, "shift");
  EXPECT_EQ(n.net.attr("scale").to_double(), 0.5);
  EXPECT_EQ(n.net.submodule("conv").attr("bias").to_tensor().impl(), n.cb.impl());
  EXPECT_EQ(n.net.named_children().size(), 1u);
  EXPECT_EQ(n.net.method_names(), std::vector<std::string>{"forward"});
  // The class type lists the attributes, typed.
  ASSERT_NE(n.net.type()->find_attribute("conv"), nullptr);
  EXPECT_EQ(n.net.type()->find_attribute("scale")->kind(), TypeKind::Float);
}

TEST(Module, SetAttrIsSeenByTheNextCall) {
  Net n;
  Tensor x = randn({1, 1, 8, 8});
  n.net.set_attr("scale", IValue(2.0));
  Tensor y = n.net.forward({x}).to_tensor();
  n.net.set_attr("scale", IValue(0.5));
  expect_same(y, mul(n.reference(x, true), 4.0));
  EMBER_EXPECT_ERROR(n.net.set_attr("scale", IValue(1)), Runtime, "attribute 'scale' holds a float");
  EMBER_EXPECT_ERROR(n.net.set_attr("conv", IValue(1.0)), Runtime, "'conv' is a submodule");
}

TEST(Module, Errors) {
  Net n;
  auto e = expect_error([&] { n.net.forward({}); });
  EXPECT_TRUE(contains(e.what(), "__torch__.Net.forward: expected 1 input (x : Tensor) but got 0"));
  e = expect_error([&] { n.net.forward({IValue(3)}); });
  EXPECT_TRUE(contains(e.what(), "__torch__.Net.forward: input 0 (x : Tensor) expected a value of type Tensor"));
  e = expect_error([&] { n.net.run_method("predict", {}); });
  EXPECT_TRUE(contains(e.what(), "no method 'predict' (methods: forward)"));
  e = expect_error([&] { n.net.attr("nope"); });
  EXPECT_TRUE(contains(e.what(), "no attribute 'nope' (attributes: conv, fc_w, fc_b, shift, scale)"));
  EMBER_EXPECT_ERROR(n.net.register_parameter("fc_w", randn({1})), Runtime, "attribute 'fc_w' already exists");
  EMBER_EXPECT_ERROR(n.conv.register_module("parent", n.net), Runtime, "would contain the module itself");
  // An op error inside a submodule's method names the method and the node.
  e = expect_error([&] { n.net.forward({randn({1, 2, 8, 8})}); });
  EXPECT_TRUE(contains(e.what(), "__torch__.Net.forward: __torch__.Conv.forward: "));
  EXPECT_TRUE(contains(e.what(), "in node: %y : Tensor = aten::conv2d"));
  // A graph reading an attribute the module does not have fails at definition.
  e = expect_error([&] {
    n.net.define_method("bad", R"IR(graph(%self : __torch__.Net):
  %w : Tensor = prim::GetAttr[name="missing"](%self)
  return (%w)
)IR");
  });
  EXPECT_TRUE(contains(e.what(), "missing"));
  // A submodule method called with the wrong number of inputs.
  e = expect_error([&] {
    n.net.define_method("arity", R"IR(graph(%self : __torch__.Net, %x : Tensor):
  %conv : __torch__.Conv = prim::GetAttr[name="conv"](%self)
  %c : Tensor = prim::CallMethod[name="forward"](%conv, %x, %x)
  return (%c)
)IR");
  });
  EXPECT_TRUE(contains(e.what(), "__torch__.Conv.forward takes 1 inputs, but 2 are passed"));
  // A method of another class.
  e = expect_error([&] {
    n.net.define_method("other", R"IR(graph(%self : __torch__.Conv, %x : Tensor):
  return (%x)
)IR");
  });
  EXPECT_TRUE(contains(e.what(), "takes the module object (%self : __torch__.Net)"));
}

// Note [module thread safety]: 8 threads each run forward repeatedly; every result equals the single-thread one.
TEST(Module, ManyThreadsCallForwardAtOnce) {
  Net n;
  n.net.eval();
  std::vector<Tensor> inputs, expected;
  for (int i = 0; i < 8; ++i) {
    inputs.push_back(randn({2, 1, 8, 8}));
    expected.push_back(n.net.forward({inputs.back()}).to_tensor());
  }
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 200; ++k) {
        int i = (t + k) % 8;
        Tensor y = n.net.forward({inputs[static_cast<size_t>(i)]}).to_tensor();
        if (!equal(y, expected[static_cast<size_t>(i)])) ++mismatches[static_cast<size_t>(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(mismatches[static_cast<size_t>(t)], 0) << "thread " << t;
}

}  // namespace
