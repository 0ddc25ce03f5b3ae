// aten::_fused_elementwise from C++: the program encoding (Note [fused elementwise programs]), its checks, and
// results equal to the unfused ops bit for bit on every kind of operand (row, gathered, one value).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"
#include "ember/ops/FusedProgram.h"

namespace {

using namespace ember;

constexpr int64_t op(FusedOpcode c) { return static_cast<int64_t>(c); }

TEST(FusedProgram, EveryOpcodeHasANameThatMapsBack) {
  int known = 0;
  for (int64_t code = -2; code < 100; ++code) {
    const char* name = fused_opcode_name(code);
    if (!name) {
      EXPECT_EQ(fused_opcode_arity(code), -1);
      continue;
    }
    ++known;
    ASSERT_TRUE(fused_opcode_from_name(name).has_value()) << name;
    EXPECT_EQ(op(*fused_opcode_from_name(name)), code);
  }
  EXPECT_EQ(known, 27);
  EXPECT_FALSE(fused_opcode_from_name("pow").has_value());
}

TEST(FusedProgram, ConstantsRoundTripThroughTheirBits) {
  for (double c : {0.0, -0.0, 0.1, -3.5, 1e300, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::denorm_min()})
    EXPECT_EQ(fused_constant_bits(fused_constant_value(fused_constant_bits(c))), fused_constant_bits(c));
  EXPECT_TRUE(std::isnan(fused_constant_value(fused_constant_bits(std::nan("")))));
}

TEST(FusedProgram, ReadableForm) {
  const std::vector<int64_t> p = {0, 0, 0, 1, 0, 0, 42, 0, 1, 13, 2, 0};
  EXPECT_EQ(fused_program_to_string(p, {fused_constant_bits(0.5)}),
            "%0 = input[0]\n%1 = constant(0.5)\n%2 = mul(%0, %1)\n%3 = sigmoid(%2)\n");
}

TEST(FusedProgram, ValidationNamesTheInstruction) {
  EMBER_EXPECT_ERROR(validate_fused_program("f", std::vector<int64_t>{0, 0, 0, 40, 0, 1}, 1, 0), Runtime,
                     "f: instruction 1 (add 0, 1): the operands must be earlier registers");
  EMBER_EXPECT_ERROR(validate_fused_program("f", std::vector<int64_t>{0, 0, 0}, 0, 0), Runtime,
                     "f: expected at least one input tensor");
  const std::vector<FusedInstr> ok =
      validate_fused_program("f", std::vector<int64_t>{0, 1, 0, 1, 0, 0, 43, 0, 1}, 2, 1);
  ASSERT_EQ(ok.size(), 3u);
  EXPECT_EQ(ok[2].op, FusedOpcode::Div);
  EXPECT_EQ(ok[0].a, 1);
}

// (exp(a) - b * c) / max(a, 0.25) with every operand kind: a row, a broadcast (gathered) and a one-element
// input, a constant; compared with the unfused ops.
TEST(FusedElementwise, MatchesUnfusedOpsBitForBit) {
  for (DType dt : {kFloat32, kFloat64}) {
    for (int64_t n : {1, 7, 511, 512, 513, 5000}) {
      Tensor a = randn({n, 3}, dt), b = randn({3}, dt), c = randn({}, dt);
      const std::vector<int64_t> p = {
          op(FusedOpcode::Input), 0, 0, op(FusedOpcode::Exp), 0, 0, op(FusedOpcode::Input), 1, 0,
          op(FusedOpcode::Input), 2, 0, op(FusedOpcode::Mul), 2, 3, op(FusedOpcode::Sub), 1, 4,
          op(FusedOpcode::Constant), 0, 0, op(FusedOpcode::Maximum), 0, 6, op(FusedOpcode::Div), 5, 7};
      Tensor got = _fused_elementwise({a, b, c}, p, {fused_constant_bits(0.25)});
      Tensor quarter = full({}, 0.25, dt);
      Tensor want = div(sub(exp(a), mul(b, c)), maximum(a, quarter));
      ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
      ASSERT_EQ(got.dtype(), dt);
      EXPECT_TRUE(equal(got, want)) << n;
    }
  }
}

TEST(FusedElementwise, RequiresGradInputRaisesUnlessGradModeIsOff) {
  Tensor x = randn({3});
  autograd::set_requires_grad(x, true);
  const std::vector<int64_t> p = {op(FusedOpcode::Input), 0, 0, op(FusedOpcode::Relu), 0, 0};
  EMBER_EXPECT_ERROR(_fused_elementwise({x}, p, {}), Runtime,
                     "The function '_fused_elementwise' is not differentiable with respect to argument 'inputs'");
  autograd::NoGradGuard guard;
  EXPECT_TRUE(equal(_fused_elementwise({x}, p, {}), relu(x)));
}

}  // namespace
