// The verifier on graphs that break one rule each: dominance (use before definition, a value used outside
// the block defining it, a block using its own node's output), op schemas (unknown op, wrong arity, wrong
// input types, wrong output count), constants of the wrong kind, If/Loop block arity, container nodes.
// Each error names the rule and quotes the offending node's line.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/ir/Verifier.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;

struct BadGraph {
  const char* name;
  const char* text;
  const char* problem;  // part of the message
  const char* line;     // the quoted node line
};

TEST(JitVerifier, RejectsBrokenGraphs) {
  const BadGraph cases[] = {
      {"value of a branch used after the If",
       "graph(%c : bool, %x : Tensor):\n"
       "  %2 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      %inner : Tensor = aten::neg(%x)\n"
       "      -> (%inner)\n"
       "    block1():\n"
       "      -> (%x)\n"
       "  %4 : Tensor = aten::relu(%inner)\n"
       "  return (%4)\n",
       "input 0 (%inner) is used before its definition or outside the block that defines it",
       "%4 : Tensor = aten::relu(%inner)"},
      {"value of one branch used in the other",
       "graph(%c : bool, %x : Tensor):\n"
       "  %2 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      %inner : Tensor = aten::neg(%x)\n"
       "      -> (%inner)\n"
       "    block1():\n"
       "      -> (%inner)\n"
       "  return (%2)\n",
       "input 0 (%inner) is used before its definition", " = prim::Return(%inner)"},
      {"a block using its own node's output",
       "graph(%c : bool, %x : Tensor):\n"
       "  %y : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      -> (%y)\n"
       "    block1():\n"
       "      -> (%x)\n"
       "  return (%y)\n",
       "input 0 (%y) is used before its definition", " = prim::Return(%y)"},
      {"loop variable used after the loop",
       "graph(%n : int, %x : Tensor):\n"
       "  %t : bool = prim::Constant[value=1]()\n"
       "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
       "    block0(%i : int, %x.1 : Tensor):\n"
       "      -> (%t, %x.1)\n"
       "  %z : Tensor = aten::mul(%y, %i)\n"
       "  return (%z)\n",
       "input 1 (%i) is used before its definition", "%z : Tensor = aten::mul(%y, %i)"},
      {"unknown op",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor = aten::definitely_not_an_op(%x)\n"
       "  return (%1)\n",
       "unknown operator aten::definitely_not_an_op: no op of that name is registered (a library defining it may "
       "need loading)",
       "%1 : Tensor = aten::definitely_not_an_op(%x)"},
      {"unknown custom op",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor = nolib::fused_act(%x)\n"
       "  return (%1)\n",
       "unknown operator nolib::fused_act", "%1 : Tensor = nolib::fused_act(%x)"},
      {"too few arguments (defaults are passed explicitly in graphs)",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor = aten::add(%x, %x)\n"
       "  return (%1)\n",
       "no overload of aten::add accepts these 2 input(s); candidates:\n"
       "    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  (takes 3 argument(s), the node "
       "passes 2)",
       "%1 : Tensor = aten::add(%x, %x)"},
      {"too many arguments",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor = aten::neg(%x, %x, %x)\n"
       "  return (%1)\n",
       "no overload of aten::neg accepts these 3 input(s); candidates:\n"
       "    aten::neg(Tensor self) -> Tensor  (takes 1 argument(s), the node passes 3)",
       "%1 : Tensor = aten::neg(%x, %x, %x)"},
      {"wrong input type",
       "graph(%x : Tensor, %s : str):\n"
       "  %2 : Tensor = aten::neg(%s)\n"
       "  return (%2)\n",
       "no overload of aten::neg accepts these 1 input(s)", "%2 : Tensor = aten::neg(%s)"},
      {"wrong output count",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor, %2 : Tensor = aten::neg(%x)\n"
       "  return (%1)\n",
       "aten::neg(Tensor self) -> Tensor has 1 result(s) but the node has 2 output(s)",
       "%1 : Tensor, %2 : Tensor = aten::neg(%x)"},
      {"output of another type than the schema's return",
       "graph(%x : Tensor):\n"
       "  %1 : int = aten::neg(%x)\n"
       "  return (%1)\n",
       "output 0 (%1) is of type int but aten::neg returns Tensor there", "%1 : int = aten::neg(%x)"},
      {"int constant holding a float",
       "graph():\n"
       "  %0 : int = prim::Constant[value=1.5]()\n"
       "  return (%0)\n",
       "a constant of type int needs a value of kind i, not f", "%0 : int = prim::Constant[value=1.5]()"},
      {"bool constant out of range",
       "graph():\n"
       "  %0 : bool = prim::Constant[value=2]()\n"
       "  return (%0)\n",
       "a bool constant must be 0 or 1, not 2", "%0 : bool = prim::Constant[value=2]()"},
      {"None constant of another type",
       "graph():\n"
       "  %0 : int = prim::Constant()\n"
       "  return (%0)\n",
       "a prim::Constant without value must be of type NoneType, not int", "%0 : int = prim::Constant()"},
      {"constant with inputs",
       "graph(%x : int):\n"
       "  %1 : int = prim::Constant[value=1](%x)\n"
       "  return (%1)\n",
       "prim::Constant takes no inputs and has one output", "%1 : int = prim::Constant[value=1](%x)"},
      {"str list constant holding ints",
       "graph():\n"
       "  %0 : str[] = prim::Constant[value=[1]]()\n"
       "  return (%0)\n",
       "a constant of type str[] needs a value of kind ss, not is", "%0 : str[] = prim::Constant[value=[1]]()"},
      {"device constant naming no device",
       "graph():\n"
       "  %0 : Device = prim::Constant[value=\"tpu:x\"]()\n"
       "  return (%0)\n",
       "a Device constant names no device", "%0 : Device = prim::Constant[value=\"tpu:x\"]()"},
      {"constant of a type without constants",
       "graph():\n"
       "  %0 : (int) = prim::Constant[value=1]()\n"
       "  return (%0)\n",
       "no constant of type (int)", "%0 : (int) = prim::Constant[value=1]()"},
      {"If with one block",
       "graph(%c : bool, %x : Tensor):\n"
       "  %2 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      -> (%x)\n"
       "  return (%2)\n",
       "prim::If has 2 blocks, not 1", "%2 : Tensor = prim::If(%c)"},
      {"If branch returning too few values",
       "graph(%c : bool, %x : Tensor):\n"
       "  %2 : Tensor, %3 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      -> (%x, %x)\n"
       "    block1():\n"
       "      -> (%x)\n"
       "  return (%2)\n",
       "block1 of prim::If returns 1 value(s) for 2 output(s)", "%2 : Tensor, %3 : Tensor = prim::If(%c)"},
      {"If on an int",
       "graph(%c : int, %x : Tensor):\n"
       "  %2 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      -> (%x)\n"
       "    block1():\n"
       "      -> (%x)\n"
       "  return (%2)\n",
       "prim::If takes one bool input", "%2 : Tensor = prim::If(%c)"},
      {"If branch of another type",
       "graph(%c : bool, %x : Tensor, %n : int):\n"
       "  %3 : Tensor = prim::If(%c)\n"
       "    block0():\n"
       "      -> (%x)\n"
       "    block1():\n"
       "      -> (%n)\n"
       "  return (%3)\n",
       "block1 returns %n of type int for output 0 of type Tensor", "%3 : Tensor = prim::If(%c)"},
      {"Loop body without the carried input",
       "graph(%n : int, %x : Tensor):\n"
       "  %t : bool = prim::Constant[value=1]()\n"
       "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
       "    block0(%i : int):\n"
       "      -> (%t, %x)\n"
       "  return (%y)\n",
       "the body of prim::Loop takes (iteration : int, 1 carried value(s)), not 1 input(s)",
       "%y : Tensor = prim::Loop(%n, %t, %x)"},
      {"Loop body without the condition",
       "graph(%n : int, %x : Tensor):\n"
       "  %t : bool = prim::Constant[value=1]()\n"
       "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
       "    block0(%i : int, %x.1 : Tensor):\n"
       "      -> (%x.1)\n"
       "  return (%y)\n",
       "the body of prim::Loop returns (condition : bool, 1 carried value(s)), not 1 value(s)",
       "%y : Tensor = prim::Loop(%n, %t, %x)"},
      {"Loop with an output per carried value missing",
       "graph(%n : int, %x : Tensor):\n"
       "  %t : bool = prim::Constant[value=1]()\n"
       "   = prim::Loop(%n, %t, %x)\n"
       "    block0(%i : int, %x.1 : Tensor):\n"
       "      -> (%t, %x.1)\n"
       "  return ()\n",
       "prim::Loop carries 1 value(s) but has 0 output(s)", " = prim::Loop(%n, %t, %x)"},
      {"tuple unpack of the wrong arity",
       "graph(%t : (int, int)):\n"
       "  %1 : int = prim::TupleUnpack(%t)\n"
       "  return (%1)\n",
       "prim::TupleUnpack of a (int, int) into 1 output(s)", "%1 : int = prim::TupleUnpack(%t)"},
      {"list of mixed types",
       "graph(%a : int, %b : str):\n"
       "  %2 : int[] = prim::ListConstruct(%a, %b)\n"
       "  return (%2)\n",
       "%b of type str in a list of int", "%2 : int[] = prim::ListConstruct(%a, %b)"},
      {"dict with odd inputs",
       "graph(%a : str):\n"
       "  %1 : Dict(str, int) = prim::DictConstruct(%a)\n"
       "  return (%1)\n",
       "prim::DictConstruct takes key/value pairs", "%1 : Dict(str, int) = prim::DictConstruct(%a)"},
      {"GetAttr of a tensor",
       "graph(%x : Tensor):\n"
       "  %1 : Tensor = prim::GetAttr[name=\"w\"](%x)\n"
       "  return (%1)\n",
       "prim::GetAttr of a Tensor, not of an object", "%1 : Tensor = prim::GetAttr[name=\"w\"](%x)"},
  };
  for (const BadGraph& c : cases) {
    SCOPED_TRACE(c.name);
    std::shared_ptr<Graph> g = parse_ir(c.text);
    Error e = expect_error([&] { verify(*g); });
    EXPECT_TRUE(contains(e.what(), std::string("verify: ") + c.problem));
    EXPECT_TRUE(contains(e.what(), std::string("\n  in: ") + c.line));
  }
}

