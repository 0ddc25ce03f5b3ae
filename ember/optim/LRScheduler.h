#pragma once
// Learning-rate schedules (Python's ember.optim.lr_scheduler, PyTorch 1.13's torch.optim.lr_scheduler, with
// LibTorch's C++ names): LambdaLR, StepLR, MultiStepLR, CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau.
//
//   ember::optim::StepLR scheduler(optimizer, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(...); scheduler.step(); }
//
// The lrs are computed by the formulas of the Python classes, term for term (chainable: from each group's
// current lr; closed form for step(epoch)), so a C++ schedule and a Python one agree to the last bit. See Note
// [chainable and closed-form schedules] in python/ember/optim/lr_scheduler.py. Schedulers keep their
// per-group values in the parameter groups under Python's keys ("initial_lr", OneCycleLR's "max_lr", ...:
// Note [group extras]), so they travel with the optimizer's state dict as in Python.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/Optimizer.h"

namespace ember::optim {

/// The base of the epoch-based schedulers (Python's LRScheduler). Construction records each group's
/// "initial_lr" (its lr then, unless resuming) as base_lrs() and takes the first step, which sets the lrs of
/// epoch 0; each step() then advances last_epoch() and sets every group's lr.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances the schedule by one epoch and sets the groups' lrs.
  void step();
  /// Jumps to `epoch` (deprecated in PyTorch): the closed form of the schedule from the base lrs where the
  /// scheduler has one (StepLR, MultiStepLR, CosineAnnealingLR), else the chainable form.
  void step(int64_t epoch);
  /// The lrs of the groups as the last step set them.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// Each group's initial lr.
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  /// The index of the last epoch (0 after construction).
  int64_t last_epoch() const { return last_epoch_; }

 protected:
  /// last_epoch: the index of the last epoch when resuming (the groups must have "initial_lr"); -1 starts.
  explicit LRScheduler(Optimizer& optimizer, int64_t last_epoch = -1);
  /// Records base_lrs and takes the first step; each subclass's constructor ends with it (get_lr() is
  /// virtual). Errors: resuming with a group without "initial_lr" (KeyError-like RuntimeError, Python's text).
  void initial_step();
  /// The new lr of each group for epoch last_epoch() (chainable form).
  virtual std::vector<double> get_lr() = 0;
  /// The closed form of the schedule for epoch last_epoch(), when the scheduler has one.
  virtual std::optional<std::vector<double>> closed_form_lr() { return std::nullopt; }
  /// The groups' current lrs.
  std::vector<double> group_lrs() const;
  /// The number of step() calls so far, the initial one included.
  int64_t step_count() const { return step_count_; }

  Optimizer& optimizer_;

 private:
  void apply(const std::vector<double>& lrs);

  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

/// lr = initial_lr * lr_lambda(epoch), with one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1);
  /// Errors (ValueError): not one function per group ("Expected 2 lr_lambdas, but got 1").
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

/// Multiplies the lr by gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  /// Errors (ValueError): step_size < 1 (the schedule would divide by zero).
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// Multiplies the lr by gamma at each milestone epoch (by gamma^k for a milestone listed k times).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  std::vector<int64_t> milestones_;  // sorted, a milestone listed k times appears k times
  double gamma_;
};

