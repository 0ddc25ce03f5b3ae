#include "ember/optim/Adam.h"

#include <cmath>

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"

namespace ember::optim {

namespace {

// The checks Adam and AdamW share (ValueError with PyTorch's messages).
void check_adam_options(double lr, const betas_t& betas, double eps, double weight_decay) {
  using detail::check_option;
  using detail::py_float;
  const auto [beta1, beta2] = betas;
  check_option(0.0 <= lr, "Invalid learning rate: " + py_float(lr));
  check_option(0.0 <= eps, "Invalid epsilon value: " + py_float(eps));
  check_option(0.0 <= beta1 && beta1 < 1.0, "Invalid beta parameter at index 0: " + py_float(beta1));
  check_option(0.0 <= beta2 && beta2 < 1.0, "Invalid beta parameter at index 1: " + py_float(beta2));
  check_option(0.0 <= weight_decay, "Invalid weight_decay value: " + py_float(weight_decay));
}

Tensor zeros_like_param(const Tensor& p) { return zeros_like(p, std::nullopt, std::nullopt, MemoryFormat::Preserve); }

}  // namespace

void AdamOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("betas", betas_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("amsgrad", amsgrad_);
  v.field("maximize", maximize_);
  v.field("foreach", foreach_);
  v.field("capturable", capturable_);
  v.field("differentiable", differentiable_);
  v.field("fused", fused_);
}

void AdamOptions::validate() const {
  check_adam_options(lr_, betas_, eps_, weight_decay_);
  detail::reject_unsupported(capturable_, differentiable_);
  EMBER_CHECK(!fused_, "FusedAdam requires all the params to be CUDA, floating point");
}

void AdamWOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("betas", betas_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("amsgrad", amsgrad_);
  v.field("foreach", foreach_);
  v.field("maximize", maximize_);
  v.field("capturable", capturable_);
}

void AdamWOptions::validate() const {
  check_adam_options(lr_, betas_, eps_, weight_decay_);
  detail::reject_unsupported(capturable_, /*differentiable=*/false);
}

std::unique_ptr<OptimizerParamState> AdamParamState::clone() const {
  return std::make_unique<AdamParamState>(*this);
}

std::vector<std::pair<std::string, IValue>> AdamParamState::items() const {
  std::vector<std::pair<std::string, IValue>> items{
      {"step", step_}, {"exp_avg", exp_avg_}, {"exp_avg_sq", exp_avg_sq_}};
  if (max_exp_avg_sq_.defined()) items.emplace_back("max_exp_avg_sq", max_exp_avg_sq_);
  return items;
}

AdamBase::AdamBase(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults,
                   bool decoupled)
    : Optimizer(std::move(param_groups), std::move(defaults)), decoupled_(decoupled) {}

AdamBase::AdamBase(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> defaults, bool decoupled)
    : Optimizer(std::move(params), std::move(defaults)), decoupled_(decoupled) {}

Tensor AdamBase::step(LossClosure closure) {
  // See Note [Adam's order of operations] (python/ember/optim/adam.py): the same ops in the same order, the
  // bias corrections computed in double from the step read back from its float32 tensor.
  using detail::number;
  Tensor loss = evaluate(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const Hyper h = hyper(group.options());
    for (const Tensor& param : group.params()) {
      Tensor grad = autograd::grad(param);
      if (!grad.defined()) continue;
      auto& state = state_or_init<AdamParamState>(param, [&] {
        AdamParamState s;
        s.step(scalar_tensor(0.0, kFloat32));
        s.exp_avg(zeros_like_param(param));
        s.exp_avg_sq(zeros_like_param(param));
        if (h.amsgrad) s.max_exp_avg_sq(zeros_like_param(param));
        return s;
      });
      if (h.maximize) grad = grad.neg();
      const Tensor& exp_avg = state.exp_avg();
      const Tensor& exp_avg_sq = state.exp_avg_sq();
      state.step().add_(number(1));
      if (decoupled_)
        param.mul_(number(1 - h.lr * h.weight_decay));
      else if (h.weight_decay != 0)
        grad = grad.add(param, h.weight_decay);
      exp_avg.mul_(number(h.beta1)).add_(grad, 1 - h.beta1);
      exp_avg_sq.mul_(number(h.beta2)).addcmul_(grad, grad, 1 - h.beta2);
      const double step = state.step().item<double>();
      const double bias_correction1 = 1 - std::pow(h.beta1, step);
      const double bias_correction2_sqrt = std::sqrt(1 - std::pow(h.beta2, step));
      const double step_size = h.lr / bias_correction1;
      Tensor second_moment = exp_avg_sq;
      if (h.amsgrad) {
        EMBER_CHECK(state.max_exp_avg_sq().defined(),
                    "Adam: amsgrad is on but the state of a parameter has no max_exp_avg_sq (it took its first "
                    "step with amsgrad off)");
        second_moment = state.max_exp_avg_sq();
        maximum_out(second_moment, second_moment, exp_avg_sq);
      }
      Tensor denom = div(second_moment.sqrt(), bias_correction2_sqrt).add_(number(h.eps));
      param.addcdiv_(exp_avg, denom, -step_size);
    }
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> AdamBase::state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                               const Tensor& /*param*/) const {
  auto state = std::make_unique<AdamParamState>();
  const IValue* step = find_entry(entries, "step");
  EMBER_CHECK(step != nullptr, "load_state_dict: Adam state has no entry 'step'");
  // A state from before PyTorch 1.12 holds the step as a number; it is a float32 tensor since.
  if (step->is_int() || step->is_double())
    state->step(scalar_tensor(step->to_double(), kFloat32));
  else
    state->step(tensor_entry(entries, "step", "Adam state"));
  state->exp_avg(tensor_entry(entries, "exp_avg", "Adam state"));
  state->exp_avg_sq(tensor_entry(entries, "exp_avg_sq", "Adam state"));
  if (find_entry(entries, "max_exp_avg_sq") != nullptr)
    state->max_exp_avg_sq(tensor_entry(entries, "max_exp_avg_sq", "Adam state"));
  return state;
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : AdamBase(std::move(param_groups), std::make_unique<AdamOptions>(defaults), /*decoupled=*/false) {}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : AdamBase(std::move(params), std::make_unique<AdamOptions>(defaults), /*decoupled=*/false) {}

AdamBase::Hyper Adam::hyper(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamOptions&>(options);
  return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(), o.maximize()};
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : AdamBase(std::move(param_groups), std::make_unique<AdamWOptions>(defaults), /*decoupled=*/true) {}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamBase(std::move(params), std::make_unique<AdamWOptions>(defaults), /*decoupled=*/true) {}

AdamBase::Hyper AdamW::hyper(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamWOptions&>(options);
  return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(), o.maximize()};
}

}  // namespace ember::optim
