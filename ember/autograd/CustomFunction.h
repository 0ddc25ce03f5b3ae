#pragma once
// Custom autograd functions: a forward written by the user (run with grad mode off) and its backward, as
// LibTorch's torch::autograd::Function<T> and Python's torch.autograd.Function.
//
//   struct MulConst : ember::autograd::Function<MulConst> {
//     static ember::Tensor forward(ember::autograd::AutogradContext* ctx, ember::Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static ember::autograd::variable_list backward(ember::autograd::AutogradContext* ctx,
//                                                   ember::autograd::variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].to_double(), ember::Tensor()};  // one per forward argument
//     }
//   };
//   ember::Tensor y = MulConst::apply(x, 2.0);
//
// Note [custom functions]
// Both front ends share one node type, FunctionNode, and one routine that connects a forward's outputs to
// the graph (wrap_function_outputs, following PyTorch's documented rules): an output that is an input
// marked dirty takes the node as its new history (a leaf that requires grad refuses); an output that is an
// unmodified input is returned as a fresh alias so the input's own history is untouched; outputs marked
// non-differentiable (and non-floating ones) do not require grad; when no input requires grad or grad
// mode is off, nothing is recorded. Tensors passed to save_for_backward are saved after the outputs are
// wired, so a saved output is stored as an output (no reference cycle, Note [autograd graph ownership]).
// The backward must return one gradient per forward argument (non-tensor arguments get undefined ones);
// extra trailing undefined gradients are dropped, any other count raises as PyTorch.
#include <cxxabi.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/GradMode.h"
#include "ember/autograd/Node.h"
#include "ember/dispatch/IValue.h"

namespace ember::autograd {

struct FunctionNode;

/// The context a custom function's forward and backward share (LibTorch's AutogradContext).
struct AutogradContext {
  /// Tensors (undefined allowed) that backward needs; call from forward. get_saved_variables() returns them.
  void save_for_backward(variable_list to_save);
  /// Inputs forward modified in place (they must also be returned as outputs).
  void mark_dirty(const variable_list& inputs);
  /// Outputs that are not differentiable: they will not require grad.
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether undefined output gradients reach backward as zeros (true, the default) or undefined.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// The tensors given to save_for_backward. Errors (RuntimeError): the graph was already freed by a
  /// backward without retain_graph; a saved tensor was modified in place since.
  variable_list get_saved_variables() const;
  /// Whether the gradient of the i-th tensor argument of forward is needed.
  bool needs_input_grad(size_t i) const;
  /// Any other values backward needs (numbers, strings, tensors that need no version check).
  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend struct FunctionNode;
  friend void wrap_function_outputs(const std::shared_ptr<FunctionNode>&, const variable_list&, variable_list&);
  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  std::unordered_set<const TensorImpl*> dirty_, non_differentiable_;
  bool materialize_grads_ = true;
  bool freed_ = false;
  FunctionNode* node_ = nullptr;
};

/// The graph node of a custom function (C++ Function<T> or Python ember.autograd.Function).
struct FunctionNode final : Node {
  using BackwardFn = std::function<variable_list(AutogradContext*, variable_list)>;
  /// `name` is the node's name (Python: "<Class>Backward"); is_variable_input has one entry per forward
  /// argument (true for a tensor; the backward returns one gradient per entry).
  FunctionNode(std::string name, std::vector<bool> is_variable_input, BackwardFn backward);
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  AutogradContext ctx;
  /// Owner-defined data kept alive with the node (the Python binding keeps the Python ctx object here).
  std::shared_ptr<void> payload;

 private:
  friend void wrap_function_outputs(const std::shared_ptr<FunctionNode>&, const variable_list&, variable_list&);
  std::string name_;
  std::vector<bool> is_variable_input_;
  BackwardFn backward_;
  std::vector<InputMeta> output_meta_;  // sizes/dtype of each output, for materialized zero gradients
};

/// Adds the tensor arguments of a custom function to its node (edges and metadata) when the call is
/// recorded (grad mode on and one of them requires grad); returns whether it is. Call before forward.
bool prepare_function_inputs(FunctionNode& node, const variable_list& tensor_inputs);
/// Connects `outputs` (forward's tensor results, replaced in place by what the caller must return) to
/// `node` and saves the tensors given to save_for_backward. See Note [custom functions]. Errors: a leaf
/// that requires grad was marked dirty; a tensor marked dirty is not among the outputs.
void wrap_function_outputs(const std::shared_ptr<FunctionNode>& node, const variable_list& tensor_inputs,
                           variable_list& outputs);

/// Aliases of `outputs` whose backward raises `message` (Python's @once_differentiable uses it for a
/// backward that itself must not be differentiated): they depend on the tensors of `inputs` that require
/// grad. Outputs are returned unchanged when none does or grad mode is off.
variable_list delayed_error(const std::string& message, const variable_list& inputs, const variable_list& outputs);

namespace detail {
std::string demangle(const char* mangled);

// Flattens forward's arguments: tensors and lists of tensors are variable inputs, anything else is not.
struct ExtractVariables {
  std::vector<bool>& is_var;
  variable_list& list;
  void operator()(const Tensor& t) {
    is_var.push_back(true);
    list.push_back(t);
  }
  void operator()(const variable_list& v) {
    for (const Tensor& t : v) (*this)(t);
  }
  template <class A>
  void operator()(const A&) {
    is_var.push_back(false);
  }
};

inline variable_list to_output_list(const Tensor& t) { return {t}; }
inline variable_list to_output_list(const variable_list& v) { return v; }
template <class R>
R from_output_list(variable_list& v) {
  if constexpr (std::is_same_v<R, Tensor>) return v[0];
  else return v;
}
}  // namespace detail

/// Base of a C++ custom function T (CRTP, as LibTorch's): T defines
///   static Tensor|variable_list forward(AutogradContext* ctx, Args...);   // grad mode is off inside
///   static variable_list backward(AutogradContext* ctx, variable_list grad_outputs);
/// grad_outputs has one entry per output (zeros for outputs that got no gradient, or undefined after
/// ctx->set_materialize_grads(false)); backward returns one gradient per forward argument (undefined for
/// non-tensor arguments and inputs that need none). The node's name is T's name.
/// Errors (RuntimeError, raised during backward): a wrong number of gradients ("function T returned an
/// incorrect number of gradients (expected n, got m)"); a gradient for a non-tensor argument; a gradient
/// whose shape does not broadcast to its input's.
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    std::vector<bool> is_var;
    variable_list inputs;
    detail::ExtractVariables extract{is_var, inputs};
    (extract(args), ...);
    auto node = std::make_shared<FunctionNode>(
        detail::demangle(typeid(T).name()), std::move(is_var),
        [](AutogradContext* ctx, variable_list grads) { return T::backward(ctx, std::move(grads)); });
    prepare_function_inputs(*node, inputs);
    using R = decltype(T::forward(&node->ctx, std::forward<Args>(args)...));
    static_assert(std::is_same_v<R, Tensor> || std::is_same_v<R, variable_list>,
                  "forward must return a Tensor or a variable_list");
    variable_list outputs;
    {
      AutoGradMode no_grad(false);
      outputs = detail::to_output_list(T::forward(&node->ctx, std::forward<Args>(args)...));
    }
    wrap_function_outputs(node, inputs, outputs);
    return detail::from_output_list<R>(outputs);
  }
};

}  // namespace ember::autograd
