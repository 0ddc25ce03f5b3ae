// The Tensor methods and free functions LibTorch programs call, under their LibTorch names: autograd methods
// (backward, grad, requires_grad_, ...), grad-mode guards, seeds, from_blob, item, printing. Expected values
// are PyTorch 1.13's (worked out by hand, or printed by torch where noted).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using ember::Tensor;
using ember::testing::contains;
using ember::testing::make_tensor;
using ember::testing::values;

Tensor leaf(const std::vector<double>& v) { return make_tensor<double>(v).requires_grad_(); }

// ------------------------------------------------------------------------------------------ autograd methods
TEST(TensorAutograd, RequiresGradFlags) {
  Tensor x = make_tensor<double>({1, 2});
  EXPECT_FALSE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(&x.requires_grad_() == &x);
  EXPECT_TRUE(x.requires_grad());
  x.set_requires_grad(false);
  EXPECT_FALSE(x.requires_grad());
  x.requires_grad_(true);
  Tensor y = x * 2;
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_FALSE(x.grad_fn());
  EMBER_EXPECT_ERROR(y.requires_grad_(false), Runtime, "you can only change requires_grad flags of leaf variables");
  EMBER_EXPECT_ERROR(make_tensor<int64_t>({1}).requires_grad_(), Runtime, "only Tensors of floating point");
}

TEST(TensorAutograd, BackwardFillsGrad) {
  Tensor x = leaf({1, 2, 3});
  EXPECT_FALSE(x.grad().defined());
  Tensor loss = (x * x).sum();
  loss.backward();
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{2, 4, 6}));
  (x * 3).sum().backward();  // accumulates
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{5, 7, 9}));
}

TEST(TensorAutograd, BackwardWithGradientAndErrors) {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  EMBER_EXPECT_ERROR(y.backward(), Runtime, "grad can be implicitly created only for scalar outputs");
  y.backward(make_tensor<double>({1, 10}));
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{2, 40}));
  EMBER_EXPECT_ERROR(make_tensor<double>({1}).sum().backward(), Runtime, "does not require grad");
}

TEST(TensorAutograd, RetainGraphAndCreateGraph) {
  Tensor x = leaf({2});
  Tensor y = (x * x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();  // the graph was kept
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{24}));
  EMBER_EXPECT_ERROR(y.backward(), Runtime, "backward through the graph a second time");

  Tensor z = leaf({2});
  Tensor dz = ember::autograd::grad({(z * z * z).sum()}, {z}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(values<double>(dz), (std::vector<double>{12}));
  dz.sum().backward();  // d(3 z^2)/dz = 6 z
  EXPECT_EQ(values<double>(z.grad()), (std::vector<double>{12}));

  Tensor w = leaf({3});
  (w * w).sum().backward({}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(w.grad().requires_grad());
  Tensor g = w.grad();
  w.mutable_grad().reset();
  g.sum().backward();
  EXPECT_EQ(values<double>(w.grad()), (std::vector<double>{2}));
}

TEST(TensorAutograd, BackwardInputsLimitTheLeaves) {
  Tensor a = leaf({1}), b = leaf({2});
  (a * b).sum().backward({}, std::nullopt, false, {{a}});
  EXPECT_EQ(values<double>(a.grad()), (std::vector<double>{2}));
  EXPECT_FALSE(b.grad().defined());
  EMBER_EXPECT_ERROR((a * b).sum().backward({}, std::nullopt, false, std::vector<Tensor>{}), Runtime,
                     "cannot be empty");
}

TEST(TensorAutograd, RetainGradAndMutableGrad) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3;
  EXPECT_FALSE(h.retains_grad());
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  (h * h).sum().backward();
  EXPECT_EQ(values<double>(h.grad()), (std::vector<double>{6, 12}));
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{18, 36}));
  EMBER_EXPECT_ERROR(make_tensor<double>({1}).retain_grad(), Runtime,
                     "can't retain_grad on Tensor that has requires_grad=False");

  // mutable_grad is the slot itself: assign, zero in place, reset.
  x.mutable_grad() = ember::ones({2}, ember::kFloat64);
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{1, 1}));
  x.grad().zero_();
  EXPECT_EQ(values<double>(x.grad()), (std::vector<double>{0, 0}));
  x.mutable_grad().reset();
  EXPECT_FALSE(x.grad().defined());
  Tensor fresh = make_tensor<double>({5});
  fresh.mutable_grad() = make_tensor<double>({7});  // a tensor without autograd state gets one
  EXPECT_EQ(values<double>(fresh.grad()), (std::vector<double>{7}));
}

TEST(TensorAutograd, DetachAndDetachInPlace) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  EXPECT_TRUE(&y.detach_() == &y);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  EMBER_EXPECT_ERROR(x.index({0}).detach_(), Runtime, "Can't detach views in-place");
}

