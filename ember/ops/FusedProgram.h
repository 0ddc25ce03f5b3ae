#pragma once
// Note [fused elementwise programs]
// aten::_fused_elementwise(Tensor[] inputs, int[] program, int[] constants) evaluates a small expression over
// the broadcast of its inputs in one pass over memory. The JIT's fusion pass (ember/jit/passes) writes such
// programs in place of chains of elementwise nodes; saved models carry them as plain int lists, so the
// encoding below is a file format: opcodes are never renumbered, new ones are only appended.
//
// program: a flat list of instructions, three ints each: [opcode, a, b]. Instruction i defines register i
// (one value per element); the op's result is the last register.
//   opcode 0  input     a = index into inputs            b = 0
//   opcode 1  constant  a = index into constants         b = 0
//   10..      unary     a = an earlier register          b = 0
//   40..      binary    a, b = earlier registers
// The opcodes of the ops are the op database's `fused:` fields (generated/FusedOps.h: FusedOpcode, and
// kFusedOpPatterns, which also says which graph node each one stands for).
// constants: the IEEE-754 binary64 bit patterns of the constants (an int holds a double exactly; the op
// database has no float[] argument type). A constant is rounded to the inputs' dtype when read, as a Python
// number is in `x * 0.5`.
//
// Semantics: every input has the same dtype, float32 or float64, which is the result's dtype; the result has
// the broadcast shape of all inputs and is contiguous. Each opcode computes what the unfused op computes on
// tensors of that dtype (add is add with alpha 1, maximum is torch.maximum, relu keeps NaN, gelu uses erf,
// gelu_tanh the tanh approximation), with the same vectorized functions, so a contiguous fused result equals
// the unfused chain bit for bit.
//
// validate_fused_program() checks all of this before anything runs: the length is a multiple of three and
// at most kMaxFusedInstructions instructions, every opcode is known, every operand refers to an earlier
// register or an existing input or constant, unused fields are 0, and there is at least one input and one
// instruction. A malformed program (a hand-edited or corrupt saved model) gets an error naming the
// instruction, never undefined behaviour.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/ops/generated/FusedOps.h"  // FusedOpcode and kFusedOpPatterns, from the database's `fused:`

namespace ember {

/// At most this many instructions per program (bounds the kernel's scratch memory).
inline constexpr int64_t kMaxFusedInstructions = 1024;

/// Operands of an opcode: 0 for input/constant (they take an index), 1 for unary ops, 2 for binary ops; -1 for
/// a number that is not an opcode.
int fused_opcode_arity(int64_t opcode);
/// The opcode's name as the unfused op is called ("add", "relu", "gelu_tanh", "input", ...), or nullptr for a
/// number that is not an opcode.
const char* fused_opcode_name(int64_t opcode);
/// The opcode of a name of fused_opcode_name(), or nullopt.
std::optional<FusedOpcode> fused_opcode_from_name(std::string_view name);

/// One decoded instruction.
struct FusedInstr {
  FusedOpcode op;
  int64_t a = 0, b = 0;
};

/// Checks program against Note [fused elementwise programs] for num_inputs inputs and num_constants
/// constants and returns it decoded. Errors (RuntimeError, starting with `op_name`): an empty program or one
/// longer than kMaxFusedInstructions, a length not a multiple of 3, no inputs, an unknown opcode, an operand
/// that is not an earlier register, an input or constant index out of range, a nonzero unused field — each
/// naming the instruction.
std::vector<FusedInstr> validate_fused_program(const char* op_name, IntArrayRef program, int64_t num_inputs,
                                               int64_t num_constants);

/// The int that carries constant c in `constants` (its binary64 bit pattern), and back.
int64_t fused_constant_bits(double c);
double fused_constant_value(int64_t bits);

/// A readable form of a program, one instruction per line ("%2 = mul(%0, %1)"), for error messages and tests.
std::string fused_program_to_string(IntArrayRef program, IntArrayRef constants);

}  // namespace ember
