// The graph passes (ember/jit/passes/Passes.h): for each pass, IR text in -> expected IR text out, and the
// optimised graph run by the interpreter against the original on the same inputs.
#include <gtest/gtest.h>

#include <functional>

#include "TestModules.h"
#include "TestSupport.h"
#include "ember/jit/ir/IR.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/ir/Verifier.h"
#include "ember/jit/passes/Passes.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/ops/Functions.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;

using Pass = std::function<bool(std::shared_ptr<Graph>&)>;

// `pass` and then dead-code elimination, both always run; changed when either changed the graph.
Pass then_dce(bool (*pass)(std::shared_ptr<Graph>&)) {
  return [pass](std::shared_ptr<Graph>& g) {
    bool changed = pass(g);
    return eliminate_dead_code(g) || changed;
  };
}

std::shared_ptr<Graph> parse(std::string_view text, const std::vector<Tensor>* table = nullptr) {
  ParseOptions o;
  o.tensor_table = table;
  return parse_ir(text, o);
}

// The canonical text of `want` (parsed and printed, so its spacing need not match the printer's).
std::string canonical(std::string_view want) { return parse(want)->str(); }

double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0) return 0;
  return max(abs(sub(to(a, DType::Float64), to(b, DType::Float64)))).item<double>();
}

// Compares two results: tensors equal (or within tol), other values by repr.
void expect_same_value(const IValue& a, const IValue& b, double tol) {
  ASSERT_EQ(a.tag(), b.tag()) << a.repr() << " vs " << b.repr();
  if (a.is_tensor()) {
    const Tensor &x = a.to_tensor(), &y = b.to_tensor();
    ASSERT_EQ(x.sizes().vec(), y.sizes().vec());
    ASSERT_EQ(x.dtype(), y.dtype());
    if (tol == 0) EXPECT_TRUE(equal(x, y));
    else EXPECT_LE(max_abs_diff(x, y), tol);
  } else if (a.is_tuple()) {
    ASSERT_EQ(a.to_tuple().size(), b.to_tuple().size());
    for (size_t i = 0; i < a.to_tuple().size(); ++i) expect_same_value(a.to_tuple()[i], b.to_tuple()[i], tol);
  } else {
    EXPECT_EQ(a.repr(), b.repr());
  }
}

// Runs `pass` on the graph of `in`, expects the verifier to accept the result, its text to be `want`'s, and
// the pass to report `changed`. With inputs, runs the original and the optimised graph and compares.
void check_pass(const Pass& pass, std::string_view in, std::string_view want, bool changed,
                const std::vector<std::vector<IValue>>& inputs = {}, const std::vector<Tensor>* table = nullptr,
                double tol = 0) {
  std::shared_ptr<Graph> original = parse(in, table);
  std::shared_ptr<Graph> g = original->copy();
  EXPECT_EQ(pass(g), changed);
  verify(*g);
  EXPECT_EQ(g->str(), canonical(want));
  if (inputs.empty()) return;
  Function before("before", original), after("after", g);
  for (const std::vector<IValue>& in_values : inputs) expect_same_value(before(in_values), after(in_values), tol);
}

// A pass that leaves the graph as it is (and says so).
void check_noop(const Pass& pass, std::string_view in, const std::vector<Tensor>* table = nullptr) {
  std::shared_ptr<Graph> g = parse(in, table);
  std::string before = g->str();
  EXPECT_FALSE(pass(g));
  EXPECT_EQ(g->str(), before);
}

int count_kind(const Graph& g, std::string_view kind) {
  int n = 0;
  std::function<void(const Block*)> walk = [&](const Block* b) {
    for (const Node* node : b->nodes()) {
      if (node->kind().qual_string() == kind) ++n;
      for (const Block* sub : node->blocks()) walk(sub);
    }
  };
  walk(g.block());
  return n;
}

const Pass dce = eliminate_dead_code;
const Pass cse = eliminate_common_subexpression;
const Pass constprop = propagate_constants;
const Pass peephole = peephole_optimize;

std::vector<std::vector<IValue>> tensors(std::vector<std::vector<int64_t>> shapes, int sets = 2) {
  std::vector<std::vector<IValue>> r;
  for (int s = 0; s < sets; ++s) {
    std::vector<IValue> in;
    for (const auto& shape : shapes) in.emplace_back(randn(shape));
    r.push_back(std::move(in));
  }
  return r;
}

// ------------------------------------------------------------------------------------------------- DCE

TEST(DeadCode, RemovesUnusedChains) {
  check_pass(dce, R"IR(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::add(%a, %x, %one)
  %c : Tensor = aten::neg(%x)
  return (%c)
)IR", R"IR(graph(%x : Tensor):
  %c : Tensor = aten::neg(%x)
  return (%c)
)IR", true, tensors({{3, 4}}));
}

TEST(DeadCode, KeepsSideEffectsAndRandomDraws) {
  // add_ writes %x (its result is unused); rand draws from the global generator; dropout in training draws.
  // Eval-mode dropout (train=False) is the identity and goes.
  const char* g = R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %p : float = prim::Constant[value=0.5]()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %sizes : int[] = prim::Constant[value=[2, 3]]()
  %none : NoneType = prim::Constant()
  %w : Tensor = aten::add_(%x, %y, %one)
  %r : Tensor = aten::rand(%sizes, %none, %none)
  %d : Tensor = aten::dropout(%y, %p, %t)
  %e : Tensor = aten::dropout(%y, %p, %f)
  return (%x)
)IR";
  check_pass(dce, g, R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %p : float = prim::Constant[value=0.5]()
  %t : bool = prim::Constant[value=1]()
  %sizes : int[] = prim::Constant[value=[2, 3]]()
  %none : NoneType = prim::Constant()
  %w : Tensor = aten::add_(%x, %y, %one)
  %r : Tensor = aten::rand(%sizes, %none, %none)
  %d : Tensor = aten::dropout(%y, %p, %t)
  return (%x)
)IR", true);
}

