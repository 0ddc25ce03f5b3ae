// The text form: print(parse(text)) == text for graphs in canonical form (every constant kind, strings with
// escapes, special floats, nested If/Loop, lists, tuples, dicts, class types, tensor tables), comments and
// spacing tolerated, and malformed text rejected with its line and column.
#include <gtest/gtest.h>

#include <cmath>

#include "TestSupport.h"
#include "ember/jit/ir/IR.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;

// Parses, verifies, and checks that the parsed graph prints as the text and that the reprint parses again to
// the same text.
void round_trip(const std::string& text) {
  std::shared_ptr<Graph> g = parse_ir(text);
  verify(*g);
  std::string printed = g->str();
  EXPECT_EQ(printed, text);
  EXPECT_EQ(parse_ir(printed)->str(), printed);
  EXPECT_EQ(g->copy()->str(), printed);
}

TEST(JitParser, ConstantsOfEveryKind) {
  round_trip(
      "graph(%x.1 : Tensor,\n"
      "      %n : int):\n"
      "  %2 : int = prim::Constant[value=-3]()\n"
      "  %3 : float = prim::Constant[value=1e-05]()\n"
      "  %4 : float = prim::Constant[value=inf]()\n"
      "  %5 : float = prim::Constant[value=-inf]()\n"
      "  %6 : float = prim::Constant[value=nan]()\n"
      "  %7 : float = prim::Constant[value=3.]()\n"
      "  %8 : float = prim::Constant[value=-0.]()\n"
      "  %9 : float = prim::Constant[value=1e+20]()\n"
      "  %10 : float = prim::Constant[value=0.1]()\n"
      "  %11 : float = prim::Constant[value=-2.5e-300]()\n"
      "  %12 : bool = prim::Constant[value=1]()\n"
      "  %13 : bool = prim::Constant[value=0]()\n"
      "  %14 : str = prim::Constant[value=\"a\\\"b\\n\\\\c\\t\\r\\x01 \\x7f\"]()\n"
      "  %15 : str = prim::Constant[value=\"\"]()\n"
      "  %16 : str = prim::Constant[value=\"caf\xc3\xa9 # not a comment\"]()\n"
      "  %17 : NoneType = prim::Constant()\n"
      "  %18 : int[] = prim::Constant[value=[1, -2]]()\n"
      "  %19 : int[] = prim::Constant[value=[]]()\n"
      "  %20 : float[] = prim::Constant[value=[]]()\n"
      "  %21 : float[] = prim::Constant[value=[0.5, -1., inf]]()\n"
      "  %22 : str[] = prim::Constant[value=[\"x\", \"\"]]()\n"
      "  %23 : str[] = prim::Constant[value=[]]()\n"
      "  %24 : bool[] = prim::Constant[value=[1, 0]]()\n"
      "  %25 : Device = prim::Constant[value=\"cpu\"]()\n"
      "  %26 : int = prim::Constant[value=-9223372036854775808]()\n"
      "  %27 : int = prim::Constant[value=9223372036854775807]()\n"
      "  %y : Tensor = aten::add(%x.1, %x.1, %2)\n"
      "  return (%y, %14, %26)\n");
}

TEST(JitParser, ConstantValuesAreExact) {
  auto g = parse_ir(
      "graph():\n"
      "  %0 : float = prim::Constant[value=1.0000000000000001e-05]()\n"  // TorchScript's 17 digits
      "  %1 : float = prim::Constant[value=-nan]()\n"
      "  %2 : str = prim::Constant[value=\"q\\'\\x41\"]()\n"
      "  %3 : float[] = prim::Constant[value=[1, 2.5]]()\n"
      "  return (%0, %1, %2, %3)\n");
  verify(*g);
  EXPECT_EQ(constant_value(g->outputs()[0])->to_double(), 1e-05);
  EXPECT_TRUE(std::isnan(constant_value(g->outputs()[1])->to_double()));
  EXPECT_EQ(constant_value(g->outputs()[2])->to_string(), "q'A");
  EXPECT_EQ(constant_value(g->outputs()[3])->to_list()[0].to_double(), 1.0);
  // Shortest spellings on output.
  EXPECT_EQ(g->str(),
            "graph():\n"
            "  %0 : float = prim::Constant[value=1e-05]()\n"
            "  %1 : float = prim::Constant[value=nan]()\n"
            "  %2 : str = prim::Constant[value=\"q'A\"]()\n"
            "  %3 : float[] = prim::Constant[value=[1., 2.5]]()\n"
            "  return (%0, %1, %2, %3)\n");
  for (double v : {0.1, 1.0 / 3, 6.02214076e23, 5e-324, -1.7976931348623157e308, 100.0, 1e16, 123456789.0})
    EXPECT_EQ(std::strtod(format_float(v).c_str(), nullptr), v) << format_float(v);
  EXPECT_EQ(format_float(100.0), "100.");
  EXPECT_EQ(quote_string("a\"\\\n"), "\"a\\\"\\\\\\n\"");
}