TEST(TensorAutograd, GradModeGuardsUnderEmberNames) {
  Tensor x = leaf({1});
  {
    ember::NoGradGuard no_grad;
    EXPECT_FALSE(ember::GradMode::is_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
    {
      ember::AutoGradMode enable(true);
      EXPECT_TRUE((x * 2).requires_grad());
    }
  }
  EXPECT_TRUE(ember::GradMode::is_enabled());
  {
    ember::InferenceMode guard;
    EXPECT_FALSE((x * 2).requires_grad());
  }
}

// --------------------------------------------------------------------------------------- free functions
TEST(TensorApi, ManualSeedDrawsTorchsNumbers) {
  ember::manual_seed(0);
  EXPECT_EQ(ember::initial_seed(), 0u);
  // torch.manual_seed(0); torch.randn(3)
  EXPECT_EQ(values<float>(ember::randn({3})), (std::vector<float>{1.5409960746765137f, -0.293428897857666f,
                                                                   -2.1787893772125244f}));
  // torch.manual_seed(42); torch.rand(2, dtype=torch.float64)
  ember::manual_seed(42);
  EXPECT_EQ(values<double>(ember::rand({2}, ember::kFloat64)), (std::vector<double>{0.05815448596142969,
                                                                                     0.06291016742457756}));
  uint64_t s = ember::seed();
  EXPECT_EQ(ember::initial_seed(), s);
}

TEST(TensorApi, FromBlobOverloads) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = ember::from_blob(data, {2, 3}, ember::kFloat32);
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(data));
  EXPECT_EQ(values<float>(t.sum(1, /*keepdim=*/true)), (std::vector<float>{3, 12}));
  Tensor cols = ember::from_blob(data, {3, 2}, {1, 3}, ember::kFloat32);  // the transpose, by strides
  EXPECT_EQ(values<float>(cols), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  static int deleted = 0;
  {
    Tensor owned = ember::from_blob(
        data, {6}, {1}, ember::kFloat32, [](void* ctx, void*) { *static_cast<int*>(ctx) += 1; }, &deleted);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(TensorApi, LibTorchSpellings) {
  Tensor z = ember::zeros({2, 3}, ember::kFloat32);
  EXPECT_EQ(z.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(z.dtype(), ember::kFloat);
  Tensor x = ember::arange(6, ember::kFloat32).reshape({2, 3});
  Tensor s = x.sum(1, /*keepdim=*/true);
  EXPECT_EQ(s.sizes().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(x.to(ember::kFloat64).dtype(), ember::kDouble);
  EXPECT_EQ(x.sum().item<float>(), 15.0f);
  EXPECT_EQ(x.index({1, 2}).item<int64_t>(), 5);
  EXPECT_EQ(x.max().item<double>(), 5.0);
  EMBER_EXPECT_ERROR(x.item<float>(), Runtime, "a Tensor with 6 elements cannot be converted to Scalar");
  std::ostringstream os;
  os << x;
  EXPECT_EQ(os.str(), " 0  1  2\n 3  4  5\n[ CPUFloatType{2,3} ]");  // LibTorch's layout
  EXPECT_EQ(x.str(), "tensor([[0., 1., 2.],\n        [3., 4., 5.]])");  // Python's
}

TEST(TensorApi, TensorOptionsFactories) {
  Tensor a = ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64).requires_grad(true));
  EXPECT_EQ(a.dtype(), ember::kFloat64);
  EXPECT_TRUE(a.requires_grad());
  EXPECT_TRUE(a.is_leaf());
  Tensor b = ember::ones({2}, ember::dtype(ember::kInt32));
  EXPECT_EQ(b.dtype(), ember::kInt32);
  EXPECT_FALSE(b.requires_grad());
  Tensor c = ember::randn({3}, ember::requires_grad());
  EXPECT_EQ(c.dtype(), ember::kFloat32);
  EXPECT_TRUE(c.requires_grad());
  EXPECT_EQ(values<int64_t>(ember::arange(1, 7, 2, ember::dtype(ember::kInt64))), (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(values<float>(ember::full({2}, 1.5, ember::TensorOptions())), (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(ember::eye(3, ember::dtype(ember::kFloat64)).sum().item<double>(), 3.0);
  EXPECT_EQ(ember::zeros_like(b, ember::dtype(ember::kFloat32)).dtype(), ember::kFloat32);
  EXPECT_EQ(ember::empty({0}, ember::TensorOptions().device(ember::Device(ember::DeviceType::CPU))).numel(), 0);
  EMBER_EXPECT_ERROR(ember::zeros({2}, ember::dtype(ember::kInt64).requires_grad(true)), Runtime,
                     "only Tensors of floating point");
}

TEST(TensorApi, TensorFromBracedLists) {
  Tensor f = ember::tensor({1.5, 2.0, -3.0});
  EXPECT_EQ(f.dtype(), ember::kFloat32);  // the default dtype, as torch::tensor
  EXPECT_EQ(values<float>(f), (std::vector<float>{1.5f, 2.0f, -3.0f}));
  Tensor i = ember::tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(i.dtype(), ember::kInt64);
  EXPECT_EQ(i.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ember::tensor({true, false}).dtype(), ember::kBool);
  Tensor s = ember::tensor(2.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<float>(), 2.5f);
  EXPECT_EQ(ember::tensor({1, 2}, ember::kFloat64).dtype(), ember::kFloat64);
  Tensor g = ember::tensor({1.0, 2.0}, ember::dtype(ember::kFloat64).requires_grad(true));
  EXPECT_TRUE(g.requires_grad());
  EXPECT_EQ(values<float>(ember::tensor(std::vector<float>{0.25f, 4.0f})), (std::vector<float>{0.25f, 4.0f}));
  EXPECT_EQ(ember::tensor({{1.0}, {2.0}, {3.0}}).sizes().vec(), (std::vector<int64_t>{3, 1}));
  EMBER_EXPECT_ERROR(ember::tensor({{1, 2}, {3}}), Runtime,
                     "expected all sub-lists to have sizes [2] but got one with sizes [1]");
}

}  // namespace
