// Padding (ReflectionPad/ReplicationPad/ConstantPad 1d-3d, ZeroPad2d), InstanceNorm1d/2d/3d, BatchNorm3d and
// resampling (Upsample, PixelShuffle, PixelUnshuffle, F::interpolate) modules against PyTorch 1.13
// (fixtures/spatial.ember, written by fixtures/make_spatial_fixtures.py): outputs, running statistics after two
// training steps, printing as Python's, and errors that name the shapes.
#include <gtest/gtest.h>

#include <string>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;
namespace F = ember::nn::functional;

Tensor fx(const std::string& name) { return fixture_from("spatial.ember", name); }

// Python's repr(module), recorded as the bytes of its UTF-8 text.
std::string fx_repr(const std::string& name) { return fixture_text("spatial.ember", name + ".repr"); }

template <typename M>
std::string printed(const M& m) {
  return module_repr(*m);
}

// Runs the module on the recorded input; checks output and printing.
template <typename M>
void check(const std::string& name, M m, double tol = 1e-5) {
  SCOPED_TRACE(name);
  EXPECT_TRUE(close(m->forward(fx(name + ".x")), fx(name + ".out"), tol, tol));
  EXPECT_EQ(printed(m), fx_repr(name));
}

TEST(PaddingModules, MatchTorch) {
  check("reflect1d", ReflectionPad1d(ReflectionPad1dOptions({3, 1})));
  check("reflect1d_unbatched", ReflectionPad1d(2));
  check("reflect2d", ReflectionPad2d(ReflectionPad2dOptions({1, 1, 2, 0})));
  check("reflect3d", ReflectionPad3d(1));
  check("replicate1d", ReplicationPad1d(ReplicationPad1dOptions({3, 1})));
  check("replicate2d", ReplicationPad2d(ReplicationPad2dOptions({1, 2, 3, 0})));
  check("replicate3d", ReplicationPad3d(ReplicationPad3dOptions({1, 0, 2, 1, 0, 1})));
  check("constant1d", ConstantPad1d(ConstantPad1dOptions({2, 1}, 3.5)));
  check("constant2d", ConstantPad2d(ConstantPad2dOptions({1, 2, 0, 1}, -1.0)));
  check("constant3d", ConstantPad3d(ConstantPad3dOptions(1, 0.5)));
  check("zero2d", ZeroPad2d(ZeroPad2dOptions({1, 1, 2, 0})));
}

TEST(PaddingModules, FunctionalPad) {
  const Tensor x = fx("fpad.x");
  EXPECT_TRUE(close(F::pad(fx("fpad.x3"), F::PadFuncOptions({1, 2}).mode(ember::kReflect)), fx("fpad.reflect")));
  EXPECT_TRUE(close(F::pad(x, F::PadFuncOptions({1, 2, 2, 1}).mode(ember::kCircular)), fx("fpad.circular")));
  EXPECT_TRUE(close(F::pad(x, F::PadFuncOptions({1, 1, 0, 2}).value(2.0)), fx("fpad.constant")));
}

TEST(PaddingModules, Errors) {
  EMBER_EXPECT_ERROR(ReflectionPad2d(1)->forward(ember::zeros({3, 4})), Runtime,
                     "ReflectionPad2d: expected a 3-D (unbatched) or 4-D (batched) input, got one of shape [3, 4]");
  EMBER_EXPECT_ERROR(ReplicationPad1d(1)->forward(ember::zeros({1, 2, 3, 4})), Runtime,
                     "ReplicationPad1d: expected a 2-D (unbatched) or 3-D (batched) input, got one of shape "
                     "[1, 2, 3, 4]");
  EMBER_EXPECT_ERROR(ReflectionPad1d(ReflectionPad1dOptions({3, 1}))->forward(ember::zeros({1, 2, 3})), Runtime,
                     "ReflectionPad1d: padding size should be less than the corresponding input dimension, but got "
                     "padding (3, 1) at dimension 2 of input of shape [1, 2, 3]");
  EMBER_EXPECT_ERROR(ReflectionPad2d(ReflectionPad2dOptions({0, 0, 4, 0}))->forward(ember::zeros({2, 4, 5})), Runtime,
                     "padding (4, 0) at dimension 1 of input of shape [2, 4, 5]");
  EMBER_EXPECT_ERROR(ConstantPad3d(ConstantPad3dOptions(1, 0.0))->forward(ember::zeros({2, 2})), Runtime,
                     "ConstantPad3d: expected an input of at least 3 dims, got one of shape [2, 2]");
  // the functional form reports the op's error, which names the shapes too
  EMBER_EXPECT_ERROR(F::pad(ember::zeros({1, 2, 3}), F::PadFuncOptions({3, 3}).mode(kReflect)), Runtime,
                     "padding (3, 3) at dimension 2 of input [1, 2, 3]");
}