TEST(JitParser, NestedControlFlowAndContainers) {
  round_trip(
      "graph(%self : __torch__.Net,\n"
      "      %x.1 : Float(2, *, 3),\n"
      "      %n.1 : int,\n"
      "      %flag.1 : bool,\n"
      "      %o : int?,\n"
      "      %ts : Tensor[]):\n"
      "  %w : Tensor = prim::GetAttr[name=\"w\"](%self)\n"
      "  %7 : int = prim::Constant[value=1]()\n"
      "  %8 : bool = prim::Constant[value=0]()\n"
      "  %y.1 : Tensor = aten::mul(%x.1, %w)\n"
      "  %y.37 : Tensor = prim::If(%flag.1)\n"
      "    block0():\n"
      "      %y.5 : Tensor = aten::add(%y.1, %7, %7)\n"
      "      -> (%y.5)\n"
      "    block1():\n"
      "      %12 : Tensor = prim::If(%8)\n"
      "        block0():\n"
      "          -> (%y.1)\n"
      "        block1():\n"
      "          %13 : Tensor = aten::neg(%y.1)\n"
      "          -> (%13)\n"
      "      -> (%12)\n"
      "  %14 : bool = prim::Constant[value=1]()\n"
      "  %y : Tensor, %k : int = prim::Loop(%n.1, %14, %y.37, %7)\n"
      "    block0(%i.1 : int, %y.39 : Tensor, %k.1 : int):\n"
      "      %y.27 : Tensor = aten::mul(%y.39, %i.1)\n"
      "      %z : Tensor = prim::Loop(%i.1, %14, %y.27)\n"
      "        block0(%j : int, %z.1 : Tensor):\n"
      "          %z.2 : Tensor = aten::mul(%z.1, %j)\n"
      "          -> (%14, %z.2)\n"
      "      -> (%14, %z, %i.1)\n"
      "  %l.1 : int[] = prim::ListConstruct(%7, %n.1)\n"
      "  %a : int, %b : int = prim::ListUnpack(%l.1)\n"
      "  %s : str = prim::Constant[value=\"key\"]()\n"
      "  %d.1 : Dict(str, int) = prim::DictConstruct(%s, %n.1)\n"
      "  %t : (Tensor, int[], int?) = prim::TupleConstruct(%y, %l.1, %o)\n"
      "  %t0 : Tensor, %t1 : int[], %t2 : int? = prim::TupleUnpack(%t)\n"
      "  %m : Tensor, %idx : Tensor = aten::max(%y, %7, %8)\n"
      "  %cat : Tensor = aten::cat(%ts, %a)\n"
      "   = prim::SetAttr[name=\"w\"](%self, %m)\n"
      "  %e : () = prim::TupleConstruct()\n"
      "  return (%t, %d.1, %cat, %e)\n");
}

TEST(JitParser, TypesAndAttributes) {
  round_trip(
      "graph(%a : Tensor,\n"
      "      %b : Long,\n"
      "      %c : Bool(),\n"
      "      %d : Tensor(4, *),\n"
      "      %e : Double(1, 2, 3),\n"
      "      %f : Tensor?[],\n"
      "      %g : Dict(int, Tensor[]),\n"
      "      %h : (int, (float, str))?,\n"
      "      %i : Scalar,\n"
      "      %j : Any,\n"
      "      %k : Device,\n"
      "      %l : int[][],\n"
      "      %m : __torch__.torch.nn.modules.conv.___torch_mangle_0.Conv2d):\n"
      "  %13 : Tensor = prim::CallMethod[name=\"forward\", dims=[1, 2], scales=[0.5], names=[\"a\", \"b\"]](%m, %a)\n"
      "  return (%13)\n");
}

