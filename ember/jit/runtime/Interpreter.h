#pragma once
// The graph interpreter: compile() lowers a Graph once to flat register code (Code.h), run() executes it.
//
// Note [interpreter design]
// Lowering walks the graph once: each value gets a register, each op node one CallOp instruction holding its
// OperatorHandle (the overload matched by the IR, Note [schema matching]), control flow becomes jumps (If:
// JumpIfFalse over the then-branch; Loop: LoopEnter/LoopCheck at the head, a parallel Move of the body's
// outputs into its inputs and a Jump back), and each value's release point is planned (Note [freeing at last
// use]). Running is then a loop over the instructions with a switch, one frame (registers + one reused
// argument stack) per call; ops are called boxed through the dispatcher, so the same path serves built-in and
// custom ops. Errors raised by an op are re-raised with the method's name and the failing node's line, keeping
// their kind.
#include <memory>
#include <string>
#include <vector>

#include "ember/jit/ir/Graph.h"
#include "ember/jit/runtime/Code.h"

namespace ember::jit {

/// Lowers g (verified first) to code named `name`. When `self` is given, g's first input is the module object
/// (Note [module objects in graphs] in Module.h) and attribute reads resolve against it. Errors: verify
/// errors; primitives the interpreter does not run (naming them); module objects used other than by
/// prim::GetAttr / prim::CallMethod; missing attributes or methods.
std::shared_ptr<const Code> compile(const Graph& g, std::string name, const Object* self = nullptr);

/// Runs code with `inputs` (not counting self). A single graph output is returned as is; several as a tuple;
/// none as None. Errors: wrong input count or types (RuntimeError naming the code's name and the input);
/// op errors, re-raised with "<name>: ... in node: <line>".
IValue run(const Code& code, std::vector<IValue> inputs);

/// Whether v is a value of type t (as graph inputs are checked), converting in place generic lists of ints /
/// tensors to int[] / Tensor[] where t asks for those (how ops read them, Note [boxed values]) and ints to
/// floats for float. On failure, `what` says what was expected and found.
bool fits(IValue& v, const Type& t, std::string& what);

/// A graph without module (its inputs are plain values), compiled once; callable from many threads at once.
class Function {
 public:
  /// Compiles g. Errors: as compile().
  Function(std::string name, std::shared_ptr<Graph> g);
  /// The same from IR text.
  Function(std::string name, std::string_view ir_text);
  IValue operator()(std::vector<IValue> inputs) const { return run(*code_, std::move(inputs)); }
  const Graph& graph() const { return *graph_; }
  const Code& code() const { return *code_; }

 private:
  std::shared_ptr<Graph> graph_;
  std::shared_ptr<const Code> code_;
};

}  // namespace ember::jit