/// Cosine annealing from the initial lr to eta_min over T_max epochs (and back over the next T_max; no
/// restarts): lr_t = eta_min + (initial_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2, computed recursively
/// from the current lr by step() as Python does.
class CosineAnnealingLR : public LRScheduler {
 public:
  /// Errors (ValueError): T_max < 1.
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// OneCycleLR's options besides max_lr. total_steps, or epochs and steps_per_epoch, must be given.
struct OneCycleLROptions {
  enum class AnnealStrategy { Cos, Linear };
  EMBER_OPTIM_ARG(std::optional<int64_t>, total_steps) = std::nullopt;
  EMBER_OPTIM_ARG(std::optional<int64_t>, epochs) = std::nullopt;
  EMBER_OPTIM_ARG(std::optional<int64_t>, steps_per_epoch) = std::nullopt;
  EMBER_OPTIM_ARG(double, pct_start) = 0.3;
  EMBER_OPTIM_ARG(AnnealStrategy, anneal_strategy) = AnnealStrategy::Cos;
  EMBER_OPTIM_ARG(bool, cycle_momentum) = true;
  EMBER_OPTIM_ARG(double, base_momentum) = 0.85;
  EMBER_OPTIM_ARG(double, max_momentum) = 0.95;
  EMBER_OPTIM_ARG(double, div_factor) = 25.0;
  EMBER_OPTIM_ARG(double, final_div_factor) = 1e4;
  EMBER_OPTIM_ARG(bool, three_phase) = false;
  EMBER_OPTIM_ARG(int64_t, last_epoch) = -1;
};

/// The 1cycle policy, stepped after every batch: the lr rises from max_lr / div_factor to max_lr over the
/// first pct_start of the steps, then falls to initial_lr / final_div_factor (three_phase: back to the initial
/// lr, then down to the minimum); the momentum (Adam's beta1) moves inversely between max_momentum and
/// base_momentum.
class OneCycleLR : public LRScheduler {
 public:
  /// max_lr: the peak lr of each group. Errors (ValueError, Python's messages): neither total_steps nor
  /// epochs and steps_per_epoch; one of them < 1; pct_start outside [0, 1]; max_lr not one per group;
  /// cycle_momentum with an optimizer without momentum or betas.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, OneCycleLROptions options);
  /// The same peak lr for every group.
  OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleLROptions options);

 protected:
  /// Errors (ValueError): stepping past total_steps ("Tried to step 11 times. The specified number of total
  /// steps is 10").
  std::vector<double> get_lr() override;

 private:
  struct Phase {
    double end_step;
    const char* start_lr;
    const char* end_lr;
    const char* start_momentum;
    const char* end_momentum;
  };
  void set_momentum(OptimizerParamGroup& group, double momentum) const;
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_ = 0;
  std::vector<Phase> phases_;
  OneCycleLROptions::AnnealStrategy strategy_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
};

/// ReduceLROnPlateau's options (Python's keyword arguments).
struct ReduceLROnPlateauOptions {
  enum class Mode { Min, Max };
  enum class ThresholdMode { Rel, Abs };
  EMBER_OPTIM_ARG(Mode, mode) = Mode::Min;
  EMBER_OPTIM_ARG(double, factor) = 0.1;
  EMBER_OPTIM_ARG(int64_t, patience) = 10;
  EMBER_OPTIM_ARG(double, threshold) = 1e-4;
  EMBER_OPTIM_ARG(ThresholdMode, threshold_mode) = ThresholdMode::Rel;
  EMBER_OPTIM_ARG(int64_t, cooldown) = 0;
  /// One lower bound of the lr per group, or a single one for all groups (the default 0).
  EMBER_OPTIM_ARG(std::vector<double>, min_lr) = {0.0};
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
};

/// Reduces the lr when a metric has stopped improving: after more than patience epochs without an
/// improvement, each group's lr becomes max(lr * factor, min_lr), then cooldown epochs pass before bad
/// epochs count again. A reduction smaller than eps is not applied. (Not an LRScheduler, as in Python.)
class ReduceLROnPlateau {
 public:
  /// Errors (ValueError): factor >= 1 ("Factor should be < 1.0."); min_lr with more than one value but not
  /// one per group.
  explicit ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  /// Takes the epoch's metric and reduces the lrs when it is time.
  void step(double metric);
  /// The groups' lrs after the last step (empty before the first).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  /// Whether the metric a improves on best by the threshold.
  bool is_better(double a, double best) const;

 private:
  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// LibTorch's name of ReduceLROnPlateau (torch::optim::ReduceLROnPlateauScheduler); its options are a
/// ReduceLROnPlateauOptions struct here rather than LibTorch's positional arguments.
using ReduceLROnPlateauScheduler = ReduceLROnPlateau;

}  // namespace ember::optim