// A node's attributes are bounded (64): their list is searched whenever one is set.
TEST(JitParser, NodeAttributesAreBounded) {
  auto text = [](int n) {
    std::string t = "graph():\n  %c : int = prim::Constant[";
    for (int i = 0; i < n; ++i) t += (i ? ", a" : "a") + std::to_string(i) + "=1";
    return t + "]()\n  return (%c)\n";
  };
  EXPECT_EQ((*parse_ir(text(64))->nodes().begin())->attributes().size(), 64u);
  Error e = ember::testing::expect_error([&] { parse_ir(text(100000)); });
  EXPECT_TRUE(contains(e.what(), "a node with more than 64 attributes")) << e.what();
  EXPECT_TRUE(contains(e.what(), "line 2, column ")) << e.what();
}

TEST(JitParser, NoInputsNoOutputsAndEmptyGraph) {
  round_trip("graph():\n  return ()\n");
  Graph g;
  EXPECT_EQ(g.str(), "graph():\n  return ()\n");
}

TEST(JitParser, CommentsAndSpacingAreTolerated) {
  auto g = parse_ir(
      "# a TorchScript dump\n"
      "graph( %x.1 : Tensor , %n:int ) :\n"
      "  %2 : int = prim::Constant[value=1]() # /tmp/ts.py:11:20\n"
      "  %y : Tensor = aten::add(%x.1,%x.1,%2)   # with a comment\n"
      "\n"
      "  return ( %y )\n");
  EXPECT_EQ(g->str(),
            "graph(%x.1 : Tensor,\n"
            "      %n : int):\n"
            "  %2 : int = prim::Constant[value=1]()\n"
            "  %y : Tensor = aten::add(%x.1, %x.1, %2)\n"
            "  return (%y)\n");
}

TEST(JitParser, NamesAndNumbersAreKept) {
  auto g = parse_ir(
      "graph(%7 : Tensor,\n"
      "      %x : Tensor):\n"
      "  %30 : Tensor = aten::neg(%7)\n"
      "  %x.2 : Tensor = aten::neg(%x)\n"
      "  return (%30, %x.2)\n");
  EXPECT_EQ(g->inputs()[0]->unique(), 7u);
  EXPECT_FALSE(g->inputs()[0]->has_debug_name());
  EXPECT_EQ(g->inputs()[1]->debug_name(), "x");
  // Values created later are numbered above every number of the text.
  Value* v = g->insert_constant(IValue(int64_t{1}));
  EXPECT_GT(v->unique(), 30u);
  for (Value* other : g->all_values())
    if (other != v) {
      EXPECT_NE(other->unique(), v->unique());
    }
  // A name taken later moves the parsed owner to the next suffix (Note [value names]).
  v->set_debug_name("x");
  EXPECT_EQ(g->inputs()[1]->debug_name(), "x.1");
}

