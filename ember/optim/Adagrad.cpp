#include "ember/optim/Adagrad.h"

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"

namespace ember::optim {

void AdagradOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("lr_decay", lr_decay_);
  v.field("eps", eps_);
  v.field("weight_decay", weight_decay_);
  v.field("initial_accumulator_value", initial_accumulator_value_);
  v.field("foreach", foreach_);
  v.field("maximize", maximize_);
}

void AdagradOptions::validate() const {
  using detail::check_option;
  using detail::py_float;
  check_option(0.0 <= lr_, "Invalid learning rate: " + py_float(lr_));
  check_option(0.0 <= lr_decay_, "Invalid lr_decay value: " + py_float(lr_decay_));
  check_option(0.0 <= weight_decay_, "Invalid weight_decay value: " + py_float(weight_decay_));
  check_option(0.0 <= initial_accumulator_value_,
               "Invalid initial_accumulator_value value: " + py_float(initial_accumulator_value_));
  check_option(0.0 <= eps_, "Invalid epsilon value: " + py_float(eps_));
}

std::unique_ptr<OptimizerParamState> AdagradParamState::clone() const {
  return std::make_unique<AdagradParamState>(*this);
}

std::vector<std::pair<std::string, IValue>> AdagradParamState::items() const {
  return {{"step", step_}, {"sum", sum_}};
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  for (auto& group : this->param_groups())
    for (const Tensor& p : group.params()) state_of(p);
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

AdagradParamState& Adagrad::state_of(const Tensor& p) {
  // As PyTorch 1.13, every sum starts at the defaults' initial_accumulator_value (a group's own is unused).
  const double init = static_cast<const AdagradOptions&>(defaults()).initial_accumulator_value();
  return state_or_init<AdagradParamState>(p, [&] {
    AdagradParamState s;
    s.step(scalar_tensor(0.0, kFloat32));
    s.sum(full_like(p, init, std::nullopt, std::nullopt, MemoryFormat::Preserve));
    return s;
  });
}

Tensor Adagrad::step(LossClosure closure) {
  using detail::number;
  Tensor loss = evaluate(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (const Tensor& p : group.params()) {
      Tensor grad = autograd::grad(p);
      if (!grad.defined()) continue;
      auto& state = state_of(p);
      state.step().add_(number(1));
      const double step = state.step().item<double>();
      if (o.maximize()) grad = grad.neg();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const double clr = o.lr() / (1 + (step - 1) * o.lr_decay());
      state.sum().addcmul_(grad, grad, 1);
      Tensor std = state.sum().sqrt().add_(number(o.eps()));
      p.addcdiv_(grad, std, -clr);
    }
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> Adagrad::state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                              const Tensor& /*param*/) const {
  auto state = std::make_unique<AdagradParamState>();
  const IValue* step = find_entry(entries, "step");
  EMBER_CHECK(step != nullptr, "load_state_dict: Adagrad state has no entry 'step'");
  // A state from before PyTorch 1.12 holds the step as a number; it is a float32 tensor since.
  if (step->is_int() || step->is_double())
    state->step(scalar_tensor(step->to_double(), kFloat32));
  else
    state->step(tensor_entry(entries, "step", "Adagrad state"));
  state->sum(tensor_entry(entries, "sum", "Adagrad state"));
  return state;
}

}  // namespace ember::optim
