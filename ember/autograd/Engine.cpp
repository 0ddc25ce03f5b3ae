// The engine: runs the graph backwards from its roots in dependency order (single-threaded), and the
// tensor-level API around it (requires_grad, .grad, retain_grad).
//
// Note [engine order]
// A first pass counts, for every node reachable from the roots, how many edges lead into it. A node runs
// when all of them have delivered their gradient into its input buffer (summed when several arrive). Among
// ready nodes the most recently created runs first (PyTorch's order; it keeps memory low on long chains).
// For grad() and backward(inputs=...) only the nodes from which a requested input can be reached run, and
// the gradient arriving at each requested input's edge is captured instead of being accumulated.
#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/AnomalyMode.h"
#include "ember/autograd/autograd.h"
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
    EMBER_CHECK(is_floating_point(t.dtype()),
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

namespace {

void accumulate_into(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  slot = slot.defined() ? ember::add(slot, g) : g;
}

struct EdgeKey {
  Node* fn;
  uint32_t nr;
  bool operator==(const EdgeKey& o) const { return fn == o.fn && nr == o.nr; }
};
struct EdgeHash {
  size_t operator()(const EdgeKey& k) const { return std::hash<Node*>()(k.fn) * 31 + k.nr; }
};

// Runs the graph. With `inputs` empty every reachable node runs (backward()); otherwise the gradients at the
// inputs' edges are returned and AccumulateGrad nodes do not run (Note [engine order]).
// Runs node.apply in anomaly mode: an error escaping it is preceded by the anomaly warning, and with
// check_nan an output gradient holding a NaN raises (Note [anomaly mode]).
variable_list apply_with_anomaly_checks(Node& node, variable_list&& in) {
  try {
    variable_list out = node.apply(std::move(in));
    if (AnomalyMode::should_check_nan()) {
      NoGradGuard no_grad;
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i].defined() && out[i].is_floating_point() && ember::isnan(out[i]).any().item<bool>())
          EMBER_FAIL("Function '{}' returned nan values in its {}th output.", node.name(), i);
    }
    return out;
  } catch (...) {
    AnomalyMode::report_error(node);
    throw;
  }
}

// The tensor hooks, then the node's own pre-hooks (PyTorch 1.13's order), on the gradients flowing into n.
void run_pre_hooks(Node& n, variable_list& in) {
  if (!n.tensor_pre_hooks.empty()) call_tensor_pre_hooks(n.tensor_pre_hooks, in);
  for (size_t i = 0; i < n.pre_hooks.size(); ++i) {
    NodePreHook fn = *n.pre_hooks[i];  // a copy: the hook may remove itself (or register others) while it runs
    if (fn) fn(in);
  }
}