TEST(JitParser, TensorTable) {
  Graph g;
  Tensor w = ember::testing::make_tensor<float>({1.f, 2.f}, {2});
  Tensor b = ember::testing::make_tensor<double>({0.5}, {});
  Value* x = g.add_input("x");
  Value* cw = g.insert_constant(IValue(w));
  Value* cb = g.insert_constant(IValue(b));
  g.register_output(g.insert_op("aten::mul", {x, cw})->output());
  g.register_output(cb);
  std::vector<Tensor> table;
  std::string text = to_string(g, PrintOptions{&table});
  EXPECT_EQ(text,
            "graph(%x : Tensor):\n"
            "  %1 : Float(2) = prim::Constant[value=<Tensor:0>]()\n"
            "  %2 : Double() = prim::Constant[value=<Tensor:1>]()\n"
            "  %3 : Tensor = aten::mul(%x, %1)\n"
            "  return (%3, %2)\n");
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].impl(), w.impl());
  ParseOptions opts;
  opts.tensor_table = &table;
  auto p = parse_ir(text, opts);
  verify(*p);
  EXPECT_EQ(constant_value(p->outputs()[1])->to_tensor().impl(), b.impl());
  std::vector<Tensor> table2;
  EXPECT_EQ(to_string(*p, PrintOptions{&table2}), text);

  // Without a table the data is not part of the text: <Tensor> parses to a placeholder the verifier rejects.
  std::string plain = g.str();
  EXPECT_TRUE(contains(plain, "%1 : Float(2) = prim::Constant[value=<Tensor>]()"));
  auto q = parse_ir(plain);
  EXPECT_EQ(q->str(), plain);
  Error e = expect_error([&] { verify(*q); });
  EXPECT_TRUE(contains(e.what(), "the tensor constant has no data"));
  e = expect_error([&] { parse_ir(text); });
  EXPECT_TRUE(contains(e.what(), "line 2, column 48: <Tensor:0> needs a tensor table"));
  std::vector<Tensor> short_table = {w};
  opts.tensor_table = &short_table;
  e = expect_error([&] { parse_ir(text, opts); });
  EXPECT_TRUE(contains(e.what(), "line 3, column 48: tensor table index 1 out of range (the table has 1 tensors)"));
}

TEST(JitParser, ClassTypesResolve) {
  auto net = ClassType::create("__torch__.Net");
  net->add_attribute("w", TensorType::create(kFloat32, TensorType::Sizes{2}));
  std::unordered_map<std::string, std::shared_ptr<ClassType>> classes = {{"__torch__.Net", net}};
  ParseOptions opts;
  opts.class_types = &classes;
  const char* text =
      "graph(%self : __torch__.Net,\n"
      "      %other : __torch__.Other):\n"
      "  %w : Float(2) = prim::GetAttr[name=\"w\"](%self)\n"
      "  return (%w)\n";
  auto g = parse_ir(text, opts);
  EXPECT_EQ(g->inputs()[0]->type().get(), net.get());
  ASSERT_EQ(classes.count("__torch__.Other"), 1u);  // created and recorded
  EXPECT_EQ(g->inputs()[1]->type().get(), classes["__torch__.Other"].get());
  verify(*g);
  // The class's table types GetAttr: a mismatch is a verifier error.
  auto bad = parse_ir(
      "graph(%self : __torch__.Net):\n"
      "  %w : int = prim::GetAttr[name=\"w\"](%self)\n"
      "  return (%w)\n",
      opts);
  Error e = expect_error([&] { verify(*bad); });
  EXPECT_TRUE(contains(e.what(), "attribute 'w' of __torch__.Net is a Float(2), not a int"));
}

struct BadText {
  const char* text;
  const char* message;  // expected part, including the position
};

