// The autograd layer's implementation of Tensor's autograd methods (Note [variable hooks] in
// ember/core/VariableHooks.h), registered while libember.so is loaded.
#include "ember/core/VariableHooks.h"

#include "ember/autograd/autograd.h"

namespace ember::autograd {
namespace {

// The .grad of a tensor without one, returned by reference.
const Tensor& undefined_tensor() {
  static const Tensor t;
  return t;
}

struct AutogradVariableHooks final : VariableHooksInterface {
  void set_requires_grad(const Tensor& self, bool requires_grad) const override {
    autograd::set_requires_grad(self, requires_grad);
  }

  const Tensor& grad(const Tensor& self) const override {
    AutogradMeta* m = get_meta(self);
    if (!m) return undefined_tensor();
    if (m->grad_fn) return m->retained_grad ? *m->retained_grad : undefined_tensor();
    return m->grad;
  }

  Tensor& mutable_grad(const Tensor& self) const override {
    AutogradMeta* m = materialize_meta(self);
    if (!m->grad_fn) return m->grad;
    if (!m->retained_grad) m->retained_grad = std::make_shared<Tensor>();
    return *m->retained_grad;
  }

  void backward(const Tensor& self, const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                OptionalArrayRef<Tensor> inputs) const override {
    variable_list grads;
    if (gradient.defined()) grads.push_back(gradient);
    variable_list in;
    if (inputs.has_value()) {
      EMBER_CHECK(!inputs->empty(), "backward: 'inputs' argument to backward() cannot be empty.");
      in = inputs->vec();
    }
    autograd::backward({self}, grads, retain_graph, create_graph, in);
  }

  bool is_leaf(const Tensor& self) const override { return autograd::is_leaf(self); }
  std::shared_ptr<Node> grad_fn(const Tensor& self) const override { return autograd::grad_fn(self); }
  void retain_grad(const Tensor& self) const override { autograd::retain_grad(self); }
  bool retains_grad(const Tensor& self) const override { return autograd::retains_grad(self); }
  void detach_(const Tensor& self) const override { autograd::detach_(self); }
};

const AutogradVariableHooks g_hooks;

// Registration at load time: a static object of libember.so, so it happens before any user code runs.
struct Registerer {
  Registerer() { set_variable_hooks(&g_hooks); }
} g_registerer;

}  // namespace
}  // namespace ember::autograd
