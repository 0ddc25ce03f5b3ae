// Factories: dtype inference (full, arange), values of arange/linspace/logspace/eye (expected values from
// PyTorch 1.13), *_like, the default dtype, and the errors PyTorch raises.
#include <gtest/gtest.h>

#include <cmath>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;

struct DefaultDtypeGuard {
  DType saved = default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

TEST(Factories, EmptyZerosOnes) {
  Tensor e = empty({2, 3});
  EXPECT_EQ(e.dtype(), kFloat32);
  EXPECT_EQ(vec(e.sizes()), (Shape{2, 3}));
  EXPECT_EQ(vec(e.strides()), (Shape{3, 1}));
  EXPECT_EQ(empty({4}, kInt16).dtype(), kInt16);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(empty({3}, kUInt8).data_ptr()) % 64, 0u);  // 64-byte aligned
  EXPECT_EQ(values<double>(zeros({2, 2}, kFloat64)), (std::vector<double>(4, 0.0)));
  EXPECT_EQ(values<int32_t>(ones({3}, kInt32)), (std::vector<int32_t>(3, 1)));
  EXPECT_EQ(values<bool>(ones({2}, kBool)), (std::vector<bool>{true, true}));
  EXPECT_EQ(float(values<Half>(ones({1}, kFloat16))[0]), 1.0f);
  EXPECT_EQ(zeros({0, 5}).numel(), 0);
  EXPECT_EQ(zeros({}).dim(), 0);
  Tensor s = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(vec(s.strides()), (Shape{1, 2}));
  EXPECT_EQ(s.impl()->storage()->nbytes(), 24u);
  EMBER_EXPECT_ERROR(zeros({2, -1}), Runtime, "negative dimension -1");
  EMBER_EXPECT_ERROR(empty({2}, std::nullopt, Device("cuda:0")), Runtime, "cuda:0");
  EMBER_EXPECT_ERROR(zeros({2}, std::nullopt, Device("cuda")), Runtime, "cuda");
}

TEST(Factories, FullInfersItsDtypeFromTheFillValue) {
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 3).dtype(), kInt64);
  EXPECT_EQ(full({2}, 3.5).dtype(), kFloat32);
  EXPECT_EQ(values<int64_t>(full({2}, 3)), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values<int32_t>(full({2}, 2.5, kInt32)), (std::vector<int32_t>{2, 2}));  // truncates, as PyTorch
  {
    DefaultDtypeGuard g;
    set_default_dtype(kFloat64);
    EXPECT_EQ(full({1}, 0.5).dtype(), kFloat64);
    EXPECT_EQ(empty({1}).dtype(), kFloat64);
    EXPECT_EQ(scalar_tensor(2).dtype(), kFloat64);
  }
  EXPECT_EQ(scalar_tensor(2).dtype(), kFloat32);
  EXPECT_EQ(scalar_tensor(7, kInt64).item<int64_t>(), 7);
  EMBER_EXPECT_ERROR(full({2}, 300, kUInt8), Runtime, "value cannot be converted to type uint8 without overflow");
  EMBER_EXPECT_ERROR(full({2}, 1e40, kFloat32), Runtime, "value cannot be converted to type float32 without overflow");
  EMBER_EXPECT_ERROR(full({2}, 70000.0, kFloat16), Runtime, "without overflow");
  EMBER_EXPECT_ERROR(zeros({2}, kInt8).fill_(200), Runtime, "value cannot be converted to type int8 without overflow");
  EXPECT_TRUE(std::isinf(full({1}, INFINITY, kFloat16).item<float>()));  // infinities are not overflow
  EXPECT_TRUE(std::isnan(full({1}, NAN, kFloat32).item<float>()));
}