TEST(JitParser, ErrorsNameLineAndColumn) {
  const BadText cases[] = {
      {"graph(%x : Tensor):\n  return (%y)\n", "line 2, column 11: use of undefined value %y"},
      {"graph(%x : Tensor)\n  return (%x)\n", "line 2, column 3: expected ':' but found 'return'"},
      {"graph(%x : Tensr):\n  return (%x)\n", "line 1, column 12: unknown type 'Tensr'"},
      {"graph(%x : Tensor, %x : int):\n  return ()\n", "line 1, column 20: value %x is defined twice"},
      {"graph(%1 : Tensor):\n  %1 : Tensor = aten::neg(%1)\n  return ()\n",
       "line 2, column 3: value %1 is defined twice"},
      {"graph():\n  %1 : int = prim::Constant[value=\"abc]()\n  return ()\n",
       "line 2, column 35: unterminated string literal"},
      {"graph():\n  %1 : int = prim::Constant[value=\"a\\qb\"]()\n  return ()\n",
       "line 2, column 37: unknown escape sequence"},
      {"graph():\n  %1 : int = add()\n  return ()\n",
       "line 2, column 14: expected an operator name such as aten::add or prim::Constant but found 'add'"},
      {"graph():\n  return (\n", "line 3, column 1: expected a value ('%name') but found end of input"},
      {"graph():\n  %1 : int = prim::Constant[value=1]()\n  return (%1\n",
       "line 4, column 1: expected ',' or ')' but found end of input"},
      {"graph():\n  return ()\n  %2 : int = prim::Constant()\n",
       "line 3, column 3: expected end of input after the return line but found '%2'"},
      {"graph():\n  %1 : int = prim::Constant[value=99999999999999999999]()\n  return ()\n",
       "line 2, column 35: integer 99999999999999999999 out of range of int64"},
      {"graph():\n  %1 : int = prim::Constant[value=-]()\n  return ()\n",
       "line 2, column 36: expected a number after '-' but found ']'"},
      {"graph():\n  %1 : int = prim::Constant[value=[1, \"a\"]]()\n  return ()\n",
       "line 2, column 39: expected a number (lists hold one kind of value) but found a string"},
      {"graph(%c : bool):\n  %1 : int = prim::If(%c)\n    block1():\n      -> ()\n  return ()\n",
       "line 3, column 5: expected 'block0' but found 'block1'"},
      {"graph(%c : bool):\n  %1 : int = prim::If(%c)\n    block0():\n  return ()\n",
       "line 4, column 3: expected '->' ending the block but found 'return'"},
      {"graph(%x : Float(2, a)):\n  return ()\n", "line 1, column 21: expected a size or '*' but found 'a'"},
      {"graph(%x : Dict(float, int)):\n  return ()\n", "line 1, column 17: dict keys must be str, int or Tensor"},
      {"graph(%x : (int, float):\n  return ()\n", "line 1, column 24: expected ',' or ')' but found ':'"},
      {"graph():\n  %1 : int = prim::Constant[value=1]() @\n  return ()\n",
       "line 2, column 40: unexpected character '@'"},
      {"graph():\n  %1 : int = prim::Param()\n  return ()\n", "line 2, column 14: prim::Param nodes are implicit"},
      {"graf():\n  return ()\n", "line 1, column 1: expected 'graph' but found 'graf'"},
      {"", "line 1, column 1: expected 'graph' but found end of input"},
      {"graph(%x : Tensor):\n  % = aten::neg(%x)\n  return ()\n", "line 2, column 3: expected a value name after '%'"},
      {"graph(%07 : Tensor):\n  return ()\n", "line 1, column 7: a value number with a leading zero: %07"},
      {"graph():\n   = a::b::c()\n  return ()\n", "line 2, column 6: jit: 'a::b::c' is not a qualified name"},
      {"graph(%x : __torch__.0Net):\n  return ()\n",
       "line 1, column 12: jit: '__torch__.0Net' is not a valid class name"},
  };
  for (const BadText& c : cases) {
    Error e = expect_error([&] { parse_ir(c.text); });
    EXPECT_TRUE(contains(e.what(), std::string("IR parse error at ") + c.message)) << "text:\n" << c.text;
  }
  // Hostile nesting is refused instead of exhausting the stack.
  std::string deep = "graph(%x : " + std::string(1000, '(') + "int" + std::string(1000, ')') + "):\n  return ()\n";
  Error deep_error = expect_error([&] { parse_ir(deep); });
  EXPECT_TRUE(contains(deep_error.what(), "line 1, column 268: nesting deeper than 256 levels"));
  // The quoted line is cut around the column.
  EXPECT_LT(std::string(deep_error.what()).size(), 400u);
  EXPECT_TRUE(contains(deep_error.what(), "\n  ...((((((((((") && contains(deep_error.what(), "(((...\n"));
  EXPECT_TRUE(contains(deep_error.what(), "...\n" + std::string(2 + 63, ' ') + "^"));
  std::string blocks = "graph(%c : bool):\n";
  for (int i = 0; i < 300; ++i) blocks += " = prim::If(%c)\nblock0():\n";
  Error block_error = expect_error([&] { parse_ir(blocks); });
  EXPECT_TRUE(contains(block_error.what(), "nesting deeper than 256 levels"));
  // The message quotes the line and puts a caret under the column.
  Error e = expect_error([&] { parse_ir("graph(%x : Tensor):\n  return (%y)\n"); });
  EXPECT_TRUE(contains(e.what(), "\n    return (%y)\n            ^"));
}

}  // namespace

