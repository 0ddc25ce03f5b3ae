// PReLU, RReLU, Hardshrink, Softshrink, Softmax2d, AlphaDropout, FeatureAlphaDropout, CosineSimilarity,
// PairwiseDistance, Bilinear, Fold, Unfold, LocalResponseNorm, CrossMapLRN2d, the adaptive, LP and fractional
// poolings, max pooling with indices, unpooling and ParameterList/ParameterDict against PyTorch 1.13
// (fixtures/more_layers.ember, written by fixtures/make_more_layers_fixtures.py): outputs, input and parameter
// gradients, state dict keys and shapes, initial values under a seed, printing as Python's, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "TestSupport.h"
#include "ember/autograd/GradMode.h"
#include "ember/core/Generator.h"
#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;
namespace F = ember::nn::functional;

const std::string kFile = "more_layers.ember";

Tensor fx(const std::string& name) { return fixture_from(kFile, name); }
std::string text(const std::string& name) { return fixture_text(kFile, name); }
bool has(const std::string& name) { return fixture_archive(kFile).count(name) != 0; }

// A forward's result: the output and, for the poolings that return them, the indices.
struct Result {
  Result(Tensor o) : out(std::move(o)) {}  // NOLINT(google-explicit-constructor)
  Result(std::tuple<Tensor, Tensor> t) : out(std::get<0>(t)), idx(std::get<1>(t)) {}  // NOLINT
  Tensor out, idx;
};
using Inputs = std::vector<Tensor>;

// Checks the module against case `name`: repr, state dict keys and shapes, then (with the recorded parameter
// values loaded) the output, the indices, and the gradients backward gives the inputs and the parameters.
template <typename M>
void check(const std::string& name, M m, const std::function<Result(M&, const Inputs&)>& forward,
           double tol = 1e-5) {
  SCOPED_TRACE(name);
  EXPECT_EQ(module_repr(*m), text(name + ".repr"));
  const auto state = m->state_dict();
  EXPECT_EQ(fmt::format("{}", fmt::join(state.keys(), ",")), text(name + ".keys"));
  for (const auto& item : state) {
    if (item.value().defined()) {
      EXPECT_TRUE(item.value().sizes().equals(fx(name + ".state." + item.key()).sizes())) << item.key();
    }
  }
  {
    autograd::NoGradGuard no_grad;
    for (auto& p : m->named_parameters()) p.value().copy_(fx(name + ".param." + p.key()));
  }
  Inputs xs;
  for (int i = 0; has(fmt::format("{}.x{}", name, i)); ++i) {
    Tensor x = fx(fmt::format("{}.x{}", name, i)).clone();
    if (x.is_floating_point()) autograd::set_requires_grad(x, true);
    xs.push_back(x);
  }
  if (has(name + ".seed")) manual_seed(static_cast<uint64_t>(fx(name + ".seed").item<int64_t>()));
  const Result r = forward(m, xs);
  EXPECT_TRUE(close(r.out, fx(name + ".out"), tol, tol));
  if (has(name + ".idx")) {
    EXPECT_TRUE(close(r.idx, fx(name + ".idx"), 0, 0));
  }
  r.out.backward(fx(name + ".gy"));
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::string g = fmt::format("{}.gx{}", name, i);
    if (has(g)) {
      EXPECT_TRUE(close(xs[i].grad(), fx(g), tol, tol)) << g;
    }
  }
  for (const auto& p : m->named_parameters()) {
    EXPECT_TRUE(close(p.value().grad(), fx(name + ".grad." + p.key()), tol, tol)) << p.key();
  }
}