TEST(DeadCode, IfOutputsAndBranches) {
  // Output %u of the If is unused: it goes from both branches, then the nodes that only fed it.
  check_pass(dce, R"IR(graph(%x : Tensor, %c : bool):
  %v : Tensor, %u : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::relu(%x)
      %b : Tensor = aten::neg(%x)
      -> (%a, %b)
    block1():
      %s : Tensor = aten::sigmoid(%x)
      -> (%x, %s)
  return (%v)
)IR", R"IR(graph(%x : Tensor, %c : bool):
  %v : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::relu(%x)
      -> (%a)
    block1():
      -> (%x)
  return (%v)
)IR", true, {{randn({3}), IValue(true)}, {randn({3}), IValue(false)}});
}

TEST(DeadCode, UnusedIfGoesUnlessItHasEffects) {
  // The first If goes; the second raises in one branch, so it stays (without its unused output).
  check_pass(dce, R"IR(graph(%x : Tensor, %c : bool):
  %v : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::relu(%x)
      -> (%a)
    block1():
      -> (%x)
  %w : Tensor = prim::If(%c)
    block0():
      %msg : str = prim::Constant[value="boom"]()
       = prim::RaiseException(%msg)
      -> (%x)
    block1():
      -> (%x)
  return (%x)
)IR", R"IR(graph(%x : Tensor, %c : bool):
   = prim::If(%c)
    block0():
      %msg : str = prim::Constant[value="boom"]()
       = prim::RaiseException(%msg)
      -> ()
    block1():
      -> ()
  return (%x)
)IR", true);
}

TEST(DeadCode, LoopCarriedValues) {
  // %acc2 is carried but read neither after the loop nor in the body (its update reads %x only), so it goes
  // with its update; %acc stays.
  check_pass(dce, R"IR(graph(%x : Tensor):
  %n : int = prim::Constant[value=3]()
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %acc : Tensor, %acc2 : Tensor = prim::Loop(%n, %t, %x, %x)
    block0(%i : int, %a : Tensor, %a2 : Tensor):
      %next : Tensor = aten::add(%a, %x, %one)
      %next2 : Tensor = aten::mul(%x, %x)
      -> (%t, %next, %next2)
  return (%acc)
)IR", R"IR(graph(%x : Tensor):
  %n : int = prim::Constant[value=3]()
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %acc : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %a : Tensor):
      %next : Tensor = aten::add(%a, %x, %one)
      -> (%t, %next)
  return (%acc)
)IR", true, tensors({{2, 3}}));
}

TEST(DeadCode, NothingToDo) {
  check_noop(dce, R"IR(graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %v : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::add(%x, %x, %one)
      -> (%a)
    block1():
      -> (%x)
  return (%v, %x)
)IR");
}

// ------------------------------------------------------------------------------------------------- CSE

TEST(CommonSubexpression, MergesEqualNodes) {
  check_pass(cse, R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %one.1 : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::add(%x, %y, %one.1)
  %c : Tensor = aten::mul(%a, %b)
  %d : Tensor = aten::add(%y, %x, %one)
  return (%c, %d)
)IR", R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  %c : Tensor = aten::mul(%a, %a)
  %d : Tensor = aten::add(%y, %x, %one)
  return (%c, %d)
)IR", true, tensors({{2, 3}, {2, 3}}));
}

TEST(CommonSubexpression, AttributesAndTypesMustMatch) {
  // 1 and 2 differ; int 1 and bool True share an attribute value but not a type; 0. and -0. differ.
  check_noop(cse, R"IR(graph(%x : Tensor):
  %a : int = prim::Constant[value=1]()
  %b : int = prim::Constant[value=2]()
  %c : bool = prim::Constant[value=1]()
  %d : float = prim::Constant[value=0.]()
  %e : float = prim::Constant[value=-0.]()
  return (%a, %b, %c, %d, %e)
)IR");
}

TEST(CommonSubexpression, RespectsBlockScopes) {
  // Inside a branch, a node equal to one before the If is replaced by it; equal nodes of sibling branches
  // stay, and so does one after the If equal to a node inside a branch.
  check_pass(cse, R"IR(graph(%x : Tensor, %c : bool):
  %r : Tensor = aten::relu(%x)
  %v : Tensor = prim::If(%c)
    block0():
      %r2 : Tensor = aten::relu(%x)
      %s : Tensor = aten::sigmoid(%r2)
      -> (%s)
    block1():
      %s2 : Tensor = aten::sigmoid(%r)
      %n2 : Tensor = aten::neg(%x)
      -> (%s2)
  %n : Tensor = aten::neg(%x)
  %m : Tensor = aten::mul(%v, %n)
  return (%m)
)IR", R"IR(graph(%x : Tensor, %c : bool):
  %r : Tensor = aten::relu(%x)
  %v : Tensor = prim::If(%c)
    block0():
      %s : Tensor = aten::sigmoid(%r)
      -> (%s)
    block1():
      %s2 : Tensor = aten::sigmoid(%r)
      %n2 : Tensor = aten::neg(%x)
      -> (%s2)
  %n : Tensor = aten::neg(%x)
  %m : Tensor = aten::mul(%v, %n)
  return (%m)
)IR", true, {{randn({4}), IValue(true)}, {randn({4}), IValue(false)}});
}

