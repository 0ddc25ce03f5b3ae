#pragma once
// RMSprop (LibTorch's torch::optim::RMSprop; Python's ember.optim.RMSprop, whose results it reproduces to the
// last bit).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// RMSprop's options: RMSpropOptions(1e-2).momentum(0.9).centered(true). Python keys, in order: lr,
/// momentum, alpha, eps, centered, weight_decay, foreach, maximize, differentiable.
struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(double, alpha) = 0.99;
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(bool, centered) = false;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  /// Kept for the state dict's "foreach" (the single-tensor update runs either way).
  EMBER_OPTIM_ARG(std::optional<bool>, foreach) = std::nullopt;
  EMBER_OPTIM_ARG(bool, maximize) = false;
  /// Gradients through the update are not supported: true raises in validate().
  EMBER_OPTIM_ARG(bool, differentiable) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
  /// Errors (ValueError, PyTorch's messages): lr, eps, momentum, weight_decay or alpha negative.
  /// differentiable (NotImplementedError).
  void validate() const override;
};

/// RMSprop's state of a parameter: the step count (an int in Python's state dict), the running average of
/// the squared gradient, with momentum > 0 the momentum buffer and when centered the running average of the
/// gradient (undefined otherwise, and then absent from the state dict).
struct RMSpropParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, square_avg);
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);
  EMBER_OPTIM_ARG(Tensor, grad_avg);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, IValue>> items() const override;
};

/// RMSprop. With g the gradient (negated when maximize), each step does
///
///   g = g + weight_decay * p                                        (if weight_decay != 0)
///   v = alpha * v + (1 - alpha) * g * g
///   a = alpha * a + (1 - alpha) * g;  d = sqrt(v - a * a) + eps     (centered)
///   d = sqrt(v) + eps                                               (not centered)
///   b = momentum * b + g / d;  p = p - lr * b                       (momentum > 0)
///   p = p - lr * g / d                                              (otherwise)
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = RMSpropOptions());
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = RMSpropOptions());
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                       const Tensor& param) const override;
};

}  // namespace ember::optim
