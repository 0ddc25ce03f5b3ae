// View ops: sizes, strides and offsets as PyTorch computes them (expected values from PyTorch 1.13), storage
// sharing (a write through a view is visible in the base), the shared version counter, and the errors.
#include <gtest/gtest.h>

#include <limits>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::Shape;
using ember::testing::values;
using ember::testing::vec;

// Sizes, strides, storage offset and contiguity of a tensor, to compare with PyTorch's in one line.
struct Geometry {
  Shape sizes, strides;
  int64_t offset;
  bool contiguous;
  bool operator==(const Geometry&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Geometry& g) {
  return os << fmt::format("sizes {} strides {} offset {} contiguous {}", g.sizes, g.strides, g.offset, g.contiguous);
}
Geometry geom(const Tensor& t) { return {vec(t.sizes()), vec(t.strides()), t.storage_offset(), t.is_contiguous()}; }

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

class Views : public ::testing::Test {
 protected:
  Tensor x = arange(24, kFloat32).reshape({2, 3, 4});  // values 0..23
};

TEST_F(Views, GeometryMatchesPyTorch) {
  EXPECT_EQ(geom(x.view({4, 6})), (Geometry{{4, 6}, {6, 1}, 0, true}));
  EXPECT_EQ(geom(x.view({-1, 4})), (Geometry{{6, 4}, {4, 1}, 0, true}));
  EXPECT_EQ(geom(x.permute({2, 0, 1})), (Geometry{{4, 2, 3}, {1, 12, 4}, 0, false}));
  EXPECT_EQ(geom(x.transpose(-1, 0)), (Geometry{{4, 3, 2}, {1, 4, 12}, 0, false}));
  EXPECT_EQ(geom(arange(3, kFloat32).reshape({3, 1}).expand({2, 3, 4})), (Geometry{{2, 3, 4}, {0, 1, 0}, 0, false}));
  EXPECT_EQ(geom(x.narrow(2, 1, 2)), (Geometry{{2, 3, 2}, {12, 4, 1}, 1, false}));
  EXPECT_EQ(geom(x.select(1, -1)), (Geometry{{2, 4}, {12, 1}, 8, false}));
  EXPECT_EQ(geom(x.slice(1, 1).slice(2, std::nullopt, std::nullopt, 2)), (Geometry{{2, 2, 2}, {12, 4, 2}, 4, false}));
  EXPECT_EQ(geom(x.slice(1, std::nullopt, std::nullopt, 2)), (Geometry{{2, 2, 4}, {12, 8, 1}, 0, false}));
  EXPECT_EQ(geom(zeros({1, 3, 1, 2}).squeeze()), (Geometry{{3, 2}, {2, 1}, 0, true}));
  EXPECT_EQ(geom(zeros({1, 3, 1, 2}).squeeze(2)), (Geometry{{1, 3, 2}, {6, 2, 1}, 0, true}));
  EXPECT_EQ(geom(x.unsqueeze(1)), (Geometry{{2, 1, 3, 4}, {12, 12, 4, 1}, 0, true}));
  EXPECT_EQ(geom(x.unsqueeze(-1)), (Geometry{{2, 3, 4, 1}, {12, 4, 1, 1}, 0, true}));
  EXPECT_EQ(geom(x.transpose(0, 2).unsqueeze(1)), (Geometry{{4, 1, 3, 2}, {1, 12, 4, 12}, 0, false}));
  EXPECT_EQ(geom(x.flatten()), (Geometry{{24}, {1}, 0, true}));
  EXPECT_EQ(geom(x.flatten(1)), (Geometry{{2, 12}, {12, 1}, 0, true}));
  EXPECT_EQ(geom(x.unflatten(2, {2, 2})), (Geometry{{2, 3, 2, 2}, {12, 4, 2, 1}, 0, true}));
  EXPECT_EQ(geom(arange(7, kFloat32).unfold(0, 3, 2)), (Geometry{{3, 3}, {2, 1}, 0, false}));
  EXPECT_EQ(geom(x.unfold(2, 2, 1)), (Geometry{{2, 3, 3, 2}, {12, 4, 1, 1}, 0, false}));
  EXPECT_EQ(geom(x.diagonal(0, 1, 2)), (Geometry{{2, 3}, {12, 5}, 0, false}));
  EXPECT_EQ(geom(x.diagonal(1, 1, 2)), (Geometry{{2, 3}, {12, 5}, 1, false}));
  EXPECT_EQ(geom(x.diagonal(-1, 1, 2)), (Geometry{{2, 2}, {12, 5}, 4, false}));
  EXPECT_EQ(geom(x.diagonal(5, 1, 2)), (Geometry{{2, 0}, {12, 5}, 0, true}));
  EXPECT_EQ(geom(x.movedim(0, -1)), (Geometry{{3, 4, 2}, {4, 1, 12}, 0, false}));
  EXPECT_EQ(geom(x.movedim({0, 1}, {2, 0})), (Geometry{{3, 4, 2}, {4, 1, 12}, 0, false}));
  EXPECT_EQ(geom(x.as_strided({2, 2}, {1, 2}, 1)), (Geometry{{2, 2}, {1, 2}, 1, false}));
  EXPECT_EQ(geom(zeros({2, 3}).t()), (Geometry{{3, 2}, {1, 3}, 0, false}));
  EXPECT_EQ(geom(zeros({3}).t()), (Geometry{{3}, {1}, 0, true}));
  EXPECT_EQ(geom(x.transpose(1, 2).slice(1, 1, 3)), (Geometry{{2, 2, 3}, {12, 1, 4}, 1, false}));
  EXPECT_EQ(geom(zeros({0, 3}).view({3, 0})), (Geometry{{3, 0}, {1, 1}, 0, true}));
}

TEST_F(Views, HugeStepsTakeOneElement) {
  // PyTorch: x[0:5:2**63-1] has one element.
  const int64_t huge = std::numeric_limits<int64_t>::max();
  Tensor s = arange(6, kFloat32).slice(0, 0, 5, huge);
  EXPECT_EQ(vec(s.sizes()), (Shape{1}));
  EXPECT_EQ(values<float>(s), (std::vector<float>{0}));
  Tensor m = arange(6, kFloat32).reshape({3, 2});
  EXPECT_EQ(values<float>(m.slice(0, 1, std::nullopt, huge)), (std::vector<float>{2, 3}));
  Tensor u = m.unfold(0, 2, huge);
  EXPECT_EQ(vec(u.sizes()), (Shape{1, 2, 2}));
  EXPECT_EQ(values<float>(u), (std::vector<float>{0, 2, 1, 3}));
  EXPECT_EQ(vec(arange(6, kFloat32).slice(0, 4, 2).sizes()), (Shape{0}));  // end before start: empty
}

TEST_F(Views, ZeroDimTensors) {
  Tensor s = scalar_tensor(5.0);
  EXPECT_EQ(geom(s.unsqueeze(0)), (Geometry{{1}, {1}, 0, true}));
  EXPECT_EQ(geom(s.unfold(0, 1, 1)), (Geometry{{1}, {1}, 0, true}));
  EXPECT_EQ(geom(s.flatten()), (Geometry{{1}, {1}, 0, true}));
  EXPECT_EQ(geom(s.squeeze(0)), (Geometry{{}, {}, 0, true}));
  EXPECT_EQ(geom(s.view({1, 1})), (Geometry{{1, 1}, {1, 1}, 0, true}));
  EXPECT_EQ(geom(s.reshape({})), (Geometry{{}, {}, 0, true}));
  EXPECT_EQ(geom(s.t()), (Geometry{{}, {}, 0, true}));
  EXPECT_EQ(geom(s.expand({2, 3})), (Geometry{{2, 3}, {0, 0}, 0, false}));
  // view(IntArrayRef{}): a bare {} would pick view(DType), the dtype overload, as in LibTorch.
  EXPECT_EQ(geom(zeros({1}).view(IntArrayRef{})), (Geometry{{}, {}, 0, true}));
}

TEST_F(Views, ViewsShareStorageAndValues) {
  std::vector<Tensor> views = {x.view({4, 6}), x.permute({2, 0, 1}), x.transpose(0, 1), x.narrow(2, 1, 2),
                               x.select(0, 1), x.slice(2, 1, 4, 2), x.unsqueeze(0), x.flatten(), x.unflatten(2, {2, 2}),
                               x.unfold(2, 2, 2), x.diagonal(0, 1, 2), x.movedim(0, 2), x.as_strided({3}, {5}, 2),
                               x.expand({2, 2, 3, 4}), x.detach(), alias(x), x.reshape({6, 4})};
  for (const Tensor& v : views) EXPECT_TRUE(shares_storage(v, x)) << geom(v);
  // Values read through views (PyTorch: x.select(0, 1)[2] == [20, 21, 22, 23] etc.).
  EXPECT_EQ(values<float>(x.select(0, 1).select(0, 2)), (std::vector<float>{20, 21, 22, 23}));
  EXPECT_EQ(values<float>(x.slice(2, 1, 4, 2).select(0, 0).select(0, 0)), (std::vector<float>{1, 3}));
  EXPECT_EQ(values<float>(x.diagonal(0, 1, 2).select(0, 1)), (std::vector<float>{12, 17, 22}));
  EXPECT_EQ(values<float>(x.permute({2, 0, 1}).select(0, 3).select(0, 0)), (std::vector<float>{3, 7, 11}));
  EXPECT_EQ(values<float>(x.unfold(2, 2, 2).select(0, 0).select(0, 0)), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(values<float>(x.as_strided({3}, {5}, 2)), (std::vector<float>{2, 7, 12}));
}

TEST_F(Views, WriteThroughAViewIsVisibleInTheBase) {
  uint32_t v0 = x._version();
  x.select(1, 2).fill_(-1);  // x[:, 2] = -1
  EXPECT_GT(x._version(), v0);  // views share the base's version counter
  std::vector<float> got = values<float>(x);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(got[i], (i % 12) >= 8 ? -1.0f : static_cast<float>(i)) << i;
  x.transpose(0, 2).select(0, 0).zero_();  // x[:, :, 0] = 0
  EXPECT_EQ(values<float>(x.select(2, 0)), (std::vector<float>(6, 0.0f)));
  x.diagonal(0, 1, 2).copy_(full({2, 3}, 9.0));
  EXPECT_EQ(values<float>(x.select(0, 0).select(0, 1)), (std::vector<float>{0, 9, 6, 7}));
  Tensor v = x.view({24});
  v.add_(ones({24}));  // an in-place op on a view bumps the base's version too
  EXPECT_EQ(v._version(), x._version());
  EXPECT_EQ(values<float>(x.select(0, 1).select(0, 0)), (std::vector<float>{10, 14, 15, 16}));
}

TEST_F(Views, ReshapeCopiesOnlyWhenItMust) {
  Tensor r = x.reshape({6, 4});
  EXPECT_TRUE(shares_storage(r, x));
  Tensor tr = x.transpose(0, 1);
  Tensor c = tr.reshape({6, 4});  // not expressible as a view: a copy in logical order
  EXPECT_FALSE(shares_storage(c, x));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(values<float>(c.select(0, 1)), (std::vector<float>{12, 13, 14, 15}));
  EXPECT_TRUE(shares_storage(tr.reshape({3, 2, 4}), x));  // same shape: still a view
  // A transposed tensor can still be viewed when the merged dims stay contiguous among themselves.
  Tensor p = x.permute({1, 0, 2});  // (3, 2, 4) strides (4, 12, 1)
  EXPECT_EQ(geom(p.view({3, 2, 2, 2})), (Geometry{{3, 2, 2, 2}, {4, 12, 2, 1}, 0, false}));
  EXPECT_TRUE(reshape_as(x, zeros({4, 6})).sizes().equals({4, 6}));
  EXPECT_TRUE(view_as(x, zeros({24})).sizes().equals({24}));
  EXPECT_TRUE(x.expand_as(zeros({5, 2, 3, 4})).sizes().equals({5, 2, 3, 4}));
}

TEST_F(Views, Errors) {
  EMBER_EXPECT_ERROR(x.view({5, 5}), Runtime, "shape '[5, 5]' is invalid for input of size 24");
  EMBER_EXPECT_ERROR(x.transpose(0, 1).view({24}), Runtime,
                     "view size is not compatible with input tensor's size and stride");
  EMBER_EXPECT_ERROR(x.view({-1, -1}), Runtime, "only one dimension can be inferred");
  EMBER_EXPECT_ERROR(x.view({-2, 12}), Runtime, "invalid shape dimension -2");
  EMBER_EXPECT_ERROR(x.permute({0, 1}), Runtime, "permute");
  EMBER_EXPECT_ERROR(x.permute({0, 1, 1}), Runtime, "permute(): duplicate dims are not allowed.");
  EMBER_EXPECT_ERROR(x.permute({0, 1, 3}), Index, "Dimension out of range");
  EMBER_EXPECT_ERROR(
      x.expand({3, 3, 4}), Runtime,
      "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.");
  EMBER_EXPECT_ERROR(
      x.expand({3, 4}), Runtime,
      "the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)");
  EMBER_EXPECT_ERROR(x.expand({-1, -1, -1, 4}), Runtime, "isn't allowed in a leading, non-existing dimension 0");
  EMBER_EXPECT_ERROR(x.narrow(2, 3, 2), Runtime, "start (3) + length (2) exceeds dimension size (4).");
  EMBER_EXPECT_ERROR(x.narrow(0, -3, 1), Index, "");
  EMBER_EXPECT_ERROR(x.select(1, 3), Index,
                     "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1");
  EMBER_EXPECT_ERROR(x.select(3, 0), Index, "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EMBER_EXPECT_ERROR(scalar_tensor(1.0).select(0, 0), Index, "select() cannot be applied to a 0-dim tensor.");
  EMBER_EXPECT_ERROR(x.slice(0, 0, 1, 0), Value, "slice step must be positive");
  EMBER_EXPECT_ERROR(x.flatten(2, 1), Runtime, "flatten() has invalid args: start_dim cannot come after end_dim");
  EMBER_EXPECT_ERROR(x.unflatten(2, {3, 2}), Runtime, "[3, 2]");
  EMBER_EXPECT_ERROR(x.unfold(2, 5, 1), Runtime, "maximum size for tensor at dimension 2 is 4 but size is 5");
  EMBER_EXPECT_ERROR(x.unfold(2, 2, 0), Runtime, "step is 0 but must be > 0");
  EMBER_EXPECT_ERROR(x.diagonal(0, 1, 1), Runtime, "diagonal dimensions cannot be identical 1, 1");
  EMBER_EXPECT_ERROR(x.movedim({0, 0}, {1, 2}), Runtime, "movedim: repeated dim in `source`");
  EMBER_EXPECT_ERROR(x.movedim({0}, {1, 2}), Runtime, "movedim");
  EMBER_EXPECT_ERROR(
      x.as_strided({5, 5}, {5, 1}), Runtime,
      "setStorage: sizes [5, 5], strides [5, 1], storage offset 0, and itemsize 4 requiring a storage size "
      "of 100 are out of bounds for storage of size 96");
  EMBER_EXPECT_ERROR(x.as_strided({2}, {1, 1}), Runtime, "as_strided");
  EMBER_EXPECT_ERROR(x.as_strided({2}, {int64_t{1} << 62}), Runtime, "out of bounds");  // no wrap-around
  EMBER_EXPECT_ERROR(x.as_strided({1}, {1}, int64_t{1} << 62), Runtime, "out of bounds");
  EMBER_EXPECT_ERROR(empty_strided({3}, {int64_t{1} << 62}), Runtime, "need more than 2^63 bytes");
  EMBER_EXPECT_ERROR(zeros({2, 3, 4}).t(), Runtime, "t() expects a tensor with <= 2 dimensions, but self is 3D");
  EMBER_EXPECT_ERROR(x.transpose(0, 3), Index,
                     "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EMBER_EXPECT_ERROR(x.squeeze(3), Index, "Dimension out of range");
  EMBER_EXPECT_ERROR(x.unsqueeze(4), Index, "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
}

}  // namespace

// Note [in-place view ops]: the tensor itself takes the view's geometry (values from PyTorch 1.13), its version
// bumps once, other views keep theirs, and a bad argument changes nothing.
namespace {

TEST(InplaceViews, GeometryVersionAndErrors) {
  Tensor x = arange(24, kFloat32).reshape({2, 3, 4});
  Tensor t = x.transpose(0, 2);  // another view: unaffected
  Tensor r = x.transpose_(0, 2);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(geom(x), (Geometry{{4, 3, 2}, {1, 4, 12}, 0, false}));
  EXPECT_EQ(x._version(), 1u);
  EXPECT_EQ(t._version(), 1u);  // the counter is shared
  EXPECT_EQ(geom(t), (Geometry{{4, 3, 2}, {1, 4, 12}, 0, false}));
  // (the message names the view op whose checks t_ shares: "t() expects ..."; PyTorch's says "t_()")
  EMBER_EXPECT_ERROR(x.t_(), Runtime, "expects a tensor with <= 2 dimensions, but self is 3D");
  EMBER_EXPECT_ERROR(x.squeeze_(3), Index, "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EMBER_EXPECT_ERROR(x.as_strided_({25}, {1}), Runtime, "out of bounds for storage of size 96");
  EXPECT_EQ(geom(x), (Geometry{{4, 3, 2}, {1, 4, 12}, 0, false}));
  EXPECT_EQ(x._version(), 1u);

  Tensor y = zeros({2, 1, 3});
  y.squeeze_(1).t_().unsqueeze_(0);
  EXPECT_EQ(geom(y), (Geometry{{1, 3, 2}, {3, 1, 3}, 0, false}));
  EXPECT_EQ(y._version(), 3u);
  Tensor z = arange(10, kFloat64).slice(0, 3);
  as_strided_(z, {2, 2}, {1, 2});  // the function form; the offset stays 3
  EXPECT_EQ(geom(z), (Geometry{{2, 2}, {1, 2}, 3, false}));
  EXPECT_EQ(values<double>(z.contiguous()), (std::vector<double>{3, 5, 4, 6}));
  Tensor s = scalar_tensor(2.0);
  s.unsqueeze_(0).t_().squeeze_().swapdims_(0, -1);
  EXPECT_EQ(geom(s), (Geometry{{}, {}, 0, true}));
}

}  // namespace