TEST(CommonSubexpression, KeepsRandomAndWrittenValues) {
  // Two draws are two values. %x is written by add_, so the relu before and the relu after it differ.
  check_noop(cse, R"IR(graph(%x : Tensor):
  %sizes : int[] = prim::Constant[value=[2]]()
  %none : NoneType = prim::Constant()
  %r1 : Tensor = aten::rand(%sizes, %none, %none)
  %r2 : Tensor = aten::rand(%sizes, %none, %none)
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %w : Tensor = aten::add_(%x, %r1, %one)
  %b : Tensor = aten::relu(%x)
  return (%r1, %r2, %a, %b)
)IR");
  // The same with the write through a view of %x.
  std::shared_ptr<Graph> g = parse(R"IR(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %flat : int[] = prim::Constant[value=[-1]]()
  %v : Tensor = aten::view(%x, %flat)
  %w : Tensor = aten::add_(%v, %v, %one)
  %b : Tensor = aten::relu(%x)
  return (%a, %b)
)IR");
  EXPECT_FALSE(eliminate_common_subexpression(g));
  Function f("f", g);
  Tensor x = add(rand({2, 2}), 0.1);  // positive, so relu(x) and relu(2 x) differ everywhere
  IValue r = f({x});
  EXPECT_FALSE(equal(r.to_tuple()[0].to_tensor(), r.to_tuple()[1].to_tensor()));
}

// ------------------------------------------------------------------------------------------- constants

