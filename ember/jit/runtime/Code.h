#pragma once
// The interpreter's instruction list: a Graph lowered once (Interpreter.h compile()) to flat, register-based
// code that Interpreter.cpp runs.
//
// Note [registers and operands]
// Every IR value gets a register slot of the call's frame (a std::vector<IValue>). An instruction reads its
// inputs through Operands: a register, or an entry of the code's constant table (prim::Constant nodes do not
// become instructions: their values are built once at lowering, already converted to what the consuming ops
// take, and pushed straight from the table, so "load constant" costs nothing per call). An operand marked
// `move` is the last use of its register (Note [freeing at last use]): the value is moved out, so the register
// no longer holds a reference and an intermediate tensor dies as soon as its last consumer is done with it.
//
// Note [freeing at last use]
// The lowering decides for each value where its register is released, on the graph's structure:
// - a value without uses is never stored (an op output popped and dropped; a block input dropped at its
//   block's start);
// - otherwise, among the nodes of its defining block, take the last one that uses it, directly or inside
//   its nested blocks (the block's Return node counts, as the last node). If that node uses it directly only,
//   its last such operand moves the value out;
// - if that node is a prim::Loop using it inside its body, the value stays until the loop ends (every
//   iteration reads it) and a Drop after the loop releases it;
// - if it is a prim::If using it inside a branch, each branch is planned the same way on its own: a branch
//   that uses it releases it at its own last use; a branch that does not drops it at its start.
// So on every path through the code each register is released once, right after its last read, and values
// used in loops live until their loop ends. Registers still holding values when the frame returns (none, by
// the above, except on errors) are released with the frame.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/IValue.h"
#include "ember/jit/ir/Type.h"

namespace ember::jit {

class Object;
struct Code;

/// Instruction kinds. Inputs and outputs are operand ranges (Instruction::in / out).
enum class OpCode : uint8_t {
  CallOp,          // push inputs, call ops[aux] boxed, pop outputs
  GetAttr,         // out[0] = attribute attrs[aux] (an object slot)
  ListConstruct,   // out[0] = list of inputs; aux: 0 generic, 1 int[], 2 Tensor[]
  ListUnpack,      // out[i] = input[0][i]; checks the length
  TupleConstruct,  // out[0] = tuple of inputs
  TupleUnpack,     // out[i] = input[0][i]
  TupleIndex,      // out[0] = input[0][input[1]]
  DictConstruct,   // out[0] = dict(k0, v0, k1, v1, ...)
  Move,            // out[i] = input[i] for all i at once (block outputs to their destinations)
  Drop,            // release the registers of the inputs
  Jump,            // pc = aux
  JumpIfFalse,     // if !input[0]: pc = aux
  LoopEnter,       // counter register out[0] = 0
  LoopCheck,       // inputs (counter, max, cond), out[0] = iteration: if counter < max && cond: out[0] =
                   // counter++ else pc = aux
  CallMethod,      // out = methods[aux](inputs) (a submodule's compiled method, its self bound)
  Raise,           // raise RuntimeError with input[0] (a str) as message, "<input[1]>: <input[0]>" when input[1]
                   // is a str (the exception's class: "builtins.ValueError")
  Print,           // write the inputs to stdout as Python's print does (prim::Print)
  Return,          // the frame's results are the inputs
};

/// One operand: a register, or a constant-table entry. On an input, `move` marks the register's last use; on
/// an output, `move` means the value is unused and dropped (no register).
struct Operand {
  uint32_t index : 30;
  uint32_t constant : 1;
  uint32_t move : 1;
};
static_assert(sizeof(Operand) == 4);

/// Converts an argument to what the op's kernel reads, where the IR's type and the schema's differ
/// (Note [schema matching] in Graph.h): an int for a ScalarType (IR dtypes are ints), an int for int[N].
enum class Convert : uint8_t { None, IntToDType, IntToList };

/// A flat instruction. Operands are code.operands[in, in + n_in) and [out, out + n_out); `node` is the IR
/// node's printed line (error context).
struct Instruction {
  OpCode op;
  uint32_t in = 0, n_in = 0;
  uint32_t out = 0, n_out = 0;
  uint32_t aux = 0;
  uint32_t node = 0;  // index into Code::node_lines
};

/// An attribute slot read by GetAttr: the object (kept alive by the module tree) and the slot index, or
/// slot == kTrainingSlot for the object's training flag.
struct AttrRef {
  const Object* object;
  uint32_t slot;
  static constexpr uint32_t kTrainingSlot = UINT32_MAX;
};

/// A method of a submodule called by prim::CallMethod (resolved at lowering).
struct MethodRef {
  std::shared_ptr<const Code> code;
  const Object* self;
};

/// Conversions of one op's arguments (only for ops that need any).
struct ArgConversion {
  uint32_t arg;
  Convert how;
  int64_t size;  // IntToList: N of int[N]
};
/// Applies c to v (values other than ints pass unchanged).
IValue convert_argument(IValue v, const ArgConversion& c);

/// The compiled form of one graph. Immutable after compile(): many threads run one Code at once, each with
/// its own frame (Note [module thread safety] in Module.h).
struct Code {
  std::string name;                         // the method / function name, for error messages
  std::vector<Instruction> instructions;
  std::vector<Operand> operands;
  std::vector<IValue> constants;
  std::vector<OperatorHandle> ops;
  std::vector<std::vector<ArgConversion>> conversions;  // per ops[] entry (usually empty)
  std::vector<AttrRef> attrs;
  std::vector<MethodRef> methods;
  std::vector<std::string> node_lines;
  uint32_t num_registers = 0;
  /// The graph's inputs (their registers and types; the first of a method is `self`, not stored).
  std::vector<uint32_t> input_registers;  // UINT32_MAX: unused input, not stored
  std::vector<TypePtr> input_types;
  std::vector<std::string> input_names;
  bool has_self = false;
  /// The IR text of the compiled graph (for dumps).
  std::string graph_text;
  /// A readable listing of the instructions (debugging and tests).
  std::string dump() const;
};

}  // namespace ember::jit
