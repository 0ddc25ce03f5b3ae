// LibTorch names of the C++ frontend a porting trial found missing (issue 8): Module::to(Device) and
// to(Device, DType), the nn::init tokens in the top namespace (ember::kFanIn, ember::kReLU).
#include <gtest/gtest.h>

#include <sstream>

#include "TestSupport.h"
#include "ember/ember.h"
#include "nn_fixtures.h"

namespace {

using namespace ember;

TEST(ModuleToDevice, CpuIsANoOpAndOtherDevicesRaise) {
  manual_seed(0);
  nn::Linear fc(3, 2);
  Tensor w = fc->weight;
  const Tensor before = w.clone();
  fc->to(kCPU);
  fc->to(Device("cpu"));
  EXPECT_TRUE(fc->weight.is_same(w));
  EXPECT_TRUE(equal(fc->weight, before));
  EMBER_EXPECT_ERROR(fc->to(kCUDA), Runtime, "Linear.to: cannot move the module to device cuda");
  EMBER_EXPECT_ERROR(fc->to(Device("cuda:1")), Runtime, "cuda:1");
  EXPECT_TRUE(equal(fc->weight, before));  // left as it was
  // to(device, dtype): the dtype conversion of to(dtype), identity kept.
  fc->to(kCPU, kFloat64);
  EXPECT_EQ(fc->weight.dtype(), kFloat64);
  EXPECT_TRUE(fc->weight.is_same(w));
  EXPECT_TRUE(equal(fc->weight, before.to(kFloat64)));
  EMBER_EXPECT_ERROR(fc->to(kCUDA, kFloat32), Runtime, "cannot move the module to device cuda");
  EXPECT_EQ(fc->weight.dtype(), kFloat64);
  EMBER_EXPECT_ERROR(fc->to(kCPU, kInt64), Type, "only accepts floating point dtypes");
  // The LibTorch idiom.
  Device device(cuda::is_available() ? kCUDA : kCPU);
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
  seq->to(device);
  EXPECT_EQ(seq->parameters().size(), 2u);
}

TEST(InitTokens, TopNamespaceSpellings) {
  static_assert(std::is_same_v<decltype(ember::kFanIn), const nn::init::FanMode>);
  EXPECT_EQ(ember::kFanOut, nn::init::FanMode::FanOut);
  EXPECT_EQ(ember::kReLU, nn::init::Nonlinearity::ReLU);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(ember::kTanh), 5.0 / 3.0);
  // PyTorch's kaiming_normal_(t, mode="fan_out", nonlinearity="relu") after torch.manual_seed(15).
  Tensor a = empty({3, 5});
  manual_seed(15);
  nn::init::kaiming_normal_(a, 0, ember::kFanOut, ember::kReLU);
  EXPECT_TRUE(equal(a, ember::testing::nn_fixture("init.kaiming_normal_fan_out_relu")));
}

}  // namespace

namespace {

using namespace ember;

std::string repr_of(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// The expected strings are what Python's ember.nn (and torch.nn 1.13, identical) print for the same modules.
TEST(ActivationRepr, PrintsArgumentsAsPython) {
  EXPECT_EQ(repr_of(*nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))), "LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(repr_of(*nn::Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(repr_of(*nn::LogSoftmax(-1)), "LogSoftmax(dim=-1)");
  EXPECT_EQ(repr_of(*nn::ReLU(true)), "ReLU(inplace=True)");
  EXPECT_EQ(repr_of(*nn::ReLU()), "ReLU()");
  EXPECT_EQ(repr_of(*nn::ReLU6(true)), "ReLU6(inplace=True)");
  EXPECT_EQ(repr_of(*nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true))), "ELU(alpha=0.5, inplace=True)");
  EXPECT_EQ(repr_of(*nn::CELU()), "CELU(alpha=1.0)");
  EXPECT_EQ(repr_of(*nn::Hardtanh(nn::HardtanhOptions().min_val(-2.0).max_val(2.0))),
            "Hardtanh(min_val=-2.0, max_val=2.0)");
  EXPECT_EQ(repr_of(*nn::GELU(nn::GELUOptions().approximate("tanh"))), "GELU(approximate='tanh')");
  EXPECT_EQ(repr_of(*nn::Softplus(nn::SoftplusOptions().beta(2.0))), "Softplus(beta=2.0, threshold=20)");
  EXPECT_EQ(repr_of(*nn::Threshold(0.1, 20.0)), "Threshold(threshold=0.1, value=20.0)");
  EXPECT_EQ(repr_of(*nn::GLU()), "GLU(dim=-1)");
  EXPECT_EQ(repr_of(*nn::Hardswish(true)), "Hardswish()");
  EXPECT_EQ(repr_of(*nn::Sigmoid()), "Sigmoid()");
}

TEST(Functional, WrapsAFunctionInASequential) {
  manual_seed(0);
  nn::Sequential seq{nn::Linear(3, 4), nn::Functional(ember::relu), nn::Functional(ember::leaky_relu, 0.2)};
  Tensor x = randn({5, 3});
  Tensor h = seq[0]->as<nn::LinearImpl>()->forward(x);
  EXPECT_TRUE(equal(seq(x), ember::leaky_relu(ember::relu(h), 0.2)));
  EXPECT_EQ(seq->parameters().size(), 2u);
  EXPECT_EQ(repr_of(*seq[1]), "Functional()");
  nn::Functional f([](const Tensor& t) { return t.tanh(); });
  EXPECT_TRUE(equal(f(x), x.tanh()));
  auto copy = std::dynamic_pointer_cast<nn::FunctionalImpl>(f->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(equal(copy->forward(x), x.tanh()));
  EMBER_EXPECT_ERROR(nn::Functional(nn::FunctionalImpl::Function()), Runtime, "Functional: the function is empty");
}

}  // namespace