// hooks_before_capture: backward(inputs=) semantics rather than grad()'s (Note [tensor hooks]).
variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused,
                           bool hooks_before_capture = true) {
  const bool anomaly = AnomalyMode::is_enabled();
  EMBER_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(),
              "grad can be implicitly created only for scalar outputs: got {} tensors and {} gradients",
              roots.size(), grad_roots.size());
  std::vector<Edge> root_edges;
  variable_list root_grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    Edge e = gradient_edge(r);
    EMBER_CHECK(e.valid(), "element {} of tensors does not require grad and does not have a grad_fn", i);
    Tensor g = i < grad_roots.size() ? grad_roots[i] : Tensor();
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ember::ones_like(r);
    } else {
      EMBER_CHECK(same_sizes(g.sizes(), r.sizes()), "Mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a shape of {}.",
                  i, fmt::format("{}", fmt::join(g.sizes(), ", ")), i, fmt::format("{}", fmt::join(r.sizes(), ", ")));
    }
    root_edges.push_back(e);
    root_grads.push_back(g);
  }
  const bool capture = !inputs.empty();
  std::vector<Edge> input_edges;
  std::unordered_map<EdgeKey, std::vector<size_t>, EdgeHash> capture_index;  // an input may be given twice
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
    input_edges.push_back(e);
    capture_index[EdgeKey{e.fn.get(), e.input_nr}].push_back(i);
  }

  // Pass 1: dependencies and (for capture) which nodes lead to an input.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> order;  // discovery order, children after parents
  {
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (auto& e : root_edges)
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next_edges()) {
        if (!e.valid()) continue;
        deps[e.fn.get()] += 1;
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }
  std::unordered_set<Node*> needed;
  if (capture) {
    std::unordered_set<Node*> targets;
    for (auto& e : input_edges) targets.insert(e.fn.get());
    // Iterate to a fixed point: a node is needed when it is a target or leads to a needed node.
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Node* n = *it;
        if (needed.count(n)) continue;
        bool need = targets.count(n) > 0;
        for (const Edge& e : n->next_edges())
          if (e.valid() && needed.count(e.fn.get())) need = true;
        if (need) {
          needed.insert(n);
          changed = true;
        }
      }
    }
  }

  variable_list captured(inputs.size());
  std::unordered_map<Node*, variable_list> buffers;
  auto cmp = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr < b->sequence_nr;
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(cmp)> ready(cmp);
  auto deliver = [&](const Edge& e, const Tensor& g) {
    variable_list& buf = buffers[e.fn.get()];
    if (buf.size() < e.fn->num_outputs) buf.resize(e.fn->num_outputs);
    accumulate_into(buf[e.input_nr], g);
  };
  AutoGradMode mode(create_graph);
  for (size_t i = 0; i < root_edges.size(); ++i) deliver(root_edges[i], root_grads[i]);
  {
    std::unordered_set<Node*> pushed;
    for (auto& e : root_edges)
      if (deps[e.fn.get()] == 0 && pushed.insert(e.fn.get()).second) ready.push(e.fn);
  }
  std::vector<std::shared_ptr<Node>> ran;
  while (!ready.empty()) {
    std::shared_ptr<Node> n = ready.top();
    ready.pop();
    variable_list in = std::move(buffers[n.get()]);
    buffers.erase(n.get());
    in.resize(n->num_outputs);
    // Note [tensor hooks]: grad() captures before the hooks run, backward(inputs=) after.
    if (hooks_before_capture) run_pre_hooks(*n, in);
    if (capture) {
      for (uint32_t nr = 0; nr < in.size(); ++nr) {
        auto it = capture_index.find(EdgeKey{n.get(), nr});
        if (it != capture_index.end())
          for (size_t k : it->second) accumulate_into(captured[k], in[nr]);
      }
      if (dynamic_cast<AccumulateGrad*>(n.get())) continue;
    }
    if (!hooks_before_capture) run_pre_hooks(*n, in);
    bool any = std::any_of(in.begin(), in.end(), [](const Tensor& t) { return t.defined(); });
    variable_list out;
    if (n->post_hooks.empty()) {
      if (any) out = anomaly ? apply_with_anomaly_checks(*n, std::move(in)) : n->apply(std::move(in));
    } else {
      variable_list grad_outputs = in;  // the post-hooks see what the node consumed
      if (any) out = anomaly ? apply_with_anomaly_checks(*n, std::move(in)) : n->apply(std::move(in));
      out.resize(n->next_edges().size());
      for (size_t i = 0; i < n->post_hooks.size(); ++i) {
        NodePostHook fn = *n->post_hooks[i];  // a copy: the hook may remove itself while it runs
        if (fn) fn(out, grad_outputs);
      }
    }
    ran.push_back(n);
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      if (capture && !needed.count(e.fn.get())) continue;
      if (i < out.size() && out[i].defined()) deliver(e, out[i]);
      if (--deps[e.fn.get()] == 0) ready.push(e.fn);
    }
  }
  if (!keep_graph)
    for (auto& n : ran) n->release_variables();
  if (capture && !allow_unused) {
    for (size_t i = 0; i < inputs.size(); ++i)
      EMBER_CHECK(captured[i].defined() || needed.count(input_edges[i].fn.get()),
                  "One of the differentiated Tensors appears to not have been used in the graph. Set "
                  "allow_unused=True if this is the desired behavior.");
  }
  return captured;
}

}  // namespace

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    run_backward(tensors, grad_tensors, keep, create_graph, {}, false);
    return;
  }
  variable_list gs = run_backward(tensors, grad_tensors, keep, create_graph, inputs, true, true);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!gs[i].defined()) continue;
    AutogradMeta* m = materialize_meta(inputs[i]);
    if (m->grad_fn) {
      if (!m->retained_grad) m->retained_grad = std::make_shared<Tensor>();
      accumulate_into(*m->retained_grad, gs[i]);
    } else {
      AccumulateGrad acc(inputs[i]);
      acc.apply({gs[i]});
    }
  }
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires at least one input");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, inputs,
                      allow_unused, false);
}

}  // namespace ember::autograd
