// nn::utils::clip_grad_norm_ / clip_grad_value_ against PyTorch 1.13 (values recorded by
// fixtures/make_fixtures.py into fixtures/nn.ember): total norms and clipped gradients for several norm types,
// float32 and float64, a parameter without a gradient skipped, and error_if_nonfinite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "TestSupport.h"
#include "ember/ember.h"
#include "nn_fixtures.h"

namespace {

using namespace ember;

const Tensor& fixture(const std::string& name) { return ember::testing::nn_fixture(name); }

// The parameters make_fixtures.py builds: two with gradients, the third without.
std::vector<Tensor> clip_params(DType dt) {
  const TensorOptions o = dtype(dt).requires_grad(true);
  std::vector<Tensor> ps{zeros({2, 3}, o), zeros({2}, o), zeros({1}, o)};
  ps[0].mutable_grad() = arange(6, dt).reshape({2, 3}) * 0.7 - 1.3;
  ps[1].mutable_grad() = tensor({3.0, -4.0}, dt);
  return ps;
}

void expect_equal_tensor(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  EXPECT_TRUE(allclose(actual, expected, 1e-6, 0.0)) << what << "\n" << actual.str() << "\n" << expected.str();
}

TEST(ClipGrad, NormMatchesPyTorch) {
  struct Case {
    const char* p_name;
    double norm_type, max_norm;
    const char* max_name;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& c : {Case{"p2", 2.0, 1.0, "1"}, Case{"p2", 2.0, 100.0, "100"}, Case{"p1", 1.0, 2.5, "2.5"},
                        Case{"pinf", inf, 0.5, "0.5"}, Case{"p3", 3.0, 1.0, "1"}, Case{"p0.5", 0.5, 1.0, "1"}}) {
    for (auto [dt, suffix] : {std::pair{kFloat32, ""}, std::pair{kFloat64, "_f64"}}) {
      const std::string key = std::string("clip_norm_") + c.p_name + "_max" + c.max_name + suffix;
      std::vector<Tensor> ps = clip_params(dt);
      const double total = nn::utils::clip_grad_norm_(ps, c.max_norm, c.norm_type);
      // To float rounding: a p-norm's reduction may add in another order than PyTorch's.
      const double expected = fixture(key + ".total").item<double>();
      EXPECT_NEAR(total, expected, 1e-6 * expected) << key;
      expect_equal_tensor(ps[0].grad(), fixture(key + ".grad0"), key);
      expect_equal_tensor(ps[1].grad(), fixture(key + ".grad1"), key);
      EXPECT_FALSE(ps[2].grad().defined()) << key;  // skipped, not given a gradient
      EXPECT_FALSE(ps[0].grad().requires_grad());
    }
  }
}

TEST(ClipGrad, LibTorchCallForms) {
  // A model's parameters(), a braced list and one tensor.
  manual_seed(0);
  nn::Linear fc(3, 2);
  fc(ones({4, 3})).sum().backward();
  const double before = stack({fc->weight.grad().norm(), fc->bias.grad().norm()}).norm().item<double>();
  EXPECT_NEAR(nn::utils::clip_grad_norm_(fc->parameters(), 0.1), before, 1e-6);
  EXPECT_NEAR(stack({fc->weight.grad().norm(), fc->bias.grad().norm()}).norm().item<double>(), 0.1, 1e-6);
  EXPECT_NEAR(nn::utils::clip_grad_norm_({fc->weight, fc->bias}, 1.0), 0.1, 1e-6);
  const double bias_norm = fc->bias.grad().norm().item<double>();
  EXPECT_NEAR(nn::utils::clip_grad_norm_(fc->bias, 0.01), bias_norm, 1e-6);
  EXPECT_NEAR(fc->bias.grad().norm().item<double>(), 0.01, 1e-6);
  // No gradient at all: 0, nothing touched.
  nn::Linear fresh(3, 2);
  EXPECT_EQ(nn::utils::clip_grad_norm_(fresh->parameters(), 1.0), 0.0);
}

TEST(ClipGrad, NonFiniteNorm) {
  const double nan = std::nan("");
  std::vector<Tensor> ps = clip_params(kFloat32);
  ps[1].mutable_grad() = tensor({nan, 1.0f});
  EMBER_EXPECT_ERROR(nn::utils::clip_grad_norm_(ps, 1.0, 2.0, /*error_if_nonfinite=*/true), Runtime,
                     "The total norm of order 2 for gradients from `parameters` is non-finite");
  EXPECT_TRUE(equal(ps[0].grad(), arange(6, kFloat32).reshape({2, 3}) * 0.7 - 1.3));  // left unscaled
  // Without the flag: PyTorch scales by the NaN coefficient.
  EXPECT_TRUE(std::isnan(nn::utils::clip_grad_norm_(ps, 1.0)));
  EXPECT_TRUE(ps[0].grad().isnan().all().item<bool>());
  std::vector<Tensor> qs = clip_params(kFloat64);
  qs[0].mutable_grad().index_put_({0, 0}, std::numeric_limits<double>::infinity());
  EMBER_EXPECT_ERROR(nn::utils::clip_grad_norm_(qs, 1.0, std::numeric_limits<double>::infinity(), true), Runtime,
                     "The total norm of order inf");
}

TEST(ClipGrad, ValueMatchesPyTorch) {
  std::vector<Tensor> ps = clip_params(kFloat32);
  nn::utils::clip_grad_value_(ps, 1.5);
  expect_equal_tensor(ps[0].grad(), fixture("clip_value_1.5.grad0"), "clip_value grad0");
  expect_equal_tensor(ps[1].grad(), fixture("clip_value_1.5.grad1"), "clip_value grad1");
  EXPECT_FALSE(ps[2].grad().defined());
  Tensor w = ones({2}, requires_grad());
  w.mutable_grad() = tensor({-3.0f, 0.25f});
  nn::utils::clip_grad_value_(w, 1.0);
  EXPECT_TRUE(equal(w.grad(), tensor({-1.0f, 0.25f})));
  nn::utils::clip_grad_value_({w}, 0.1);
  EXPECT_TRUE(allclose(w.grad(), tensor({-0.1f, 0.1f})));
}

}  // namespace
