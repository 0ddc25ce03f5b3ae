// A typical LibTorch snippet, ported by renaming torch:: to ember:: and nothing else: tensors and options,
// indexing, autograd through Tensor methods, no-grad updates, item, printing. The LibTorch original of each
// line is the same text with torch:: in place of ember::.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember::indexing;

// Fits y = 2x + 1 with a hand-written gradient-descent loop, the way LibTorch tutorials do.
TEST(LibTorchPort, LinearRegressionLoop) {
  ember::manual_seed(0);
  auto x = ember::linspace(-1, 1, 16).unsqueeze(1);
  auto y = 2 * x + 1;
  auto w = ember::zeros({1, 1}, ember::TensorOptions().dtype(ember::kFloat32).requires_grad(true));
  auto b = ember::zeros({1}, ember::requires_grad());
  for (int step = 0; step < 200; ++step) {
    auto loss = (ember::matmul(x, w) + b - y).pow(2).mean();
    loss.backward();
    {
      ember::NoGradGuard no_grad;
      w -= 0.5 * w.grad();
      b -= 0.5 * b.grad();
      w.grad().zero_();
      b.grad().zero_();
    }
  }
  EXPECT_NEAR(w.item<float>(), 2.0f, 1e-4);
  EXPECT_NEAR(b.item<float>(), 1.0f, 1e-4);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(w.requires_grad());
}

TEST(LibTorchPort, TensorsIndexingAndGrad) {
  auto t = ember::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, ember::dtype(ember::kFloat64).requires_grad(true));
  EXPECT_EQ(t.dtype(), ember::kFloat64);
  auto first_two = t.index({Slice(0, 2), Slice(None, None, 2)});  // t[0:2, ::2]
  auto col = t.index({"...", 1});                                   // t[..., 1]
  auto rows = t.index({ember::tensor({1, 0, 1})});                  // t[[1, 0, 1]]
  auto out = first_two.sum() + (col * col).sum() + rows.sum(1, /*keepdim=*/true).sum();
  out.backward();
  // d/dt: 1 on columns 0 and 2, 2 t on column 1, and 1 per selected row (row 1 twice).
  auto expected = ember::tensor({{2.0, 5.0, 2.0}, {3.0, 12.0, 3.0}}, ember::kFloat64);
  EXPECT_TRUE(ember::equal(t.grad(), expected));
  auto g = ember::autograd::grad({(t * t).sum()}, {t});
  EXPECT_TRUE(ember::equal(g[0], 2 * t.detach()));

  auto m = ember::zeros({2, 3}, ember::kFloat32);
  m.index_put_({Slice(), 1}, 7);                      // m[:, 1] = 7
  m.index_put_({m == 0}, ember::tensor({-1.0f}));    // m[m == 0] = -1
  EXPECT_EQ(m.sum().item<float>(), 10.0f);
  EXPECT_EQ(m.to(ember::kInt64).index({1, 1}).item<int64_t>(), 7);
  std::ostringstream os;
  os << m;
  EXPECT_EQ(os.str(), "-1  7 -1\n-1  7 -1\n[ CPUFloatType{2,3} ]");  // LibTorch's layout, not Python's
  EXPECT_EQ(m.str(), "tensor([[-1.,  7., -1.],\n        [-1.,  7., -1.]])");
}

TEST(LibTorchPort, FromBlobAndSaveLoad) {
  std::vector<float> buffer{1, 2, 3, 4};
  auto t = ember::from_blob(buffer.data(), {2, 2}, ember::TensorOptions().dtype(ember::kFloat32));
  auto path = ::testing::TempDir() + "/libtorch_port.ember";
  ember::save(t, path);
  ember::Tensor back;
  ember::load(back, path);
  EXPECT_TRUE(ember::equal(back, t));
  std::vector<ember::Tensor> many{t, t.t()};
  ember::save(many, path);
  std::vector<ember::Tensor> loaded;
  ember::load(loaded, path);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_TRUE(ember::equal(loaded[1], t.t()));
}

}  // namespace

namespace {

struct NetImpl : ember::nn::Module {
  NetImpl() : fc(register_module("fc", ember::nn::Linear(4, 2))) {}
  ember::Tensor forward(const ember::Tensor& x) { return fc->forward(x); }
  ember::nn::Linear fc{nullptr};
};

// LibTorch's MNIST-example idioms: a module held by std::make_shared, SGD(params, /*lr=*/0.01), t[i], and
// printing sizes, dtypes and devices.
TEST(LibTorchPort, MnistExampleIdioms) {
  ember::manual_seed(0);
  auto net = std::make_shared<NetImpl>();
  ember::optim::SGD optimizer(net->parameters(), /*lr=*/0.01);
  auto x = ember::ones({3, 4});
  auto loss = net->forward(x).sum();
  optimizer.zero_grad();
  loss.backward();
  optimizer.step();

  std::string path = ::testing::TempDir() + "/libtorch_port_net.ember";
  ember::save(net, path);
  auto loaded = std::make_shared<NetImpl>();
  ember::load(loaded, path);
  EXPECT_TRUE(ember::equal(loaded->forward(x), net->forward(x)));
  std::shared_ptr<NetImpl> empty;
  EXPECT_THROW(ember::save(empty, path), ember::Error);

  auto t = ember::arange(6, ember::kFloat32).reshape({2, 3});
  EXPECT_EQ(t[1][2].item<float>(), 5.0f);
  EXPECT_THROW(t[2], ember::Error);
  std::ostringstream out;
  out << t.sizes() << " " << t.dtype() << " " << t.device();
  EXPECT_EQ(out.str(), "[2, 3] float32 cpu");
}

}  // namespace
