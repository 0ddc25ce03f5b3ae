// Decoding and checking of fused elementwise programs. See Note [fused elementwise programs].
#include "ember/ops/FusedProgram.h"

#include <bit>

#include "ember/base/Error.h"

namespace ember {

namespace {

const FusedOpPattern* find_opcode(int64_t opcode) {
  for (const auto& info : kFusedOpPatterns)
    if (static_cast<int64_t>(info.opcode) == opcode) return &info;
  return nullptr;
}

}  // namespace

int fused_opcode_arity(int64_t opcode) {
  const FusedOpPattern* info = find_opcode(opcode);
  return info ? info->arity : -1;
}

const char* fused_opcode_name(int64_t opcode) {
  const FusedOpPattern* info = find_opcode(opcode);
  return info ? info->name : nullptr;
}

std::optional<FusedOpcode> fused_opcode_from_name(std::string_view name) {
  for (const auto& info : kFusedOpPatterns)
    if (name == info.name) return info.opcode;
  return std::nullopt;
}

std::vector<FusedInstr> validate_fused_program(const char* op_name, IntArrayRef program, int64_t num_inputs,
                                               int64_t num_constants) {
  const int64_t len = static_cast<int64_t>(program.size());
  EMBER_CHECK(num_inputs >= 1, "{}: expected at least one input tensor", op_name);
  EMBER_CHECK(len > 0, "{}: the program is empty", op_name);
  EMBER_CHECK(len % 3 == 0, "{}: the program's length ({}) is not a multiple of 3 (each instruction is [opcode, a, b])",
              op_name, len);
  const int64_t n = len / 3;
  EMBER_CHECK(n <= kMaxFusedInstructions, "{}: the program has {} instructions, more than the limit of {}", op_name,
              n, kMaxFusedInstructions);
  std::vector<FusedInstr> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t opcode = program[3 * i], a = program[3 * i + 1], b = program[3 * i + 2];
    const FusedOpPattern* info = find_opcode(opcode);
    EMBER_CHECK(info, "{}: instruction {} has unknown opcode {}", op_name, i, opcode);
    const auto bad = [&](const char* what) {
      EMBER_FAIL("{}: instruction {} ({} {}, {}): {}", op_name, i, info->name, a, b, what);
    };
    switch (info->arity) {
      case 0: {
        const bool is_input = info->opcode == FusedOpcode::Input;
        const int64_t limit = is_input ? num_inputs : num_constants;
        if (a < 0 || a >= limit) bad(is_input ? "input index out of range" : "constant index out of range");
        if (b != 0) bad("the unused operand must be 0");
        break;
      }
      case 1:
        if (a < 0 || a >= i) bad("the operand must be an earlier register");
        if (b != 0) bad("the unused operand must be 0");
        break;
      default:
        if (a < 0 || a >= i || b < 0 || b >= i) bad("the operands must be earlier registers");
        break;
    }
    out.push_back({info->opcode, a, b});
  }
  return out;
}

int64_t fused_constant_bits(double c) { return std::bit_cast<int64_t>(c); }
double fused_constant_value(int64_t bits) { return std::bit_cast<double>(bits); }

std::string fused_program_to_string(IntArrayRef program, IntArrayRef constants) {
  std::string s;
  for (size_t i = 0; i + 2 < program.size(); i += 3) {
    const int64_t opcode = program[i], a = program[i + 1], b = program[i + 2];
    const char* name = fused_opcode_name(opcode);
    s += fmt::format("%{} = ", i / 3);
    if (!name) {
      s += fmt::format("<opcode {}>({}, {})\n", opcode, a, b);
    } else if (opcode == static_cast<int64_t>(FusedOpcode::Input)) {
      s += fmt::format("input[{}]\n", a);
    } else if (opcode == static_cast<int64_t>(FusedOpcode::Constant)) {
      if (a >= 0 && a < static_cast<int64_t>(constants.size()))
        s += fmt::format("constant({})\n", fused_constant_value(constants[static_cast<size_t>(a)]));
      else
        s += fmt::format("constant[{}]\n", a);
    } else if (fused_opcode_arity(opcode) == 1) {
      s += fmt::format("{}(%{})\n", name, a);
    } else {
      s += fmt::format("{}(%{}, %{})\n", name, a, b);
    }
  }
  return s;
}

}  // namespace ember
