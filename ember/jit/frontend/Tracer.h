#pragma once
// The tracer: while a thread has a tracing state, every op call on that thread reaches the Tracer key's
// boxed fallback (DESIGN.md), which records the call as a node of the state's graph and then runs the op
// below the key (Note [tracing]).
//
// Note [tracing]
// A TracingState owns the graph being built and maps each tensor seen so far (by its TensorImpl) to the
// Value that computes it: graph inputs (add_input), module parameters and buffers (register_attribute: a
// prim::GetAttr chain from %self, inserted when the tensor is first used, so unused parameters leave no
// node), and the outputs of recorded ops. For each call the fallback
//  1. maps the arguments to Values: tensors through the map (an unknown tensor becomes a prim::Constant, as
//     in PyTorch's traces; unlike PyTorch, which is silent, Ember warns, since the trace will not follow
//     later changes to that tensor; wrapped Python numbers, `x * 2`, are constants without warning), tensor
//     lists to a prim::ListConstruct of their elements' Values, every other argument (numbers, int lists, dtypes,
//     None, strings, bools) to a prim::Constant: the trace specializes on them, the module's training flag
//     passed to dropout or batch_norm included;
//  2. inserts the op node (all arguments positional, defaults included: Note [schema matching]);
//  3. runs the op below the Tracer key (so the ops inside a composite op such as aten::linear are not
//     recorded: the graph holds the op the program called);
//  4. maps the tensor results to the node's outputs, typed with their dtype and sizes; a Tensor[] result is
//     unpacked with prim::ListUnpack. An in-place or out= op returns the tensor it wrote, so that tensor's
//     Value becomes the node's output: later uses read the written value, as in PyTorch's traces. (Every
//     in-place and out= op of the database returns the tensor it writes; a custom op that writes an argument
//     without returning it leaves that argument's Value in place, which is still right since the graph runs
//     in order.)
// Views need nothing special: a view op is recorded like any other, and running the graph in order
// reproduces the aliasing.
//
// Sizes read while tracing are traced values: Note [traced sizes].
// After the trace, TracingState::finish removes dead nodes as PyTorch's tracer does.
//
// Note [traced sizes]
// As PyTorch 1.13's tracer, a size read while tracing (Python: x.size(d), x.size(), x.shape) is a 0-dim int64 tensor,
// not an int: size_of() records `%n : int = aten::size.int(%x, %d)` and `%t = aten::scalar_tensor(%n, dtype=int64)`
// (PyTorch writes prim::NumToTensor; the interpreter has no such primitive and scalar_tensor is the same computation)
// and maps the tensor to %t. Arithmetic on it (x.size(0) * 2) is then ordinary traced tensor ops. When such a tensor is
// passed where an op wants an int, an int[] element or a Scalar (x.view(n, -1), x.reshape(x.shape[0], -1),
// zeros(x.shape), arange(n)), the Python argument parser tells the state which argument (and element) it was
// (note_int_argument: `%k : int = aten::Int.Tensor(%t)`), and the op's node reads %k (inside a prim::ListConstruct for
// lists) instead of a constant. So the graph follows the input's sizes, as PyTorch's does, for the common forms: sizes
// used by views, reshapes, factories and shape arguments, through tensor arithmetic. Not followed (frozen at the
// example's value, with the TracerWarning of a tensor converted to a Python number, as in PyTorch): sizes turned into
// Python ints (int(n), range(n), Python comparisons, indexing and slicing bounds). The pending int arguments name the
// op they are for, and every recorded call takes them, so an override never reaches another call. Integer tensors given
// for other Scalar arguments count too; float ones stay constants.
//
// Tracing state is per thread (other threads run untraced) and scoped: TracingGuard installs it and turns
// the Tracer key on for the thread, and restores the previous state on exit, exceptions included; an error
// inside a traced call leaves the state's graph as it was before that call.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/jit/ir/IR.h"

namespace ember {
class Library;
}

namespace ember::jit::tracer {

/// Receives the tracer's warnings (unknown tensors recorded as constants). Python turns them into
/// ember.jit.TracerWarning; the default collects them in TracingState::warnings(). May throw (an error
/// raised by a warning filter), which aborts the traced call.
using WarningHandler = std::function<void(const std::string& message)>;

/// The graph being traced and the map from tensors to its Values (Note [tracing]).
class TracingState {
 public:
  TracingState();
  Graph& graph() { return *graph_; }
  const std::shared_ptr<Graph>& graph_ptr() const { return graph_; }

  /// Adds a graph input standing for t (typed from t), optionally named. Returns the Value. When t already
  /// has a Value (the same tensor passed twice), uses of t keep reading the first.
  Value* add_input(const Tensor& t, const std::string& name = "");
  /// Adds the `self` input of a module trace, of class type cls (Note [class types] in Type.h). Must be
  /// called once, before register_attribute. Returns the Value.
  Value* add_self(std::shared_ptr<ClassType> cls, const std::string& name = "self");
  /// Declares a submodule: `path` ("conv" or "block.0") is an attribute of its parent (the parent path's
  /// class, or self's for a one-part path) of class type cls. Parents are declared before children.
  /// Errors: no self input; unknown parent path.
  void register_submodule(const std::string& path, std::shared_ptr<ClassType> cls);
  /// Declares that t is the attribute `path` ("weight", "block.0.bias") of self or a declared submodule: the
  /// first use of t reads it with a prim::GetAttr chain. Errors: no self input; unknown owner path.
  void register_attribute(const Tensor& t, const std::string& path);

