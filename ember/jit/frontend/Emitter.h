#pragma once
// The TorchScript compiler's emitter: syntax tree (Tree.h) -> IR graph, one function at a time. Internal to
// ember/jit/frontend (Compiler.h is the public face).
//
// Note [TorchScript compiler]
// A function compiles in one pass over its tree, in source order, into one Graph, as PyTorch 1.13's ir_emitter:
// - Types. Parameters without annotation are Tensors; annotations (and `# type:` comments) give the others
//   (TypeAnnotations.cpp). A local takes the type of its first value; `x: T = v` and `annotate(T, v)` declare
//   one. Assigning a variable of an enclosing block (inside if / loops) a value of another type is an error,
//   as in PyTorch ("previously had type ...").
// - Names (Note [environments]): locals (and `self` of a method, a SugaredValue given by script::Self: the
//   module increment's object with attributes and methods), then the Resolver of the compilation unit
//   (Python's globals, other functions), then the builtin globals (torch, ember, F, math, len, range, ...:
//   Sugared.cpp).
// - Calls of ops (CallMatch.cpp): the overloads of `aten::<name>` in the dispatcher's order, each tried first
//   without and then with implicit conversions (Note [schema matching in the compiler]); every argument is
//   passed, defaults included, as graphs do (Note [schema matching] in Graph.h).
// - Control flow: prim::If with one output per variable assigned in a branch and still defined after it, and
//   prim::Loop with one carried value per variable assigned in the body and defined before it (found by a scan
//   of the body before emitting it). break / continue / return become flags (Note [exits as flags]).
// - Calls of other functions of the unit copy the callee's graph in place (inlining).
// Every error is a script error (Note [script errors]) with the offending range highlighted.
//
// Note [environments]
// Each block being emitted has a frame mapping names to their current Value. Reads walk the frames outwards
// (values of enclosing blocks dominate the nested ones). Assignments go to the innermost frame and are
// remembered as assigned there, which is what prim::If merges; a refinement (`x` narrowed from Optional[T] to
// T by `if x is not None`) is a binding that is not an assignment. A name may also be bound to an error (a
// variable defined in only one branch of an if): using it raises that error, as PyTorch does.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/jit/frontend/Compiler.h"
#include "ember/jit/frontend/Tree.h"

namespace ember::jit::script {

/// A name's binding in one frame (Note [environments]).
struct Binding {
  Value* value = nullptr;
  SugaredPtr sugared;        // a non-value binding (`self` of a method)
  std::string error;         // set: using the name raises this
  bool assigned = false;     // assigned in this frame (not a refinement)
};

/// One frame of Note [environments].
struct Frame {
  Frame* parent = nullptr;
  std::map<std::string, Binding> vars;
  std::vector<std::string> order;  // assigned names in first-assignment order (If outputs follow it)
};

/// A value and where it came from (an argument of a call).
struct NamedValue {
  SourceRange loc;
  std::string name;  // keyword name, or empty for a positional argument
  Value* value = nullptr;
};

/// The emitted arguments of a call.
struct CallArgs {
  std::vector<NamedValue> args;
  std::vector<NamedValue> kwargs;
};

/// How a statement or block can leave the code after it (Note [exits as flags] in EmitStatements.cpp).
struct Exits {
  bool always = false;                          // every path through it leaves (return, break, continue, raise)
  bool ret = false, brk = false, cont = false;  // some path may return / break / continue (sets a flag)
  bool any() const { return ret || brk || cont; }
  void merge(const Exits& o) {
    ret |= o.ret;
    brk |= o.brk;
    cont |= o.cont;
  }
};

/// Type variables bound while matching one schema (the `t` of `t[]`), for its result types.
using TypeBindings = std::map<std::string, TypePtr>;

class Emitter {
 public:
  Emitter(CompilationUnit& cu, std::shared_ptr<Resolver> resolver,
          const std::map<std::string, std::shared_ptr<GraphFunction>>& functions, std::shared_ptr<Self> self = nullptr);

  /// Compiles a `def` tree into a function.
  std::shared_ptr<GraphFunction> emit_function(const Tree& def);

  Graph& graph() { return *graph_; }

  // ---- types (TypeAnnotations.cpp)
  /// The type an annotation expression names. Errors: unknown type names, wrong arity.
  TypePtr parse_type(const Tree& annotation);
  /// The parameter and return types of a `# type: (A, B) -> R` comment.
  std::pair<std::vector<TypePtr>, TypePtr> parse_signature_comment(const Tree& comment);
  /// The type of `# type: T` after an assignment.
  TypePtr parse_type_comment(const Tree& comment);

  // ---- expressions (EmitExpressions.cpp)
  /// Emits an expression as a value. `hint`: the type expected (empty list and dict literals, None).
  Value* emit_expr(const Tree& e, const TypePtr& hint = nullptr);
  /// Emits an expression that may denote a non-value (a module, a builtin, a method).
  SugaredPtr emit_sugared(const Tree& e);
  /// The emitted arguments of a call tree.
  CallArgs emit_call_args(const Tree& call);
  /// A prim::Constant (bool, int, float, str, None).
  Value* constant(const IValue& v);
  /// Emits a condition as bool: bools as they are, Tensors through aten::Bool, ints and floats through
  /// aten::Bool too, Optionals and lists are errors (TorchScript needs an explicit test).
  Value* emit_condition(const Tree& e);
  /// Converts a value to bool for a test (as emit_condition).
  Value* as_bool(const SourceRange& loc, Value* v);
  /// `v` converted to type `t` for an assignment or return (Optional wrapping needs nothing; a tuple of
  /// matching elements is rebuilt). Errors: "<what> has type X but is expected to have type T".
  Value* coerce(const SourceRange& loc, Value* v, const TypePtr& t, const std::string& what);

