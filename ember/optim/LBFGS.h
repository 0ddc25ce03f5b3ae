#pragma once
// L-BFGS (LibTorch's torch::optim::LBFGS; Python's ember.optim.LBFGS), with the optional strong-Wolfe line
// search.
#include <string>
#include <vector>

#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// LBFGS's options: LBFGSOptions(1).max_iter(50).history_size(10).line_search_fn("strong_wolfe"). Python keys,
/// in order: lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size, line_search_fn. An unset
/// max_eval becomes max_iter * 5 / 4 when the optimizer is built (Python's default).
struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1) : lr_(lr) {}
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(int64_t, max_iter) = 20;
  EMBER_OPTIM_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_OPTIM_ARG(double, tolerance_grad) = 1e-7;
  EMBER_OPTIM_ARG(double, tolerance_change) = 1e-9;
  EMBER_OPTIM_ARG(int64_t, history_size) = 100;
  /// None or "strong_wolfe" (another name raises at step(), as in PyTorch).
  EMBER_OPTIM_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  void visit(OptionVisitor& v) override;
};

/// LBFGS's state, global to the optimizer but kept on the first parameter (as PyTorch does): the numbers of
/// closure evaluations and iterations, the last direction d and step t, the curvature pairs (old_dirs: y,
/// old_stps: s, ro: 1 / y.s, 0-dim tensors), the initial inverse-Hessian scale H_diag (a 0-dim tensor;
/// undefined means 1, written as the int 1 in the state dict), the previous flat gradient and loss, and the
/// two-loop recursion's buffer al (history_size entries, undefined until used; absent before the second
/// iteration).
struct LBFGSParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, func_evals) = 0;
  EMBER_OPTIM_ARG(int64_t, n_iter) = 0;
  EMBER_OPTIM_ARG(std::optional<std::vector<Tensor>>, al) = std::nullopt;
  EMBER_OPTIM_ARG(Tensor, d);
  EMBER_OPTIM_ARG(std::optional<double>, t) = std::nullopt;
  EMBER_OPTIM_ARG(std::vector<Tensor>, old_dirs);
  EMBER_OPTIM_ARG(std::vector<Tensor>, old_stps);
  EMBER_OPTIM_ARG(std::vector<Tensor>, ro);
  EMBER_OPTIM_ARG(Tensor, H_diag);
  EMBER_OPTIM_ARG(Tensor, prev_flat_grad);
  EMBER_OPTIM_ARG(std::optional<double>, prev_loss) = std::nullopt;

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  /// Python's entries: func_evals and n_iter always; the others once a step has run to its end.
  std::vector<std::pair<std::string, IValue>> items() const override;
};

/// L-BFGS (Liu & Nocedal, "On the Limited Memory BFGS Method for Large Scale Optimization", Math.
/// Programming 1989; the two-loop recursion of Nocedal & Wright, "Numerical Optimization", algorithm 7.4;
/// the strong-Wolfe line search of algorithms 3.5 and 3.6), as PyTorch 1.13 and Python's ember.optim.LBFGS
/// run it. step(closure) runs up to max_iter iterations (max_eval evaluations): d = -H g (d = -g at the first
/// iteration), and the parameters move by t d with t = lr (min(1, 1 / sum|g|) * lr at the very first
/// iteration) or the line search's step. It stops early when max|g| <= tolerance_grad, when g.d exceeds
/// -tolerance_change, or when the step or the loss change falls below tolerance_change.
///
/// The scalars of the algorithm (step lengths, directional derivatives, losses) are doubles here; Python's
/// are 0-dim tensors of the parameters' dtype in places, so float64 runs agree with Python's to rounding and
/// float32 runs to float32's precision.
class LBFGS : public Optimizer {
 public:
  /// Errors (ValueError): more than one group ("LBFGS doesn't support per-parameter options (parameter
  /// groups)").
  LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = LBFGSOptions());
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = LBFGSOptions());
  /// closure re-evaluates the model, calls backward and returns the loss; it is required. Returns the loss of
  /// its first evaluation. Errors: no closure; a line_search_fn other than "strong_wolfe".
  Tensor step(LossClosure closure) override;

 protected:
  bool state_has_param_shape(std::string_view /*key*/) const override { return false; }
  std::unique_ptr<OptimizerParamState> state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                       const Tensor& param) const override;

 private:
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  /// Moves the parameters by t d from x, evaluates closure there (loss, flat gradient), and restores x.
  std::pair<double, Tensor> directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                 double t, const Tensor& d);
};

}  // namespace ember::optim