  /// The Value of t: mapped, a registered attribute (GetAttr chain inserted now), or else a new
  /// prim::Constant holding t (with a warning unless t is a wrapped number). Errors: an unknown t that
  /// requires grad (RuntimeError, as PyTorch's: make it an input or a parameter, or detach it).
  Value* value_of(const Tensor& t);
  /// Maps t to a new prim::Constant holding it, without warning (tensors made from Python data, whose
  /// contents were written outside the dispatcher, are constants of the trace). Returns the Value.
  Value* add_constant(const Tensor& t);
  /// The Value mapped to t, or nullptr (does not insert anything).
  Value* find_value(const Tensor& t) const;
  /// Maps t to v (a later call for the same tensor replaces the mapping).
  void set_value(const Tensor& t, Value* v);

  /// x.size(dim) as a traced value (Note [traced sizes]): a 0-dim int64 tensor holding the size, mapped to
  /// aten::scalar_tensor(aten::size.int(%x, dim)). Errors: dim out of range (IndexError).
  Tensor size_of(const Tensor& x, int64_t dim);
  /// Declares that argument `arg` (element `elem` of an int[] argument, or -1 for an int argument) of the
  /// next recorded call of `op` is the int value of t (Note [traced sizes]); nothing when t has no Value.
  void note_int_argument(const FunctionSchema& op, size_t arg, int64_t elem, const Tensor& t);
  /// The Value of argument `arg` of a call of op declared by note_int_argument (elem as there), or null.
  Value* int_argument(const FunctionSchema& op, size_t arg, int64_t elem) const;
  /// Forgets the declared int arguments (each recorded call does, after reading them).
  void clear_int_arguments() { int_args_.clear(); }

  /// Ends the trace as PyTorch's tracer does: removes the nodes whose results are unused (a Python `if` on a
  /// tensor leaves its comparison behind; unused parameters leave no GetAttr) unless they write an argument,
  /// then verifies the graph. Call after registering the outputs.
  void finish();
  /// Destroys the nodes recorded after `last` (newest first) and forgets the mappings to their outputs (the
  /// fallback's clean-up when a traced call fails).
  void roll_back_to(Node* last);

  void set_warning_handler(WarningHandler h) { warn_ = std::move(h); }
  /// The warnings received while no handler was set.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Reports a warning through the handler (or stores it).
  void warn(const std::string& message);

 private:
  struct Entry {
    Tensor tensor;  // keeps the TensorImpl alive so that its address is not reused while tracing
    Value* value;
  };
  Value* attr_chain(const std::string& path);  // GetAttr chain for a declared path, cached

  std::shared_ptr<Graph> graph_;
  std::unordered_map<const TensorImpl*, Entry> values_;
  Value* self_ = nullptr;
  std::unordered_map<std::string, std::shared_ptr<ClassType>> classes_;  // path -> class ("" is self)
  std::unordered_map<std::string, Value*> attr_values_;                  // path -> GetAttr value inserted
  std::unordered_map<const TensorImpl*, std::pair<Tensor, std::string>> attributes_;  // registered tensors
  WarningHandler warn_;
  std::vector<std::string> warnings_;
  struct IntArgument {
    const FunctionSchema* op;
    size_t arg;
    int64_t elem;
    Value* value;
  };
  std::vector<IntArgument> int_args_;  // Note [traced sizes]
};

/// The current thread's tracing state, or null when the thread is not tracing.
TracingState* current_state();
/// Whether the current thread is tracing (and the Tracer key is on).
bool is_tracing();

/// RAII: makes `state` the thread's tracing state and turns the Tracer key on; the destructor restores the
/// previous state and key (also when an exception leaves the scope). A null state pauses tracing.
class TracingGuard {
 public:
  explicit TracingGuard(std::shared_ptr<TracingState> state);
  ~TracingGuard();
  TracingGuard(const TracingGuard&) = delete;
  TracingGuard& operator=(const TracingGuard&) = delete;

 private:
  std::shared_ptr<TracingState> saved_;
  bool saved_included_;
};

/// Traces fn on inputs: a graph with one input per tensor of `inputs` (named input_names[i] when given) and
/// one output per tensor fn returns (a graph output's Value is the one mapped to that tensor; a returned
/// tensor the trace never saw is recorded as a constant). The graph passes verify(). Errors: whatever fn
/// raises (the thread's tracing state is restored first).
std::shared_ptr<Graph> trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                             const std::vector<Tensor>& inputs, const std::vector<std::string>& input_names = {});

/// Registers the Tracer key's boxed fallback (ember/api/init.cpp calls this once).
void register_tracer_fallback(Library& m);

}  // namespace ember::jit::tracer
