#include "ember/autograd/CustomFunction.h"

#include "ember/autograd/autograd.h"
#include "ember/autograd/VariableKernels.h"
#include "ember/ops/Functions.h"

namespace ember::autograd {

// ------------------------------------------------------------------------------------------ AutogradContext
void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

void AutogradContext::mark_dirty(const variable_list& inputs) {
  dirty_.clear();
  for (const Tensor& t : inputs)
    if (t.defined()) dirty_.insert(t.impl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.clear();
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.insert(t.impl());
}

variable_list AutogradContext::get_saved_variables() const {
  // Before wrap_function_outputs (inside forward) the tensors are returned as given.
  if (saved_variables_.empty() && !freed_) return to_save_;
  EMBER_CHECK(!freed_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  variable_list out;
  out.reserve(saved_variables_.size());
  std::shared_ptr<Node> owner = node_ ? node_->shared_from_this() : nullptr;
  for (const SavedVariable& v : saved_variables_) out.push_back(v.unpack(owner));
  return out;
}

bool AutogradContext::needs_input_grad(size_t i) const { return node_ && node_->needs_input_grad(i); }

// --------------------------------------------------------------------------------------------- FunctionNode
FunctionNode::FunctionNode(std::string name, std::vector<bool> is_variable_input, BackwardFn backward)
    : name_(std::move(name)), is_variable_input_(std::move(is_variable_input)), backward_(std::move(backward)) {
  ctx.node_ = this;
  sequence_nr = next_sequence_nr();
}

void FunctionNode::release_variables() {
  ctx.saved_variables_.clear();
  ctx.to_save_.clear();
  ctx.freed_ = true;
}

namespace {
std::string shape_str(IntArrayRef s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// Whether a tensor of sizes `from` broadcasts to `to` (PyTorch's is_expandable_to).
bool expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t a = from[from.size() - 1 - i], b = to[to.size() - 1 - i];
    if (a != b && a != 1) return false;
  }
  return true;
}
}  // namespace

variable_list FunctionNode::apply(variable_list&& grads) {
  if (ctx.materialize_grads_) {
    for (size_t i = 0; i < grads.size() && i < output_meta_.size(); ++i)
      if (!grads[i].defined()) grads[i] = ember::zeros(output_meta_[i].sizes, output_meta_[i].dtype);
  }
  variable_list out = backward_(&ctx, std::move(grads));
  const size_t expected = is_variable_input_.size();
  // Extra trailing results are tolerated when undefined (PyTorch does the same).
  while (out.size() > expected && !out.back().defined()) out.pop_back();
  EMBER_CHECK(out.size() == expected, "function {} returned an incorrect number of gradients (expected {}, got {})",
              name_, expected, out.size());
  variable_list result;
  result.reserve(next_edges_.size());
  for (size_t i = 0; i < expected; ++i) {
    if (!is_variable_input_[i]) {
      EMBER_CHECK(!out[i].defined(),
                  "function {} returned a gradient different than None at position {}, but the corresponding "
                  "forward input was not a Variable",
                  name_, i + 1);
      continue;
    }
    const size_t k = result.size();
    Tensor g = std::move(out[i]);
    if (g.defined() && needs_input_grad(k)) {
      const InputMeta& meta = input_meta[k];
      EMBER_CHECK(same_sizes(g.sizes(), meta.sizes) || expandable_to(meta.sizes, g.sizes()),
                  "Function {} returned an invalid gradient at index {} - got {} but expected shape compatible "
                  "with {}",
                  name_, k, shape_str(g.sizes()), shape_str(meta.sizes));
      g = detail::reduce_grad(g, meta);
    } else {
      g = Tensor();
    }
    result.push_back(std::move(g));
  }
  return result;
}

bool prepare_function_inputs(FunctionNode& node, const variable_list& tensor_inputs) {
  bool any = false;
  for (const Tensor& t : tensor_inputs) any = any || (t.defined() && requires_grad(t));
  if (!GradMode::is_enabled() || !any) return false;
  for (const Tensor& t : tensor_inputs) {
    if (t.defined()) {
      detail::add_input(node, t);
    } else {
      node.add_next_edge({});
      node.input_meta.push_back({});
    }
  }
  return true;
}

namespace {
// A fresh alias of t without autograd history (how an unmodified input comes back from forward).
Tensor alias_of(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.storage_offset()); }
}  // namespace

void wrap_function_outputs(const std::shared_ptr<FunctionNode>& node, const variable_list& tensor_inputs,
                           variable_list& outputs) {
  AutogradContext& ctx = node->ctx;
  const bool executable = !node->next_edges().empty();
  std::unordered_set<const TensorImpl*> inputs;
  for (const Tensor& t : tensor_inputs)
    if (t.defined()) inputs.insert(t.impl());
  std::unordered_set<const TensorImpl*> returned;
  for (const Tensor& t : outputs)
    if (t.defined()) returned.insert(t.impl());
  for (const TensorImpl* d : ctx.dirty_)
    EMBER_CHECK(returned.count(d),
                "Some elements marked as dirty during the forward method were not returned as output. The inputs "
                "that are modified inplace must all be outputs of the Function.");
  node->num_outputs = static_cast<uint32_t>(outputs.size());
  node->output_meta_.clear();
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    Tensor& var = outputs[i];
    node->output_meta_.push_back(
        var.defined() ? InputMeta{DimVector(var.sizes().begin(), var.sizes().end()), var.dtype()} : InputMeta{});
    if (!var.defined()) continue;
    const bool is_input = inputs.count(var.impl()) > 0;
    const bool is_modified = ctx.dirty_.count(var.impl()) > 0;
    const bool differentiable = executable && !ctx.non_differentiable_.count(var.impl()) &&
                                (var.is_floating_point() || var.is_complex());
    if (!differentiable) {
      if (!requires_grad(var)) {
        if (is_input && !is_modified) var = alias_of(var);
      } else if (is_input) {
        var = alias_of(var);  // a detached alias: the input keeps its requires_grad
      } else {
        var.impl()->set_autograd_meta(nullptr);
      }
    } else if (is_modified) {
      EMBER_CHECK(!(requires_grad(var) && is_leaf(var)),
                  "a leaf Variable that requires grad has been used in an in-place operation.");
      set_history(var, node, i);
    } else {
      if (is_input) var = alias_of(var);
      set_history(var, node, i);
    }
  }
  // Saved after wiring, so saved outputs are recognised as outputs (Note [custom functions]).
  std::unordered_set<const TensorImpl*> outs;
  for (const Tensor& t : outputs)
    if (t.defined()) outs.insert(t.impl());
  if (executable) {
    for (const Tensor& t : ctx.to_save_) ctx.saved_variables_.emplace_back(t, t.defined() && outs.count(t.impl()) > 0);
    ctx.to_save_.clear();
  }
}