// The forward of a one-input module in eval mode (or training, for the cases recorded in training).
template <typename M>
void check1(const std::string& name, M m, bool training = false, double tol = 1e-5) {
  m->train(training);
  check<M>(name, m, [](M& mod, const Inputs& xs) { return Result(mod->forward(xs[0])); }, tol);
}
template <typename M>
void check2(const std::string& name, M m, double tol = 1e-5) {
  m->eval();
  check<M>(name, m, [](M& mod, const Inputs& xs) { return Result(mod->forward(xs[0], xs[1])); }, tol);
}
template <typename M>
void check_indices(const std::string& name, M m) {
  check<M>(name, m, [](M& mod, const Inputs& xs) { return Result(mod->forward_with_indices(xs[0])); });
}

TEST(MoreActivations, MatchTorch) {
  check1("prelu1", PReLU());
  check1("prelu3", PReLU(PReLUOptions().num_parameters(3).init(0.1)));
  check1("rrelu_eval", RReLU(RReLUOptions().lower(0.1).upper(0.3)));
  check1("rrelu_train", RReLU(), /*training=*/true);
  check1("hardshrink", Hardshrink(0.3));
  check1("softshrink", Softshrink(0.4));
  check1("softmax2d", Softmax2d());
  const Tensor x = fx("falpha.x");
  manual_seed(23);
  EXPECT_TRUE(close(F::rrelu(x, F::RReLUFuncOptions().lower(0.2).upper(0.4).training(true)), fx("frrelu.out")));
}

TEST(MoreActivations, InitialValues) {
  PReLU prelu(PReLUOptions().num_parameters(4).init(0.3));
  EXPECT_TRUE(close(prelu->weight, fx("init.prelu.weight"), 0, 0));
  EXPECT_EQ(prelu->weight.dtype(), kFloat32);
  EXPECT_TRUE(prelu->weight.requires_grad());
}

TEST(MoreActivations, RReLUTrainingSlopes) {
  // Each non-positive element gets its own slope in [lower, upper]; positive ones pass through.
  manual_seed(1);
  RReLU rrelu(RReLUOptions().lower(0.2).upper(0.5));
  const Tensor x = ember::randn({2000});
  const Tensor y = rrelu->forward(x);
  const auto xv = values<float>(x), yv = values<float>(y);
  double lo = 1, hi = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    if (xv[i] > 0) {
      EXPECT_EQ(yv[i], xv[i]);
    } else if (xv[i] < 0) {
      const double slope = yv[i] / xv[i];
      lo = std::min(lo, slope), hi = std::max(hi, slope);
    }
  }
  EXPECT_GE(lo, 0.2 - 1e-6);
  EXPECT_LE(hi, 0.5 + 1e-6);
  EXPECT_GT(hi - lo, 0.25);  // spread over the range, not one slope
  rrelu->eval();
  EXPECT_TRUE(close(rrelu->forward(x), ember::leaky_relu(x, 0.35)));
}

TEST(MoreActivations, Errors) {
  EMBER_EXPECT_ERROR(PReLU(PReLUOptions().num_parameters(3))->forward(ember::zeros({2, 4, 5})), Runtime,
                     "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and "
                     "channel size = 4 (input of shape [2, 4, 5])");
  EMBER_EXPECT_ERROR(RReLU(RReLUOptions().lower(0.5).upper(0.1)), Runtime,
                     "Lower bound should be less than or equal to the upper bound (got lower=0.5, upper=0.1)");
  EMBER_EXPECT_ERROR(Softshrink(-1.0)->forward(ember::zeros({2})), Runtime,
                     "softshrink: lambda must be greater or equal to 0, but found to be -1");
  EMBER_EXPECT_ERROR(Softmax2d()->forward(ember::zeros({2, 3})), Runtime,
                     "Softmax2d: expected input to be 3D or 4D, got 2D instead (input of shape [2, 3])");
  EMBER_EXPECT_ERROR(F::rrelu(ember::zeros({2}, kInt64), F::RReLUFuncOptions().training(true)), Runtime,
                     "rrelu: training mode supports float32, float64 and bfloat16 inputs");
}

