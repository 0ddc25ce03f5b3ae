// The elementwise fusion pass (ember/jit/passes, Note [elementwise fusion]): IR text in and out, and the
// optimised graph run by the interpreter computing the same values as the original, bit for bit.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/jit/ir/IR.h"
#include "ember/jit/passes/Passes.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/ops/Functions.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;

// The graph of `text` after FuseElementwise, verified; the pass reports a change exactly when the text changed.
std::shared_ptr<Graph> fused(std::string_view text) {
  std::shared_ptr<Graph> g = parse_ir(text);
  const std::string before = g->str();
  const bool changed = fuse_elementwise(g);
  verify(*g);
  EXPECT_EQ(changed, g->str() != before) << g->str();
  return g;
}

int count_kind(const Graph& g, std::string_view kind) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->kind().qual_string() == kind;
  return n;
}

// Runs the original and the fused graph on the same inputs; the results must be identical.
void expect_same_values(std::string_view text, const std::vector<IValue>& inputs) {
  Function before("before", parse_ir(text));
  Function after("after", fused(text));
  ASSERT_EQ(count_kind(after.graph(), "aten::_fused_elementwise") > 0, true) << after.graph().str();
  const Tensor want = before(inputs).to_tensor(), got = after(inputs).to_tensor();
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  ASSERT_EQ(got.dtype(), want.dtype());
  EXPECT_TRUE(equal(got, want)) << after.graph().str();
}

constexpr const char* kSwishBias = R"IR(graph(%x : Float(4, 8), %b : Float(8)):
  %one : int = prim::Constant[value=1]()
  %s : Float(4, 8) = aten::sigmoid(%x)
  %m : Float(4, 8) = aten::mul(%x, %s)
  %r : Float(4, 8) = aten::add(%m, %b, %one)
  return (%r)
)IR";

TEST(FuseElementwise, SwishBiasBecomesOneNode) {
  std::shared_ptr<Graph> g = fused(kSwishBias);
  // input x; sigmoid; mul(x, sigmoid); input b; add: Note [fused elementwise programs]
  EXPECT_EQ(g->str(), R"IR(graph(%x : Float(4, 8),
      %b : Float(8)):
  %6 : Tensor[] = prim::ListConstruct(%x, %b)
  %7 : int[] = prim::Constant[value=[0, 0, 0, 13, 0, 0, 42, 0, 1, 0, 1, 0, 40, 2, 3]]()
  %8 : int[] = prim::Constant[value=[]]()
  %r : Float(4, 8) = aten::_fused_elementwise(%6, %7, %8)
  return (%r)
)IR");
  // The text parses back to the same graph.
  EXPECT_EQ(parse_ir(g->str())->str(), g->str());
  expect_same_values(kSwishBias, {randn({4, 8}), randn({8})});
}

constexpr const char* kReluMad = R"IR(graph(%a : Double(3, 5), %b : Double(3, 5), %c : Double(5)):
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %m : Double(3, 5) = aten::mul(%a, %b)
  %s : Double(3, 5) = aten::add(%m, %c, %one)
  %h : Double(3, 5) = aten::mul(%s, %half)
  %t : Double(3, 5) = aten::sub(%h, %one, %one)
  %r : Double(3, 5) = aten::relu(%t)
  return (%r)
)IR";

TEST(FuseElementwise, ConstantNumbersBecomeProgramConstants) {
  std::shared_ptr<Graph> g = fused(kReluMad);
  // 0.5 and 1 are constants 0 and 1 (binary64 bits of 0.5 and 1.0); the alpha constant is gone with its users.
  EXPECT_EQ(g->str(), R"IR(graph(%a : Double(3, 5),
      %b : Double(3, 5),
      %c : Double(5)):
  %10 : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %11 : int[] = prim::Constant[value=[0, 0, 0, 0, 1, 0, 42, 0, 1, 0, 2, 0, 40, 2, 3, 1, 0, 0, 42, 4, 5, 1, 1, 0, 41, 6, 7, 12, 8, 0]]()
  %12 : int[] = prim::Constant[value=[4602678819172646912, 4607182418800017408]]()
  %r : Double(3, 5) = aten::_fused_elementwise(%10, %11, %12)
  return (%r)
)IR");
  expect_same_values(kReluMad, {randn({3, 5}, kFloat64), randn({3, 5}, kFloat64), randn({5}, kFloat64)});
}

TEST(FuseElementwise, DiamondWithSharedInputFusesWhole) {
  // x is read by three nodes of the group; exp(x) by two.
  const char* text = R"IR(graph(%x : Float(2, 3)):
  %e : Float(2, 3) = aten::exp(%x)
  %p : Float(2, 3) = aten::mul(%e, %x)
  %q : Float(2, 3) = aten::div(%e, %x)
  %r : Float(2, 3) = aten::maximum(%p, %q)
  return (%r)
)IR";
  std::shared_ptr<Graph> g = fused(text);
  EXPECT_EQ(count_kind(*g, "aten::_fused_elementwise"), 1) << g->str();
  EXPECT_EQ(count_kind(*g, "aten::exp"), 0);
  expect_same_values(text, {randn({2, 3})});
}

