// Unary elementwise kernels: values (matching PyTorch 1.13), dtype rules (integers to float, bool results),
// special values, 16-bit floats computed in float32, and the vectorized transcendental loops of every
// instruction-set build against a double-precision reference on 100k elements.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "TestSupport.h"
#include "ember/api/ember.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

namespace {

using namespace ember;
using ember::testing::make_bool_tensor;
using ember::testing::make_tensor;
using ember::testing::values;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Distance in units in the last place between two finite floats of the same type.
template <class F>
int64_t ulps(F a, F b) {
  using I = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  auto key = [](F x) {
    I i = std::bit_cast<I>(x);
    return i < 0 ? static_cast<int64_t>(std::numeric_limits<I>::min()) - static_cast<int64_t>(i)
                 : static_cast<int64_t>(i);
  };
  return std::abs(key(a) - key(b));
}

// Checks every element of f(x) against ref(x) computed in higher precision and rounded, within max_ulps.
template <class F, class Ref>
void expect_close_to_reference(const Tensor& x, const Tensor& y, Ref ref, int64_t max_ulps, const char* name) {
  std::vector<F> in = values<F>(x), out = values<F>(y);
  ASSERT_EQ(in.size(), out.size());
  int64_t worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    F want = static_cast<F>(ref(static_cast<long double>(in[i])));
    int64_t d = ulps(out[i], want);
    if (d > worst) worst = d, worst_i = i;
  }
  EXPECT_LE(worst, max_ulps) << name << "(" << in[worst_i] << ") = " << out[worst_i] << ", reference "
                             << static_cast<F>(ref(static_cast<long double>(in[worst_i]))) << " on capability "
                             << cpu::cpu_capability();
}

Tensor uniform_points(int64_t n, double lo, double hi, DType dt) { return linspace(lo, hi, n, dt); }

TEST(Unary, CapabilityIsKnown) {
  std::string cap = cpu::cpu_capability();
  EXPECT_TRUE(cap == "default" || cap == "avx2" || cap == "avx512") << cap;
  const char* forced = std::getenv("EMBER_CPU_CAPABILITY");
  if (forced && std::string(forced) == "default") {
    EXPECT_EQ(cap, "default");
  }
  EXPECT_NE(cpu::vec_loop(cpu::VecOp::Exp, kFloat32), nullptr);
  EXPECT_EQ(cpu::vec_loop(cpu::VecOp::Exp, kInt32), nullptr);
}

TEST(Unary, TranscendentalsOn100kFloatsMatchADoubleReference) {
  const int64_t n = 100000;
  Tensor e = uniform_points(n, -87.0, 88.0, kFloat32);
  expect_close_to_reference<float>(e, exp(e), [](long double v) { return std::exp(v); }, 2, "exp");
  Tensor t = uniform_points(n, -10.0, 10.0, kFloat32);
  expect_close_to_reference<float>(t, tanh(t), [](long double v) { return std::tanh(v); }, 2, "tanh");
  Tensor s = uniform_points(n, -30.0, 30.0, kFloat32);
  expect_close_to_reference<float>(s, sigmoid(s), [](long double v) { return 1 / (1 + std::exp(-v)); }, 3, "sigmoid");
  Tensor l = uniform_points(n, 1e-30, 1e30, kFloat32);
  expect_close_to_reference<float>(l, log(l), [](long double v) { return std::log(v); }, 2, "log");
  Tensor w = uniform_points(n, -100.0, 100.0, kFloat32);
  expect_close_to_reference<float>(w, sin(w), [](long double v) { return std::sin(v); }, 2, "sin");
  expect_close_to_reference<float>(w, erf(w.div(Scalar(20))), [](long double v) { return std::erf(v / 20); }, 2, "erf");
  Tensor d = uniform_points(n, -700.0, 700.0, kFloat64);
  expect_close_to_reference<double>(d, exp(d), [](long double v) { return std::exp(v); }, 2, "exp(double)");
  expect_close_to_reference<double>(d.div(Scalar(100)), tanh(d.div(Scalar(100))),
                                    [](long double v) { return std::tanh(v); }, 2, "tanh(double)");
  // Non-contiguous input: the same values through a strided view.
  Tensor strided = uniform_points(2 * n, -5.0, 5.0, kFloat32).slice(0, std::nullopt, std::nullopt, 2);
  expect_close_to_reference<float>(strided, exp(strided), [](long double v) { return std::exp(v); }, 2, "exp strided");
}