TEST(ConstantPropagation, FoldsOpsOnConstants) {
  std::vector<Tensor> table{randn({2, 3}), randn({3})};
  Tensor want = relu(add(table[0], table[1], 2));
  std::shared_ptr<Graph> g = parse(R"IR(graph(%x : Float(2, 3)):
  %a : Float(2, 3) = prim::Constant[value=<Tensor:0>]()
  %b : Float(3) = prim::Constant[value=<Tensor:1>]()
  %two : int = prim::Constant[value=2]()
  %s : Tensor = aten::add(%a, %b, %two)
  %r : Tensor = aten::relu(%s)
  %y : Tensor = aten::mul(%x, %r)
  return (%y)
)IR", &table);
  EXPECT_TRUE(propagate_constants(g));
  eliminate_dead_code(g);
  verify(*g);
  EXPECT_EQ(g->str(), canonical(R"IR(graph(%x : Float(2, 3)):
  %r : Float(2, 3) = prim::Constant[value=<Tensor>]()
  %y : Tensor = aten::mul(%x, %r)
  return (%y)
)IR"));
  std::optional<IValue> r = constant_value(g->outputs()[0]->node()->input(1));
  ASSERT_TRUE(r && r->is_tensor());
  EXPECT_TRUE(equal(r->to_tensor(), want));
  Tensor x = randn({2, 3});
  EXPECT_TRUE(equal(Function("f", g)({x}).to_tensor(), mul(x, want)));
}

TEST(ConstantPropagation, ListsIfAndLoop) {
  check_pass(then_dce(propagate_constants),
             R"IR(graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %dims : int[] = prim::ListConstruct(%one, %zero)
  %p : Tensor = aten::permute(%x, %dims)
  %v : Tensor = prim::If(%t)
    block0():
      %n : Tensor = aten::neg(%p)
      -> (%n)
    block1():
      -> (%p)
  %w : Tensor = prim::Loop(%zero, %t, %v)
    block0(%i : int, %a : Tensor):
      %b : Tensor = aten::mul(%a, %a)
      -> (%t, %b)
  %u : Tensor = prim::Loop(%one, %f, %w)
    block0(%j : int, %c : Tensor):
      %d : Tensor = aten::mul(%c, %c)
      -> (%t, %d)
  return (%u)
)IR", R"IR(graph(%x : Tensor):
  %dims : int[] = prim::Constant[value=[1, 0]]()
  %p : Tensor = aten::permute(%x, %dims)
  %n : Tensor = aten::neg(%p)
  return (%n)
)IR", true, tensors({{2, 3}}));
}

TEST(ConstantPropagation, InsideBlocksMultipleOutputsAndEmptyTensors) {
  // The If's condition is an input, so the If stays; inside its branch, a two-output op (max.dim) and an op on
  // an empty tensor fold.
  std::vector<Tensor> table{randn({2, 3}), randn({0, 3})};
  check_pass(then_dce(propagate_constants),
             R"IR(graph(%x : Tensor, %c : bool):
  %a : Float(2, 3) = prim::Constant[value=<Tensor:0>]()
  %e : Float(0, 3) = prim::Constant[value=<Tensor:1>]()
  %one : int = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %v : Tensor = prim::If(%c)
    block0():
      %m : Tensor, %i : Tensor = aten::max(%a, %one, %f)
      %n : Tensor = aten::neg(%e)
      %s : Tensor = aten::sum(%n, %none)
      %y : Tensor = aten::add(%x, %m, %one)
      %z : Tensor = aten::add(%y, %s, %one)
      -> (%z)
    block1():
      -> (%x)
  return (%v)
)IR", R"IR(graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %v : Tensor = prim::If(%c)
    block0():
      %m : Float(2) = prim::Constant[value=<Tensor>]()
      %s : Float() = prim::Constant[value=<Tensor>]()
      %y : Tensor = aten::add(%x, %m, %one)
      %z : Tensor = aten::add(%y, %s, %one)
      -> (%z)
    block1():
      -> (%x)
  return (%v)
)IR", true, {{randn({2}), IValue(true)}, {randn({2}), IValue(false)}}, &table);
}

TEST(ConstantPropagation, LeavesRandomWrittenFailingAndInputDependentNodes) {
  std::vector<Tensor> table{randn({2}), randn({3})};
  check_noop(constprop, R"IR(graph(%x : Tensor):
  %a : Float(2) = prim::Constant[value=<Tensor:0>]()
  %b : Float(3) = prim::Constant[value=<Tensor:1>]()
  %one : int = prim::Constant[value=1]()
  %sizes : int[] = prim::Constant[value=[2]]()
  %none : NoneType = prim::Constant()
  %r : Tensor = aten::rand(%sizes, %none, %none)
  %bad : Tensor = aten::add(%a, %b, %one)
  %n : Tensor = aten::neg(%a)
  %w : Tensor = aten::add_(%a, %x, %one)
  %y : Tensor = aten::add(%x, %a, %one)
  return (%r, %bad, %n, %y)
)IR", &table);
}

TEST(ConstantPropagation, NothingToDo) {
  check_noop(constprop, R"IR(graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %v : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::add(%x, %x, %one)
      -> (%a)
    block1():
      -> (%x)
  return (%v)
)IR");
}

// -------------------------------------------------------------------------------------------- peephole

TEST(Peephole, TuplesAndLists) {
  check_pass(then_dce(peephole_optimize),
             R"IR(graph(%x : Tensor, %y : Tensor):
  %t : (Tensor, Tensor) = prim::TupleConstruct(%x, %y)
  %a : Tensor, %b : Tensor = prim::TupleUnpack(%t)
  %m1 : int = prim::Constant[value=-1]()
  %c : Tensor = prim::TupleIndex(%t, %m1)
  %l : Tensor[] = prim::ListConstruct(%x, %c)
  %d : Tensor, %e : Tensor = prim::ListUnpack(%l)
  %s : Tensor = aten::mul(%b, %d)
  %u : Tensor = aten::mul(%e, %a)
  return (%s, %u)
)IR", R"IR(graph(%x : Tensor, %y : Tensor):
  %s : Tensor = aten::mul(%y, %x)
  %u : Tensor = aten::mul(%y, %x)
  return (%s, %u)
)IR", true, tensors({{3}, {3}}));
}

TEST(Peephole, ArithmeticIdentitiesOnlyWhereExact) {
  check_pass(then_dce(peephole_optimize),
             R"IR(graph(%x : Float(2, 3), %i : Long(2), %u : Tensor, %bl : Bool(2)):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %onef : float = prim::Constant[value=1.]()
  %zerof : float = prim::Constant[value=0.]()
  %p : float = prim::Constant[value=0.5]()
  %f : bool = prim::Constant[value=0]()
  %a : Tensor = aten::mul(%x, %one)
  %b : Tensor = aten::div(%a, %onef)
  %c : Tensor = aten::sub(%x, %zerof, %one)
  %d : Tensor = aten::add(%x, %zero, %one)
  %e : Tensor = aten::add(%i, %zero, %one)
  %g : Tensor = aten::mul(%i, %onef)
  %h : Tensor = aten::div(%i, %one)
  %k : Tensor = aten::mul(%u, %one)
  %m : Tensor = aten::mul(%bl, %one)
  %n : Tensor = aten::dropout(%b, %p, %f)
  return (%n, %c, %d, %e, %g, %h, %k, %m)
)IR", R"IR(graph(%x : Float(2, 3), %i : Long(2), %u : Tensor, %bl : Bool(2)):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %onef : float = prim::Constant[value=1.]()
  %d : Tensor = aten::add(%x, %zero, %one)
  %g : Tensor = aten::mul(%i, %onef)
  %h : Tensor = aten::div(%i, %one)
  %k : Tensor = aten::mul(%u, %one)
  %m : Tensor = aten::mul(%bl, %one)
  return (%x, %x, %d, %i, %g, %h, %k, %m)
)IR", true, {{randn({2, 3}), randint(10, {2}), randn({2}), gt(randn({2}), 0.0)}});
}

TEST(Peephole, KeepsIdentitiesOnWrittenTensors) {
  // y = x * 1 followed by y.add_(...) must not turn into x.add_(...).
  check_noop(peephole, R"IR(graph(%x : Float(2)):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %one)
  %w : Tensor = aten::add_(%y, %y, %one)
  return (%x, %y)
)IR");
}

// -------------------------------------------------------------------------------------------- modules

struct BnNet {
  Module net{"__torch__.BnNet"};
  Module conv{"__torch__.Conv"};
  Module bn{"__torch__.Bn"};
  Tensor cw = randn({4, 2, 3, 3}), cb = randn({4});

  explicit BnNet(bool conv_bias = true) {
    conv.register_parameter("weight", cw);
    if (conv_bias) conv.register_parameter("bias", cb);
    conv.define_method("forward", conv_bias ? R"IR(graph(%self : __torch__.Conv, %x : Tensor):
  %w : Tensor = prim::GetAttr[name="weight"](%self)
  %b : Tensor = prim::GetAttr[name="bias"](%self)
  %l : int[] = prim::Constant[value=[1, 1]]()
  %g : int = prim::Constant[value=1]()
  %y : Tensor = aten::conv2d(%x, %w, %b, %l, %l, %l, %g)
  return (%y)
)IR" : R"IR(graph(%self : __torch__.Conv, %x : Tensor):
  %w : Tensor = prim::GetAttr[name="weight"](%self)
  %b : NoneType = prim::Constant()
  %l : int[] = prim::Constant[value=[1, 1]]()
  %g : int = prim::Constant[value=1]()
  %y : Tensor = aten::conv2d(%x, %w, %b, %l, %l, %l, %g)
  return (%y)
)IR");
    bn.register_parameter("weight", add(rand({4}), 0.5));
    bn.register_parameter("bias", randn({4}));
    bn.register_buffer("running_mean", randn({4}));
    bn.register_buffer("running_var", add(rand({4}), 0.5));
    bn.define_method("forward", R"IR(graph(%self : __torch__.Bn, %x : Tensor):
  %w : Tensor = prim::GetAttr[name="weight"](%self)
  %b : Tensor = prim::GetAttr[name="bias"](%self)
  %m : Tensor = prim::GetAttr[name="running_mean"](%self)
  %v : Tensor = prim::GetAttr[name="running_var"](%self)
  %t : bool = prim::GetAttr[name="training"](%self)
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %cudnn : bool = prim::Constant[value=1]()
  %y : Tensor = aten::batch_norm(%x, %w, %b, %m, %v, %t, %mom, %eps, %cudnn)
  return (%y)
)IR");
    net.register_module("conv", conv);
    net.register_module("bn", bn);
    net.define_method("forward", R"IR(graph(%self : __torch__.BnNet, %x : Float(2, 2, 5, 5)):
  %conv : __torch__.Conv = prim::GetAttr[name="conv"](%self)
  %bn : __torch__.Bn = prim::GetAttr[name="bn"](%self)
  %c : Float(2, 4, 5, 5) = prim::CallMethod[name="forward"](%conv, %x)
  %n : Tensor = prim::CallMethod[name="forward"](%bn, %c)
  %r : Tensor = aten::relu(%n)
  return (%r)
)IR");
  }
};

TEST(Inline, SubmoduleCallsBecomeGetAttrChains) {
  Module sub("__torch__.Sub");
  sub.register_parameter("weight", randn({3}));
  sub.define_method("forward", R"IR(graph(%self : __torch__.Sub, %x : Tensor):
  %sw : Tensor = prim::GetAttr[name="weight"](%self)
  %sy : Tensor = aten::mul(%x, %sw)
  return (%sy)
)IR");
  Module top("__torch__.Top");
  top.register_module("sub", sub);
  top.define_method("forward", R"IR(graph(%self : __torch__.Top, %x : Tensor):
  %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
  %y : Tensor = prim::CallMethod[name="forward"](%sub, %x)
  %z : Tensor = prim::CallMethod[name="forward"](%sub, %y)
  return (%z)
)IR");
  std::shared_ptr<Graph> g = top.method("forward").graph->copy();
  EXPECT_TRUE(inline_method_calls(g, top));
  verify(*g);
  // The second copy's names are taken by the first copy's values, so it gets numbers.
  std::string text = g->str();
  EXPECT_EQ(count_kind(*g, "prim::CallMethod"), 0) << text;
  EXPECT_TRUE(contains(text, "%sw : Tensor = prim::GetAttr[name=\"weight\"](%sub)"));
  EXPECT_TRUE(contains(text, "%sy : Tensor = aten::mul(%x, %sw)"));
  EXPECT_EQ(count_kind(*g, "aten::mul"), 2);
  top.define_method("inlined", g);
  Tensor x = randn({3});
  EXPECT_TRUE(equal(top.run_method("inlined", {x}).to_tensor(), top.forward({x}).to_tensor()));
  // Nothing left to inline.
  EXPECT_FALSE(inline_method_calls(g, top));
}

TEST(Inline, NestedCallsAndErrors) {
  BnNet m;
  std::shared_ptr<Graph> g = m.net.method("forward").graph->copy();
  EXPECT_TRUE(inline_method_calls(g, m.net));
  verify(*g);
  EXPECT_EQ(count_kind(*g, "prim::CallMethod"), 0);
  m.net.define_method("inlined", g);
  Tensor x = randn({2, 2, 5, 5});
  for (bool training : {true, false}) {
    m.net.train(training);
    expect_same_value(m.net.run_method("inlined", {x}), m.net.forward({x}), 0);
  }
  // A call on an object that is not a submodule of self.
  Module other("__torch__.Other");
  std::shared_ptr<Graph> bad = m.net.method("forward").graph->copy();
  Error e = expect_error([&] { inline_method_calls(bad, other); });
  EXPECT_TRUE(contains(e.what(), "no method 'forward'") || contains(e.what(), "not a submodule"));
}

TEST(Freeze, ParametersBecomeConstants) {
  BnNet m;
  Error e = expect_error([&] { freeze(m.net); });
  EXPECT_TRUE(contains(e.what(), "training mode"));
  EXPECT_TRUE(contains(e.what(), "eval()"));
  m.net.eval();
  FreezeOptions plain;
  plain.optimize = false;
  Module frozen = freeze(m.net, plain);
  const Graph& g = *frozen.method("forward").graph;
  EXPECT_EQ(count_kind(g, "prim::GetAttr"), 0) << g.str();
  EXPECT_EQ(count_kind(g, "prim::CallMethod"), 0);
  EXPECT_EQ(count_kind(g, "aten::batch_norm"), 1);
  EXPECT_TRUE(frozen.named_parameters().empty());
  EXPECT_FALSE(frozen.is_training());
  Tensor x = randn({2, 2, 5, 5});
  expect_same_value(frozen.forward({x}), m.net.forward({x}), 0);
  // The frozen module holds copies: changing the original's parameters (replaced, or written in place as an
  // optimizer does) leaves it as it was.
  Tensor before = frozen.forward({x}).to_tensor();
  zero_(m.bn.attr("weight").to_tensor());
  m.conv.set_attr("weight", IValue(zeros({4, 2, 3, 3}, std::nullopt, std::nullopt)));
  EXPECT_TRUE(equal(frozen.forward({x}).to_tensor(), before));
  EXPECT_FALSE(equal(frozen.forward({x}).to_tensor(), m.net.forward({x}).to_tensor()));
  expect_error([&] {
    FreezeOptions o;
    o.preserved_methods = {"nope"};
    freeze(m.net, o);
  });
}

// Note [preserved attributes]: named attributes stay GetAttr reads of the original's tensors.
TEST(Freeze, PreservedAttributesStayAttributes) {
  BnNet m;
  m.net.eval();
  FreezeOptions o;
  o.preserved_attrs = {"bn.running_mean", "conv.weight"};
  Module frozen = freeze(m.net, o);
  const Graph& g = *frozen.method("forward").graph;
  std::string text = g.str();
  EXPECT_TRUE(contains(text, "prim::GetAttr[name=\"running_mean\"]")) << text;
  EXPECT_TRUE(contains(text, "prim::GetAttr[name=\"weight\"]")) << text;
  EXPECT_FALSE(contains(text, "prim::GetAttr[name=\"running_var\"]")) << text;  // not preserved: a constant
  EXPECT_EQ(count_kind(g, "aten::batch_norm"), 1);  // no folding into a convolution whose weight may change
  Tensor x = randn({2, 2, 5, 5});
  expect_same_value(frozen.forward({x}), m.net.forward({x}), 1e-5);
  // Changing a preserved tensor in place changes both modules alike.
  zero_(m.conv.attr("weight").to_tensor());
  expect_same_value(frozen.forward({x}), m.net.forward({x}), 1e-5);

  for (const char* bad : {"nope", "conv.nope", "nope.weight", "conv"}) {
    FreezeOptions b;
    b.preserved_attrs = {bad};
    Error e = expect_error([&] { freeze(m.net, b); });
    EXPECT_TRUE(contains(e.what(), bad)) << e.what();
  }
}

TEST(Freeze, TrainingFlagFoldsTheIf) {
  jittest::Net m;
  m.net.eval();
  Module frozen = freeze(m.net);
  const Graph& g = *frozen.method("forward").graph;
  EXPECT_EQ(count_kind(g, "prim::If"), 0) << g.str();
  EXPECT_EQ(count_kind(g, "aten::neg"), 0);
  EXPECT_EQ(count_kind(g, "prim::GetAttr"), 0);
  Tensor x = randn({2, 1, 8, 8});
  expect_same_value(frozen.forward({x}), IValue(m.reference(x, false)), 0);
}

TEST(Freeze, FoldsConvBatchNorm) {
  for (bool bias : {true, false}) {
    BnNet m(bias);
    m.net.eval();
    Module frozen = freeze(m.net);
    const Graph& g = *frozen.method("forward").graph;
    EXPECT_EQ(count_kind(g, "aten::batch_norm"), 0) << g.str();
    EXPECT_EQ(count_kind(g, "aten::conv2d"), 1);
    for (int i = 0; i < 3; ++i) {
      Tensor x = randn({2, 2, 5, 5});
      expect_same_value(frozen.forward({x}), m.net.forward({x}), 1e-4);
    }
  }
}

TEST(Freeze, WrittenBufferStaysAttribute) {
  Module m("__torch__.Counter");
  m.register_buffer("count", zeros({1}, std::nullopt, std::nullopt));
  m.register_parameter("scale", randn({1}));
  m.define_method("forward", R"IR(graph(%self : __torch__.Counter, %x : Tensor):
  %c : Tensor = prim::GetAttr[name="count"](%self)
  %s : Tensor = prim::GetAttr[name="scale"](%self)
  %one : int = prim::Constant[value=1]()
  %w : Tensor = aten::add_(%c, %s, %one)
  %y : Tensor = aten::mul(%x, %c)
  return (%y)
)IR");
  m.eval();
  Module frozen = freeze(m);
  const Graph& g = *frozen.method("forward").graph;
  EXPECT_EQ(count_kind(g, "prim::GetAttr"), 1) << g.str();
  EXPECT_TRUE(frozen.has_attr("count"));
  EXPECT_FALSE(frozen.has_attr("scale"));
  Tensor x = randn({3});
  Tensor s = m.attr("scale").to_tensor();
  EXPECT_TRUE(equal(frozen.forward({x}).to_tensor(), mul(x, s)));
  EXPECT_TRUE(equal(frozen.forward({x}).to_tensor(), mul(x, mul(s, 2.0))));
}

TEST(FoldBatchNorm, LinearBatchNorm1dAndRankChecks) {
  std::vector<Tensor> table{randn({5, 3}), randn({5}), add(rand({5}), 0.5), randn({5}), randn({5}),
                            add(rand({5}), 0.5)};
  const char* text = R"IR(graph(%x : Float(4, 3)):
  %w : Float(5, 3) = prim::Constant[value=<Tensor:0>]()
  %b : Float(5) = prim::Constant[value=<Tensor:1>]()
  %gamma : Float(5) = prim::Constant[value=<Tensor:2>]()
  %beta : Float(5) = prim::Constant[value=<Tensor:3>]()
  %mean : Float(5) = prim::Constant[value=<Tensor:4>]()
  %var : Float(5) = prim::Constant[value=<Tensor:5>]()
  %f : bool = prim::Constant[value=0]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Float(4, 5) = aten::linear(%x, %w, %b)
  %z : Tensor = aten::batch_norm(%y, %gamma, %beta, %mean, %var, %f, %mom, %eps, %f)
  return (%z)
)IR";
  const char* want = R"IR(graph(%x : Float(4, 3)):
  %w : Float(5, 3) = prim::Constant[value=<Tensor>]()
  %b : Float(5) = prim::Constant[value=<Tensor>]()
  %y : Float(4, 5) = aten::linear(%x, %w, %b)
  return (%y)
)IR";
  Pass fold = then_dce(fold_batch_norm);
  check_pass(fold, text, want, true, tensors({{4, 3}}, 3), &table, 1e-5);
  // float64: the folded weights stay float64.
  auto to_double = [](std::string t) {
    for (size_t at; (at = t.find("Float(")) != std::string::npos;) t.replace(at, 5, "Double");
    return t;
  };
  std::vector<Tensor> table64;
  for (const Tensor& t : table) table64.push_back(to(t, DType::Float64));
  std::vector<std::vector<IValue>> in64{{randn({4, 3}, DType::Float64)}, {randn({4, 3}, DType::Float64)}};
  check_pass(fold, to_double(text), to_double(want), true, in64, &table64, 1e-12);
  // Rank unknown (a 3-d input would put batch_norm's channels elsewhere): nothing is folded.
  std::string unknown = text;
  unknown.replace(unknown.find("%x : Float(4, 3)"), 16, "%x : Tensor");
  unknown.replace(unknown.find("%y : Float(4, 5)"), 16, "%y : Tensor");
  check_noop(fold_batch_norm, unknown, &table);
  // Training-mode batch_norm is not folded.
  std::string training = text;
  training.replace(training.find("%mean, %var, %f"), 15, "%mean, %var, %t");
  training.replace(training.find("  %mom"), 0, "  %t : bool = prim::Constant[value=1]()\n");
  check_noop(fold_batch_norm, training, &table);
}

