// Binary and ternary elementwise kernels: small hand-checked values (matching PyTorch 1.13), type promotion,
// special values, and the errors PyTorch raises (in-place dtype rule, integer division by zero, bool
// subtraction, alpha checks, rounding modes, broadcasting).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_bool_tensor;
using ember::testing::make_tensor;
using ember::testing::values;

// Element-wise equality where NaN equals NaN (and -0 equals 0).
template <class T>
::testing::AssertionResult same_values(const Tensor& t, const std::vector<T>& want) {
  if (t.dtype() != dtype_of<T>())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(t.dtype()) << ", expected "
                                         << dtype_name(dtype_of<T>());
  std::vector<T> got = values<T>(t);
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    bool both_nan = false;
    if constexpr (std::is_floating_point_v<T>) both_nan = std::isnan(got[i]) && std::isnan(want[i]);
    if (!(got[i] == want[i]) && !both_nan)
      return ::testing::AssertionFailure() << "at " << i << ": " << +got[i] << " != " << +want[i];
  }
  return ::testing::AssertionSuccess();
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(Binary, IntegerDivisionFamily) {
  Tensor a = make_tensor<int64_t>({-7, -1, 0, 5, 7}), b = make_tensor<int64_t>({2, -3, 4, -2, 3});
  EXPECT_TRUE(same_values<int64_t>(floor_divide(a, b), {-4, 0, 0, -3, 2}));
  EXPECT_TRUE(same_values<int64_t>(div(a, b, "trunc"), {-3, 0, 0, -2, 2}));
  EXPECT_TRUE(same_values<int64_t>(div(a, b, "floor"), {-4, 0, 0, -3, 2}));
  EXPECT_TRUE(same_values<int64_t>(remainder(a, b), {1, -1, 0, -1, 1}));  // sign of the divisor
  EXPECT_TRUE(same_values<int64_t>(fmod(a, b), {-1, -1, 0, 1, 1}));       // sign of the dividend
  EXPECT_TRUE(same_values<float>(div(a, b), {-3.5f, 1.0f / 3, 0.0f, -2.5f, 7.0f / 3}));  // true division: float
  Tensor af = a.to(kFloat32), bf = b.to(kFloat32);
  EXPECT_TRUE(same_values<float>(remainder(af, bf), {1, -1, 0, -1, 1}));
  EXPECT_TRUE(same_values<float>(fmod(af, bf), {-1, -1, 0, 1, 1}));
  EXPECT_TRUE(same_values<float>(div(af, bf, "floor"), {-4, 0, 0, -3, 2}));
  EXPECT_TRUE(same_values<float>(div(af, bf, "trunc"), {-3, 0, 0, -2, 2}));
  EXPECT_TRUE(same_values<float>(floor_divide(af, bf), {-4, 0, 0, -3, 2}));
  // Division by zero: floats follow IEEE, integers raise ZeroDivisionError as PyTorch.
  EXPECT_TRUE(
      same_values<float>(div(make_tensor<float>({1, -1, 0}), make_tensor<float>({0, 0, 0})), {kInf, -kInf, kNaN}));
  EXPECT_TRUE(same_values<float>(div(make_tensor<int64_t>({5}), make_tensor<int64_t>({0})), {kInf}));
  Tensor zero = make_tensor<int64_t>({1, 0});
  EMBER_EXPECT_ERROR(floor_divide(make_tensor<int64_t>({1, 2}), zero), Runtime, "ZeroDivisionError");
  EMBER_EXPECT_ERROR(remainder(make_tensor<int32_t>({1, 2}), make_tensor<int32_t>({0, 1})), Runtime,
                     "ZeroDivisionError");
  EMBER_EXPECT_ERROR(fmod(make_tensor<int8_t>({1}), make_tensor<int8_t>({0})), Runtime, "ZeroDivisionError");
  EMBER_EXPECT_ERROR(div(make_tensor<int64_t>({1, 2}), make_tensor<int64_t>({0, 0}), "trunc"), Runtime,
                     "ZeroDivisionError");
  EMBER_EXPECT_ERROR(div(af, bf, "round"), Runtime,
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
}

TEST(Binary, IntegerOverflowCornersDoNotTrap) {
  // INT_MIN / -1 overflows; it must not kill the process (x86 raises SIGFPE for it). Two's complement wraps.
  const int64_t mn = std::numeric_limits<int64_t>::min();
  Tensor a = make_tensor<int64_t>({mn, mn}), m1 = make_tensor<int64_t>({-1, -1});
  EXPECT_TRUE(same_values<int64_t>(floor_divide(a, m1), {mn, mn}));
  EXPECT_TRUE(same_values<int64_t>(div(a, m1, "trunc"), {mn, mn}));
  EXPECT_TRUE(same_values<int64_t>(remainder(a, m1), {0, 0}));
  EXPECT_TRUE(same_values<int64_t>(fmod(a, m1), {0, 0}));
  Tensor i32 = make_tensor<int32_t>({std::numeric_limits<int32_t>::min()});
  EXPECT_TRUE(same_values<int32_t>(remainder(i32, make_tensor<int32_t>({-1})), {0}));
  EXPECT_TRUE(same_values<uint8_t>(sub(make_tensor<uint8_t>({3}), 5), {254}));  // uint8 wraps
  EXPECT_TRUE(same_values<uint8_t>(mul(make_tensor<uint8_t>({3}), 100), {44}));
}

TEST(Binary, AddSubMulPowWithPromotion) {
  Tensor a = make_tensor<int32_t>({1, 2, 3}), b = make_tensor<int32_t>({10, 20, 30});
  EXPECT_TRUE(same_values<int32_t>(add(a, b), {11, 22, 33}));
  EXPECT_TRUE(same_values<int32_t>(add(a, b, 2), {21, 42, 63}));
  EXPECT_TRUE(same_values<int32_t>(sub(a, b, 2), {-19, -38, -57}));
  EXPECT_TRUE(same_values<int32_t>(mul(a, b), {10, 40, 90}));
  EXPECT_TRUE(same_values<float>(add(a, 2.5), {3.5f, 4.5f, 5.5f}));  // int32 + python float -> float32
  EXPECT_TRUE(same_values<int32_t>(add(a, 2), {3, 4, 5}));            // int32 + python int -> int32
  EXPECT_TRUE(same_values<double>(add(a, make_tensor<double>({0.5, 0.5, 0.5})), {1.5, 2.5, 3.5}));
  EXPECT_TRUE(same_values<float>(add(make_tensor<float>({1}), make_tensor<double>({2}, {})), {3}));  // 0-dim f64
  EXPECT_EQ(add(make_tensor<int16_t>({1}), scalar_tensor(100000, kInt64)).dtype(), kInt16);
  EXPECT_TRUE(same_values<int64_t>(add(make_bool_tensor({1, 0}, {2}), 2), {3, 2}));
  EXPECT_TRUE(same_values<bool>(add(make_bool_tensor({1, 0}, {2}), make_bool_tensor({1, 0}, {2})), {true, false}));
  EXPECT_TRUE(same_values<float>(sub(make_tensor<float>({1.5f}), make_tensor<float>({0.5f}), 0.5), {1.25f}));
  EXPECT_TRUE(same_values<int64_t>(pow(make_tensor<int64_t>({2, -3, 0}), make_tensor<int64_t>({3, 2, 0})), {8, 9, 1}));
  EXPECT_TRUE(same_values<float>(pow(make_tensor<float>({2, 4}), 0.5), {std::sqrt(2.0f), 2.0f}));
  EXPECT_TRUE(same_values<float>(pow(2, make_tensor<float>({0, 3})), {1, 8}));
  EXPECT_TRUE(same_values<float>(atan2(make_tensor<float>({1, -1}), make_tensor<float>({1, 0})),
                                 {std::atan2(1.0f, 1.0f), std::atan2(-1.0f, 0.0f)}));
  EXPECT_TRUE(same_values<float>(mul(make_tensor<Half>({Half(1.5f)}).to(kFloat32), 2), {3}));
  EXPECT_TRUE(same_values<float>(operator*(2, make_tensor<float>({1.5f})), {3}));
  EXPECT_TRUE(same_values<float>(operator-(10, make_tensor<float>({1.5f})), {8.5f}));
  EXPECT_TRUE(same_values<float>(operator/(1, make_tensor<float>({4})), {0.25f}));
}

TEST(Binary, AlphaAndBoolRules) {
  Tensor i = make_tensor<int64_t>({1}), f = make_tensor<float>({1});
  EMBER_EXPECT_ERROR(add(i, i, 0.5), Runtime,
                     "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_EXPECT_ERROR(add(f, f, true), Runtime, "Boolean alpha only supported for Boolean results.");
  Tensor t = make_bool_tensor({1}, {1}), fl = make_bool_tensor({0}, {1});
  EMBER_EXPECT_ERROR(sub(t, fl), Runtime, "Subtraction, the `-` operator, with two bool tensors is not supported.");
  EMBER_EXPECT_ERROR(sub(t, i), Runtime, "Subtraction, the `-` operator, with a bool tensor is not supported.");
  EMBER_EXPECT_ERROR(sub(i, t), Runtime, "with a bool tensor is not supported");
  EMBER_EXPECT_ERROR(pow(make_tensor<int64_t>({2}), -1), Runtime,
                     "Integers to negative integer powers are not allowed.");
  EMBER_EXPECT_ERROR(bitwise_and(f, f), Runtime, "not implemented for 'float32'");
  EMBER_EXPECT_ERROR(add(ones({2}), ones({3})), Runtime,
                     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
}

TEST(Binary, ComparisonsAndLogical) {
  Tensor a = make_tensor<float>({1, 2, kNaN}), b = make_tensor<float>({2, 2, kNaN});
  EXPECT_TRUE(same_values<bool>(eq(a, b), {false, true, false}));
  EXPECT_TRUE(same_values<bool>(ne(a, b), {true, false, true}));
  EXPECT_TRUE(same_values<bool>(lt(a, b), {true, false, false}));
  EXPECT_TRUE(same_values<bool>(le(a, b), {true, true, false}));
  EXPECT_TRUE(same_values<bool>(gt(a, b), {false, false, false}));
  EXPECT_TRUE(same_values<bool>(ge(a, 2), {false, true, false}));
  EXPECT_TRUE(same_values<bool>(eq(make_tensor<int64_t>({1, 3}), 1.0), {true, false}));
  EXPECT_TRUE(same_values<bool>(lt(make_tensor<uint8_t>({0, 200}), make_tensor<int8_t>({-1, 100})), {false, false}));
  EXPECT_TRUE(same_values<bool>(operator==(a, 2.0), {false, true, false}));
  Tensor x = make_tensor<float>({0, 1, 0, 2}), y = make_tensor<int32_t>({0, 0, 3, 4});
  EXPECT_TRUE(same_values<bool>(logical_and(x, y), {false, false, false, true}));
  EXPECT_TRUE(same_values<bool>(logical_or(x, y), {false, true, true, true}));
  EXPECT_TRUE(same_values<bool>(logical_xor(x, y), {false, true, true, false}));
  Tensor in = make_tensor<float>({1, 2});
  uint32_t v = in._version();
  EXPECT_TRUE(same_values<float>(in.lt_(make_tensor<float>({2, 2})), {1, 0}));  // in place: result in self's dtype
  EXPECT_EQ(in._version(), v + 1);
}

TEST(Binary, Bitwise) {
  Tensor a = make_tensor<int32_t>({12, -1}), b = make_tensor<int32_t>({10, 5});
  EXPECT_TRUE(same_values<int32_t>(bitwise_and(a, b), {8, 5}));
  EXPECT_TRUE(same_values<int32_t>(bitwise_or(a, b), {14, -1}));
  EXPECT_TRUE(same_values<int32_t>(bitwise_xor(a, b), {6, -6}));
  EXPECT_TRUE(
      same_values<bool>(bitwise_xor(make_bool_tensor({1, 1}, {2}), make_bool_tensor({1, 0}, {2})), {false, true}));
  EXPECT_TRUE(
      same_values<int8_t>(bitwise_left_shift(make_tensor<int8_t>({1, -1}), make_tensor<int8_t>({3, 1})), {8, -2}));
  EXPECT_TRUE(same_values<int64_t>(bitwise_right_shift(make_tensor<int64_t>({-16, 16}), make_tensor<int64_t>({2, 2})),
                                   {-4, 4}));
  // Shifts by the width or more: 0 for left, the sign for right (PyTorch's rule).
  EXPECT_TRUE(same_values<int32_t>(bitwise_left_shift(make_tensor<int32_t>({1}), make_tensor<int32_t>({40})), {0}));
  EXPECT_TRUE(same_values<int32_t>(bitwise_right_shift(make_tensor<int32_t>({-5, 5}), make_tensor<int32_t>({40, 40})),
                                   {-1, 0}));
  EXPECT_TRUE(same_values<int32_t>(operator&(a, b), {8, 5}));
}

TEST(Binary, MinMaxPropagateNaNFminFmaxDoNot) {
  Tensor x = make_tensor<float>({1, kNaN, 3}), y = make_tensor<float>({2, 2, kNaN});
  EXPECT_TRUE(same_values<float>(maximum(x, y), {2, kNaN, kNaN}));
  EXPECT_TRUE(same_values<float>(minimum(x, y), {1, kNaN, kNaN}));
  EXPECT_TRUE(same_values<float>(fmax(x, y), {2, 2, 3}));
  EXPECT_TRUE(same_values<float>(fmin(x, y), {1, 2, 3}));
  EXPECT_TRUE(same_values<int16_t>(maximum(make_tensor<int16_t>({-5, 7}), make_tensor<int16_t>({3, 2})), {3, 7}));
  Tensor big_x = full({1000}, 1.0), big_y = full({1000}, 2.0);
  big_x.narrow(0, 500, 1).fill_(NAN);  // the vectorized loop must propagate NaN too
  std::vector<float> m = values<float>(maximum(big_x, big_y));
  EXPECT_TRUE(std::isnan(m[500]));
  EXPECT_EQ(m[499], 2.0f);
}

TEST(Binary, WhereClampLerpAddc) {
  Tensor c = make_bool_tensor({1, 0, 1}, {3});
  EXPECT_TRUE(
      same_values<float>(where(c, make_tensor<float>({1, 2, 3}), make_tensor<float>({-1, -2, -3})), {1, -2, 3}));
  EXPECT_TRUE(same_values<int64_t>(where(make_bool_tensor({1, 0}, {2, 1}), make_tensor<int64_t>({1, 2, 3}),
                                         make_tensor<int64_t>({0}, {})),
                                   {1, 2, 3, 0, 0, 0}));
  Tensor x = make_tensor<float>({-2, 0.5f, kNaN, 3});
  EXPECT_TRUE(same_values<float>(clamp(x, Scalar(-1), Scalar(1)), {-1, 0.5f, kNaN, 1}));
  EXPECT_TRUE(same_values<float>(clamp(make_tensor<float>({1, 5}), Scalar(3), Scalar(2)), {2, 2}));  // min > max: max
  EXPECT_TRUE(same_values<float>(clamp_min(x, 0), {0, 0.5f, kNaN, 3}));
  EXPECT_TRUE(same_values<float>(clamp_max(x, 0), {-2, 0, kNaN, 0}));
  EXPECT_TRUE(same_values<int32_t>(clamp(make_tensor<int32_t>({-5, 5, 50}), Scalar(0), Scalar(10)), {0, 5, 10}));
  EXPECT_TRUE(same_values<float>(
      clamp(make_tensor<float>({1, 5, 9}), std::optional<Tensor>(make_tensor<float>({2, 2, 2})),
            std::optional<Tensor>(make_tensor<float>({3, 4, 8}))),
      {2, 4, 8}));
  EMBER_EXPECT_ERROR(clamp(x, std::optional<Scalar>(), std::optional<Scalar>()), Runtime,
                     "At least one of 'min' or 'max' must not be None");
  EXPECT_TRUE(same_values<float>(lerp(make_tensor<float>({0, 10}), make_tensor<float>({10, 20}), 0.25), {2.5f, 12.5f}));
  EXPECT_TRUE(same_values<float>(
      lerp(make_tensor<float>({0, 10}), make_tensor<float>({10, 20}), make_tensor<float>({1, 0.5f})), {10, 15}));
  EMBER_EXPECT_ERROR(lerp(ones({2}), ones({2}, kFloat64), 0.5), Runtime, "lerp");
  EXPECT_TRUE(same_values<float>(
      addcdiv(make_tensor<float>({1, 1}), make_tensor<float>({1, 2}), make_tensor<float>({2, 4}), 2), {2, 2}));
  EXPECT_TRUE(same_values<float>(
      addcmul(make_tensor<float>({1, 1}), make_tensor<float>({1, 2}), make_tensor<float>({2, 4}), 0.5), {2, 5}));
  EMBER_EXPECT_ERROR(addcdiv(ones({1}, kInt64), ones({1}, kInt64), ones({1}, kInt64)), Runtime,
                     "Integer division with addcdiv is no longer supported");
}

}  // namespace
