#include "ember/optim/RMSprop.h"

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"

namespace ember::optim {

void RMSpropOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("momentum", momentum_);
  v.field("alpha", alpha_);
  v.field("eps", eps_);
  v.field("centered", centered_);
  v.field("weight_decay", weight_decay_);
  v.field("foreach", foreach_);
  v.field("maximize", maximize_);
  v.field("differentiable", differentiable_);
}

void RMSpropOptions::validate() const {
  using detail::check_option;
  using detail::py_float;
  check_option(0.0 <= lr_, "Invalid learning rate: " + py_float(lr_));
  check_option(0.0 <= eps_, "Invalid epsilon value: " + py_float(eps_));
  check_option(0.0 <= momentum_, "Invalid momentum value: " + py_float(momentum_));
  check_option(0.0 <= weight_decay_, "Invalid weight_decay value: " + py_float(weight_decay_));
  check_option(0.0 <= alpha_, "Invalid alpha value: " + py_float(alpha_));
  detail::reject_unsupported(/*capturable=*/false, differentiable_);
}

std::unique_ptr<OptimizerParamState> RMSpropParamState::clone() const {
  return std::make_unique<RMSpropParamState>(*this);
}

std::vector<std::pair<std::string, IValue>> RMSpropParamState::items() const {
  std::vector<std::pair<std::string, IValue>> items{{"step", step_}, {"square_avg", square_avg_}};
  if (momentum_buffer_.defined()) items.emplace_back("momentum_buffer", momentum_buffer_);
  if (grad_avg_.defined()) items.emplace_back("grad_avg", grad_avg_);
  return items;
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : Optimizer(std::move(params), std::make_unique<RMSpropOptions>(defaults)) {}

Tensor RMSprop::step(LossClosure closure) {
  using detail::number;
  Tensor loss = evaluate(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    const double alpha = o.alpha(), momentum = o.momentum();
    for (const Tensor& p : group.params()) {
      Tensor grad = autograd::grad(p);
      if (!grad.defined()) continue;
      auto& state = state_or_init<RMSpropParamState>(p, [&] {
        RMSpropParamState s;
        auto zeros = [&] { return zeros_like(p, std::nullopt, std::nullopt, MemoryFormat::Preserve); };
        s.square_avg(zeros());
        if (momentum > 0) s.momentum_buffer(zeros());
        if (o.centered()) s.grad_avg(zeros());
        return s;
      });
      state.step(state.step() + 1);
      if (o.maximize()) grad = grad.neg();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const Tensor& square_avg = state.square_avg();
      square_avg.mul_(number(alpha)).addcmul_(grad, grad, 1 - alpha);
      Tensor avg;
      if (o.centered()) {
        EMBER_CHECK(state.grad_avg().defined(), "RMSprop: centered is on but the state of a parameter has no "
                                                "grad_avg (it took its first step with centered off)");
        const Tensor& grad_avg = state.grad_avg();
        grad_avg.mul_(number(alpha)).add_(grad, 1 - alpha);
        avg = square_avg.addcmul(grad_avg, grad_avg, -1).sqrt_();
      } else {
        avg = square_avg.sqrt();
      }
      avg.add_(number(o.eps()));
      if (momentum > 0) {
        EMBER_CHECK(state.momentum_buffer().defined(), "RMSprop: momentum is on but the state of a parameter has "
                                                       "no momentum_buffer (it took its first step without momentum)");
        const Tensor& buf = state.momentum_buffer();
        buf.mul_(number(momentum)).addcdiv_(grad, avg);
        p.add_(buf, -o.lr());
      } else {
        p.addcdiv_(grad, avg, -o.lr());
      }
    }
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> RMSprop::state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                              const Tensor& /*param*/) const {
  auto state = std::make_unique<RMSpropParamState>();
  const IValue* step = find_entry(entries, "step");
  EMBER_CHECK(step != nullptr && (step->is_int() || step->is_tensor()),
              "load_state_dict: RMSprop state entry 'step' must be an int");
  state->step(step->is_int() ? step->to_int() : step->to_tensor().item<int64_t>());
  state->square_avg(tensor_entry(entries, "square_avg", "RMSprop state"));
  if (find_entry(entries, "momentum_buffer") != nullptr)
    state->momentum_buffer(tensor_entry(entries, "momentum_buffer", "RMSprop state"));
  if (find_entry(entries, "grad_avg") != nullptr)
    state->grad_avg(tensor_entry(entries, "grad_avg", "RMSprop state"));
  return state;
}

}  // namespace ember::optim
