// The layers of ember::nn (Linear, Identity, Flatten, Unflatten, Dropout, Embedding) and nn::init: initial
// values under ember::manual_seed equal PyTorch 1.13's under torch.manual_seed bit for bit, forward values
// equal PyTorch's (recorded by fixtures/make_fixtures.py into fixtures/nn.ember), and bad input raises errors
// that name the layer and the shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::values;

// The recorded reference values, by name.
const OrderedDict<std::string, Tensor>& fixtures() {
  static const OrderedDict<std::string, Tensor> f =
      nn::state_dict_from_ivalue(serialize::load(std::string(EMBER_TEST_FIXTURES) + "/nn.ember"), "nn.ember");
  return f;
}
const Tensor& fixture(const std::string& name) { return fixtures()[name]; }

using Shape = std::vector<int64_t>;
Shape shape(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }

// Same dtype, sizes and bits.
void expect_identical(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(shape(actual), shape(expected)) << what;
  EXPECT_TRUE(ember::equal(actual.contiguous(), expected.contiguous())) << what << "\n"
                                                                        << actual.str() << "\n"
                                                                        << expected.str();
}
// Same dtype and sizes, values within float rounding.
void expect_close(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(shape(actual), shape(expected)) << what;
  const double diff = (actual - expected).abs().max().item<double>();
  EXPECT_LE(diff, 1e-6) << what << "\n" << actual.str() << "\n" << expected.str();
}

