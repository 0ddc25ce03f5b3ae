#pragma once
// Dropout (LibTorch's torch::nn::Dropout; Python's ember.nn.Dropout).
#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of Dropout: `DropoutOptions(0.2).inplace(true)` (also `DropoutOptions().p(0.2)`).
struct DropoutOptions {
  /* implicit */ DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT(google-explicit-constructor)
  /// Probability of zeroing an element, in [0, 1].
  EMBER_ARG(double, p);
  /// Whether forward overwrites its input.
  EMBER_ARG(bool, inplace) = false;
};

/// In training mode zeroes each element with probability p (Bernoulli draws from the default generator, the
/// same stream as Python's and PyTorch's dropout) and scales the others by 1 / (1 - p); in eval mode returns
/// its input. input: any shape; returns the same shape.
/// Errors: p outside [0, 1] (ValueError, at construction).
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  Tensor forward(const Tensor& input);
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

}  // namespace ember::nn
