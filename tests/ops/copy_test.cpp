// copy_ (dtype conversion, broadcasting, overlapping self-copies), clone's memory formats, contiguous, to().
#include <gtest/gtest.h>

#include <cmath>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_bool_tensor;
using ember::testing::make_tensor;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;

TEST(Copy, ConvertsDtypes) {
  Tensor f = make_tensor<float>({-2.7f, -0.5f, 0.0f, 1.9f, 300.5f});
  EXPECT_EQ(values<int32_t>(empty({5}, kInt32).copy_(f)), (std::vector<int32_t>{-2, 0, 0, 1, 300}));  // truncation
  EXPECT_EQ(values<bool>(empty({5}, kBool).copy_(f)), (std::vector<bool>{true, true, false, true, true}));
  EXPECT_EQ(values<double>(empty({5}, kFloat64).copy_(f))[0], static_cast<double>(-2.7f));
  std::vector<Half> h = values<Half>(empty({5}, kFloat16).copy_(f));
  EXPECT_EQ(float(h[0]), float(Half(-2.7f)));
  EXPECT_EQ(float(h[4]), 300.5f);
  Tensor b = make_bool_tensor({1, 0, 1}, {3});
  EXPECT_EQ(values<float>(empty({3}).copy_(b)), (std::vector<float>{1, 0, 1}));
  EXPECT_EQ(values<int64_t>(empty({3}, kInt64).copy_(b)), (std::vector<int64_t>{1, 0, 1}));
  Tensor i = make_tensor<int64_t>({-1, 256, 3});
  EXPECT_EQ(values<uint8_t>(empty({3}, kUInt8).copy_(i)), (std::vector<uint8_t>{255, 0, 3}));  // wraps as C++ does
  Tensor bf = empty({1}, kBFloat16).copy_(make_tensor<double>({1.0 + 1.0 / 256}));
  EXPECT_EQ(float(values<BFloat16>(bf)[0]), 1.0f);  // round to nearest even through float
  Tensor nanf = make_tensor<float>({NAN, INFINITY});
  std::vector<Half> hn = values<Half>(empty({2}, kFloat16).copy_(nanf));
  EXPECT_TRUE(std::isnan(float(hn[0])));
  EXPECT_TRUE(std::isinf(float(hn[1])));
}