TEST(AlphaDropouts, MatchTorch) {
  check1("alpha_dropout_eval", AlphaDropout(0.2));
  check1("alpha_dropout_train", AlphaDropout(0.3), /*training=*/true);
  check1("feature_alpha_dropout_train", FeatureAlphaDropout(0.4), /*training=*/true);
  const Tensor x = fx("falpha.x");
  manual_seed(21);
  EXPECT_TRUE(close(F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.25).training(true)), fx("falpha.out")));
  manual_seed(22);
  EXPECT_TRUE(close(F::feature_alpha_dropout(x, F::FeatureAlphaDropoutFuncOptions().p(0.5).training(true)),
                    fx("ffeature_alpha.out")));
  // eval mode and training(false) return the input itself
  AlphaDropout drop(0.5);
  drop->eval();
  EXPECT_TRUE(drop->forward(x).is_same(x));
  EXPECT_TRUE(F::alpha_dropout(x).is_same(x));
  // the module's inplace is printed but not used (as Python's and LibTorch's); the functional form's is
  const Tensor before = x.clone();
  AlphaDropout(AlphaDropoutOptions(0.5).inplace(true))->forward(x);
  EXPECT_TRUE(close(x, before, 0, 0));
  Tensor y = x.clone();
  F::alpha_dropout(y, F::AlphaDropoutFuncOptions().p(0.5).training(true).inplace(true));
  EXPECT_FALSE(close(y, before, 0, 0));
}

TEST(AlphaDropouts, KeepZeroMeanUnitVariance) {
  manual_seed(4);
  const Tensor x = ember::randn({200000});
  const Tensor y = AlphaDropout(0.3)->forward(x);
  EXPECT_NEAR(ember::mean(y).item<double>(), 0.0, 0.02);
  EXPECT_NEAR(ember::std(y, /*unbiased=*/true).item<double>(), 1.0, 0.02);
  // FeatureAlphaDropout: each (sample, channel) is either kept-and-mapped or dropped as a whole
  const Tensor f = ember::randn({8, 16, 3, 3});
  const Tensor g = FeatureAlphaDropout(0.5)->forward(f);
  const Tensor dropped = ember::amax(g, IntArrayRef{2, 3}) - ember::amin(g, IntArrayRef{2, 3});
  const auto spread = values<float>(dropped);
  const auto count = std::count_if(spread.begin(), spread.end(), [](float v) { return v == 0; });
  EXPECT_GT(count, 30);   // about half of the 128 channels
  EXPECT_LT(count, 100);
}

TEST(AlphaDropouts, Errors) {
  EMBER_EXPECT_ERROR(AlphaDropout(1.5), Value,
                     "AlphaDropout: dropout probability has to be between 0 and 1, but got 1.5");
  EMBER_EXPECT_ERROR(F::feature_alpha_dropout(ember::zeros({4}), F::FeatureAlphaDropoutFuncOptions().training(true)),
                     Runtime, "Feature dropout requires at least 2 dimensions in the input, but got a 1-D input of "
                     "shape [4]");
}

TEST(Distances, MatchTorch) {
  check2("cosine", CosineSimilarity());
  check2("cosine_broadcast", CosineSimilarity(CosineSimilarityOptions().dim(-1).eps(1e-6)));
  check2("pairwise", PairwiseDistance());
  check2("pairwise_p3_keepdim", PairwiseDistance(PairwiseDistanceOptions().p(3).eps(1e-5).keepdim(true)));
}

TEST(Distances, Errors) {
  EMBER_EXPECT_ERROR(CosineSimilarity()->forward(ember::zeros({2, 3}, kInt64), ember::zeros({2, 3}, kInt64)), Runtime,
                     "cosine_similarity: expected common dtype to be floating point, yet common dtype is int64");
  EMBER_EXPECT_ERROR(PairwiseDistance()->forward(ember::zeros({2, 3}), ember::zeros({4, 3})), Runtime,
                     "pairwise_distance: x1 of shape [2, 3] and x2 of shape [4, 3] do not broadcast: the size of "
                     "x1 (2) must match the size of x2 (4) at non-singleton dimension 0");
}