TEST(FuseElementwise, IntermediateUsedOutsideStaysOutside) {
  // %m is also a graph output: the group is only sigmoid(m) + b and m stays computed by mul.
  const char* text = R"IR(graph(%x : Float(4), %b : Float(4)):
  %one : int = prim::Constant[value=1]()
  %m : Float(4) = aten::mul(%x, %x)
  %s : Float(4) = aten::sigmoid(%m)
  %r : Float(4) = aten::add(%s, %b, %one)
  return (%r, %m)
)IR";
  std::shared_ptr<Graph> g = fused(text);
  EXPECT_EQ(count_kind(*g, "aten::mul"), 1);
  EXPECT_EQ(count_kind(*g, "aten::sigmoid"), 0);
  EXPECT_EQ(count_kind(*g, "aten::_fused_elementwise"), 1);
  Function before("before", parse_ir(text)), after("after", g);
  const std::vector<IValue> in = {randn({4}), randn({4})};
  const auto want = before(in).to_tuple(), got = after(in).to_tuple();
  EXPECT_TRUE(equal(got[0].to_tensor(), want[0].to_tensor()));
  EXPECT_TRUE(equal(got[1].to_tensor(), want[1].to_tensor()));
}

// Graphs the pass must leave exactly as they are.
TEST(FuseElementwise, UnsafeOrUnprofitableGraphsAreLeftAlone) {
  const char* cases[] = {
      // dtypes unknown
      R"IR(graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::relu(%a)
  return (%b)
)IR",
      // an integral dtype
      R"IR(graph(%x : Long(3)):
  %a : Long(3) = aten::neg(%x)
  %b : Long(3) = aten::abs(%a)
  return (%b)
)IR",
      // float32 and float64 mixed (the add promotes)
      R"IR(graph(%x : Float(3), %y : Double(3)):
  %one : int = prim::Constant[value=1]()
  %a : Float(3) = aten::exp(%x)
  %b : Double(3) = aten::add(%a, %y, %one)
  return (%b)
)IR",
      // alpha other than 1
      R"IR(graph(%x : Float(3), %y : Float(3)):
  %two : int = prim::Constant[value=2]()
  %a : Float(3) = aten::exp(%x)
  %b : Float(3) = aten::add(%a, %y, %two)
  return (%b)
)IR",
      // a single fusible node
      R"IR(graph(%x : Float(3)):
  %a : Float(3) = aten::exp(%x)
  return (%a)
)IR",
      // a number that is not a constant
      R"IR(graph(%x : Float(3), %k : float):
  %a : Float(3) = aten::exp(%x)
  %b : Float(3) = aten::mul(%a, %k)
  return (%b)
)IR",
  };
  for (const char* text : cases) {
    std::shared_ptr<Graph> g = fused(text);
    EXPECT_EQ(g->str(), parse_ir(text)->str());
  }
}

TEST(FuseElementwise, TwoGroupsSeparatedByAnUnfusibleNode) {
  const char* text = R"IR(graph(%x : Float(2, 3), %w : Float(3, 4)):
  %a : Float(2, 3) = aten::exp(%x)
  %b : Float(2, 3) = aten::tanh(%a)
  %m : Float(2, 4) = aten::mm(%b, %w)
  %c : Float(2, 4) = aten::neg(%m)
  %d : Float(2, 4) = aten::sigmoid(%c)
  return (%d)
)IR";
  std::shared_ptr<Graph> g = fused(text);
  EXPECT_EQ(count_kind(*g, "aten::_fused_elementwise"), 2) << g->str();
  EXPECT_EQ(count_kind(*g, "aten::mm"), 1);
  expect_same_values(text, {randn({2, 3}), randn({3, 4})});
}

TEST(FuseElementwise, GeluModesAndBroadcastInputs) {
  const char* text = R"IR(graph(%x : Float(5, 1), %y : Float(1, 6)):
  %none : str = prim::Constant[value="none"]()
  %tanh : str = prim::Constant[value="tanh"]()
  %one : int = prim::Constant[value=1]()
  %a : Float(5, 1) = aten::gelu(%x, %none)
  %b : Float(1, 6) = aten::gelu(%y, %tanh)
  %c : Float(5, 6) = aten::sub(%a, %b, %one)
  return (%c)
)IR";
  std::shared_ptr<Graph> g = fused(text);
  EXPECT_EQ(count_kind(*g, "aten::_fused_elementwise"), 1) << g->str();
  EXPECT_EQ(count_kind(*g, "aten::gelu"), 0);
  expect_same_values(text, {randn({5, 1}), randn({1, 6})});
}

TEST(FuseElementwise, InsideNestedBlocks) {
  const char* text = R"IR(graph(%x : Float(3), %c : bool):
  %r : Float(3) = prim::If(%c)
    block0():
      %a : Float(3) = aten::exp(%x)
      %b : Float(3) = aten::relu(%a)
      -> (%b)
    block1():
      -> (%x)
  return (%r)
)IR";
  std::shared_ptr<Graph> g = fused(text);
  EXPECT_TRUE(contains(g->str(), "aten::_fused_elementwise")) << g->str();
  EXPECT_FALSE(contains(g->str(), "aten::exp"));
  Function before("before", parse_ir(text)), after("after", g);
  Tensor x = randn({3});
  EXPECT_TRUE(equal(after({x, true}).to_tensor(), before({x, true}).to_tensor()));
  EXPECT_TRUE(equal(after({x, false}).to_tensor(), x));
}

TEST(FuseElementwise, MalformedProgramInSavedTextIsAnErrorNotACrash) {
  // A hand-edited graph: register 5 does not exist yet. The op checks the program before running it.
  Function f("bad", R"IR(graph(%x : Float(3)):
  %in : Tensor[] = prim::ListConstruct(%x)
  %p : int[] = prim::Constant[value=[0, 0, 0, 12, 5, 0]]()
  %k : int[] = prim::Constant[value=[]]()
  %r : Float(3) = aten::_fused_elementwise(%in, %p, %k)
  return (%r)
)IR");
  EMBER_EXPECT_ERROR(f({randn({3})}), Runtime,
                     "_fused_elementwise: instruction 1 (relu 5, 0): the operand must be an earlier register");
}

}  // namespace