TEST(Unary, SpecialValuesOfTranscendentals) {
  Tensor x = make_tensor<float>({0, kInf, -kInf, kNaN, -0.0f});
  std::vector<float> ex = values<float>(exp(x));
  EXPECT_EQ(ex[0], 1.0f);
  EXPECT_EQ(ex[1], kInf);
  EXPECT_EQ(ex[2], 0.0f);
  EXPECT_TRUE(std::isnan(ex[3]));
  std::vector<float> lg = values<float>(log(make_tensor<float>({0, -1, 1, kInf})));
  EXPECT_EQ(lg[0], -kInf);
  EXPECT_TRUE(std::isnan(lg[1]));
  EXPECT_EQ(lg[2], 0.0f);
  EXPECT_EQ(lg[3], kInf);
  std::vector<float> th = values<float>(tanh(make_tensor<float>({kInf, -kInf, 0})));
  EXPECT_EQ(th[0], 1.0f);
  EXPECT_EQ(th[1], -1.0f);
  EXPECT_EQ(values<float>(sigmoid(make_tensor<float>({-kInf, kInf}))), (std::vector<float>{0, 1}));
  std::vector<float> sq = values<float>(sqrt(make_tensor<float>({4, -1, kInf})));
  EXPECT_EQ(sq[0], 2.0f);
  EXPECT_TRUE(std::isnan(sq[1]));
  EXPECT_EQ(values<float>(rsqrt(make_tensor<float>({4, 0}))), (std::vector<float>{0.5f, kInf}));
  EXPECT_EQ(values<float>(reciprocal(make_tensor<float>({4, -0.0f}))), (std::vector<float>{0.25f, -kInf}));
}