// ---------------------------------------------------------------------------------------------- DelayedError
namespace {
struct DelayedError final : Node {
  explicit DelayedError(std::string msg) : msg_(std::move(msg)) {}
  std::string name() const override { return "DelayedError"; }
  variable_list apply(variable_list&&) override { EMBER_FAIL("{}", msg_); }
  std::string msg_;
};
}  // namespace

variable_list delayed_error(const std::string& message, const variable_list& inputs, const variable_list& outputs) {
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  if (!GradMode::is_enabled() || !any) return outputs;
  auto node = std::make_shared<DelayedError>(message);
  node->sequence_nr = next_sequence_nr();
  for (const Tensor& t : inputs)
    if (t.defined()) detail::add_input(*node, t);
  node->num_outputs = static_cast<uint32_t>(outputs.size());
  variable_list result;
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    const Tensor& o = outputs[i];
    if (!o.defined() || !(o.is_floating_point() || o.is_complex())) {
      result.push_back(o);
      continue;
    }
    Tensor r = alias_of(o);
    set_history(r, node, i);
    result.push_back(std::move(r));
  }
  return result;
}

namespace detail {
std::string demangle(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string r = (status == 0 && d) ? d : mangled;
  std::free(d);
  return r;
}
}  // namespace detail

}  // namespace ember::autograd