TEST(FoldBatchNorm, ConvWithoutBiasBeforeInPlaceRelu) {
  // relu_ writes the batch norm's result in place; the conv's result, which takes its place, is as fresh.
  std::vector<Tensor> table{randn({3, 2, 3, 3}), add(rand({3}), 0.5), randn({3}), randn({3}), add(rand({3}), 0.5)};
  check_pass([](std::shared_ptr<Graph>& g) { return optimize_frozen_graph(g), true; },
             R"IR(graph(%x : Float(1, 2, 5, 5)):
  %w : Float(3, 2, 3, 3) = prim::Constant[value=<Tensor:0>]()
  %none : NoneType = prim::Constant()
  %gamma : Float(3) = prim::Constant[value=<Tensor:1>]()
  %beta : Float(3) = prim::Constant[value=<Tensor:2>]()
  %mean : Float(3) = prim::Constant[value=<Tensor:3>]()
  %var : Float(3) = prim::Constant[value=<Tensor:4>]()
  %l : int[] = prim::Constant[value=[1, 1]]()
  %z : int[] = prim::Constant[value=[0, 0]]()
  %g : int = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %c : Float(1, 3, 3, 3) = aten::conv2d(%x, %w, %none, %l, %z, %l, %g)
  %y : Float(1, 3, 3, 3) = aten::batch_norm(%c, %gamma, %beta, %mean, %var, %f, %mom, %eps, %f)
  %r : Float(1, 3, 3, 3) = aten::relu_(%y)
  return (%r)
)IR",
             R"IR(graph(%x : Float(1, 2, 5, 5)):
  %l : int[] = prim::Constant[value=[1, 1]]()
  %z : int[] = prim::Constant[value=[0, 0]]()
  %g : int = prim::Constant[value=1]()
  %w : Float(3, 2, 3, 3) = prim::Constant[value=<Tensor>]()
  %17 : Float(3) = prim::Constant[value=<Tensor>]()
  %c : Float(1, 3, 3, 3) = aten::conv2d(%x, %w, %17, %l, %z, %l, %g)
  %r : Float(1, 3, 3, 3) = aten::relu_(%c)
  return (%r)
)IR",
             true, tensors({{1, 2, 5, 5}}), &table, 1e-5);
}

