// The engine: runs the graph backwards from its roots in dependency order (single-threaded). Its parts, in
// the order one backward() or grad() call uses them:
//   GraphTask           the call: its root edges and their gradients, the inputs whose gradients it captures,
//                       and the input buffer of every node still waiting to run
//   count_dependencies  how many edges lead into each node reachable from the roots (and, for a capturing
//                       call, nodes_leading_to: the nodes from which a requested input can be reached)
//   ReadyQueue          the nodes whose gradients have all arrived, the most recently created first
//   execute             runs the ready nodes, delivers their outputs, frees the graph unless it is kept
// The Tensor-facing entry points (autograd::backward, autograd::grad) are in autograd.cpp.
//
// Note [engine order]
// A first pass counts, for every node reachable from the roots, how many edges lead into it. A node runs
// when all of them have delivered their gradient into its input buffer (summed when several arrive). Among
// ready nodes the most recently created runs first (PyTorch's order; it keeps memory low on long chains).
// For grad() and backward(inputs=...) only the nodes from which a requested input can be reached run, and
// the gradient arriving at each requested input's edge is captured instead of being accumulated.
//
// Note [concurrent backward]
// backward() and grad() run on the calling thread, and several threads may run them at once, as in PyTorch
// 1.13: on graphs of their own, on graphs that share leaves (Hogwild-style training, every thread adding into
// the leaves' .grad), or through a shared part of one graph. A node's apply() and release_variables() run under
// the node's mutex, so threads that meet at a shared node take turns there: a shared leaf's AccumulateGrad adds
// every thread's gradient, and a graph freed by one thread's backward makes another thread's backward raise
// "Trying to backward through the graph a second time" instead of reading tensors being freed. The graphs that
// threads build at once on one leaf share its AccumulateGrad, made under the leaf's AutogradMeta mutex
// (gradient_edge). Without these locks the TSan stage of `make sanitize` reports races on .grad and on the
// leaf's accumulator (tests/autograd/threads_test.cpp).
#include "ember/autograd/Engine.h"

#include <algorithm>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/AnomalyMode.h"
#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"

namespace ember::autograd::detail {

void accumulate_into(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  slot = slot.defined() ? ember::add(slot, g) : g;
}

namespace {

// ---- graph task

struct EdgeKey {
  Node* fn;
  uint32_t nr;
  bool operator==(const EdgeKey& o) const { return fn == o.fn && nr == o.nr; }
};
struct EdgeHash {
  size_t operator()(const EdgeKey& k) const { return std::hash<Node*>()(k.fn) * 31 + k.nr; }
};

// One call of the engine (Note [engine order]): what it starts from, what it captures, and the gradients
// delivered to the nodes that have not run yet.
struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  bool allow_unused = false;
  bool hooks_before_capture = true;  // backward(inputs=) semantics rather than grad()'s (Note [tensor hooks])
  std::vector<Edge> root_edges;
  variable_list root_grads;  // one per root edge
  // Capture (grad(), backward(inputs=)): the requested inputs' edges, where each edge's gradient goes (an
  // input may be given twice), the captured gradients, and the nodes from which an input can be reached.
  std::vector<Edge> input_edges;
  std::unordered_map<EdgeKey, std::vector<size_t>, EdgeHash> capture_index;
  variable_list captured;
  std::unordered_set<Node*> needed;
  // The gradients delivered so far to each node that has not run, one slot per output of its forward op.
  std::unordered_map<Node*, variable_list> buffers;

  bool capturing() const { return !input_edges.empty(); }

  // Adds g into the input buffer slot of edge e.
  void deliver(const Edge& e, const Tensor& g) {
    variable_list& buf = buffers[e.fn.get()];
    if (buf.size() < e.fn->num_outputs) buf.resize(e.fn->num_outputs);
    accumulate_into(buf[e.input_nr], g);
  }

  // Takes node n's input buffer (one gradient per output of its forward op, undefined where none arrived).
  variable_list take_inputs(Node& n) {
    variable_list in = std::move(buffers[&n]);
    buffers.erase(&n);
    in.resize(n.num_outputs);
    return in;
  }