// Two training steps (running statistics after them), then eval.
template <typename M>
void check_norm(const std::string& name, M m) {
  SCOPED_TRACE(name);
  EXPECT_EQ(printed(m), fx_repr(name));
  if (m->options.affine()) {
    ember::autograd::NoGradGuard no_grad;
    m->weight.copy_(fx(name + ".weight"));
    m->bias.copy_(fx(name + ".bias"));
  }
  m->train();
  EXPECT_TRUE(close(m->forward(fx(name + ".x1")), fx(name + ".out1"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->forward(fx(name + ".x2")), fx(name + ".out2"), 1e-4, 1e-5));
  for (const auto& b : m->named_buffers())
    EXPECT_TRUE(close(b.value(), fx(name + "." + b.key()), 1e-5, 1e-6)) << b.key();
  m->eval();
  EXPECT_TRUE(close(m->forward(fx(name + ".x3")), fx(name + ".eval"), 1e-4, 1e-5));
}

TEST(InstanceNormModule, MatchesTorchWithRunningStats) {
  check_norm("inorm1d", InstanceNorm1d(3));
  check_norm("inorm1d_track", InstanceNorm1d(InstanceNorm1dOptions(3).track_running_stats(true).momentum(0.2)));
  check_norm("inorm2d_affine_track", InstanceNorm2d(InstanceNorm2dOptions(3).affine(true).track_running_stats(true)));
  check_norm("inorm3d_track", InstanceNorm3d(InstanceNorm3dOptions(2).eps(1e-3).track_running_stats(true)));
  check_norm("inorm2d_unbatched", InstanceNorm2d(InstanceNorm2dOptions(3).track_running_stats(true)));
  check_norm("bnorm3d", BatchNorm3d(3));
}

TEST(InstanceNormModule, StateNamesAndDefaults) {
  InstanceNorm2d plain(4);
  EXPECT_EQ(plain->named_parameters().size(), 0u);
  EXPECT_EQ(plain->named_buffers().size(), 0u);
  InstanceNorm1d full(InstanceNorm1dOptions(4).affine(true).track_running_stats(true));
  EXPECT_EQ(full->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(full->named_buffers().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  // clone copies the state
  auto copy = std::dynamic_pointer_cast<InstanceNorm1dImpl>(full->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->named_buffers().size(), 3u);
  EXPECT_EQ(copy->name(), "InstanceNorm1d");
}

TEST(InstanceNormModule, Errors) {
  InstanceNorm2d in(InstanceNorm2dOptions(3).affine(true));
  EMBER_EXPECT_ERROR(in->forward(ember::zeros({2, 3})), Value,
                     "InstanceNorm2d: expected 3D or 4D input (got 2D input of shape [2, 3])");
  EMBER_EXPECT_ERROR(in->forward(ember::zeros({2, 4, 3, 3})), Value,
                     "InstanceNorm2d: expected input's size at dim=1 to match num_features (3), but got input of "
                     "shape [2, 4, 3, 3]");
  EMBER_EXPECT_ERROR(InstanceNorm1d(3)->forward(ember::zeros({2, 3, 1})), Value,
                     "Expected more than 1 spatial element when training, got input size [2, 3, 1]");
  EMBER_EXPECT_ERROR(BatchNorm3d(3)->forward(ember::zeros({2, 3, 4, 4})), Value,
                     "BatchNorm3d: expected 5D input (got 4D input)");
}

TEST(UpsampleModule, MatchesTorch) {
  check("up_nearest2d", Upsample(UpsampleOptions().scale_factor(std::vector<double>{2, 2})));
  check(
      "up_bilinear",
      Upsample(UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(ember::kBilinear).align_corners(false)));
  check("up_bilinear_ac",
        Upsample(UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(ember::kBilinear).align_corners(true)));
  check("up_bilinear_frac", Upsample(UpsampleOptions().scale_factor(std::vector<double>{1.5, 2.5}).mode(kBilinear)));
  check("up_size_bicubic",
        Upsample(UpsampleOptions().size(std::vector<int64_t>{5, 7}).mode(ember::kBicubic).align_corners(true)), 1e-4);
  check("up_linear", Upsample(UpsampleOptions().scale_factor(std::vector<double>{3}).mode(ember::kLinear)));
  check("up_trilinear", Upsample(UpsampleOptions().scale_factor(std::vector<double>{2, 2, 2}).mode(kTrilinear)));
  check("shuffle", PixelShuffle(2));
  check("unshuffle", PixelUnshuffle(2));
  const Tensor x = fx("fpad.x");
  EXPECT_TRUE(close(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).mode(kArea)),
                    fx("finterp.area")));
  EXPECT_TRUE(close(
      F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7, 1.7}).mode(kNearestExact)),
      fx("finterp.nearest_exact")));
}

TEST(UpsampleModule, Errors) {
  Upsample bilinear(UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBilinear));
  EMBER_EXPECT_ERROR(bilinear->forward(ember::zeros({1, 2, 3})), NotImplemented,
                     "Got 3D input of shape [1, 2, 3], but bilinear mode needs 4D input");
  EMBER_EXPECT_ERROR(
      Upsample(UpsampleOptions().scale_factor(std::vector<double>{2}))->forward(ember::zeros({1, 2, 3, 3})), Value,
      "input of shape [1, 2, 3, 3] and scale_factor of [2]");
  EMBER_EXPECT_ERROR(Upsample()->forward(ember::zeros({1, 2, 3, 3})), Value,
                     "either size or scale_factor should be defined");
  EMBER_EXPECT_ERROR(F::interpolate(ember::zeros({1, 1, 2, 2}),
                                    F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 4}).align_corners(true)),
                     Value, "align_corners option can only be set with the interpolating modes");
  EMBER_EXPECT_ERROR(Upsample(UpsampleOptions().size(std::vector<int64_t>{4}))->forward(ember::zeros({2, 2})),
                     NotImplemented, "got 2D input of shape [2, 2]");
  EMBER_EXPECT_ERROR(PixelShuffle(2)->forward(ember::zeros({1, 6, 2, 2})), Runtime,
                     "input.size(-3)=6 is not divisible by 4");
  EMBER_EXPECT_ERROR(PixelUnshuffle(2)->forward(ember::zeros({1, 1, 3, 4})), Runtime,
                     "input.size(-2)=3 is not divisible by 2");
}

}  // namespace
}  // namespace ember::testing