TEST(Pipeline, OptimizeForInference) {
  BnNet m;
  m.net.eval();
  Module opt = optimize_for_inference(m.net);
  const Graph& g = *opt.method("forward").graph;
  EXPECT_EQ(count_kind(g, "aten::batch_norm"), 0) << g.str();
  EXPECT_EQ(count_kind(g, "prim::GetAttr"), 0);
  Tensor x = randn({2, 2, 5, 5});
  expect_same_value(opt.forward({x}), m.net.forward({x}), 1e-4);
  // The graph pipeline on a graph with nothing to do leaves it as it is.
  std::shared_ptr<Graph> plain = parse(R"IR(graph(%x : Tensor):
  %r : Tensor = aten::relu(%x)
  return (%r)
)IR");
  std::string before = plain->str();
  optimize_frozen_graph(plain);
  EXPECT_EQ(plain->str(), before);
}

}  // namespace

namespace {

// A module shaped like ember.jit.trace's output for Sequential(Conv2d, BatchNorm2d, ReLU, Flatten, Linear,
// BatchNorm1d, Dropout) in eval mode: flat prim::GetAttr chains from %self, no method calls.
struct TracedSeq {
  Module seq{"__torch__.Seq"};
  Module conv{"__torch__.Conv2d"}, bn2{"__torch__.BatchNorm2d"}, fc{"__torch__.Linear"}, bn1{"__torch__.BatchNorm1d"};

