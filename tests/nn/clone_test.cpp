// Module::clone() (LibTorch's Cloneable): deep copies of layers, containers and a user's module deriving from
// nn::Cloneable<NetImpl>: same type and values, new storage, requires_grad and training flags kept, the copy
// independent of the original, the default generator left where it was (Note [clone]).
#include <gtest/gtest.h>

#include <sstream>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using namespace ember;

// Every tensor of a's state dict equals b's under the same key and shares no storage with it.
void expect_deep_copy(const nn::Module& copy, const nn::Module& original) {
  const auto a = copy.state_dict(), b = original.state_dict();
  ASSERT_EQ(a.keys(), b.keys());
  for (const auto& item : b) {
    const Tensor& x = a[item.key()];
    const Tensor& y = item.value();
    EXPECT_EQ(x.dtype(), y.dtype()) << item.key();
    EXPECT_TRUE(equal(x, y)) << item.key();
    EXPECT_NE(x.data_ptr(), y.data_ptr()) << item.key();
  }
  const auto pa = copy.named_parameters(), pb = original.named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  for (const auto& item : pb) EXPECT_EQ(pa[item.key()].requires_grad(), item.value().requires_grad()) << item.key();
}

struct NetImpl : nn::Cloneable<NetImpl> {
  explicit NetImpl(int64_t hidden) : hidden(hidden) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", nn::Linear(4, hidden));
    bn = register_module("bn", nn::BatchNorm1d(hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, 2));
    scale = register_parameter("scale", ones({1}));
    register_buffer("steps", zeros({}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc2(bn(fc1(x)).relu()) * scale; }
  int64_t hidden;
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::BatchNorm1d bn{nullptr};
  Tensor scale;
};
EMBER_MODULE(Net);

TEST(Clone, LinearIsADeepCopyOfTheSameType) {
  manual_seed(0);
  nn::Linear fc(nn::LinearOptions(3, 2).bias(false));
  fc->weight.mutable_grad() = ones({2, 3});
  const Tensor next_draw = [] {
    auto state = default_generator()->get_state();
    Tensor r = rand({3});
    default_generator()->set_state(state.data(), state.size());
    return r;
  }();
  auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(fc->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(equal(rand({3}), next_draw));  // clone() did not advance the generator
  expect_deep_copy(*copy, *fc);
  EXPECT_FALSE(copy->bias.defined());
  EXPECT_EQ(copy->options.in_features(), 3);
  EXPECT_TRUE(copy->weight.is_same(copy->named_parameters()["weight"]));  // the member is the registered tensor
  EXPECT_FALSE(copy->weight.grad().defined());                           // gradients are not copied (LibTorch)
  // Independent: changing one leaves the other.
  {
    NoGradGuard no_grad;
    copy->weight.copy_(copy->weight + 1);
  }
  EXPECT_FALSE(equal(copy->weight, fc->weight));
  Tensor x = rand({4, 3});
  EXPECT_TRUE(allclose(copy->forward(x), fc->forward(x) + x.sum(1, /*keepdim=*/true)));
}

TEST(Clone, UserModuleThroughCloneable) {
  manual_seed(1);
  Net net(5);
  net->bn->train();
  net(randn({6, 4}));  // moves the running statistics and num_batches_tracked
  net->eval();
  net->fc2->bias.requires_grad_(false);
  net->to(kFloat64);
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->hidden, 5);
  expect_deep_copy(*copy, *net);
  EXPECT_EQ(copy->fc1->weight.dtype(), kFloat64);
  EXPECT_FALSE(copy->is_training());
  EXPECT_FALSE(copy->bn->is_training());
  EXPECT_FALSE(copy->fc2->bias.requires_grad());
  EXPECT_TRUE(copy->fc1.ptr() != net->fc1.ptr());
  EXPECT_TRUE(copy->fc1->weight.is_same(copy->named_parameters()["fc1.weight"]));
  EXPECT_EQ(copy->bn->named_buffers()["num_batches_tracked"].item<int64_t>(), 1);
  Tensor x = randn({3, 4}, kFloat64);
  EXPECT_TRUE(equal(copy->forward(x), net->forward(x)));
  // Training the copy leaves the original.
  auto before = net->fc1->weight.clone();
  copy->forward(x).sum().backward();
  {
    NoGradGuard no_grad;
    for (auto& p : copy->parameters())
      if (p.grad().defined()) p.sub_(0.1 * p.grad());
  }
  EXPECT_TRUE(equal(net->fc1->weight, before));
  EXPECT_FALSE(net->fc1->weight.grad().defined());
}

TEST(Clone, ContainersCloneTheirModules) {
  manual_seed(2);
  nn::Linear shared(2, 2);
  nn::Sequential seq{nn::Linear(3, 2), nn::ReLU(), shared, nn::Dropout(0.5), shared};
  seq->eval();
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_TRUE(copy);
  expect_deep_copy(*copy, *seq);
  EXPECT_EQ(copy->size(), 5u);
  EXPECT_FALSE(copy->is_training());
  EXPECT_TRUE(copy->ptr<nn::LinearImpl>(2) == copy->ptr<nn::LinearImpl>(4));  // sharing kept
  EXPECT_TRUE(copy->ptr<nn::LinearImpl>(2) != shared.ptr());
  EXPECT_EQ(copy->ptr<nn::DropoutImpl>(3)->options.p(), 0.5);
  Tensor x = rand({4, 3});
  EXPECT_TRUE(equal(copy->forward(x), seq->forward(x)));
  std::ostringstream a, b;
  a << *copy;
  b << *seq;
  EXPECT_EQ(a.str(), b.str());

  nn::ModuleList list(nn::Linear(2, 3), nn::Conv2d(1, 2, 3));
  auto list_copy = std::dynamic_pointer_cast<nn::ModuleListImpl>(list->clone());
  ASSERT_TRUE(list_copy);
  expect_deep_copy(*list_copy, *list);
  EXPECT_TRUE(list_copy->ptr<nn::Conv2dImpl>(1));

  using Named = std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>;
  nn::ModuleDict dict(Named{{"bn", nn::BatchNorm2d(3).ptr()},
                            {"act", nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)).ptr()}});
  auto dict_copy = std::dynamic_pointer_cast<nn::ModuleDictImpl>(dict->clone());
  ASSERT_TRUE(dict_copy);
  expect_deep_copy(*dict_copy, *dict);
  EXPECT_EQ(dict_copy->ptr<nn::LeakyReLUImpl>("act")->options.negative_slope(), 0.2);
}