  // Adds the gradients arriving at n that belong to requested inputs into their captured gradients.
  void capture(Node& n, const variable_list& in) {
    for (uint32_t nr = 0; nr < in.size(); ++nr) {
      auto it = capture_index.find(EdgeKey{&n, nr});
      if (it != capture_index.end())
        for (size_t k : it->second) accumulate_into(captured[k], in[nr]);
    }
  }
};

// The task of one call, its roots and inputs checked (the errors of autograd::backward and autograd::grad).
GraphTask make_graph_task(const variable_list& roots, const variable_list& grad_roots, const variable_list& inputs) {
  GraphTask task;
  EMBER_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(),
              "grad can be implicitly created only for scalar outputs: got {} tensors and {} gradients",
              roots.size(), grad_roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    Edge e = gradient_edge(r);
    EMBER_CHECK(e.valid(), "element {} of tensors does not require grad and does not have a grad_fn", i);
    Tensor g = i < grad_roots.size() ? grad_roots[i] : Tensor();
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ember::ones_like(r);
    } else {
      EMBER_CHECK(same_sizes(g.sizes(), r.sizes()),
                  "Mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a shape of {}.", i,
                  fmt::format("{}", fmt::join(g.sizes(), ", ")), i, fmt::format("{}", fmt::join(r.sizes(), ", ")));
    }
    task.root_edges.push_back(e);
    task.root_grads.push_back(g);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
    task.input_edges.push_back(e);
    task.capture_index[EdgeKey{e.fn.get(), e.input_nr}].push_back(i);
  }
  task.captured.resize(inputs.size());
  return task;
}

// ---- dependency count

struct Dependencies {
  std::unordered_map<Node*, int> count;  // edges leading into each reachable node
  std::vector<Node*> order;              // discovery order, children after parents
};

// The dependencies of every node reachable from the roots.
Dependencies count_dependencies(const std::vector<Edge>& roots) {
  Dependencies deps;
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (const Edge& e : roots)
    if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    deps.order.push_back(n);
    for (const Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      deps.count[e.fn.get()] += 1;
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
  return deps;
}

// The reachable nodes that are a target's node or lead to one: the only nodes a capturing call runs.
std::unordered_set<Node*> nodes_leading_to(const Dependencies& deps, const std::vector<Edge>& targets) {
  std::unordered_set<Node*> target_nodes, needed;
  for (const Edge& e : targets) target_nodes.insert(e.fn.get());
  // Iterate to a fixed point: a node is needed when it is a target or leads to a needed node.
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = deps.order.rbegin(); it != deps.order.rend(); ++it) {
      Node* n = *it;
      if (needed.count(n)) continue;
      bool need = target_nodes.count(n) > 0;
      for (const Edge& e : n->next_edges())
        if (e.valid() && needed.count(e.fn.get())) need = true;
      if (need) {
        needed.insert(n);
        changed = true;
      }
    }
  }
  return needed;
}

// ---- ready queue

// The nodes whose dependencies have all delivered, the most recently created (highest sequence_nr) first.
class ReadyQueue {
 public:
  void push(std::shared_ptr<Node> n) { heap_.push(std::move(n)); }
  std::shared_ptr<Node> pop() {
    std::shared_ptr<Node> n = heap_.top();
    heap_.pop();
    return n;
  }
  bool empty() const { return heap_.empty(); }

 private:
  // A max-heap on sequence_nr: top() is the most recently created node.
  struct CreatedBefore {
    bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
      return a->sequence_nr < b->sequence_nr;
    }
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, CreatedBefore> heap_;
};

// ---- execution

// node.apply under the node's mutex (Note [concurrent backward]).
variable_list locked_apply(Node& node, variable_list&& in) {
  std::lock_guard<std::mutex> lock(node.mutex);
  return node.apply(std::move(in));
}

