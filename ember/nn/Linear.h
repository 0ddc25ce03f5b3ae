#pragma once
// Identity and Linear (LibTorch's torch::nn::Identity / torch::nn::Linear; Python's ember.nn.Identity / Linear).
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

}  // namespace ember::nn