TEST(Clone, LayersKeepTheirTypes) {
  auto weight = tensor({1.0f, 2.0f, 3.0f});
  nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().weight(weight));
  auto loss_copy = std::dynamic_pointer_cast<nn::CrossEntropyLossImpl>(loss->clone());
  ASSERT_TRUE(loss_copy);
  expect_deep_copy(*loss_copy, *loss);
  EXPECT_NE(loss_copy->options.weight().data_ptr(), weight.data_ptr());
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::MaxPool2dImpl>(nn::MaxPool2d(2)->clone()));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::SigmoidImpl>(nn::Sigmoid()->clone()));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::IdentityImpl>(nn::Identity()->clone()));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::EmbeddingImpl>(nn::Embedding(5, 2)->clone()));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::LayerNormImpl>(nn::LayerNorm(nn::LayerNormOptions({4}))->clone()));
  EXPECT_TRUE(std::dynamic_pointer_cast<nn::Conv1dImpl>(nn::Conv1d(1, 1, 2)->clone()));
}

struct PlainImpl : nn::Module {
  PlainImpl() { register_parameter("w", ones({1})); }
  Tensor forward(const Tensor& x) { return x; }
};

struct ForgetfulImpl : nn::Cloneable<ForgetfulImpl> {
  ForgetfulImpl() { register_parameter("w", ones({1})); }  // registers outside reset()
  void reset() override {}
};

TEST(Clone, Errors) {
  auto plain = std::make_shared<PlainImpl>();
  EMBER_EXPECT_ERROR(plain->clone(), Runtime, "Plain.clone: this module type does not support clone()");
  auto forgetful = std::make_shared<ForgetfulImpl>();
  EMBER_EXPECT_ERROR(forgetful->clone(), Runtime, "the rebuilt module has parameters [] but the original has [w]");
  nn::Sequential seq{nn::Linear(1, 1)};
  seq->push_back(plain);
  EMBER_EXPECT_ERROR(seq->clone(), Runtime, "Plain.clone");
  EMBER_EXPECT_ERROR(nn::Linear(1, 1)->clone(kCUDA), Runtime, "cannot clone the module to device cuda");
}

}  // namespace
