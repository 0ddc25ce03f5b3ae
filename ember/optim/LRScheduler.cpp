#include "ember/optim/LRScheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ember::optim {

namespace {

constexpr double kPi = std::numbers::pi;  // Python's math.pi

// value as one entry per parameter group: a single value is repeated, otherwise one per group is needed.
std::vector<double> per_group(const Optimizer& optimizer, std::vector<double> values, std::string_view name) {
  const size_t groups = optimizer.param_groups().size();
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  EMBER_CHECK_VALUE(values.size() == groups, "expected {} values for {}, got {}", groups, name, values.size());
  return values;
}

}  // namespace

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch) : optimizer_(optimizer), last_epoch_(last_epoch) {}

void LRScheduler::initial_step() {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    if (last_epoch_ == -1) {
      if (!groups[i].contains("initial_lr")) groups[i].set("initial_lr", groups[i].options().get_lr());
    } else {
      EMBER_CHECK(groups[i].contains("initial_lr"),
                  "param 'initial_lr' is not specified in param_groups[{}] when resuming an optimizer", i);
    }
  }
  base_lrs_.clear();
  for (const auto& group : groups) base_lrs_.push_back(group.get("initial_lr").to_double());
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  apply(get_lr());
}

void LRScheduler::step(int64_t epoch) {
  ++step_count_;
  last_epoch_ = epoch;
  auto closed = closed_form_lr();
  apply(closed ? *closed : get_lr());
}

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), lr_lambdas_(std::move(lr_lambdas)) {
  EMBER_CHECK_VALUE(lr_lambdas_.size() == optimizer.param_groups().size(), "Expected {} lr_lambdas, but got {}",
                    optimizer.param_groups().size(), lr_lambdas_.size());
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < lr_lambdas_.size(); ++i) lrs.push_back(base_lrs()[i] * lr_lambdas_[i](last_epoch()));
  return lrs;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: step_size must be a positive number of epochs, got {}", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch() == 0 || last_epoch() % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

// Python's floor division: epochs before 0 (never reached by step()) round down as Python's // does.
static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::optional<std::vector<double>> StepLR::closed_form_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs())
    lrs.push_back(base * std::pow(gamma_, static_cast<double>(floor_div(last_epoch(), step_size_))));
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch());
  if (count == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() {
  // bisect_right: the number of milestones <= last_epoch.
  auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch()) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs()) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be a positive number of epochs, got {}", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  const int64_t t = last_epoch();
  const double t_max = static_cast<double>(T_max_), eta_min = eta_min_;
  std::vector<double> lrs = group_lrs();
  if (t == 0) return lrs;
  const auto& base = base_lrs();
  if (step_count() == 1 && t > 0) {  // the first step when resuming: the closed form
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = eta_min + (base[i] - eta_min) * (1 + std::cos(double(t) * kPi / t_max)) / 2;
    return lrs;
  }
  if ((t - 1 - T_max_) % (2 * T_max_) == 0) {  // leaving the minimum: the recursion's ratio would be 0/0
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] = lrs[i] + (base[i] - eta_min) * (1 - std::cos(kPi / t_max)) / 2;
    return lrs;
  }
  for (double& lr : lrs)
    lr = (1 + std::cos(kPi * double(t) / t_max)) / (1 + std::cos(kPi * double(t - 1) / t_max)) * (lr - eta_min) +
         eta_min;
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs())
    lrs.push_back(eta_min_ +
                  (base - eta_min_) * (1 + std::cos(kPi * double(last_epoch()) / double(T_max_))) / 2);
  return lrs;
}

OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleLROptions options)
    : OneCycleLR(optimizer, std::vector<double>{max_lr}, std::move(options)) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, OneCycleLROptions options)
    : LRScheduler(optimizer, options.last_epoch()), strategy_(options.anneal_strategy()),
      cycle_momentum_(options.cycle_momentum()) {
  const auto& o = options;
  EMBER_CHECK_VALUE(o.total_steps() || o.epochs() || o.steps_per_epoch(),
                    "You must define either total_steps OR (epochs AND steps_per_epoch)");
  if (o.total_steps()) {
    EMBER_CHECK_VALUE(*o.total_steps() > 0, "Expected positive integer total_steps, but got {}", *o.total_steps());
    total_steps_ = *o.total_steps();
  } else {
    EMBER_CHECK_VALUE(o.epochs() && *o.epochs() > 0, "Expected positive integer epochs, but got {}",
                      o.epochs() ? fmt::format("{}", *o.epochs()) : "None");
    EMBER_CHECK_VALUE(o.steps_per_epoch() && *o.steps_per_epoch() > 0,
                      "Expected positive integer steps_per_epoch, but got {}",
                      o.steps_per_epoch() ? fmt::format("{}", *o.steps_per_epoch()) : "None");
    total_steps_ = *o.epochs() * *o.steps_per_epoch();
  }
  // Each phase anneals from start to end over the steps after the previous phase's end_step up to its own
  // (end_step as Python computes it: a float from pct_start).
  const double pct = o.pct_start(), total = static_cast<double>(total_steps_);
  const double last = static_cast<double>(total_steps_ - 1);
  if (o.three_phase()) {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * pct * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {last, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {last, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  EMBER_CHECK_VALUE(pct >= 0 && pct <= 1, "Expected float between 0 and 1 pct_start, but got {}",
                    detail::py_float(pct));
  auto& groups = optimizer.param_groups();
  std::vector<double> max_lrs = per_group(optimizer, std::move(max_lr), "max_lr");
  if (last_epoch() == -1) {
    for (size_t i = 0; i < groups.size(); ++i) {
      const double initial_lr = max_lrs[i] / o.div_factor();
      groups[i].set("initial_lr", initial_lr);
      groups[i].set("max_lr", max_lrs[i]);
      groups[i].set("min_lr", initial_lr / o.final_div_factor());
    }
  }
  if (cycle_momentum_) {
    const OptimizerOptions& defaults = optimizer.defaults();
    EMBER_CHECK_VALUE(defaults.has("momentum") || defaults.has("betas"),
                      "optimizer must support momentum with `cycle_momentum` option enabled");
    use_beta1_ = defaults.has("betas");
    if (last_epoch() == -1) {
      for (auto& group : groups) {
        set_momentum(group, o.max_momentum());
        group.set("max_momentum", o.max_momentum());
        group.set("base_momentum", o.base_momentum());
      }
    }
  }
  initial_step();
}

void OneCycleLR::set_momentum(OptimizerParamGroup& group, double momentum) const {
  if (use_beta1_) {
    const IValue betas = group.get("betas");  // a copy: a reference into get()'s temporary would dangle
    group.set("betas", IValue::tuple({momentum, betas.to_list()[1]}));
  } else {
    group.set("momentum", momentum);
  }
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (strategy_ == OneCycleLROptions::AnnealStrategy::Cos) {
    const double cos_out = std::cos(kPi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch();
  EMBER_CHECK_VALUE(step_num <= total_steps_, "Tried to step {} times. The specified number of total steps is {}",
                    step_num + 1, total_steps_);
  std::vector<double> lrs;
  for (auto& group : optimizer_.param_groups()) {
    double start_step = 0, pct = 0;
    const Phase* phase = nullptr;
    for (size_t i = 0; i < phases_.size(); ++i) {
      phase = &phases_[i];
      if (double(step_num) <= phase->end_step || i == phases_.size() - 1) {
        // Python raises ZeroDivisionError for a phase of no steps (too few total_steps for pct_start).
        EMBER_CHECK_VALUE(phase->end_step != start_step,
                          "OneCycleLR: phase {} of the schedule has no steps (total_steps={}, pct_start too small "
                          "or too large for it)", i, total_steps_);
        pct = (double(step_num) - start_step) / (phase->end_step - start_step);
        break;
      }
      start_step = phase->end_step;
    }
    lrs.push_back(anneal(group.get(phase->start_lr).to_double(), group.get(phase->end_lr).to_double(), pct));
    if (cycle_momentum_)
      set_momentum(group, anneal(group.get(phase->start_momentum).to_double(),
                                 group.get(phase->end_momentum).to_double(), pct));
  }
  return lrs;
}

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options)
    : optimizer_(optimizer), options_(std::move(options)) {
  EMBER_CHECK_VALUE(options_.factor() < 1.0, "Factor should be < 1.0.");
  const size_t groups = optimizer.param_groups().size();
  const auto& min_lr = options_.min_lr();
  if (min_lr.size() == 1) {
    min_lrs_.assign(groups, min_lr[0]);
  } else {
    EMBER_CHECK_VALUE(min_lr.size() == groups, "expected {} min_lrs, got {}", groups, min_lr.size());
    min_lrs_ = min_lr;
  }
  best_ = options_.mode() == ReduceLROnPlateauOptions::Mode::Min ? std::numeric_limits<double>::infinity()
                                                                  : -std::numeric_limits<double>::infinity();
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  using M = ReduceLROnPlateauOptions::Mode;
  using T = ReduceLROnPlateauOptions::ThresholdMode;
  const double threshold = options_.threshold();
  if (options_.mode() == M::Min && options_.threshold_mode() == T::Rel) return a < best * (1.0 - threshold);
  if (options_.mode() == M::Min && options_.threshold_mode() == T::Abs) return a < best - threshold;
  if (options_.mode() == M::Max && options_.threshold_mode() == T::Rel) return a > best * (threshold + 1.0);
  return a > best + threshold;
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in the cooldown do not count
  }
  auto& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > options_.patience()) {
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * options_.factor(), min_lrs_[i]);
      if (old_lr - new_lr > options_.eps()) groups[i].options().set_lr(new_lr);
    }
    cooldown_counter_ = options_.cooldown();
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& group : groups) last_lr_.push_back(group.options().get_lr());
}

}  // namespace ember::optim
