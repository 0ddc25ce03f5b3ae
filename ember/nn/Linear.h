#pragma once
// Identity, Linear and Bilinear (LibTorch's torch::nn::Identity / Linear / Bilinear; Python's ember.nn of the same
// names).
#include <cstdint>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Returns its input unchanged (the same tensor).
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  IdentityImpl() = default;
  /// Nothing to register (clone() calls it).
  void reset() override {}
  /// input: any shape; returns input itself.
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Identity);

/// Options of Linear: `LinearOptions(in_features, out_features).bias(false)`.
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  /// Size of each input sample (the input's last dim).
  EMBER_ARG(int64_t, in_features);
  /// Size of each output sample.
  EMBER_ARG(int64_t, out_features);
  /// Whether the layer learns an additive bias.
  EMBER_ARG(bool, bias) = true;
};

/// y = x W^T + b.
///
/// weight: (out_features, in_features)    bias: (out_features), or undefined without bias
/// input:  (*, in_features)                returns: (*, out_features)
/// Initialised as Python's ember.nn.Linear (and PyTorch's): weight ~ kaiming_uniform_(a = sqrt(5)), i.e.
/// U(-1/sqrt(in), 1/sqrt(in)), then bias ~ U(-1/sqrt(in), 1/sqrt(in)); the same seed gives the same values.
/// Errors: negative feature counts (at construction); an input that is 0-dim or whose last dim is not
/// in_features (naming the layer and the input's shape).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  /// Draws new initial values for weight and bias (see the class doc).
  void reset_parameters();
  Tensor forward(const Tensor& input);
  /// "in_features=4, out_features=3, bias=True".
  std::string extra_repr() const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Linear);

/// Options of Bilinear: `BilinearOptions(in1_features, in2_features, out_features).bias(false)`.
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

/// y = x1^T A x2 + b over the last dims (functional::bilinear).
///
/// weight: (out_features, in1_features, in2_features)    bias: (out_features), or undefined without bias
/// input1: (*, in1_features), input2: (*, in2_features)   returns: (*, out_features)
/// Initialised as Python's ember.nn.Bilinear (and PyTorch's): weight, then bias, ~ U(-1/sqrt(in1_features),
/// 1/sqrt(in1_features)); the same seed gives the same values.
/// Errors: negative feature counts (at construction); forward: see functional::bilinear.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);

  /// Draws new initial values for weight and bias (see the class doc).
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  /// "in1_features=2, in2_features=3, out_features=4, bias=True".
  std::string extra_repr() const override;

  BilinearOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Bilinear);

}  // namespace ember::nn