  static void add_bn(Module& bn, int64_t c) {
    bn.register_parameter("weight", add(rand({c}), 0.5));
    bn.register_parameter("bias", randn({c}));
    bn.register_buffer("running_mean", randn({c}));
    bn.register_buffer("running_var", add(rand({c}), 0.5));
  }

  TracedSeq() {
    conv.register_parameter("weight", randn({4, 1, 3, 3}));
    conv.register_parameter("bias", randn({4}));
    add_bn(bn2, 4);
    fc.register_parameter("weight", mul(randn({10, 4 * 6 * 6}), 0.1));
    fc.register_parameter("bias", randn({10}));
    add_bn(bn1, 10);
    seq.register_module("conv", conv);
    seq.register_module("bn2", bn2);
    seq.register_module("fc", fc);
    seq.register_module("bn1", bn1);
    seq.define_method("forward", R"IR(graph(%self : __torch__.Seq,
      %input : Float(2, 1, 8, 8)):
  %_0 : __torch__.Conv2d = prim::GetAttr[name="conv"](%self)
  %weight.1 : Tensor = prim::GetAttr[name="weight"](%_0)
  %bias.1 : Tensor = prim::GetAttr[name="bias"](%_0)
  %5 : int[] = prim::Constant[value=[1, 1]]()
  %6 : int[] = prim::Constant[value=[0, 0]]()
  %7 : int[] = prim::Constant[value=[1, 1]]()
  %8 : int = prim::Constant[value=1]()
  %9 : Float(2, 4, 6, 6) = aten::conv2d(%input, %weight.1, %bias.1, %5, %6, %7, %8)
  %_1 : __torch__.BatchNorm2d = prim::GetAttr[name="bn2"](%self)
  %weight.2 : Tensor = prim::GetAttr[name="weight"](%_1)
  %bias.2 : Tensor = prim::GetAttr[name="bias"](%_1)
  %running_mean.1 : Tensor = prim::GetAttr[name="running_mean"](%_1)
  %running_var.1 : Tensor = prim::GetAttr[name="running_var"](%_1)
  %15 : bool = prim::Constant[value=0]()
  %16 : float = prim::Constant[value=0.1]()
  %17 : float = prim::Constant[value=1e-05]()
  %18 : bool = prim::Constant[value=0]()
  %19 : Float(2, 4, 6, 6) = aten::batch_norm(%9, %weight.2, %bias.2, %running_mean.1, %running_var.1, %15, %16, %17, %18)
  %20 : Float(2, 4, 6, 6) = aten::relu(%19)
  %21 : int = prim::Constant[value=1]()
  %22 : int = prim::Constant[value=-1]()
  %23 : Float(2, 144) = aten::flatten(%20, %21, %22)
  %_4 : __torch__.Linear = prim::GetAttr[name="fc"](%self)
  %weight.3 : Tensor = prim::GetAttr[name="weight"](%_4)
  %bias.3 : Tensor = prim::GetAttr[name="bias"](%_4)
  %27 : Float(2, 10) = aten::linear(%23, %weight.3, %bias.3)
  %_5 : __torch__.BatchNorm1d = prim::GetAttr[name="bn1"](%self)
  %weight : Tensor = prim::GetAttr[name="weight"](%_5)
  %bias : Tensor = prim::GetAttr[name="bias"](%_5)
  %running_mean : Tensor = prim::GetAttr[name="running_mean"](%_5)
  %running_var : Tensor = prim::GetAttr[name="running_var"](%_5)
  %33 : bool = prim::Constant[value=0]()
  %34 : float = prim::Constant[value=0.1]()
  %35 : float = prim::Constant[value=1e-05]()
  %36 : bool = prim::Constant[value=0]()
  %37 : Float(2, 10) = aten::batch_norm(%27, %weight, %bias, %running_mean, %running_var, %33, %34, %35, %36)
  %38 : float = prim::Constant[value=0.5]()
  %39 : bool = prim::Constant[value=0]()
  %40 : Float(2, 10) = aten::dropout(%37, %38, %39)
  return (%40)
)IR");
  }
};