TEST(Factories, Arange) {
  Tensor a = arange(5);
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values<float>(arange(0, 1, 0.25)), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  // arange(start, end) is ambiguous in C++ (arange.start and arange.start_step with its default step), so
  // the step is spelled out.
  EXPECT_EQ(arange(1, 2.5, 1).dtype(), kFloat32);  // any float argument: the default dtype
  EXPECT_EQ(values<int64_t>(arange(10, 0, -3)), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(values<float>(arange(0, 10, 3, kFloat32)), (std::vector<float>{0, 3, 6, 9}));
  EXPECT_EQ(values<float>(arange(-1.5, 1.5, 0.5)), (std::vector<float>{-1.5, -1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(values<float>(arange(0, 5, 1.5)), (std::vector<float>{0, 1.5, 3, 4.5}));
  EXPECT_EQ(arange(0.1, 0.4, 0.1).numel(), 4);  // ceil((0.4 - 0.1) / 0.1) in double is 4, as in PyTorch
  EXPECT_EQ(values<double>(arange(1, 4, 1, kFloat64)), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(arange(5, 5, 1).numel(), 0);
  EXPECT_EQ(values<int64_t>(arange(int64_t{1} << 40, (int64_t{1} << 40) + 2, 1)),
            (std::vector<int64_t>{int64_t{1} << 40, (int64_t{1} << 40) + 1}));  // exact for large integers
  EXPECT_EQ(values<uint8_t>(arange(3, kUInt8)), (std::vector<uint8_t>{0, 1, 2}));
  EMBER_EXPECT_ERROR(arange(0, 10, 0), Runtime, "step must be nonzero");
  EMBER_EXPECT_ERROR(arange(10, 0, 1), Runtime, "upper bound and larger bound inconsistent with step sign");
  EMBER_EXPECT_ERROR(arange(0, INFINITY, 1), Runtime, "unsupported range: 0 -> inf");
  EMBER_EXPECT_ERROR(arange(0, NAN, 1), Runtime, "unsupported range");
}

TEST(Factories, LinspaceLogspace) {
  EXPECT_EQ(values<float>(linspace(0, 1, 5)), (std::vector<float>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values<float>(linspace(-1, 1, 1)), (std::vector<float>{-1}));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(values<int64_t>(linspace(0, 10, 4, kInt64)), (std::vector<int64_t>{0, 3, 6, 10}));
  // PyTorch's float32 values, bit for bit (both ends are exact; the halves count from either end).
  EXPECT_EQ(values<float>(linspace(0, 1, 7)),
            (std::vector<float>{0.0f, 0.1666666716337204f, 0.3333333432674408f, 0.5f, 0.6666666269302368f,
                                0.8333333134651184f, 1.0f}));
  EXPECT_EQ(values<float>(logspace(0, 3, 4)), (std::vector<float>{1, 10, 100, 1000}));
  EXPECT_EQ(values<float>(logspace(0, 2, 3, 2.0)), (std::vector<float>{1, 2, 4}));
  EXPECT_EQ(values<int64_t>(logspace(0, 2, 3, 10.0, kInt64)), (std::vector<int64_t>{1, 10, 100}));
  std::vector<float> lg = values<float>(logspace(-1, 1, 5));
  const float want[] = {0.10000000149011612f, 0.3162277638912201f, 1.0f, 3.1622776985168457f, 10.0f};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(lg[i], want[i], 2e-7 * want[i]) << i;
  EMBER_EXPECT_ERROR(linspace(0, 1, -1), Runtime, "number of steps must be non-negative");
  EMBER_EXPECT_ERROR(logspace(0, 1, -1), Runtime, "number of steps must be non-negative");
}

TEST(Factories, Eye) {
  EXPECT_EQ(values<float>(eye(2, 3)), (std::vector<float>{1, 0, 0, 0, 1, 0}));
  Tensor i = eye(3, kInt32);
  EXPECT_EQ(i.dtype(), kInt32);
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(values<float>(eye(3, 1)), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(eye(0).numel(), 0);
  EMBER_EXPECT_ERROR(eye(-1), Runtime, "n must be greater or equal to 0, got -1");
  EMBER_EXPECT_ERROR(eye(2, -1), Runtime, "m must be greater or equal to 0, got -1");
}

TEST(Factories, LikeFactories) {
  Tensor x = arange(6, kInt16).reshape({2, 3});
  Tensor z = zeros_like(x);
  EXPECT_EQ(z.dtype(), kInt16);
  EXPECT_EQ(vec(z.sizes()), (Shape{2, 3}));
  EXPECT_FALSE(z.is_same(x));
  EXPECT_EQ(values<int16_t>(z), (std::vector<int16_t>(6, 0)));
  EXPECT_EQ(values<double>(ones_like(x, kFloat64)), (std::vector<double>(6, 1.0)));
  EXPECT_EQ(values<int16_t>(full_like(x, 7)), (std::vector<int16_t>(6, 7)));
  EXPECT_EQ(full_like(x, 2.5).dtype(), kInt16);  // *_like keeps self's dtype
  EXPECT_EQ(empty_like(x.t()).sizes().vec(), (Shape{3, 2}));
  // preserve_format: a transposed (dense) self gives transposed strides, as PyTorch (zeros_like(x.t()).stride()
  // == (1, 3)); a contiguous request or a non-dense self gives contiguous strides.
  EXPECT_EQ(vec(zeros_like(x.t()).strides()), (Shape{1, 3}));
  EXPECT_EQ(vec(empty_like(x.t(), std::nullopt, std::nullopt, MemoryFormat::Contiguous).strides()), (Shape{2, 1}));
  EXPECT_EQ(vec(ones_like(make_tensor<float>({1, 2}, {2, 1}).expand({2, 3})).strides()), (Shape{3, 1}));
  EXPECT_EQ(vec(full_like(arange(8, kInt32).slice(0, std::nullopt, std::nullopt, 2), 1).strides()), (Shape{1}));
  Tensor p = arange(24, kFloat32).reshape({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(vec(empty_like(p, kFloat64).strides()), vec(p.strides()));
  EXPECT_EQ(values<float>(zeros_like(p)), (std::vector<float>(24, 0.0f)));
  EXPECT_EQ(zeros_like(scalar_tensor(1.0)).dim(), 0);
  EMBER_EXPECT_ERROR(full_like(x, 1e6), Runtime, "value cannot be converted to type int16 without overflow");
}

TEST(Factories, FromBlobAndBuffers) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(data, {2, 3}, kFloat32);
  EXPECT_EQ(t.data_ptr(), data);  // no copy
  EXPECT_EQ(values<float>(t.t()), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  t.mul_(scalar_tensor(2.0));
  EXPECT_EQ(data[5], 10.0f);  // writes reach the caller's memory
  Tensor s = from_blob(data, {3}, {2}, kFloat32);
  EXPECT_EQ(values<float>(s), (std::vector<float>{0, 4, 8}));
  static int deleted = 0;
  {
    Tensor d = from_blob(data, {6}, {1}, kFloat32, [](void*, void*) { ++deleted; }, nullptr);
    Tensor v = d.view({2, 3});
    d = Tensor();
    EXPECT_EQ(deleted, 0);  // a view keeps the memory alive
  }
  EXPECT_EQ(deleted, 1);
  EMBER_EXPECT_ERROR(from_blob(data, {2}, {-1}, kFloat32), Runtime, "negative size or stride");
  EMBER_EXPECT_ERROR(from_blob(data, {2, 2}, {int64_t{1} << 62, 1}, kFloat32), Runtime, "more than 2^63 bytes");
  int16_t raw[4] = {1, -2, 3, -4};
  Tensor c = tensor_from_buffer(raw, {2, 2}, kInt16);
  raw[0] = 100;
  EXPECT_EQ(values<int16_t>(c), (std::vector<int16_t>{1, -2, 3, -4}));  // copied
}

TEST(Factories, FillAndZero) {
  Tensor t = empty({2, 3}, kFloat64);
  uint32_t v = t._version();
  Tensor r = t.fill_(2.5);
  EXPECT_TRUE(r.is_same(t));  // in-place ops return self
  EXPECT_EQ(t._version(), v + 1);
  EXPECT_EQ(values<double>(t), (std::vector<double>(6, 2.5)));
  t.t().zero_();  // through a non-contiguous view
  EXPECT_EQ(values<double>(t), (std::vector<double>(6, 0.0)));
  Tensor b = empty({3}, kBool).fill_(2);
  EXPECT_EQ(values<bool>(b), (std::vector<bool>{true, true, true}));
  Tensor h = empty({2}, kBFloat16).fill_(1.0 / 3);
  EXPECT_EQ(values<BFloat16>(h)[0].x, BFloat16(1.0f / 3).x);
  Tensor s = zeros({4}, kInt32);
  s.slice(0, std::nullopt, std::nullopt, 2).fill_(5);
  EXPECT_EQ(values<int32_t>(s), (std::vector<int32_t>{5, 0, 5, 0}));
}

}  // namespace