TEST(BilinearModule, MatchesTorch) {
  check2("bilinear", Bilinear(3, 4, 2));
  check2("bilinear_batch_nobias", Bilinear(BilinearOptions(2, 3, 4).bias(false)));
}

TEST(BilinearModule, InitialValuesUnderSeed) {
  manual_seed(11);
  Bilinear b(3, 4, 2);
  EXPECT_TRUE(close(b->weight, fx("init.bilinear.weight"), 0, 0));
  EXPECT_TRUE(close(b->bias, fx("init.bilinear.bias"), 0, 0));
  manual_seed(12);
  Bilinear nobias(BilinearOptions(5, 2, 3).bias(false));
  EXPECT_TRUE(close(nobias->weight, fx("init.bilinear_nobias.weight"), 0, 0));
  EXPECT_FALSE(nobias->bias.defined());
  EXPECT_EQ(nobias->named_parameters().keys(), std::vector<std::string>{"weight"});
}

TEST(BilinearModule, Errors) {
  Bilinear b(3, 4, 2);
  EMBER_EXPECT_ERROR(b->forward(ember::zeros({5, 3}), ember::zeros({5, 5})), Runtime,
                     "bilinear(): input2 size does not match weight size: got 5 but expected 4");
  EMBER_EXPECT_ERROR(b->forward(ember::zeros({5, 3}), ember::zeros({6, 4})), Runtime,
                     "bilinear(): input batch dimensions do not match at dim 0: got 5 and 6");
}

TEST(FoldModules, MatchTorch) {
  check1("fold", Fold(FoldOptions({4, 5}, 2)));
  check1("unfold", Unfold(UnfoldOptions({2, 3}).padding(1).stride(2)));
}

TEST(FoldModules, Errors) {
  EMBER_EXPECT_ERROR(Unfold(2)->forward(ember::zeros({2, 3})), NotImplemented,
                     "unfold: Input Error: Only 3D or 4D input Tensors are supported (got 2D input of shape [2, 3])");
  EMBER_EXPECT_ERROR(Fold(FoldOptions({4, 5}, 2))->forward(ember::zeros({1, 2, 3, 4})), NotImplemented,
                     "got 4D input of shape [1, 2, 3, 4]");
}

TEST(ResponseNorms, MatchTorch) {
  check1("lrn", LocalResponseNorm(LocalResponseNormOptions(3).alpha(1e-2).beta(0.75).k(2.0)));
  check1("lrn_3d", LocalResponseNorm(2));
  check1("crossmap", CrossMapLRN2d(CrossMapLRN2dOptions(3).alpha(1e-2).beta(0.75).k(1)));
}

TEST(ResponseNorms, Errors) {
  EMBER_EXPECT_ERROR(LocalResponseNorm(2)->forward(ember::zeros({2, 3})), Value,
                     "local_response_norm: Expected 3D or higher dimensionality input (got 2 dimensions, input of "
                     "shape [2, 3])");
  EMBER_EXPECT_ERROR(CrossMapLRN2d(3)->forward(ember::zeros({2, 3, 4})), Runtime,
                     "CrossMapLRN2d: expected a 4-D input (N, C, H, W), got one of shape [2, 3, 4]");
}

TEST(MorePooling, AdaptiveMatchTorch) {
  check1("adaptive_avg1d", AdaptiveAvgPool1d(3));
  check1("adaptive_avg3d", AdaptiveAvgPool3d(AdaptiveAvgPool3dOptions({2, std::nullopt, 3})));
  check_indices("adaptive_max1d", AdaptiveMaxPool1d(3));
  check_indices("adaptive_max2d", AdaptiveMaxPool2d(AdaptiveMaxPool2dOptions({3, std::nullopt})));
  check_indices("adaptive_max3d", AdaptiveMaxPool3d(2));
  // forward gives the values of forward_with_indices
  const Tensor x = fx("adaptive_max2d.x0");
  AdaptiveMaxPool2d pool(AdaptiveMaxPool2dOptions({3, std::nullopt}));
  EXPECT_TRUE(close(pool->forward(x), fx("adaptive_max2d.out")));
}