TEST(Pipeline, TracedSequentialBecomesConvReluFlattenLinear) {
  TracedSeq m;
  m.seq.eval();
  Module opt = optimize_for_inference(m.seq);
  const Graph& g = *opt.method("forward").graph;
  // Both batch norms are folded, eval-mode dropout is gone, the equal constants are one.
  EXPECT_EQ(g.str(), canonical(R"IR(graph(%self : __torch__.Seq,
      %input : Float(2, 1, 8, 8)):
  %5 : int[] = prim::Constant[value=[1, 1]]()
  %6 : int[] = prim::Constant[value=[0, 0]]()
  %8 : int = prim::Constant[value=1]()
  %weight.1 : Float(4, 1, 3, 3) = prim::Constant[value=<Tensor>]()
  %bias.1 : Float(4) = prim::Constant[value=<Tensor>]()
  %9 : Float(2, 4, 6, 6) = aten::conv2d(%input, %weight.1, %bias.1, %5, %6, %5, %8)
  %20 : Float(2, 4, 6, 6) = aten::relu(%9)
  %22 : int = prim::Constant[value=-1]()
  %23 : Float(2, 144) = aten::flatten(%20, %8, %22)
  %weight.3 : Float(10, 144) = prim::Constant[value=<Tensor>]()
  %bias.3 : Float(10) = prim::Constant[value=<Tensor>]()
  %27 : Float(2, 10) = aten::linear(%23, %weight.3, %bias.3)
  return (%27)
)IR"));
  EXPECT_TRUE(opt.named_parameters().empty());
  EXPECT_TRUE(opt.named_buffers().empty());
  for (int i = 0; i < 3; ++i) {
    Tensor x = randn({2, 1, 8, 8});
    expect_same_value(opt.forward({x}), m.seq.forward({x}), 1e-4);
  }
}

}  // namespace
