// The Tensor-facing autograd API of autograd.h: the autograd state of one tensor (requires_grad, grad_fn,
// .grad, retain_grad, hooks, detach_) and the entry points backward() and grad(), which run the engine
// (Engine.cpp).
#include "ember/autograd/autograd.h"

#include "ember/autograd/Engine.h"
#include "ember/ops/Functions.h"

namespace ember::autograd {

void set_requires_grad(const Tensor& t, bool requires_grad) {
  AutogradMeta* m = get_meta(t);
  if (m && m->grad_fn) {
    EMBER_CHECK(requires_grad,
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return;
  }
  if (requires_grad) {
    EMBER_CHECK(!t.is_inference() || InferenceMode::is_enabled(),
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    EMBER_CHECK(is_floating_point(t.dtype()) || is_complex(t.dtype()),
                "only Tensors of floating point and complex dtype can require gradients");
    materialize_meta(t)->requires_grad_ = true;
  } else if (m) {
    m->requires_grad_ = false;
  }
}

bool is_leaf(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  return !m || !m->grad_fn;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if ((!m || m->is_view) && t.impl()->view_base()) m = refresh_view_grad_fn(t);  // Note [views and in-place]
  return m ? m->grad_fn : nullptr;
}

void detach_(const Tensor& t) {
  EMBER_CHECK(!t.impl()->view_base(),
              "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
              "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
              "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
              "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  AutogradMeta* m = get_meta(t);
  if (!m) return;
  m->grad_fn.reset();
  m->requires_grad_ = false;
  m->output_nr = 0;
  m->retained_grad.reset();
  m->grad_accumulator.reset();
}

Tensor grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if (!m) return Tensor();
  if (m->grad_fn) return m->retained_grad ? *m->retained_grad : Tensor();
  return m->grad;
}

void set_grad(const Tensor& t, const Tensor& g) {
  if (g.defined()) {
    EMBER_CHECK(same_sizes(g.sizes(), t.sizes()), "assigned grad has data of a different size");
    EMBER_CHECK(g.dtype() == t.dtype(), "assigned grad has data of a different type");
  }
  AutogradMeta* m = get_meta(t);
  if (!m && !g.defined()) return;
  m = materialize_meta(t);
  if (m->grad_fn) {
    if (!m->retained_grad) m->retained_grad = std::make_shared<Tensor>();
    *m->retained_grad = g;
  } else {
    m->grad = g;
  }
}

void retain_grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  EMBER_CHECK(m && m->requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (!m->grad_fn || m->retained_grad) return;  // leaves keep their grad anyway
  m->retained_grad = std::make_shared<Tensor>();
  // A hook among the others (Note [tensor hooks]); it writes through a weak slot, so the graph does not
  // keep the tensor's .grad alive.
  auto hook = std::make_shared<TensorPreHook>();
  hook->output_nr = m->output_nr;
  hook->name = "retain_grad";
  hook->fn = [slot = std::weak_ptr<Tensor>(m->retained_grad)](const Tensor& g) {
    if (auto p = slot.lock()) {
      // Under create_graph (grad mode on in the engine) the stored gradient keeps its history.
      if (p->defined()) *p = ember::add(*p, g);
      else *p = GradMode::is_enabled() ? g : ember::clone(g, MemoryFormat::Contiguous);
    }
    return Tensor();
  };
  m->grad_fn->tensor_pre_hooks.push_back(std::move(hook));
}

RemovableHandle::RemovableHandle(const std::shared_ptr<TensorPreHook>& hook)
    : remove_([w = std::weak_ptr<TensorPreHook>(hook)] {
        if (auto h = w.lock()) h->fn = nullptr;
      }) {}
RemovableHandle::RemovableHandle(const std::shared_ptr<NodePreHook>& hook)
    : remove_([w = std::weak_ptr<NodePreHook>(hook)] {
        if (auto h = w.lock()) *h = nullptr;
      }) {}
RemovableHandle::RemovableHandle(const std::shared_ptr<NodePostHook>& hook)
    : remove_([w = std::weak_ptr<NodePostHook>(hook)] {
        if (auto h = w.lock()) *h = nullptr;
      }) {}

void RemovableHandle::remove() {
  if (remove_) remove_();
  remove_ = nullptr;
}

namespace {
// Adds hook to list, dropping removed ones first (registering and removing in a loop does not grow it).
template <class H>
RemovableHandle add_node_hook(std::vector<std::shared_ptr<H>>& list, H fn) {
  std::erase_if(list, [](const std::shared_ptr<H>& h) { return !*h; });
  auto hook = std::make_shared<H>(std::move(fn));
  list.push_back(hook);
  return RemovableHandle(hook);
}
}  // namespace

RemovableHandle register_prehook(Node& node, NodePreHook fn) { return add_node_hook(node.pre_hooks, std::move(fn)); }
RemovableHandle register_hook(Node& node, NodePostHook fn) { return add_node_hook(node.post_hooks, std::move(fn)); }

RemovableHandle register_hook(const Tensor& t, GradHook fn, std::string name) {
  AutogradMeta* m = get_meta(t);
  EMBER_CHECK(m && m->requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  auto hook = std::make_shared<TensorPreHook>();
  hook->fn = std::move(fn);
  hook->name = std::move(name);
  // Removed hooks are dropped here, so registering and removing in a loop does not grow the list.
  auto add = [&hook](TensorPreHookList& list) {
    std::erase_if(list, [](const std::shared_ptr<TensorPreHook>& h) { return !h->fn; });
    list.push_back(hook);
  };
  if (m->grad_fn) {
    hook->output_nr = m->output_nr;
    add(m->grad_fn->tensor_pre_hooks);
  } else {
    add(m->hooks);
  }
  return RemovableHandle(hook);
}

bool retains_grad(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  return m && m->grad_fn && m->retained_grad;
}

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    detail::run_backward(tensors, grad_tensors, keep, create_graph, {}, false);
    return;
  }
  variable_list gs = detail::run_backward(tensors, grad_tensors, keep, create_graph, inputs, true, true);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!gs[i].defined()) continue;
    AutogradMeta* m = materialize_meta(inputs[i]);
    if (m->grad_fn) {
      if (!m->retained_grad) m->retained_grad = std::make_shared<Tensor>();
      detail::accumulate_into(*m->retained_grad, gs[i]);
    } else {
      AccumulateGrad acc(inputs[i]);
      acc.apply({gs[i]});
    }
  }
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires at least one input");
  return detail::run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, inputs,
                              allow_unused, false);
}

}  // namespace ember::autograd
