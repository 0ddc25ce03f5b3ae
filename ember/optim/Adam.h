#pragma once
// Adam and AdamW (LibTorch's torch::optim::Adam / AdamW; Python's ember.optim.Adam / AdamW, whose results
// they reproduce to the last bit). They share one update (Note [Adam's order of operations] in
// python/ember/optim/adam.py) and differ in how weight decay enters it.
#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// Adam's options: AdamOptions(1e-3).betas({0.9, 0.999}).amsgrad(true). Python keys, in order: lr, betas,
/// eps, weight_decay, amsgrad, maximize, foreach, capturable, differentiable, fused.
struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;
  EMBER_OPTIM_ARG(bool, maximize) = false;
  /// Kept for the state dict's "foreach" (the single-tensor update runs either way).
  EMBER_OPTIM_ARG(std::optional<bool>, foreach) = std::nullopt;
  /// CUDA-only options of PyTorch: true raises in validate().
  EMBER_OPTIM_ARG(bool, capturable) = false;
  EMBER_OPTIM_ARG(bool, differentiable) = false;
  EMBER_OPTIM_ARG(bool, fused) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
  /// Errors (ValueError, PyTorch's messages): lr, eps or weight_decay negative; a beta outside [0, 1).
  /// capturable or fused (RuntimeError), differentiable (NotImplementedError).
  void validate() const override;
};

/// AdamW's options: as Adam's with weight_decay 1e-2 by default. Python keys, in order: lr, betas, eps,
/// weight_decay, amsgrad, foreach, maximize, capturable.
struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 1e-2;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;
  EMBER_OPTIM_ARG(std::optional<bool>, foreach) = std::nullopt;
  EMBER_OPTIM_ARG(bool, maximize) = false;
  EMBER_OPTIM_ARG(bool, capturable) = false;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
  /// Errors as AdamOptions::validate.
  void validate() const override;
};

/// The state of a parameter under Adam or AdamW: the step count (a float32 0-dim tensor, as PyTorch >= 1.12
/// and Python's ember.optim keep it), the running averages of the gradient and its square, and with amsgrad
/// the maximum of the latter (undefined otherwise).
struct AdamParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, step);
  EMBER_OPTIM_ARG(Tensor, exp_avg);
  EMBER_OPTIM_ARG(Tensor, exp_avg_sq);
  EMBER_OPTIM_ARG(Tensor, max_exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, IValue>> items() const override;
};
using AdamWParamState = AdamParamState;

/// The update Adam and AdamW share. With g the gradient (negated when maximize) and t the step count:
///
///   g = g + weight_decay * p          (Adam, if weight_decay != 0)   p = p * (1 - lr * weight_decay)  (AdamW)
///   m = beta1 * m + (1 - beta1) * g
///   v = beta2 * v + (1 - beta2) * g * g
///   v_max = max(v_max, v)             (amsgrad; v_max replaces v below)
///   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
class AdamBase : public Optimizer {
 public:
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  /// The options of one group in the form the update reads them.
  struct Hyper {
    double lr, beta1, beta2, eps, weight_decay;
    bool amsgrad, maximize;
  };
  AdamBase(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults,
           bool decoupled);
  AdamBase(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> defaults, bool decoupled);
  virtual Hyper hyper(const OptimizerOptions& options) const = 0;
  std::unique_ptr<OptimizerParamState> state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                       const Tensor& param) const override;

 private:
  bool decoupled_;  // AdamW: weight decay scales the parameter instead of entering the gradient
};

/// Adam (Kingma & Ba), with optional AMSGrad.
class Adam : public AdamBase {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = AdamOptions());
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = AdamOptions());

 protected:
  Hyper hyper(const OptimizerOptions& options) const override;
};

/// AdamW: Adam with decoupled weight decay (Loshchilov & Hutter).
class AdamW : public AdamBase {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = AdamWOptions());
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = AdamWOptions());

 protected:
  Hyper hyper(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