// Runs node.apply in anomaly mode: an error escaping it is preceded by the anomaly warning, and with
// check_nan an output gradient holding a NaN raises (Note [anomaly mode]).
variable_list apply_with_anomaly_checks(Node& node, variable_list&& in) {
  try {
    variable_list out = locked_apply(node, std::move(in));
    if (AnomalyMode::should_check_nan()) {
      NoGradGuard no_grad;
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i].defined() && (out[i].is_floating_point() || out[i].is_complex()) &&
            ember::isnan(out[i]).any().item<bool>())
          EMBER_FAIL("Function '{}' returned nan values in its {}th output.", node.name(), i);
    }
    return out;
  } catch (...) {
    AnomalyMode::report_error(node);
    throw;
  }
}

// Runs the task's graph (Note [engine order]) and returns the captured gradients (none unless capturing).
// The tensor hooks, then the node's own pre-hooks (PyTorch 1.13's order), on the gradients flowing into n.
void run_pre_hooks(Node& n, variable_list& in) {
  if (!n.tensor_pre_hooks.empty()) call_tensor_pre_hooks(n.tensor_pre_hooks, in);
  for (size_t i = 0; i < n.pre_hooks.size(); ++i) {
    NodePreHook fn = *n.pre_hooks[i];  // a copy: the hook may remove itself (or register others) while it runs
    if (fn) fn(in);
  }
}

variable_list execute(GraphTask& task) {
  const bool anomaly = AnomalyMode::is_enabled();
  const bool capture = task.capturing();
  Dependencies deps = count_dependencies(task.root_edges);
  if (capture) task.needed = nodes_leading_to(deps, task.input_edges);

  AutoGradMode mode(task.create_graph);
  for (size_t i = 0; i < task.root_edges.size(); ++i) task.deliver(task.root_edges[i], task.root_grads[i]);
  ReadyQueue ready;
  {
    std::unordered_set<Node*> pushed;
    for (const Edge& e : task.root_edges)
      if (deps.count[e.fn.get()] == 0 && pushed.insert(e.fn.get()).second) ready.push(e.fn);
  }
  std::vector<std::shared_ptr<Node>> ran;
  while (!ready.empty()) {
    std::shared_ptr<Node> n = ready.pop();
    variable_list in = task.take_inputs(*n);
    // Note [tensor hooks]: grad() captures before the hooks run, backward(inputs=) after.
    if (task.hooks_before_capture) run_pre_hooks(*n, in);
    if (capture) {
      task.capture(*n, in);
      if (dynamic_cast<AccumulateGrad*>(n.get())) continue;
    }
    if (!task.hooks_before_capture) run_pre_hooks(*n, in);
    bool any = std::any_of(in.begin(), in.end(), [](const Tensor& t) { return t.defined(); });
    variable_list out;
    if (n->post_hooks.empty()) {
      if (any) out = anomaly ? apply_with_anomaly_checks(*n, std::move(in)) : locked_apply(*n, std::move(in));
    } else {
      variable_list grad_outputs = in;  // the post-hooks see what the node consumed
      if (any) out = anomaly ? apply_with_anomaly_checks(*n, std::move(in)) : locked_apply(*n, std::move(in));
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
      if (capture && !task.needed.count(e.fn.get())) continue;
      if (i < out.size() && out[i].defined()) task.deliver(e, out[i]);
      if (--deps.count[e.fn.get()] == 0) ready.push(e.fn);
    }
  }
  if (!task.keep_graph) {
    for (auto& n : ran) {
      std::lock_guard<std::mutex> lock(n->mutex);
      n->release_variables();
    }
  }
  if (capture && !task.allow_unused) {
    for (size_t i = 0; i < task.input_edges.size(); ++i)
      EMBER_CHECK(task.captured[i].defined() || task.needed.count(task.input_edges[i].fn.get()),
                  "One of the differentiated Tensors appears to not have been used in the graph. Set "
                  "allow_unused=True if this is the desired behavior.");
  }
  return std::move(task.captured);
}

}  // namespace

variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused,
                           bool hooks_before_capture) {
  GraphTask task = make_graph_task(roots, grad_roots, inputs);
  task.keep_graph = keep_graph;
  task.create_graph = create_graph;
  task.allow_unused = allow_unused;
  task.hooks_before_capture = hooks_before_capture;
  return execute(task);
}

}  // namespace ember::autograd::detail
