#pragma once
// Stochastic gradient descent with optional (Nesterov) momentum (LibTorch's torch::optim::SGD; Python's
// ember.optim.SGD, whose results it reproduces to the last bit).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// SGD's options, with chainable setters: SGDOptions(0.1).momentum(0.9).nesterov(true). The fields and their
/// Python keys, in order: lr, momentum, dampening, weight_decay, nesterov, maximize, foreach, differentiable.
struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  /// lr is required, as in PyTorch.
  SGDOptions(double lr) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(double, dampening) = 0;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, nesterov) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;
  /// Kept for the state dict's "foreach" (the single-tensor update runs either way).
  EMBER_OPTIM_ARG(std::optional<bool>, foreach) = std::nullopt;
  /// Gradients through the update are not supported: true raises in validate().
  EMBER_OPTIM_ARG(bool, differentiable) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
  /// Errors (ValueError, PyTorch's messages): lr, momentum or weight_decay negative; nesterov without
  /// momentum or with dampening. differentiable (NotImplementedError).
  void validate() const override;
};

/// SGD's state of a parameter: the momentum buffer, undefined while momentum is 0 (None in Python's state
/// dict, where every parameter that took a step has the entry).
struct SGDParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, IValue>> items() const override;
};

/// Stochastic gradient descent. With g the gradient (negated when maximize), each step does
///
///   g = g + weight_decay * p                                       (if weight_decay != 0)
///   b = g  (first step),  b = momentum * b + (1 - dampening) * g   (if momentum != 0)
///   g = g + momentum * b  (nesterov)  or  g = b
///   p = p - lr * g
///
/// with the ops of Python's ember.optim.SGD in the same order (PyTorch 1.13's single-tensor update).
class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                       const Tensor& param) const override;
};

}  // namespace ember::optim