TEST(Unary, IntegerAndBoolInputsPromoteToFloat) {
  Tensor i = make_tensor<int32_t>({0, 1, 4});
  Tensor e = exp(i);
  EXPECT_EQ(e.dtype(), kFloat32);
  EXPECT_EQ(values<float>(e)[1], std::exp(1.0f));
  EXPECT_EQ(values<float>(sqrt(i)), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(sqrt(make_bool_tensor({1, 0}, {2})).dtype(), kFloat32);
  EXPECT_EQ(sin(make_tensor<int64_t>({0})).dtype(), kFloat32);
  EXPECT_EQ(exp(make_tensor<double>({0})).dtype(), kFloat64);
  EMBER_EXPECT_ERROR(i.exp_(), Runtime, "can't be cast");  // int32 cannot hold exp's float result
  EMBER_EXPECT_ERROR(exp_out(empty({3}, kInt64), i), Runtime, "can't be cast");
}

TEST(Unary, SameDtypeOps) {
  EXPECT_EQ(values<int32_t>(abs(make_tensor<int32_t>({-3, 0, 4}))), (std::vector<int32_t>{3, 0, 4}));
  EXPECT_EQ(values<int8_t>(abs(make_tensor<int8_t>({-128, -1}))), (std::vector<int8_t>{-128, 1}));  // wraps, as PyTorch
  EXPECT_EQ(values<int64_t>(neg(make_tensor<int64_t>({-3, 5}))), (std::vector<int64_t>{3, -5}));
  EXPECT_EQ(values<float>(abs(make_tensor<float>({-0.0f, -kInf})))[1], kInf);
  EXPECT_EQ(values<float>(round(make_tensor<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f}))),
            (std::vector<float>{0, 2, 2, -0.0f, -2, 2}));  // half to even
  EXPECT_TRUE(std::signbit(values<float>(round(make_tensor<float>({-0.5f})))[0]));
  EXPECT_EQ(values<float>(floor(make_tensor<float>({-1.5f, 1.5f}))), (std::vector<float>{-2, 1}));
  EXPECT_EQ(values<float>(ceil(make_tensor<float>({-1.5f, 1.5f}))), (std::vector<float>{-1, 2}));
  EXPECT_EQ(values<float>(trunc(make_tensor<float>({-1.5f, 1.5f}))), (std::vector<float>{-1, 1}));
  EXPECT_EQ(values<float>(frac(make_tensor<float>({1.5f, -1.25f}))), (std::vector<float>{0.5f, -0.25f}));
  EXPECT_EQ(values<int32_t>(floor(make_tensor<int32_t>({-3, 7}))), (std::vector<int32_t>{-3, 7}));  // ints unchanged
  EXPECT_EQ(values<int64_t>(round(make_tensor<int64_t>({5}))), (std::vector<int64_t>{5}));
  std::vector<float> sg = values<float>(sign(make_tensor<float>({-2, 0, 3, kNaN})));
  EXPECT_EQ(sg[0], -1.0f);
  EXPECT_EQ(sg[1], 0.0f);
  EXPECT_EQ(sg[2], 1.0f);
  EXPECT_EQ(values<int32_t>(sign(make_tensor<int32_t>({-2, 0, 3}))), (std::vector<int32_t>{-1, 0, 1}));
  std::vector<float> r = values<float>(relu(make_tensor<float>({-1, 0, 2, kNaN})));
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[2], 2.0f);
  EXPECT_TRUE(std::isnan(r[3]));  // relu keeps NaN
  EXPECT_EQ(values<int16_t>(relu(make_tensor<int16_t>({-5, 5}))), (std::vector<int16_t>{0, 5}));
  EXPECT_EQ(values<int32_t>(square(make_tensor<int32_t>({-3, 4}))), (std::vector<int32_t>{9, 16}));
  Tensor sb = square(make_bool_tensor({1, 0}, {2}));
  EXPECT_EQ(sb.dtype(), kInt64);  // square is pow(x, 2): bool gives int64
  EXPECT_EQ(values<int64_t>(sb), (std::vector<int64_t>{1, 0}));
}

TEST(Unary, ActivationsMatchPyTorch) {
  Tensor x = make_tensor<float>({-1, 0, 1});
  auto near = [](const Tensor& t, std::vector<float> want) {
    std::vector<float> got = values<float>(t);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-7f + 2e-7f * std::abs(want[i])) << i;
  };
  near(gelu(x), {-0.1586552858352661f, 0.0f, 0.8413447141647339f});
  near(gelu(x, "tanh"), {-0.15880799293518066f, 0.0f, 0.8411920070648193f});
  near(silu(x), {-0.2689414322376251f, 0.0f, 0.7310585975646973f});
  near(sigmoid(x), {0.2689414322376251f, 0.5f, 0.7310585975646973f});
  near(erf(x), {-0.8427007794380188f, 0.0f, 0.8427007794380188f});
  near(erfc(x), {1.8427007794380188f, 1.0f, 0.15729920566082f});
  near(expm1(make_tensor<float>({1e-10f, 1})), {1e-10f, 1.7182817459106445f});
  near(log1p(make_tensor<float>({1e-10f, 1})), {1e-10f, 0.6931471824645996f});
  near(exp2(make_tensor<float>({3, -1})), {8, 0.5f});
  near(log2(make_tensor<float>({8, 0.5f})), {3, -1});
  near(log10(make_tensor<float>({1000, 0.1f})), {3, -1});
  EMBER_EXPECT_ERROR(gelu(x, "fast"), Runtime, "approximate argument must be either none or tanh");
  EMBER_EXPECT_ERROR(silu(make_tensor<int32_t>({1})), Runtime, "not implemented for 'int32'");
}

