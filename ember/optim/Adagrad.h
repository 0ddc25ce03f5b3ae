#pragma once
// Adagrad (LibTorch's torch::optim::Adagrad; Python's ember.optim.Adagrad, whose results it reproduces to the
// last bit).
#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// Adagrad's options: AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1). Python keys, in
/// order: lr, lr_decay, eps, weight_decay, initial_accumulator_value, foreach, maximize.
struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(double, lr_decay) = 0;
  EMBER_OPTIM_ARG(double, eps) = 1e-10;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, initial_accumulator_value) = 0;
  /// Kept for the state dict's "foreach" (the single-tensor update runs either way).
  EMBER_OPTIM_ARG(std::optional<bool>, foreach) = std::nullopt;
  EMBER_OPTIM_ARG(bool, maximize) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
  /// Errors (ValueError, PyTorch's messages): lr, lr_decay, weight_decay, initial_accumulator_value or eps
  /// negative.
  void validate() const override;
};

/// Adagrad's state of a parameter: the step count (a float32 0-dim tensor, as PyTorch >= 1.12 keeps it) and
/// the sum of the squared gradients.
struct AdagradParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, step);
  EMBER_OPTIM_ARG(Tensor, sum);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, IValue>> items() const override;
};

/// Adagrad (Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and Stochastic
/// Optimization", JMLR 2011; the update as PyTorch 1.13 documents it). With g the gradient (negated when
/// maximize) and t the step count, each step does
///
///   g = g + weight_decay * p                        (if weight_decay != 0)
///   clr = lr / (1 + (t - 1) * lr_decay)
///   sum = sum + g * g
///   p = p - clr * g / (sqrt(sum) + eps)
///
/// The state of every parameter is created at construction (sum = the defaults' initial_accumulator_value,
/// for every group, as PyTorch does); a parameter added later gets it at its first step.
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = AdagradOptions());
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = AdagradOptions());
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                       const Tensor& param) const override;

 private:
  AdagradParamState& state_of(const Tensor& p);
};

}  // namespace ember::optim