namespace {

using namespace ember;
using namespace ember::jit;

// Graphs as PyTorch 1.13 prints them (Note [parsing TorchScript text]): a scripted module with control flow
// and every constant kind, and a traced one with scopes and strided tensor types.
TEST(JitParser, ReadsTorchScriptDumps) {
  const char* scripted =
      "graph(%self : __torch__.Net,\n"
      "      %x.1 : Tensor,\n"
      "      %n.1 : int,\n"
      "      %flag.1 : bool):\n"
      "  %81 : float = prim::Constant[value=-0.]() # /tmp/ts.py:24:92\n"
      "  %77 : int = prim::Constant[value=-3]() # /tmp/ts.py:24:82\n"
      "  %103 : float = prim::Constant[value=nan]()\n"
      "  %102 : float = prim::Constant[value=-inf]()\n"
      "  %53 : bool = prim::Constant[value=0]()\n"
      "  %45 : str = prim::Constant[value=\"a\"]() # /tmp/ts.py:20:29\n"
      "  %s.1 : str = prim::Constant[value=\"a\\\"b\\n\\\\c\\t\"]() # /tmp/ts.py:18:12\n"
      "  %31 : bool = prim::Constant[value=1]() # /tmp/ts.py:14:8\n"
      "  %8 : NoneType = prim::Constant()\n"
      "  %14 : int = prim::Constant[value=1]() # /tmp/ts.py:11:20\n"
      "  %19 : float = prim::Constant[value=2.5]() # /tmp/ts.py:13:20\n"
      "  %e.1 : float = prim::Constant[value=1.0000000000000001e-05]() # /tmp/ts.py:19:12\n"
      "  %conv : __torch__.torch.nn.modules.conv.Conv2d = prim::GetAttr[name=\"conv\"](%self)\n"
      "  %6 : Tensor = prim::CallMethod[name=\"forward\"](%conv, %x.1) # /tmp/ts.py:9:12\n"
      "  %w : Tensor = prim::GetAttr[name=\"w\"](%self)\n"
      "  %9 : Tensor = aten::sum(%w, %8) # /tmp/ts.py:9:27\n"
      "  %y.1 : Tensor = aten::mul(%6, %9) # /tmp/ts.py:9:12\n"
      "  %y.37 : Tensor = prim::If(%flag.1) # /tmp/ts.py:10:8\n"
      "    block0():\n"
      "      %y.5 : Tensor = aten::add(%y.1, %14, %14) # /tmp/ts.py:11:16\n"
      "      -> (%y.5)\n"
      "    block1():\n"
      "      %y.11 : Tensor = aten::sub(%y.1, %19, %14) # /tmp/ts.py:13:16\n"
      "      -> (%y.11)\n"
      "  %y : Tensor = prim::Loop(%n.1, %31, %y.37) # /tmp/ts.py:14:8\n"
      "    block0(%i.1 : int, %y.39 : Tensor):\n"
      "      %y.27 : Tensor = aten::mul(%y.39, %i.1) # /tmp/ts.py:15:16\n"
      "      -> (%31, %y.27)\n"
      "  %l.1 : int[] = prim::ListConstruct(%14, %14, %n.1)\n"
      "  %d.1 : Dict(str, int) = prim::DictConstruct(%45, %n.1)\n"
      "  %54 : Tensor, %55 : Tensor = aten::max(%y, %14, %53) # /tmp/ts.py:23:12\n"
      "  %84 : (Tensor, int[], str, float, Dict(str, int), int?, Tensor, float, float, int, bool, float) = "
      "prim::TupleConstruct(%y, %l.1, %s.1, %e.1, %d.1, %8, %54, %102, %103, %77, %31, %81)\n"
      "  return (%84)\n";
  auto g = parse_ir(scripted);
  verify(*g);
  EXPECT_EQ(parse_ir(g->str())->str(), g->str());
  EXPECT_NE(g->str().find("  %e.1 : float = prim::Constant[value=1e-05]()\n"), std::string::npos);
  EXPECT_NE(g->str().find("  %s.1 : str = prim::Constant[value=\"a\\\"b\\n\\\\c\\t\"]()\n"), std::string::npos);

  const char* traced =
      "graph(%self.1 : __torch__.torch.nn.modules.container.___torch_mangle_4.Sequential,\n"
      "      %input.1 : Float(1, 1, 5, 5, strides=[25, 25, 5, 1], requires_grad=0, device=cpu)):\n"
      "  %9 : int = prim::Constant[value=1](), scope: __module.0 # "
      "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py:459:0\n"
      "  %self.0.weight : Float(2, 1, 3, 3, strides=[9, 9, 3, 1], requires_grad=0, device=cpu) = "
      "prim::Constant[value=<Tensor>]()\n"
      "  %b : Float(requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()\n"
      "  %17 : Tensor = aten::relu(%input.1), scope: __module.1 # "
      "/usr/lib/python3/dist-packages/torch/nn/functional.py:1457:0\n"
      "  return (%17)\n";
  auto t = parse_ir(traced);
  EXPECT_EQ(t->str(),
            "graph(%self.1 : __torch__.torch.nn.modules.container.___torch_mangle_4.Sequential,\n"
            "      %input.1 : Float(1, 1, 5, 5)):\n"
            "  %9 : int = prim::Constant[value=1]()\n"
            "  %self.0.weight : Float(2, 1, 3, 3) = prim::Constant[value=<Tensor>]()\n"
            "  %b : Float = prim::Constant[value=<Tensor>]()\n"
            "  %17 : Tensor = aten::relu(%input.1)\n"
            "  return (%17)\n");
  Error e = ember::testing::expect_error([] { parse_ir("graph(%x : Float(2, layout=strided)):\n  return ()\n"); });
  EXPECT_TRUE(ember::testing::contains(e.what(), "line 1, column 21: unknown tensor type keyword 'layout'"));
}

}  // namespace