TEST(Copy, BroadcastsAndWritesThroughStrides) {
  Tensor dst = zeros({2, 3}, kInt32);
  dst.copy_(make_tensor<int64_t>({7, 8, 9}));
  EXPECT_EQ(values<int32_t>(dst), (std::vector<int32_t>{7, 8, 9, 7, 8, 9}));
  dst.copy_(make_tensor<float>({1.5f, 2.5f}, {2, 1}));
  EXPECT_EQ(values<int32_t>(dst), (std::vector<int32_t>{1, 1, 1, 2, 2, 2}));
  dst.copy_(scalar_tensor(4, kInt64));
  EXPECT_EQ(values<int32_t>(dst), (std::vector<int32_t>(6, 4)));
  Tensor t = zeros({3, 2});
  t.t().copy_(arange(6, kFloat32).reshape({2, 3}));  // destination transposed
  EXPECT_EQ(values<float>(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor src = arange(12, kFloat64).reshape({3, 4}).slice(1, std::nullopt, std::nullopt, 2);  // stepped source
  Tensor d = empty({3, 2}, kFloat64).copy_(src);
  EXPECT_EQ(values<double>(d), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EMBER_EXPECT_ERROR(zeros({2, 3}).copy_(zeros({4})), Runtime, "");
  EMBER_EXPECT_ERROR(zeros({3}).copy_(zeros({2, 3})), Runtime, "");
  uint32_t v = dst._version();
  dst.copy_(dst.clone());
  EXPECT_EQ(dst._version(), v + 1);
  Tensor empty_dst = zeros({0, 3});
  EXPECT_NO_THROW(empty_dst.copy_(ones({3})));
}

TEST(Copy, OverlappingCopiesRaiseOrReadBeforeWriting) {
  // Note [memory overlap]: dense views that partly overlap raise, as PyTorch's copy_ (x[1:] = x[:-1]).
  auto expect_overlap_error = [](auto&& f) {
    try {
      f();
      ADD_FAILURE() << "expected an overlap error";
    } catch (const ember::Error& e) {
      EXPECT_NE(std::string(e.what()).find("copy_: unsupported operation: some elements"), std::string::npos)
          << e.what();
    }
  };
  Tensor x = arange(6, kFloat32);
  expect_overlap_error([&] { x.slice(0, 1).copy_(x.slice(0, 0, -1)); });
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 1, 2, 3, 4, 5}));  // nothing written
  Tensor m = arange(9, kFloat32).reshape({3, 3});
  expect_overlap_error([&] { m.copy_(m.t()); });
  // Strided views whose overlap is too hard to decide cheaply pass, as in PyTorch, and Ember reads the source
  // before writing: x[2::2] = x[0:8:2] gives what copying from a clone gives.
  Tensor y = arange(10, kInt64);
  y.slice(0, 2, 10, 2).copy_(y.slice(0, 0, 8, 2));
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{0, 1, 0, 3, 2, 5, 4, 7, 6, 9}));
  Tensor z = arange(4, kInt32);
  z.copy_(z);  // the same tensor: nothing to do
  EXPECT_EQ(values<int32_t>(z), (std::vector<int32_t>{0, 1, 2, 3}));
  Tensor w = arange(4, kInt32);
  w.copy_(w.view({4}).to(kFloat64));
  EXPECT_EQ(values<int32_t>(w), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(Copy, ClonePreservesStridesContiguousDoesNot) {
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  Tensor xt = x.t();  // (3, 2) strides (1, 3)
  Tensor c = xt.clone();
  EXPECT_EQ(vec(c.strides()), (Shape{1, 3}));  // preserve_format keeps a dense layout
  EXPECT_NE(c.impl()->storage().get(), x.impl()->storage().get());
  EXPECT_EQ(values<float>(c), values<float>(xt));
  Tensor cc = xt.clone(MemoryFormat::Contiguous);
  EXPECT_EQ(vec(cc.strides()), (Shape{2, 1}));
  EXPECT_EQ(values<float>(cc), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor k = xt.contiguous();
  EXPECT_TRUE(k.is_contiguous());
  EXPECT_EQ(vec(k.strides()), (Shape{2, 1}));
  EXPECT_EQ(values<float>(k), values<float>(cc));
  EXPECT_TRUE(x.contiguous().is_same(x));  // already contiguous: self
  // Non-dense inputs (expanded, stepped) clone to contiguous tensors.
  Tensor e = make_tensor<float>({1, 2}, {2, 1}).expand({2, 3});
  EXPECT_EQ(vec(e.clone().strides()), (Shape{3, 1}));
  Tensor s = arange(8, kFloat32).slice(0, std::nullopt, std::nullopt, 2);
  EXPECT_EQ(vec(s.clone().strides()), (Shape{1}));
  EXPECT_EQ(values<float>(s.clone()), (std::vector<float>{0, 2, 4, 6}));
  Tensor p = arange(24, kFloat32).reshape({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(vec(p.clone().strides()), vec(p.strides()));
  EXPECT_EQ(values<float>(p.clone()), values<float>(p));
  EXPECT_EQ(scalar_tensor(3.0).clone().item<float>(), 3.0f);
  EXPECT_EQ(zeros({0, 2}).t().clone().numel(), 0);
}

TEST(Copy, ToDtype) {
  Tensor x = make_tensor<float>({1.5f, -2.5f});
  EXPECT_TRUE(x.to(kFloat32).is_same(x));  // no conversion: self
  Tensor c = x.to(kFloat32, false, /*copy=*/true);
  EXPECT_FALSE(c.is_same(x));
  EXPECT_EQ(values<float>(c), values<float>(x));
  EXPECT_EQ(values<int64_t>(x.to(kInt64)), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(x.to(make_tensor<double>({0})).dtype(), kFloat64);
  EXPECT_EQ(x.to(std::optional<DType>(kInt8), std::optional<Device>(kCPU)).dtype(), kInt8);
  EXPECT_EQ(_to_copy(x, kFloat16).dtype(), kFloat16);
  Tensor m = arange(6, kFloat32).reshape({2, 3}).t();
  Tensor md = m.to(kFloat64);  // preserve_format, as PyTorch: x.t().to(torch.float64).stride() == (1, 3)
  EXPECT_EQ(vec(md.strides()), (Shape{1, 3}));
  EXPECT_EQ(values<double>(md), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EMBER_EXPECT_ERROR(x.to(std::nullopt, Device("cuda")), Runtime, "cuda");
}

TEST(Copy, EqualAndItem) {
  Tensor a = make_tensor<int32_t>({1, 2, 3});
  EXPECT_TRUE(a.equal(make_tensor<int32_t>({1, 2, 3})));
  EXPECT_FALSE(a.equal(make_tensor<int32_t>({1, 2, 4})));
  EXPECT_FALSE(a.equal(make_tensor<int32_t>({1, 2})));
  EXPECT_TRUE(a.equal(make_tensor<double>({1, 2, 3})));  // values compared after promotion
  EXPECT_EQ(_local_scalar_dense(a.select(0, 2)).to_long(), 3);
}

}  // namespace