TEST(MorePooling, MaxPoolWithIndicesMatchTorch) {
  check_indices("maxpool1d_idx", MaxPool1d(MaxPool1dOptions(3).stride(2)));
  check_indices("maxpool3d_idx", MaxPool3d(MaxPool3dOptions(2).stride(2)));
}

TEST(MorePooling, UnpoolMatchTorch) {
  using Unpool1 = MaxUnpool1d;
  check<Unpool1>("unpool1d", MaxUnpool1d(MaxUnpool1dOptions(3).stride(2)),
                 [](Unpool1& m, const Inputs& xs) { return Result(m->forward(xs[0], xs[1])); });
  check<MaxUnpool2d>("unpool2d", MaxUnpool2d(2), [](MaxUnpool2d& m, const Inputs& xs) {
    return Result(m->forward(xs[0], xs[1], std::vector<int64_t>{5, 5}));
  });
  check<MaxUnpool3d>("unpool3d", MaxUnpool3d(2),
                     [](MaxUnpool3d& m, const Inputs& xs) { return Result(m->forward(xs[0], xs[1])); });
}

TEST(MorePooling, LPPoolMatchTorch) {
  check1("lppool1d", LPPool1d(LPPool1dOptions(2.0, 3).stride(2)));
  check1("lppool2d", LPPool2d(LPPool2dOptions(3.0, {2, 3}).stride({1, 2})), false, 1e-4);
}

TEST(MorePooling, FractionalMatchTorch) {
  check_indices("fractional2d", FractionalMaxPool2d(FractionalMaxPool2dOptions(2).output_size(ExpandingArray<2>({3, 4}))
                                                         ._random_samples(fx("fractional2d.state._random_samples"))));
  check_indices("fractional2d_ratio",
                FractionalMaxPool2d(FractionalMaxPool2dOptions({2, 3})
                                        .output_ratio(ExpandingArray<2, double>(0.5))
                                        ._random_samples(fx("fractional2d_ratio.state._random_samples"))));
  // samples drawn from the default generator, as PyTorch's
  check_indices("fractional2d_drawn",
                FractionalMaxPool2d(FractionalMaxPool2dOptions(2).output_size(ExpandingArray<2>(3))));
  check_indices("fractional3d", FractionalMaxPool3d(FractionalMaxPool3dOptions(2).output_size(ExpandingArray<3>(2))
                                                         ._random_samples(fx("fractional3d.state._random_samples"))));
}

TEST(MorePooling, FractionalRegionsWithoutSamples) {
  // Without given samples each call draws new regions; every output is the maximum of some 2x2 window.
  manual_seed(2);
  const Tensor x = ember::randn({1, 1, 9, 9});
  FractionalMaxPool2d pool(FractionalMaxPool2dOptions(2).output_ratio(ExpandingArray<2, double>(0.5)));
  const auto [y, idx] = pool->forward_with_indices(x);
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_TRUE(close(y, ember::reshape(ember::gather(ember::flatten(x, 2), 2, ember::flatten(idx, 2)), {1, 1, 4, 4})));
  // the windows of a row start further right from one output column to the next, so the maxima's columns
  // never decrease along a row
  const auto flat = values<int64_t>(idx);
  for (size_t row = 0; row < 4; ++row) {
    for (size_t col = 1; col < 4; ++col) EXPECT_LE(flat[row * 4 + col - 1] % 9, flat[row * 4 + col] % 9);
  }
}

