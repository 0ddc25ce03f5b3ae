#include "ember/optim/SGD.h"

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"

namespace ember::optim {

void SGDOptions::visit(OptionVisitor& v) {
  v.field("lr", lr_);
  v.field("momentum", momentum_);
  v.field("dampening", dampening_);
  v.field("weight_decay", weight_decay_);
  v.field("nesterov", nesterov_);
  v.field("maximize", maximize_);
  v.field("foreach", foreach_);
  v.field("differentiable", differentiable_);
}

void SGDOptions::validate() const {
  using detail::check_option;
  using detail::py_float;
  check_option(lr_ >= 0.0, "Invalid learning rate: " + py_float(lr_));
  check_option(momentum_ >= 0.0, "Invalid momentum value: " + py_float(momentum_));
  check_option(weight_decay_ >= 0.0, "Invalid weight_decay value: " + py_float(weight_decay_));
  check_option(!nesterov_ || (momentum_ > 0 && dampening_ == 0),
               "Nesterov momentum requires a momentum and zero dampening");
  detail::reject_unsupported(/*capturable=*/false, differentiable_);
}

std::unique_ptr<OptimizerParamState> SGDParamState::clone() const {
  return std::make_unique<SGDParamState>(*this);
}

std::vector<std::pair<std::string, IValue>> SGDParamState::items() const {
  return {{"momentum_buffer", momentum_buffer_.defined() ? IValue(momentum_buffer_) : IValue()}};
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : Optimizer(std::move(params), std::make_unique<SGDOptions>(defaults)) {}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  autograd::NoGradGuard no_grad;
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const SGDOptions&>(group.options());
    const double momentum = options.momentum();
    for (const Tensor& p : group.params()) {
      Tensor grad = autograd::grad(p);
      if (!grad.defined()) continue;
      Tensor d_p = options.maximize() ? grad.neg() : grad;
      if (options.weight_decay() != 0) d_p = d_p.add(p, options.weight_decay());
      auto& state = state_or_init<SGDParamState>(p, [] { return SGDParamState(); });
      Tensor buf = state.momentum_buffer();
      if (momentum != 0) {
        if (!buf.defined())
          buf = d_p.clone().detach();
        else
          buf.mul_(detail::number(momentum)).add_(d_p, 1 - options.dampening());
        d_p = options.nesterov() ? d_p.add(buf, momentum) : buf;
      }
      state.momentum_buffer(buf);
      p.add_(d_p, -options.lr());
    }
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> SGD::state_from_dict(const std::vector<std::pair<IValue, IValue>>& entries,
                                                          const Tensor& /*param*/) const {
  auto state = std::make_unique<SGDParamState>();
  const IValue* buf = find_entry(entries, "momentum_buffer");
  if (buf != nullptr && !buf->is_none()) state->momentum_buffer(tensor_entry(entries, "momentum_buffer", "SGD state"));
  return state;
}

}  // namespace ember::optim