  // ---- calls (CallMatch.cpp)
  /// Calls the op `qualified_name` ("aten::add"; an overload name selects one overload) with overload
  /// resolution (Note [schema matching in the compiler]). Returns its single output, a tuple of several,
  /// or None for none. Errors: unknown op (naming it); no overload fits (the argument types and the schemas).
  Value* emit_op(const SourceRange& loc, const std::string& qualified_name, const CallArgs& args);
  /// The same, or null instead of an error when no overload fits.
  Value* try_emit_op(const SourceRange& loc, const std::string& qualified_name, const CallArgs& args);
  /// Shorthand for positional values.
  Value* emit_op(const SourceRange& loc, const std::string& qualified_name, std::vector<Value*> args);
  /// Calls a function of the unit (inlined). Errors: argument count, names or types.
  Value* emit_function_call(const SourceRange& loc, const GraphFunction& fn, const CallArgs& args);

  // ---- statements (EmitStatements.cpp)
  /// Emits a list of statements in the current frame; returns how they exit.
  Exits emit_statements(const std::vector<TreePtr>& stmts, size_t from = 0);

  // ---- environment (Note [environments])
  /// The value of a local name, or null when the name is not a local. Errors: the name is bound to an error.
  Value* lookup(const std::string& name, const SourceRange& loc);
  /// Binds `name` in the innermost frame (as an assignment, or as a refinement). Errors: the name has a
  /// value of another type in an enclosing frame ("Variable 'x' previously had type ...").
  void assign(const std::string& name, Value* v, const SourceRange& loc, bool refinement = false);
  /// The non-value binding of a local name (`self`), or null.
  SugaredPtr lookup_sugared(const std::string& name) const;
  /// Whether the name is bound in some frame.
  bool defined(const std::string& name) const;

  /// Raises a script error at loc.
  [[noreturn]] static void fail(const SourceRange& loc, const std::string& message);

  // ---- builtins (Sugared.cpp)
  /// The builtin global `name` (torch, len, ...), or null.
  SugaredPtr builtin_global(const std::string& name);
  /// The attribute `name` of a value: a method (bound) or a property (x.shape, x.dtype).
  SugaredPtr value_attr(const SourceRange& loc, Value* v, const std::string& name);

  /// The names and flags of Note [exits as flags].
  static constexpr const char* kReturnFlag = "$returned";
  static constexpr const char* kReturnValue = "$retval";
  std::string break_flag() const { return "$break" + std::to_string(loop_depth_); }
  std::string continue_flag() const { return "$continue" + std::to_string(loop_depth_); }

 private:
  friend class StatementEmitter;
  friend class LoopEmitter;
  Value* emit_subscript(const Tree& e);
  Value* emit_tensor_index(const Tree& e, Value* self, const Tree& index);
  Value* emit_binop(const SourceRange& loc, const std::string& op, Value* l, Value* r);
  Value* emit_compare(const Tree& e);
  Value* emit_boolop(const Tree& e);
  Value* emit_ifexp(const Tree& e);
  Value* emit_unary(const Tree& e);
  Value* emit_list(const Tree& e, const TypePtr& hint);
  Value* emit_dict(const Tree& e, const TypePtr& hint);
  Value* emit_listcomp(const Tree& e, const TypePtr& hint);
  Value* emit_is(const SourceRange& loc, Value* l, Value* r, bool negate);

 public:
  // State shared with the statement emitter.
  CompilationUnit& cu_;
  std::shared_ptr<Resolver> resolver_;
  std::shared_ptr<Self> self_;
  const std::map<std::string, std::shared_ptr<GraphFunction>>& functions_;
  std::shared_ptr<Graph> graph_;
  Frame* frame_ = nullptr;
  std::vector<std::unique_ptr<Frame>> frames_;  // owner of the frames
  TypePtr return_type_;                         // declared or inferred from the first return; null: none yet
  bool return_declared_ = false;
  std::vector<Value*> untyped_returns_;  // $retval placeholders typed once the return type is known
  int loop_depth_ = 0;
  int depth_ = 0;  // recursion guard (the tree's height bounds it; this catches mistakes)
  std::string function_name_;
  /// Refinements a condition implies: name -> refined value, for the true and the false branch.
  struct Refinements {
    std::map<std::string, TypePtr> when_true, when_false;
  };
  Refinements refinements_of(const Tree& test);
  void apply_refinements(const std::map<std::string, TypePtr>& r, const SourceRange& loc);

  /// Pushes a new frame (its parent is the current one) and makes it current; pop_frame() restores.
  Frame* push_frame();
  void pop_frame(Frame* f);
};

/// Note [schema matching in the compiler]: see CallMatch.cpp.
/// The result of matching a call against one schema: the inputs to pass (every argument, defaults as
/// constants) or why it does not fit.
struct SchemaMatch {
  bool ok = false;
  std::string why;
  std::vector<Value*> inputs;
  TypeBindings bindings;
};

/// Whether the names assigned anywhere in stmts (not inside nested defs or comprehensions) include `name`;
/// collects them all into `out`. Exit flags count as names (Note [exits as flags]).
void collect_assigned(const std::vector<TreePtr>& stmts, std::set<std::string>& out, int loop_depth);

/// Unifies the types of a variable's two definitions (If branches): equal types; T and None give Optional[T];
/// T and Optional[T] give Optional[T]; refined tensors give Tensor. Null when they do not unify.
TypePtr unify_types(const TypePtr& a, const TypePtr& b);

}  // namespace ember::jit::script