TEST(MorePooling, Errors) {
  EMBER_EXPECT_ERROR(FractionalMaxPool2d(FractionalMaxPool2dOptions(2)), Value,
                     "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio");
  EMBER_EXPECT_ERROR(FractionalMaxPool2d(FractionalMaxPool2dOptions(2).output_ratio(ExpandingArray<2, double>(1.5))),
                     Value, "FractionalMaxPool2d: output_ratio must be between 0 and 1 (got 1.5)");
  EMBER_EXPECT_ERROR(MaxUnpool2d(2)->forward(ember::zeros({1, 1, 2, 2}), ember::zeros({1, 1, 2, 2}, kInt64),
                                             std::vector<int64_t>{9, 9}),
                     Value, "max_unpool2d: invalid output_size \"[9, 9]\" (dim 0 must be between 2 and 6)");
  EMBER_EXPECT_ERROR(AdaptiveMaxPool2d(AdaptiveMaxPool2dOptions({std::nullopt, 2}))->forward(ember::zeros({3, 4})),
                     Value, "Input dimension should be at least 3");
}

TEST(ParameterContainers, ListNamesAndPrints) {
  ParameterList list(ember::zeros({2, 3}).requires_grad_(), ember::zeros({4}, kFloat64));
  EXPECT_EQ(module_repr(*list), text("plist.repr"));
  EXPECT_EQ(fmt::format("{}", fmt::join(list->state_dict().keys(), ",")), text("plist.keys"));
  EXPECT_EQ(list->size(), 2u);
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list[1].requires_grad());  // LibTorch keeps the tensor's flag
  list->append(ember::ones({5}));
  list->extend(std::vector<Tensor>{ember::ones({1}), ember::ones({2})});
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(list->at(2).sizes().vec(), std::vector<int64_t>{5});
  // the registered tensor is the one given (shared), and a clone copies it
  const Tensor shared = ember::zeros({3});
  list->append(shared);
  EXPECT_TRUE(list[5].is_same(shared));
  auto copy = std::dynamic_pointer_cast<ParameterListImpl>(list->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->size(), 6u);
  EXPECT_FALSE(copy->at(5).is_same(shared));
  EXPECT_TRUE(copy->named_parameters()["5"].is_same(copy->at(5)));
  EXPECT_EQ(module_repr(*ParameterList(ember::zeros({2}))), text("plist1.repr"));
  EMBER_EXPECT_ERROR(list->at(6), Index, "ParameterList: index 6 is out of range for a list of 6 parameters");
}

TEST(ParameterContainers, DictNamesAndPrints) {
  ParameterDict dict;
  dict->insert("weight", ember::zeros({2, 3}).requires_grad_());
  dict->insert("b", ember::zeros({}));
  dict->insert("steps", ember::zeros({3}, kFloat64));
  EXPECT_EQ(module_repr(*dict), text("pdict.repr"));
  EXPECT_EQ(fmt::format("{}", fmt::join(dict->state_dict().keys(), ",")), text("pdict.keys"));
  EXPECT_EQ(dict->size(), 3u);
  EXPECT_TRUE(dict->contains("b"));
  EXPECT_TRUE(dict["weight"].requires_grad());
  // inserting a key again replaces its value in place, keeping the order
  dict->insert("b", ember::ones({2}));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"weight", "b", "steps"}));
  EXPECT_EQ(dict->named_parameters()["b"].sizes().vec(), std::vector<int64_t>{2});
  OrderedDict<std::string, Tensor> more;
  more.insert("extra", ember::ones({1}));
  dict->update(more);
  EXPECT_EQ(dict->named_parameters().keys(), (std::vector<std::string>{"weight", "b", "steps", "extra"}));
  auto copy = std::dynamic_pointer_cast<ParameterDictImpl>(dict->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->keys(), dict->keys());
  EXPECT_FALSE(copy->get("extra").is_same(dict->get("extra")));
  EMBER_EXPECT_ERROR(dict->get("missing"), Index, "ParameterDict: no parameter named 'missing'");
  EMBER_EXPECT_ERROR(dict->insert("a.b", ember::zeros({1})), Runtime, "name can't contain \".\"");
}

}  // namespace
}  // namespace ember::testing
