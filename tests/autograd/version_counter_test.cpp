// Version counters at the op boundary from C++ (Note [version counter]): fresh results at version 0, one bump
// per in-place or out= call, shared through views and detach(), internal in-place calls of kernels invisible,
// and a custom op whose schema writes an argument bumped by ADInplaceOrView's fallback.
#include <gtest/gtest.h>

#include "ember/dispatch/Library.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace {

using namespace ember;

Tensor halve_(const Tensor& self) {
  self.mul_(ember::full({}, 0.5));  // an internal in-place call: no bump of its own
  self.add_(ember::zeros({}));
  return self;
}

}  // namespace

EMBER_LIBRARY(gtest_versions, m) { m.def("halve_(Tensor(a!) self) -> Tensor(a!)"); }
EMBER_LIBRARY_IMPL(gtest_versions, CPU, m) { m.impl("halve_", &halve_); }

namespace {

TEST(VersionCounter, FreshResultsAreAtZero) {
  Tensor x = ember::ones({2, 3});
  EXPECT_EQ(x._version(), 0u);
  EXPECT_EQ(ember::zeros({3})._version(), 0u);
  EXPECT_EQ(x.clone()._version(), 0u);
  EXPECT_EQ(x.t().contiguous()._version(), 0u);
  EXPECT_EQ((x + x)._version(), 0u);
  EXPECT_EQ(ember::zeros_like(x)._version(), 0u);
}

TEST(VersionCounter, OneBumpPerInplaceOrOutCall) {
  Tensor x = ember::ones({2, 3});
  Tensor v = x.select(0, 1), d = x.detach();
  x.add_(ember::ones({}));
  EXPECT_EQ(x._version(), 1u);
  v.mul_(ember::full({}, 2.0));
  EXPECT_EQ(x._version(), 2u);
  EXPECT_EQ(d._version(), 2u);
  EXPECT_TRUE(v._is_view() && v._base().is_same(x) && !d._is_view());
  EXPECT_TRUE(v.narrow(0, 0, 2)._base().is_same(x));  // a view of a view names the first base
  Tensor out = ember::empty({2, 3});
  ember::add_out(out, x, x);
  ember::mul_out(out, x, x);
  EXPECT_EQ(out._version(), 2u);
}

TEST(VersionCounter, CustomOpWritingAnArgument) {
  static const auto halve = typed_op<Tensor(const Tensor&)>("gtest_versions::halve_");
  Tensor x = ember::ones({4});
  halve(x);
  EXPECT_EQ(x._version(), 1u);
  EXPECT_FLOAT_EQ(x.select(0, 0).item<float>(), 0.5f);
}

}  // namespace
