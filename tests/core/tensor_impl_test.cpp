// TensorImpl geometry (bounds against the storage, contiguity, dims), the view primitive, versions, and the
// Tensor handle and Scalar of the core.
#include <gtest/gtest.h>

#include "TestSupport.h"

#include <limits>
#include <string>
#include <vector>

#include "ember/core/Tensor.h"

namespace {

using namespace ember;

using ember::testing::expect_error;
using ember::testing::vec;

Storage storage_of_floats(int64_t n) { return make_intrusive<StorageImpl>(static_cast<size_t>(n * 4)); }

TEST(Geometry, ContiguousStrides) {
  EXPECT_EQ(vec(contiguous_strides({2, 3, 4})), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(vec(contiguous_strides({})), (std::vector<int64_t>{}));
  EXPECT_EQ(vec(contiguous_strides({5})), (std::vector<int64_t>{1}));
  // An empty tensor's strides wrap around as PyTorch's (found by the idx fuzz target: signed overflow).
  EXPECT_EQ(vec(contiguous_strides({0, int64_t{1} << 32, int64_t{1} << 32})),
            (std::vector<int64_t>{0, int64_t{1} << 32, 1}));
  EXPECT_EQ(vec(contiguous_strides({0, int64_t{1} << 62, 4})), (std::vector<int64_t>{0, 4, 1}));
  // Zero-size dims count as 1, as PyTorch: torch.empty(2, 0, 3).stride() == (3, 3, 1).
  EXPECT_EQ(vec(contiguous_strides({2, 0, 3})), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(vec(contiguous_strides({0, 4, 1})), (std::vector<int64_t>{4, 1, 1}));
  EXPECT_EQ(vec(contiguous_strides({3, 0})), (std::vector<int64_t>{1, 1}));
}

TEST(Geometry, CheckedNumel) {
  EXPECT_EQ(checked_numel({}), 1);
  EXPECT_EQ(checked_numel({2, 3, 4}), 24);
  EXPECT_EQ(checked_numel({2, 0, 4}), 0);
  expect_error([] { checked_numel({2, -1}); });
  expect_error([] { checked_numel({int64_t{1} << 40, int64_t{1} << 40}); });
}

TEST(Geometry, WrapDim) {
  EXPECT_EQ(wrap_dim(-1, 3), 2);
  EXPECT_EQ(wrap_dim(-3, 3), 0);
  EXPECT_EQ(wrap_dim(2, 3), 2);
  EXPECT_EQ(wrap_dim(0, 0), 0);  // a 0-dim tensor accepts -1 and 0
  EXPECT_EQ(wrap_dim(-1, 0), 0);
  Error e = expect_error([] { wrap_dim(3, 3); }, ErrorKind::Index);
  EXPECT_STREQ(e.what(), "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  e = expect_error([] { wrap_dim(-4, 3); }, ErrorKind::Index);
  EXPECT_STREQ(e.what(), "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
  e = expect_error([] { wrap_dim(1, 0); }, ErrorKind::Index);
  EXPECT_STREQ(e.what(), "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST(TensorImpl, GeometryInsideStorage) {
  Storage s = storage_of_floats(6);
  TensorImpl t(s, kFloat32, {2, 3}, {3, 1}, 0);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.stride(0), 3);
  EXPECT_EQ(t.data(), s->data());
  TensorImpl u(s, kFloat32, {2}, {2}, 3);  // elements 3 and 5
  EXPECT_EQ(static_cast<char*>(u.data()) - static_cast<char*>(s->data()), 12);
  EXPECT_FALSE(u.is_contiguous());
  EXPECT_EQ(s.use_count(), 3u);  // the local handle and two impls
}

TEST(TensorImpl, OutOfBoundsGeometryRaises) {
  Storage s = storage_of_floats(6);
  Error e = expect_error([&] { TensorImpl(s, kFloat32, {2, 3}, {3, 1}, 1); });
  EXPECT_NE(std::string(e.what()).find("out of bounds for storage of size 24"), std::string::npos) << e.what();
  expect_error([&] { TensorImpl(s, kFloat32, {2, 4}, {4, 1}, 0); });
  expect_error([&] { TensorImpl(s, kFloat32, {7}, {1}, 0); });
  expect_error([&] { TensorImpl(s, kFloat32, {2}, {6}, 0); });           // reaches element 6
  expect_error([&] { TensorImpl(s, kFloat64, {2, 3}, {3, 1}, 0); });     // 48 bytes needed
  expect_error([&] { TensorImpl(s, kFloat32, {2, -3}, {3, 1}, 0); });    // negative size
  expect_error([&] { TensorImpl(s, kFloat32, {2, 3}, {3, -1}, 2); });    // negative stride
  expect_error([&] { TensorImpl(s, kFloat32, {2}, {1}, -1); });          // negative offset
  expect_error([&] { TensorImpl(s, kFloat32, {2, 3}, {1}, 0); });        // rank mismatch
  // Broadcast (stride 0) and empty tensors need no (or little) storage.
  EXPECT_NO_THROW(TensorImpl(s, kFloat32, {1000, 6}, {0, 1}, 0));
  EXPECT_NO_THROW(TensorImpl(s, kFloat32, {0, 100}, {100, 1}, 50));
  // Huge strides or offsets must not wrap around to a small extent that passes the bounds check.
  Error big = expect_error([&] { TensorImpl(s, kFloat32, {2}, {int64_t{1} << 62}, 0); });
  EXPECT_TRUE(ember::testing::contains(big.what(), "out of bounds"));
  expect_error([&] { TensorImpl(s, kFloat32, {1}, {1}, int64_t{1} << 62); });
  expect_error([&] { TensorImpl(s, kFloat32, {3, 3}, {int64_t{1} << 61, int64_t{1} << 61}, 0); });
  expect_error([&] { TensorImpl(s, kFloat32, {1}, {1}, std::numeric_limits<int64_t>::max()); });
  TensorImpl t(s, kFloat32, {6}, {1}, 0);
  expect_error([&] { t.set_geometry({3}, {1}, 4); });
  EXPECT_EQ(t.numel(), 6);  // a failed set_geometry leaves the tensor unchanged
  t.set_geometry({3}, {2}, 1);
  EXPECT_EQ(vec(t.sizes()), (std::vector<int64_t>{3}));
  EXPECT_EQ(t.storage_offset(), 1);
}

TEST(TensorImpl, SizeAndStrideErrors) {
  Tensor t = make_empty({2, 3}, kFloat32);
  Error e = expect_error([&] { t.size(2); }, ErrorKind::Index);
  EXPECT_STREQ(e.what(), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error([&] { t.stride(-3); }, ErrorKind::Index);
  Tensor s = make_empty({}, kFloat32);
  expect_error([&] { s.size(0); }, ErrorKind::Index);
}

TEST(TensorImpl, Contiguity) {
  Storage s = storage_of_floats(24);
  EXPECT_TRUE(TensorImpl(s, kFloat32, {2, 3, 4}, {12, 4, 1}, 0).is_contiguous());
  EXPECT_FALSE(TensorImpl(s, kFloat32, {3, 2}, {1, 3}, 0).is_contiguous());       // transposed
  EXPECT_TRUE(TensorImpl(s, kFloat32, {2, 1, 3}, {3, 99, 1}, 0).is_contiguous());  // size-1 dim: any stride
  EXPECT_TRUE(TensorImpl(s, kFloat32, {0, 3}, {7, 5}, 0).is_contiguous());         // empty
  EXPECT_FALSE(TensorImpl(s, kFloat32, {2, 3}, {0, 1}, 0).is_contiguous());        // broadcast
  EXPECT_TRUE(TensorImpl(s, kFloat32, {}, {}, 5).is_contiguous());
  EXPECT_FALSE(TensorImpl(s, kFloat32, {3}, {2}, 0).is_contiguous());
}

TEST(TensorImpl, ResizeKeepsOrReplacesStorage) {
  Tensor t = make_empty({2, 3}, kFloat32);
  const StorageImpl* before = t.impl()->storage().get();
  t.impl()->resize({3, 2});
  EXPECT_EQ(t.impl()->storage().get(), before);
  EXPECT_EQ(vec(t.strides()), (std::vector<int64_t>{2, 1}));
  t.impl()->resize({5});
  EXPECT_EQ(t.impl()->storage().get(), before);
  t.impl()->resize({4, 4});
  EXPECT_NE(t.impl()->storage().get(), before);
  EXPECT_GE(t.impl()->storage()->nbytes(), 64u);
  EXPECT_EQ(t.numel(), 16);
  EXPECT_TRUE(t.is_contiguous());
}

TEST(Tensor, ViewPrimitiveSharesStorageAndVersion) {
  Tensor base = make_empty({2, 3}, kInt32);
  for (int i = 0; i < 6; ++i) base.data_ptr<int32_t>()[i] = i;
  Tensor v = make_view(base, {3}, {1}, 3);  // second row
  EXPECT_EQ(v.impl()->storage().get(), base.impl()->storage().get());
  EXPECT_EQ(v.data_ptr<int32_t>()[0], 3);
  v.data_ptr<int32_t>()[1] = 40;
  EXPECT_EQ(base.data_ptr<int32_t>()[4], 40);  // write through the view is visible in the base
  EXPECT_EQ(base._version(), 0u);
  v.impl()->bump_version();
  EXPECT_EQ(base._version(), 1u);
  EXPECT_EQ(v._version(), 1u);
  Tensor other = make_empty({6}, kInt32);
  EXPECT_EQ(other._version(), 0u);
  expect_error([&] { make_view(base, {4}, {1}, 3); });
}

TEST(Tensor, HandleSemantics) {
  Tensor a = make_empty({4}, kFloat32);
  EXPECT_TRUE(a.defined());
  EXPECT_FALSE(Tensor().defined());
  EXPECT_EQ(a.use_count(), 1u);
  Tensor b = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_TRUE(b.is_same(a));
  EXPECT_FALSE(make_empty({4}, kFloat32).is_same(a));
  EXPECT_EQ(a.nbytes(), 16);
  EXPECT_EQ(a.element_size(), 4);
  EXPECT_TRUE(a.is_cpu());
  EXPECT_TRUE(a.is_floating_point());
  EXPECT_EQ(a.device(), kCPU);
}

TEST(Tensor, ItemAndTypedData) {
  Tensor t = make_empty({}, kFloat64);
  *t.data_ptr<double>() = 2.5;
  EXPECT_EQ(t.item<double>(), 2.5);
  EXPECT_EQ(t.item<int64_t>(), 2);
  EXPECT_TRUE(t.item().is_floating_point());
  Tensor h = make_empty({1, 1}, kFloat16);
  *h.data_ptr<Half>() = Half(0.5f);
  EXPECT_EQ(h.item<float>(), 0.5f);
  Tensor bl = make_empty({1}, kBool);
  *bl.data_ptr<bool>() = true;
  EXPECT_TRUE(bl.item().is_bool());
  Error e = expect_error([] { make_empty({2}, kFloat32).item(); });
  EXPECT_STREQ(e.what(), "a Tensor with 2 elements cannot be converted to Scalar");
  e = expect_error([&] { t.data_ptr<float>(); });
  EXPECT_STREQ(e.what(), "data_ptr: expected a tensor of dtype float32 but got float64");
}

TEST(Tensor, MakeEmptyOverflowRaises) {
  expect_error([] { make_empty({int64_t{1} << 62}, kFloat64); });
  expect_error([] { make_empty({-1}, kFloat32); });
  Tensor z = make_empty({0, 5}, kFloat32);
  EXPECT_EQ(z.numel(), 0);
  EXPECT_EQ(z.data_ptr(), nullptr);
}

TEST(Scalar, TagsAndConversions) {
  EXPECT_EQ(Scalar(true).dtype(), kBool);
  EXPECT_EQ(Scalar(3).dtype(), kInt64);
  EXPECT_EQ(Scalar(int8_t{3}).dtype(), kInt64);
  EXPECT_EQ(Scalar(2.5).dtype(), kFloat64);
  EXPECT_EQ(Scalar(2.5f).dtype(), kFloat64);
  EXPECT_EQ(Scalar(Half(1.5f)).to<double>(), 1.5);
  EXPECT_EQ(Scalar(-2.7).to<int64_t>(), -2);
  EXPECT_EQ(Scalar(3).to<double>(), 3.0);
  EXPECT_TRUE(Scalar(0.5).to<bool>());
  EXPECT_FALSE(Scalar(0).to<bool>());
  EXPECT_EQ(float(Scalar(3).to<Half>()), 3.0f);
  EXPECT_TRUE(Scalar(3).equal(Scalar(int64_t{3})));
  EXPECT_FALSE(Scalar(3).equal(Scalar(3.0)));
  EXPECT_EQ(Scalar(true).str(), "True");
  EXPECT_EQ(Scalar(-7).str(), "-7");
  EXPECT_EQ(Scalar(2.5).str(), "2.5");
  EXPECT_EQ(Scalar().to_long(), 0);
}

}  // namespace