std::string printed(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

// ------------------------------------------------------------------------------------------------- Linear
TEST(Linear, InitialValuesEqualPyTorchsUnderTheSameSeed) {
  manual_seed(0);
  nn::Linear fc(4, 3);
  expect_identical(fc->weight, fixture("linear_4_3.weight"), "weight");
  expect_identical(fc->bias, fixture("linear_4_3.bias"), "bias");
  EXPECT_TRUE(autograd::requires_grad(fc->weight));
  EXPECT_EQ(fc->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
}

TEST(Linear, ForwardEqualsPyTorchs) {
  nn::Linear fc(4, 3);
  fc->load_state_dict({{"weight", fixture("linear_4_3.weight")}, {"bias", fixture("linear_4_3.bias")}});
  expect_close(fc(fixture("linear_4_3.input")), fixture("linear_4_3.output"), "2-D input");
  expect_close(fc->forward(fixture("linear_4_3.input").select(0, 0)), fixture("linear_4_3.output_1d"), "1-D input");
}

TEST(Linear, WithoutBiasAndWithoutInputs) {
  manual_seed(7);
  nn::Linear fc(nn::LinearOptions(5, 2).bias(false));
  expect_identical(fc->weight, fixture("linear_5_2_nobias.weight"), "weight");
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_EQ(fc->named_parameters().keys(), (std::vector<std::string>{"weight"}));
  expect_identical(ember::rand({3}), fixture("linear_5_2_nobias.after"), "generator position");
  // fan_in 0: the bias is drawn from U(0, 0), which still advances the generator (as PyTorch).
  manual_seed(3);
  nn::Linear empty(0, 2);
  expect_identical(empty->bias, fixture("linear_0_2.bias"), "bias");
  expect_identical(ember::rand({3}), fixture("linear_0_2.after"), "generator position");
}

TEST(Linear, PrintsAndRejectsBadInput) {
  nn::Linear fc(nn::LinearOptions(4, 3).bias(false));
  EXPECT_EQ(printed(*fc), "Linear(in_features=4, out_features=3, bias=False)");
  EMBER_EXPECT_ERROR(fc(ember::ones({2, 5})),
                     Runtime, "Linear(in_features=4, out_features=3, bias=False): expected an input of shape (*, 4), "
                              "got one of shape [2, 5]");
  EMBER_EXPECT_ERROR(fc(ember::ones({})), Runtime, "got one of shape []");
  EMBER_EXPECT_ERROR(nn::Linear(-1, 2), Value, "non-negative");
}

TEST(Linear, Backward) {
  nn::Linear fc(2, 1);
  fc->load_state_dict({{"weight", make_tensor<float>({1, 2}, {1, 2})}, {"bias", make_tensor<float>({3})}});
  Tensor x = make_tensor<float>({1, 1, 2, 2}, {2, 2});
  autograd::backward({fc(x).sum()});
  EXPECT_EQ(values<float>(autograd::grad(fc->weight)), (std::vector<float>{3, 3}));
  EXPECT_EQ(values<float>(autograd::grad(fc->bias)), (std::vector<float>{2}));
}

// ------------------------------------------------------------------------------------------------- init
TEST(Init, EachFunctionDrawsPyTorchsValues) {
  auto check = [](uint64_t seed, const std::string& name, auto fn) {
    manual_seed(seed);
    Tensor t = ember::empty({3, 5}, kFloat32);
    Tensor r = fn(t);
    EXPECT_TRUE(r.is_same(t)) << name << " returns its tensor";
    expect_identical(t, fixture(name), name);
  };
  check(10, "init.uniform", [](Tensor t) { return nn::init::uniform_(t, -2.0, 3.0); });
  check(11, "init.normal", [](Tensor t) { return nn::init::normal_(t, 1.5, 0.5); });
  check(12, "init.xavier_uniform", [](Tensor t) { return nn::init::xavier_uniform_(t, 2.0); });
  check(13, "init.xavier_normal", [](Tensor t) { return nn::init::xavier_normal_(t); });
  check(14, "init.kaiming_uniform", [](Tensor t) { return nn::init::kaiming_uniform_(t, 0.2); });
  check(15, "init.kaiming_normal_fan_out_relu",
        [](Tensor t) { return nn::init::kaiming_normal_(t, 0, nn::init::kFanOut, nn::init::kReLU); });
  manual_seed(16);
  Tensor conv = ember::empty({4, 3, 2, 2}, kFloat32);
  nn::init::kaiming_uniform_(conv, std::sqrt(5.0));
  expect_identical(conv, fixture("init.kaiming_uniform_conv"), "kaiming_uniform_ on a conv weight");
  expect_identical(nn::init::eye_(ember::empty({3, 4}, kFloat32)), fixture("init.eye"), "eye_");
}

TEST(Init, GainsFansAndErrors) {
  using namespace nn::init;
  EXPECT_EQ(calculate_gain(kLinear), 1);
  EXPECT_EQ(calculate_gain(kSigmoid), 1);
  EXPECT_DOUBLE_EQ(calculate_gain(kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(calculate_gain(kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(calculate_gain(kLeakyReLU), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(calculate_gain(kLeakyReLU, 0), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(calculate_gain(kSELU), 0.75);
  EXPECT_EQ(calculate_fan_in_and_fan_out(ember::empty({4, 3, 2, 5})), (std::pair<int64_t, int64_t>{30, 40}));
  EXPECT_EQ(calculate_fan_in_and_fan_out(ember::empty({2, 7})), (std::pair<int64_t, int64_t>{7, 2}));
  EMBER_EXPECT_ERROR(xavier_uniform_(ember::empty({3})), Value, "fewer than 2 dimensions");
  EMBER_EXPECT_ERROR(eye_(ember::empty({3})), Value, "2 dimensions");
  // Zero-element tensors are left alone by the Kaiming functions (before any fan check), as PyTorch's.
  Tensor empty = ember::empty({0});
  EXPECT_TRUE(kaiming_uniform_(empty).is_same(empty));
  // The fills do not record history on a parameter.
  Tensor p = ember::empty({2, 2});
  autograd::set_requires_grad(p, true);
  ones_(p);
  EXPECT_TRUE(autograd::is_leaf(p));
  EXPECT_EQ(values<float>(zeros_(p)), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(values<float>(constant_(p, 2.5)), (std::vector<float>{2.5, 2.5, 2.5, 2.5}));
}

// ------------------------------------------------------------------------------------------------- shapes
TEST(Identity, ReturnsItsInput) {
  nn::Identity id;
  Tensor x = ember::ones({2, 3});
  EXPECT_TRUE(id(x).is_same(x));
  EXPECT_EQ(printed(*id), "Identity()");
}

TEST(Flatten, FlattensTheGivenDims) {
  Tensor x = ember::arange(24, kFloat32).reshape({2, 3, 4});
  nn::Flatten flat;
  EXPECT_EQ(shape(flat(x)), (Shape{2, 12}));
  nn::Flatten all(nn::FlattenOptions().start_dim(0));
  EXPECT_EQ(shape(all(x)), (Shape{24}));
  nn::Flatten mid(nn::FlattenOptions().start_dim(0).end_dim(1));
  EXPECT_EQ(shape(mid(x)), (Shape{6, 4}));
  EXPECT_EQ(printed(*mid), "Flatten(start_dim=0, end_dim=1)");
  EMBER_EXPECT_ERROR(nn::Flatten(nn::FlattenOptions().start_dim(5))(x), Index, "");
}

TEST(Unflatten, SplitsOneDim) {
  Tensor x = ember::arange(24, kFloat32).reshape({2, 12});
  nn::Unflatten un(nn::UnflattenOptions(1, {3, -1}));
  EXPECT_EQ(shape(un(x)), (Shape{2, 3, 4}));
  EXPECT_TRUE(ember::equal(un(x).flatten(1), x));
  EXPECT_EQ(printed(*un), "Unflatten(dim=1, unflattened_size=(3, -1))");
  EXPECT_EQ(printed(*nn::Unflatten(nn::UnflattenOptions(0, {2}))), "Unflatten(dim=0, unflattened_size=(2,))");
  EMBER_EXPECT_ERROR(nn::Unflatten(nn::UnflattenOptions(1, {5, 5}))(x), Runtime, "");
}

// ------------------------------------------------------------------------------------------------- Dropout
TEST(Dropout, DrawsPyTorchsMaskInTrainingAndIsTheIdentityInEval) {
  nn::Dropout drop(0.3);
  manual_seed(5);
  expect_identical(drop(ember::ones({4, 5})), fixture("dropout_0.3.output"), "training output");
  drop->eval();
  Tensor x = ember::ones({4, 5});
  EXPECT_TRUE(ember::equal(drop(x), x));
  EXPECT_EQ(printed(*drop), "Dropout(p=0.3, inplace=False)");
  EXPECT_EQ(printed(*nn::Dropout()), "Dropout(p=0.5, inplace=False)");
  EMBER_EXPECT_ERROR(nn::Dropout(1.5), Value, "between 0 and 1, but got 1.5");
  EMBER_EXPECT_ERROR(nn::Dropout(-0.1), Value, "between 0 and 1");
}

TEST(Dropout, InplaceOverwritesItsInput) {
  nn::Dropout drop(nn::DropoutOptions(1.0).inplace(true));
  Tensor x = ember::ones({3});
  drop(x);
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 0, 0}));
}

// ------------------------------------------------------------------------------------------------- Embedding
TEST(Embedding, InitialValuesEqualPyTorchsWithThePaddingRowZero) {
  manual_seed(1);
  nn::Embedding emb(nn::EmbeddingOptions(10, 3).padding_idx(2));
  expect_identical(emb->weight, fixture("embedding_10_3_pad2.weight"), "padding_idx 2");
  manual_seed(1);
  nn::Embedding last(nn::EmbeddingOptions(6, 2).padding_idx(-1));
  expect_identical(last->weight, fixture("embedding_6_2_padneg1.weight"), "padding_idx -1");
  EXPECT_EQ(*last->options.padding_idx(), 5);
  EXPECT_EQ(printed(*last), "Embedding(6, 2, padding_idx=5)");
}

TEST(Embedding, ForwardWithMaxNormRenormalisesTheRowsItReads) {
  nn::Embedding emb(nn::EmbeddingOptions(5, 3).max_norm(1.0));
  emb->load_state_dict({{"weight", fixture("embedding_maxnorm.weight_before")}});
  expect_close(emb(fixture("embedding_maxnorm.indices")), fixture("embedding_maxnorm.output"), "output");
  expect_close(emb->weight, fixture("embedding_maxnorm.weight_after"), "renormalised table");
  EXPECT_TRUE(autograd::is_leaf(emb->weight));
  EXPECT_EQ(printed(*emb), "Embedding(5, 3, max_norm=1.0)");
}

TEST(Embedding, PaddingRowGetsNoGradient) {
  nn::Embedding emb(nn::EmbeddingOptions(4, 2).padding_idx(0));
  Tensor idx = make_tensor<int64_t>({0, 1, 1});
  autograd::backward({emb(idx).sum()});
  EXPECT_EQ(values<float>(autograd::grad(emb->weight)), (std::vector<float>{0, 0, 2, 2, 0, 0, 0, 0}));
}

TEST(Embedding, FromPretrainedSharesTheTable) {
  Tensor table = make_tensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  nn::Embedding frozen = nn::Embedding::from_pretrained(table);
  EXPECT_TRUE(frozen->weight.is_same(table));
  EXPECT_FALSE(autograd::requires_grad(frozen->weight));
  EXPECT_EQ(values<float>(frozen(make_tensor<int64_t>({2}))), (std::vector<float>{5, 6}));
  nn::Embedding trainable =
      nn::Embedding::from_pretrained(table.clone(), nn::EmbeddingFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(autograd::requires_grad(trainable->weight));
}

TEST(Embedding, Errors) {
  EMBER_EXPECT_ERROR(nn::Embedding(nn::EmbeddingOptions(3, 2).padding_idx(3)), Value, "padding_idx");
  EMBER_EXPECT_ERROR(nn::Embedding(nn::EmbeddingOptions(3, 2).padding_idx(-4)), Value, "padding_idx");
  EMBER_EXPECT_ERROR(nn::Embedding(nn::EmbeddingOptions(3, 2)._weight(ember::ones({2, 2}))), Value, "_weight [2, 2]");
  EMBER_EXPECT_ERROR(nn::Embedding::from_pretrained(ember::ones({3})), Value, "2-D");
  nn::Embedding emb(3, 2);
  EMBER_EXPECT_ERROR(emb(make_tensor<int64_t>({3})), Index, "");
}

}  // namespace
