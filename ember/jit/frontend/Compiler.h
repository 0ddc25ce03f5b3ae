#pragma once
// The TorchScript compiler: source text -> syntax tree (Parser.h) -> one IR Graph per function (Graph.h), verified
// and compiled for the interpreter (Interpreter.h). LibTorch's entry points: `ember::jit::compile(source)` gives a
// CompilationUnit whose functions are found by name, printed and run:
//
//   auto cu = ember::jit::compile(R"(
//   def scale(x, n: int = 2):
//       for i in range(n):
//           x = x * 2
//       return x
//   )");
//   IValue y = cu->run_method("scale", {IValue(t), IValue(3)});
//   std::cout << cu->get_function("scale").graph().str();
//
// What the language covers, how names outside a function resolve, and how control flow is lowered: Note
// [TorchScript compiler] in Emitter.h, Note [exits as flags] in EmitStatements.cpp.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/jit/frontend/Lexer.h"
#include "ember/jit/ir/Graph.h"
#include "ember/jit/runtime/Interpreter.h"

namespace ember::jit {

class CompilationUnit;

namespace script {

class Emitter;
struct Tree;

/// What a name or attribute chain denotes at compile time when it is not a plain value (Note [sugared values]
/// in Emitter.h): a module of functions (`torch`, `F`, `math`), a builtin (`len`), a method bound to a value, a
/// function of the compilation unit, or — for the module increment — an object such as `self`. The emitter
/// asks it for attributes and calls; what it does not support raises a script error naming the construct.
class SugaredValue {
 public:
  virtual ~SugaredValue() = default;
  /// What it is, for errors: "module 'torch'", "builtin 'len'".
  virtual std::string kind() const = 0;
  /// `self.name`. Default: an error saying the attribute is unknown.
  virtual std::shared_ptr<SugaredValue> attr(const SourceRange& loc, Emitter& e, const std::string& name);
  /// `self(args, kwargs)`; each argument is a tree the emitter has not emitted yet (some builtins take types).
  /// Default: an error saying this cannot be called.
  virtual std::shared_ptr<SugaredValue> call(const SourceRange& loc, Emitter& e, const Tree& call);
  /// As a plain value (a sugared value used in an expression). Default: an error.
  virtual Value* as_value(const SourceRange& loc, Emitter& e);
};
using SugaredPtr = std::shared_ptr<SugaredValue>;

/// Resolves the free names of a function (not its parameters or locals): globals such as `torch`, `math`,
/// other functions, and later the attributes and methods of `self`. Return null for an unknown name.
class Resolver {
 public:
  virtual ~Resolver() = default;
  virtual SugaredPtr resolve(const std::string& name, const SourceRange& loc, Emitter& e) = 0;
};

/// The `self` of methods (for scripted modules): the type of every def's first parameter, and what the name
/// denotes in the body (a SugaredValue whose attributes read the object's attributes with prim::GetAttr and
/// call its methods). The graph's first input is then `self` of that class type, as runtime modules' methods
/// take it (Note [module objects in graphs] in Module.h).
class Self {
 public:
  virtual ~Self() = default;
  virtual TypePtr type() const = 0;
  virtual SugaredPtr make(Value* self, Emitter& e) = 0;
};

}  // namespace script

/// One parameter of a compiled function.
struct ScriptParameter {
  std::string name;
  TypePtr type;
  std::optional<IValue> default_value;
  bool kwarg_only = false;
};

/// A compiled TorchScript function (LibTorch's torch::jit::GraphFunction): its graph, its signature and its
/// interpreter code. Immutable once compiled; callable from many threads at once.
class GraphFunction {
 public:
  /// Compiles the graph for the interpreter, unless it is a method (its first input is `self`, which runs
  /// through a runtime module: Module::define_method).
  GraphFunction(std::string name, std::shared_ptr<Graph> graph, std::vector<ScriptParameter> params,
                TypePtr return_type);
  /// Whether the graph takes `self` first (compiled with a script::Self): parameters() leave it out.
  bool is_method() const { return code_ == nullptr; }
  const std::string& name() const { return name_; }
  /// The function's graph (IR text: graph().str()).
  const Graph& graph() const { return *graph_; }
  const std::shared_ptr<Graph>& graph_ptr() const { return graph_; }
  const std::vector<ScriptParameter>& parameters() const { return params_; }
  const TypePtr& return_type() const { return return_type_; }
  /// TorchScript's schema line: "fn(Tensor x, int n=2) -> Tensor".
  std::string schema_str() const;
  /// Runs the function. `stack` holds the positional arguments; kwargs name the others; missing ones take
  /// their defaults. Errors: too many or missing arguments, an unknown keyword, values of the wrong type
  /// (naming the parameter), and the errors the function raises (RuntimeError, op errors keep their kind);
  /// a method (run it through its module).
  IValue operator()(std::vector<IValue> stack, const std::map<std::string, IValue>& kwargs = {}) const;

 private:
  std::string name_;
  std::shared_ptr<Graph> graph_;
  std::vector<ScriptParameter> params_;
  TypePtr return_type_;
  std::shared_ptr<const Code> code_;
};

/// Functions compiled from TorchScript source (LibTorch's torch::jit::CompilationUnit).
class CompilationUnit {
 public:
  /// Compiles every `def` of `source` (a file of TorchScript: top-level functions), in order; a function may
  /// call those defined before it (calls are inlined). Names outside a function resolve through `resolver`
  /// first (may be null), then the builtin globals (`torch`, `ember`, `F`, `math`, typing names). With
  /// `self`, every def is a method whose first parameter is that object (script::Self).
  /// Errors: a script error (RuntimeError) naming what is wrong with the source line highlighted
  /// (Note [script errors]).
  void define(const std::string& source, const std::shared_ptr<script::Resolver>& resolver = nullptr,
              const std::string& filename = "<string>", const std::shared_ptr<script::Self>& self = nullptr);
  /// The function named `name`, or null.
  const GraphFunction* find_function(std::string_view name) const;
  /// The function named `name`. Errors: no such function (naming the ones there are).
  const GraphFunction& get_function(std::string_view name) const;
  /// The same as a shared pointer (for holders that outlive the unit), or null.
  std::shared_ptr<GraphFunction> function_ptr(std::string_view name) const;
  /// The functions in definition order.
  std::vector<const GraphFunction*> get_functions() const;
  /// Runs function `name` with positional arguments. Errors: as get_function() and GraphFunction::operator().
  IValue run_method(std::string_view name, std::vector<IValue> args) const;
  template <class... Args>
  IValue run_method(std::string_view name, Args&&... args) const
    requires(sizeof...(Args) != 1 || !(std::is_same_v<std::decay_t<Args>, std::vector<IValue>> && ...))
  {
    return run_method(name, std::vector<IValue>{IValue(std::forward<Args>(args))...});
  }

 private:
  std::vector<std::shared_ptr<GraphFunction>> functions_;
  std::map<std::string, size_t, std::less<>> index_;
};

/// Compiles TorchScript source into a new CompilationUnit (LibTorch's torch::jit::compile). Errors: as
/// CompilationUnit::define.
std::shared_ptr<CompilationUnit> compile(const std::string& source);

}  // namespace ember::jit