namespace {

using namespace ember;
using namespace ember::jit;

// Every truncation and every single-character deletion of a valid text either parses (and then verifies or
// raises a verifier error) or raises a parse error: never a crash, never another exception type.
TEST(JitParser, DamagedTextRaisesErrorsOnly) {
  const std::string text =
      "graph(%self : __torch__.Net,\n"
      "      %x.1 : Float(2, *),\n"
      "      %n : int,\n"
      "      %c : bool):\n"
      "  %w : Tensor = prim::GetAttr[name=\"w\"](%self)\n"
      "  %5 : int = prim::Constant[value=1]()\n"
      "  %6 : float[] = prim::Constant[value=[1.5, -inf]]()\n"
      "  %s : str = prim::Constant[value=\"a\\\"b\\x01\"]()\n"
      "  %y : Tensor = prim::If(%c)\n"
      "    block0():\n"
      "      %9 : Tensor = aten::add(%x.1, %w, %5)\n"
      "      -> (%9)\n"
      "    block1():\n"
      "      -> (%x.1)\n"
      "  %t : bool = prim::Constant[value=1]()\n"
      "  %z : Tensor = prim::Loop(%n, %t, %y)\n"
      "    block0(%i : int, %z.1 : Tensor):\n"
      "      %13 : Tensor = aten::mul(%z.1, %i)\n"
      "      -> (%t, %13)\n"
      "  %l : int[] = prim::ListConstruct(%5, %n)\n"
      "  %tup : (Tensor, int[]) = prim::TupleConstruct(%z, %l)\n"
      "  %a : Tensor, %b : int[] = prim::TupleUnpack(%tup)\n"
      "  return (%a, %b, %s, %6)\n";
  verify(*parse_ir(text));
  size_t parsed = 0, verified = 0;
  auto attempt = [&](const std::string& t) {
    std::shared_ptr<Graph> g;
    try {
      g = parse_ir(t);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("IR parse error at line "), std::string::npos) << e.what();
      return;
    }
    ++parsed;
    EXPECT_EQ(parse_ir(g->str())->str(), g->str());
    try {
      verify(*g);
      ++verified;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("verify: ", 0), 0u) << e.what();
    }
  };
  for (size_t n = 0; n < text.size(); ++n) attempt(text.substr(0, n));
  for (size_t i = 0; i < text.size(); ++i) attempt(text.substr(0, i) + text.substr(i + 1));
  // Some damaged texts still parse (a deleted digit renames a value, a deleted newline changes nothing), and
  // some of those are rejected by the verifier only.
  EXPECT_GT(parsed, 10u);
  EXPECT_GT(parsed, verified);
}

}  // namespace