TEST(JitVerifier, AcceptsSchemaConversions) {
  // int for float and Scalar, None and T for T?, int for int[2], a list for int[1]?, int for ScalarType.
  auto g = parse_ir(
      "graph(%x : Tensor, %w : Tensor, %n : int, %l : int[]):\n"
      "  %none : NoneType = prim::Constant()\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %f : bool = prim::Constant[value=0]()\n"
      "  %dt : int = prim::Constant[value=6]()\n"
      "  %a : Tensor = aten::add(%x, %n, %one)\n"
      "  %b : Tensor = aten::conv2d(%x, %w, %none, %one, %l, %one, %one)\n"
      "  %c : Tensor = aten::sum(%b, %l, %f, %dt)\n"
      "  %d : Tensor = aten::linear(%c, %w, %x)\n"
      "  return (%a, %d)\n");
  verify(*g);
  std::vector<std::string> overloads;
  for (Node* n : g->nodes())
    if (n->is_op()) overloads.push_back(n->schema().full_name());
  EXPECT_EQ(overloads, (std::vector<std::string>{"aten::add.Scalar", "aten::conv2d", "aten::sum.dim_IntList",
                                                 "aten::linear"}));
  // A node's schema() explains a failed match like the verifier does.
  auto bad = parse_ir("graph(%x : Tensor):\n  %1 : Tensor = aten::neg(%x, %x, %x)\n  return (%1)\n");
  Node* neg = *bad->nodes().begin();
  EXPECT_EQ(neg->maybe_schema(), nullptr);
  Error e = expect_error([&] { neg->schema(); });
  EXPECT_TRUE(contains(e.what(), "no overload of aten::neg accepts 3 input(s) of types (Tensor, Tensor, Tensor)"));
  EXPECT_TRUE(contains(e.what(), "in: %1 : Tensor = aten::neg(%x, %x, %x)"));
  // Out variants are overloads like any other: the out tensor is the last input (as TorchScript records them).
  auto out = parse_ir("graph(%x : Tensor, %o : Tensor):\n  %2 : Tensor = aten::neg(%x, %o)\n  return (%2)\n");
  EXPECT_EQ((*out->nodes().begin())->schema().overload, "out");
}

// Note [linear verification]: a node with many inputs (a return of 100,000 values, all one value or all
// different) verifies in time linear in its size. Not a timed test: a quadratic verifier would take minutes
// here (ctest's timeout), a linear one milliseconds.
TEST(JitVerifier, ManyInputsVerifyInLinearTime) {
  constexpr int kN = 100000;
  std::string same = "graph(%x : Tensor):\n  return (", distinct = "graph(%x : Tensor):\n";
  for (int i = 0; i < kN; ++i) {
    same += (i ? ", %x" : "%x");
    distinct += "  %v" + std::to_string(i) + " : Tensor = aten::neg(%x)\n";
  }
  same += ")\n";
  distinct += "  return (";
  for (int i = 0; i < kN; ++i) distinct += (i ? ", %v" : "%v") + std::to_string(i);
  distinct += ")\n";
  for (const std::string& text : {same, distinct}) {
    auto g = parse_ir(text);
    EXPECT_EQ(g->outputs().size(), static_cast<size_t>(kN));  // parsed back in full
    verify(*g);
  }
}

}  // namespace