TEST(Unary, PredicatesAndLogical) {
  Tensor x = make_tensor<float>({1, kNaN, kInf, -kInf});
  EXPECT_EQ(values<bool>(isnan(x)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(values<bool>(isinf(x)), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(values<bool>(isfinite(x)), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(values<bool>(isfinite(make_tensor<int32_t>({1}))), (std::vector<bool>{true}));
  EXPECT_EQ(values<bool>(logical_not(make_tensor<float>({0, 2, kNaN}))), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<int32_t>(bitwise_not(make_tensor<int32_t>({0, -1, 5}))), (std::vector<int32_t>{-1, 0, -6}));
  EXPECT_EQ(values<bool>(bitwise_not(make_bool_tensor({1, 0}, {2}))), (std::vector<bool>{false, true}));
  EXPECT_EQ(values<bool>(operator~(make_bool_tensor({1}, {1}))), (std::vector<bool>{false}));
  EMBER_EXPECT_ERROR(bitwise_not(make_tensor<float>({1})), Runtime, "not implemented for 'float32'");
}

TEST(Unary, NanToNum) {
  Tensor x = make_tensor<float>({kNaN, kInf, -kInf, 1});
  EXPECT_EQ(values<float>(nan_to_num(x)),
            (std::vector<float>{0, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(), 1}));
  EXPECT_EQ(values<float>(nan_to_num(x, 0.5, 9.0, -9.0)), (std::vector<float>{0.5f, 9, -9, 1}));
  EXPECT_EQ(values<int32_t>(nan_to_num(make_tensor<int32_t>({3}))), (std::vector<int32_t>{3}));
  Tensor h = make_tensor<float>({kInf}).to(kFloat16);
  EXPECT_EQ(float(values<Half>(nan_to_num(h))[0]), 65504.0f);
  uint32_t v = x._version();
  x.nan_to_num_();
  EXPECT_EQ(x._version(), v + 1);
  EXPECT_FALSE(std::isnan(values<float>(x)[0]));
}

TEST(Unary, NarrowFloatsComputeInFloat32) {
  // float16 and bfloat16 widen to float32, compute, and round back: the result is the float32 result rounded.
  Tensor x = linspace(-4, 4, 257);
  for (DType dt : {kFloat16, kBFloat16}) {
    Tensor xn = x.to(dt);
    Tensor want = exp(xn.to(kFloat32)).to(dt);
    Tensor got = exp(xn);
    EXPECT_EQ(got.dtype(), dt);
    EXPECT_TRUE(got.equal(want)) << dtype_name(dt);
    EXPECT_TRUE(tanh(xn).equal(tanh(xn.to(kFloat32)).to(dt))) << dtype_name(dt);
    EXPECT_TRUE(add(xn, xn).equal(add(xn.to(kFloat32), xn.to(kFloat32)).to(dt))) << dtype_name(dt);
    EXPECT_TRUE(mul(xn, 3).equal(mul(xn.to(kFloat32), 3).to(dt))) << dtype_name(dt);
  }
}

TEST(Unary, InPlaceAndOutVariants) {
  Tensor x = make_tensor<float>({0, 1});
  uint32_t v = x._version();
  Tensor r = x.exp_();
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(x._version(), v + 1);
  EXPECT_EQ(values<float>(x)[0], 1.0f);
  Tensor out = empty({0});
  uint32_t ov = out._version();
  Tensor o = neg_out(out, make_tensor<float>({1, 2, 3}, {3, 1}));
  EXPECT_TRUE(o.is_same(out));
  EXPECT_TRUE(out.sizes().equals({3, 1}));  // out= is resized
  EXPECT_EQ(values<float>(out), (std::vector<float>{-1, -2, -3}));
  EXPECT_GT(out._version(), ov);
  Tensor m = arange(6, kFloat32).reshape({2, 3});
  m.t().neg_();  // in place through a transposed view
  EXPECT_EQ(values<float>(m), (std::vector<float>{0, -1, -2, -3, -4, -5}));
  Tensor s = scalar_tensor(4.0);
  EXPECT_EQ(sqrt(s).dim(), 0);
  EXPECT_EQ(sqrt(s).item<float>(), 2.0f);
  EXPECT_EQ(exp(empty({0, 3})).numel(), 0);
}

}  // namespace
