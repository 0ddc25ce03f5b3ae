// Building graphs through the API: node creation and insertion, op nodes with their matched schemas,
// constants, control-flow blocks, and the use-lists after every kind of mutation (Note [use lists]).
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.h"
#include "ember/jit/ir/Graph.h"
#include "ember/jit/ir/Verifier.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;

// Use-lists compared as sets (their order is not part of the contract).
std::vector<Use> sorted(std::vector<Use> u) {
  std::sort(u.begin(), u.end(), [](const Use& a, const Use& b) {
    return a.user != b.user ? std::less<Node*>()(a.user, b.user) : a.offset < b.offset;
  });
  return u;
}
std::vector<Use> uses(const Value* v) { return sorted(v->uses()); }
Use use(Node* n, size_t i) { return Use{n, i}; }

// x + y * 1 as a small graph: inputs %x, %y; %2 = 1; %3 = add(%x, %y, %2).
struct AddGraph {
  Graph g;
  Value* x = g.add_input("x");
  Value* y = g.add_input("y");
  Value* one = g.insert_constant(IValue(int64_t{1}));
  Node* add = g.insert_op("aten::add", {x, y, one});
  AddGraph() { g.register_output(add->output()); }
};

TEST(JitGraph, BuildPrintAndSchema) {
  AddGraph t;
  EXPECT_EQ(t.g.str(),
            "graph(%x : Tensor,\n"
            "      %y : Tensor):\n"
            "  %2 : int = prim::Constant[value=1]()\n"
            "  %3 : Tensor = aten::add(%x, %y, %2)\n"
            "  return (%3)\n");
  EXPECT_EQ(t.add->kind(), Symbol::aten("add"));
  EXPECT_EQ(t.add->kind().qual_string(), "aten::add");
  EXPECT_EQ(t.add->kind().ns(), "aten");
  EXPECT_EQ(t.add->kind().name(), "add");
  EXPECT_TRUE(t.add->is_op());
  EXPECT_EQ(t.add->schema().overload, "Tensor");  // Tensor other: add.Tensor, not add.Scalar
  EXPECT_TRUE(t.add->op().valid());
  EXPECT_EQ(t.add->str(), "%3 : Tensor = aten::add(%x, %y, %2)");
  EXPECT_EQ(t.add->owning_block(), t.g.block());
  EXPECT_EQ(t.g.outputs().size(), 1u);
  EXPECT_EQ(t.g.outputs()[0], t.add->output());
  verify(t.g);
}

TEST(JitGraph, ScalarOverloadAndMultipleResults) {
  Graph g;
  Value* x = g.add_input("x", TensorType::create(kFloat32, TensorType::Sizes{2, std::nullopt}));
  Value* two = g.insert_constant(IValue(2.5));
  Node* mul = g.insert_op("aten::mul", {x, two});
  EXPECT_EQ(mul->schema().overload, "Scalar");  // a float: mul.Scalar
  Value* dim = g.insert_constant(IValue(int64_t{1}));
  Value* keep = g.insert_constant(IValue(false));
  Node* max = g.insert_op("aten::max", {mul->output(), dim, keep});
  EXPECT_EQ(max->schema().overload, "dim");
  ASSERT_EQ(max->num_outputs(), 2u);
  EXPECT_EQ(max->output(1)->type()->str(), "Tensor");
  g.register_output(max->output(0));
  g.register_output(max->output(1));
  EXPECT_EQ(g.str(),
            "graph(%x : Float(2, *)):\n"
            "  %1 : float = prim::Constant[value=2.5]()\n"
            "  %2 : Tensor = aten::mul(%x, %1)\n"
            "  %3 : int = prim::Constant[value=1]()\n"
            "  %4 : bool = prim::Constant[value=0]()\n"
            "  %5 : Tensor, %6 : Tensor = aten::max(%2, %3, %4)\n"
            "  return (%5, %6)\n");
  verify(g);
  // An explicit overload name must accept the inputs.
  Error e = expect_error([&] { g.insert_op("aten::mul.Tensor", {x, two}); });
  EXPECT_TRUE(contains(e.what(), "mul.Tensor(Tensor self, Tensor other) -> Tensor"));
  e = expect_error([&] { g.insert_op("aten::no_such_op", {x}); });
  EXPECT_TRUE(contains(e.what(), "unknown operator aten::no_such_op"));
  EXPECT_TRUE(contains(e.what(), "library"));
  e = expect_error([&] { g.insert_op("aten::add", {x, x}); });  // alpha missing: graphs pass every argument
  EXPECT_TRUE(contains(e.what(), "no overload of aten::add accepts 2 input(s) of types (Float(2, *), Float(2, *))"));
  EXPECT_TRUE(contains(e.what(), "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"));
  verify(g);  // failed inserts leave nothing behind
}

TEST(JitGraph, InsertOpByHandle) {
  Graph g;
  Value* x = g.add_input("x");
  OperatorHandle op = Dispatcher::singleton().find_or_throw("aten::neg");
  std::vector<Value*> ins = {x};
  Node* n = g.insert_op(op, ins);
  EXPECT_EQ(n->kind(), Symbol::aten("neg"));
  EXPECT_EQ(&n->schema(), &op.schema());
  g.register_output(n->output());
  verify(g);
  ins.push_back(x);
  ins.push_back(x);
  Error e = expect_error([&] { g.insert_op(op, ins); });
  EXPECT_TRUE(contains(e.what(), "jit: insert_op: aten::neg(Tensor self) -> Tensor does not accept 3 input(s)"));
}

TEST(JitGraph, ConstantsOfEachKind) {
  Graph g;
  std::vector<IValue> vals = {IValue(),
                              IValue(true),
                              IValue(int64_t{-7}),
                              IValue(1e-05),
                              IValue(std::string("hi")),
                              IValue(Device(DeviceType::CPU)),
                              IValue(kFloat64),
                              IValue(std::vector<int64_t>{1, 2}),
                              IValue::list({IValue(1.5), IValue(2.0)}),
                              IValue::list({IValue(true), IValue(false)}),
                              IValue::list({IValue("a"), IValue("b")})};
  for (const IValue& v : vals) g.register_output(g.insert_constant(v));
  EXPECT_EQ(g.str(),
            "graph():\n"
            "  %0 : NoneType = prim::Constant()\n"
            "  %1 : bool = prim::Constant[value=1]()\n"
            "  %2 : int = prim::Constant[value=-7]()\n"
            "  %3 : float = prim::Constant[value=1e-05]()\n"
            "  %4 : str = prim::Constant[value=\"hi\"]()\n"
            "  %5 : Device = prim::Constant[value=\"cpu\"]()\n"
            "  %6 : int = prim::Constant[value=7]()\n"
            "  %7 : int[] = prim::Constant[value=[1, 2]]()\n"
            "  %8 : float[] = prim::Constant[value=[1.5, 2.]]()\n"
            "  %9 : bool[] = prim::Constant[value=[1, 0]]()\n"
            "  %10 : str[] = prim::Constant[value=[\"a\", \"b\"]]()\n"
            "  return (%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10)\n");
  verify(g);
  // constant_value reads them back.
  auto cv = [&](size_t i) { return *constant_value(g.outputs()[i]); };
  EXPECT_TRUE(cv(0).is_none());
  EXPECT_TRUE(cv(1).is_bool() && cv(1).to_bool());
  EXPECT_EQ(cv(2).to_int(), -7);
  EXPECT_EQ(cv(3).to_double(), 1e-05);
  EXPECT_EQ(cv(4).to_string(), "hi");
  EXPECT_EQ(cv(5).to_device(), Device(DeviceType::CPU));
  EXPECT_EQ(cv(6).to_int(), 7);
  EXPECT_EQ(cv(7).to_int_list().size(), 2u);
  EXPECT_EQ(cv(8).to_list()[1].to_double(), 2.0);
  EXPECT_FALSE(cv(9).to_list()[1].to_bool());
  EXPECT_EQ(cv(10).to_list()[0].to_string(), "a");
  EXPECT_FALSE(constant_value(g.add_input()).has_value());  // not a constant

  Tensor t = ember::testing::make_tensor<float>({1.f, 2.f, 3.f}, {3});
  Value* tc = g.insert_constant(IValue(t));
  EXPECT_EQ(tc->type()->str(), "Float(3)");
  EXPECT_EQ(constant_value(tc)->to_tensor().impl(), t.impl());
  // Unrepresentable values are refused without leaving a node behind.
  size_t before = g.all_nodes().size();
  Error e = expect_error([&] { g.insert_constant(IValue::tuple({IValue(1)})); });
  EXPECT_TRUE(contains(e.what(), "cannot be a constant"));
  expect_error([&] { g.insert_constant(IValue::list({})); });
  EXPECT_EQ(g.all_nodes().size(), before);
}

TEST(JitGraph, InputUseListsOnEveryMutation) {
  AddGraph t;
  Node* add = t.add;
  EXPECT_EQ(uses(t.x), std::vector<Use>{use(add, 0)});
  EXPECT_EQ(uses(t.y), std::vector<Use>{use(add, 1)});
  EXPECT_EQ(uses(t.one), std::vector<Use>{use(add, 2)});
  EXPECT_EQ(uses(add->output()), std::vector<Use>{use(t.g.return_node(), 0)});

  // replace_input returns the old value and moves the use.
  EXPECT_EQ(add->replace_input(1, t.x), t.y);
  EXPECT_EQ(uses(t.x), sorted({use(add, 0), use(add, 1)}));
  EXPECT_TRUE(uses(t.y).empty());
  verify(t.g);

  // insert_input shifts the offsets of later inputs.
  add->insert_input(0, t.y);
  EXPECT_EQ(uses(t.y), std::vector<Use>{use(add, 0)});
  EXPECT_EQ(uses(t.x), sorted({use(add, 1), use(add, 2)}));
  EXPECT_EQ(uses(t.one), std::vector<Use>{use(add, 3)});
  EXPECT_EQ(add->maybe_schema(), nullptr);  // 4 inputs: no overload of add fits any more
  {
    Error e = expect_error([&] { verify(t.g); });
    EXPECT_TRUE(contains(e.what(), "no overload of aten::add accepts these 4 input(s)"));
  }

  // remove_input shifts them back.
  add->remove_input(0);
  EXPECT_TRUE(uses(t.y).empty());
  EXPECT_EQ(uses(t.x), sorted({use(add, 0), use(add, 1)}));
  EXPECT_EQ(uses(t.one), std::vector<Use>{use(add, 2)});
  EXPECT_EQ(add->schema().overload, "Tensor");  // the cached schema follows the inputs
  verify(t.g);

  // replace_input_with replaces every occurrence.
  add->replace_input_with(t.x, t.y);
  EXPECT_TRUE(uses(t.x).empty());
  EXPECT_EQ(uses(t.y), sorted({use(add, 0), use(add, 1)}));
  verify(t.g);

  // add_input / remove_all_inputs.
  Node* list = t.g.create(prim::ListConstruct, {}, 1);
  list->add_input(t.one);
  list->add_input(t.one);
  EXPECT_EQ(uses(t.one), sorted({use(add, 2), use(list, 0), use(list, 1)}));
  list->remove_all_inputs();
  EXPECT_EQ(uses(t.one), std::vector<Use>{use(add, 2)});
  list->destroy();

  // Values of another graph are refused.
  Graph other;
  Value* foreign = other.add_input();
  Error e = expect_error([&] { add->add_input(foreign); });
  EXPECT_TRUE(contains(e.what(), "another graph"));
  expect_error([&] { add->replace_input(5, t.x); }, ErrorKind::Index);
  expect_error([&] { add->remove_input(3); }, ErrorKind::Index);
  verify(t.g);
}

TEST(JitGraph, ReplaceAllUsesWith) {
  AddGraph t;
  Node* neg = t.g.create(Symbol::aten("neg"), {t.x});
  neg->insert_before(t.add);
  EXPECT_EQ(uses(t.x), sorted({use(t.add, 0), use(neg, 0)}));
  t.x->replace_all_uses_with(neg->output());
  // Every use moved, including the new node's own input, so the graph now uses %4 before ... its definition.
  EXPECT_TRUE(uses(t.x).empty());
  EXPECT_EQ(uses(neg->output()), sorted({use(t.add, 0), use(neg, 0)}));
  Error e = expect_error([&] { verify(t.g); });
  EXPECT_TRUE(contains(e.what(), "input 0 (%4) is used before its definition"));
  EXPECT_TRUE(contains(e.what(), "in: %4 : Tensor = aten::neg(%4)"));
  neg->replace_input(0, t.x);
  verify(t.g);

  // replace_all_uses_after_node_with: only uses after the node change.
  Node* neg2 = t.g.create(Symbol::aten("neg"), {t.y});
  neg2->insert_before(t.add);
  t.y->replace_all_uses_after_node_with(neg2, neg2->output());
  EXPECT_EQ(uses(t.y), std::vector<Use>{use(neg2, 0)});
  EXPECT_EQ(uses(neg2->output()), std::vector<Use>{use(t.add, 1)});
  verify(t.g);

  // Node::replace_all_uses_with: output by output; then the old node can go.
  Node* add2 = t.g.create(Symbol::aten("add"), {neg->output(), neg2->output(), t.one});
  add2->insert_after(t.add);
  t.add->replace_all_uses_with(add2);
  EXPECT_TRUE(uses(t.add->output()).empty());
  EXPECT_EQ(t.g.outputs()[0], add2->output());
  t.add->destroy();
  verify(t.g);

  expect_error([&] { t.x->replace_all_uses_with(t.x); });
  expect_error([&] { neg->replace_all_uses_with(t.g.param_node()); });  // 1 output vs 2
}

TEST(JitGraph, DestroyNodes) {
  AddGraph t;
  size_t nodes = t.g.all_nodes().size(), values = t.g.all_values().size();
  // The constant is used by add: refused, naming both nodes.
  Error e = expect_error([&] { t.one->node()->destroy(); });
  EXPECT_TRUE(contains(e.what(), "cannot destroy %2 : int = prim::Constant[value=1]()"));
  EXPECT_TRUE(contains(e.what(), "still used by %3 : Tensor = aten::add(%x, %y, %2)"));
  EXPECT_EQ(t.g.all_nodes().size(), nodes);
  // add's output is returned: refused too; after unregistering it, add goes and releases its inputs' uses.
  expect_error([&] { t.add->destroy(); });
  t.g.erase_output(0);
  t.add->destroy();
  EXPECT_TRUE(uses(t.x).empty() && uses(t.y).empty() && uses(t.one).empty());
  EXPECT_EQ(t.g.all_nodes().size(), nodes - 1);
  EXPECT_EQ(t.g.all_values().size(), values - 1);
  t.one->node()->destroy();
  EXPECT_TRUE(t.g.nodes().empty());
  verify(t.g);
  expect_error([&] { t.g.param_node()->destroy(); });
  // Graph inputs: erasing a used one is refused.
  Node* neg = t.g.insert_op("aten::neg", {t.x});
  e = expect_error([&] { t.g.erase_input(0); });
  EXPECT_TRUE(contains(e.what(), "still used by %4 : Tensor = aten::neg(%x)"));
  neg->destroy();
  t.g.erase_input(0);
  EXPECT_EQ(t.g.inputs().size(), 1u);
  EXPECT_EQ(t.g.inputs()[0], t.y);
  EXPECT_EQ(t.y->offset(), 0u);
  verify(t.g);
}

TEST(JitGraph, Outputs) {
  Graph g;
  Value* x = g.add_input("x");
  Node* n = g.create(prim::TupleUnpack, {x}, 0);
  Value* a = n->add_output();
  Value* c = n->add_output();
  Value* b = n->insert_output(1);
  EXPECT_EQ(a->offset(), 0u);
  EXPECT_EQ(b->offset(), 1u);
  EXPECT_EQ(c->offset(), 2u);
  g.insert_node(n);
  g.register_output(c);
  n->erase_output(1);
  EXPECT_EQ(c->offset(), 1u);
  Error e = expect_error([&] { n->erase_output(1); });
  EXPECT_TRUE(contains(e.what(), "still used by  = prim::Return(%"));
  expect_error([&] { n->output(); });
  expect_error([&] { n->output(5); }, ErrorKind::Index);
}

TEST(JitGraph, BlockOutputsAndMovesKeepUseLists) {
  Graph g;
  Value* x = g.add_input("x");
  Value* c = g.add_input("c", Type::bool_type());
  Node* neg = g.insert_op("aten::neg", {x});
  Node* iff = g.insert_if(c, 2);
  Block* b0 = iff->blocks()[0];
  b0->register_output(x);
  b0->insert_output(0, neg->output());
  EXPECT_EQ(uses(neg->output()), std::vector<Use>{use(b0->return_node(), 0)});
  EXPECT_EQ(uses(x), sorted({use(neg, 0), use(b0->return_node(), 1)}));
  iff->blocks()[1]->register_output(x);
  iff->blocks()[1]->register_output(x);
  g.register_output(iff->output(0));
  verify(g);
  // Moving the neg into the branch changes no use-list (and stays valid: x dominates it there).
  std::vector<Use> before = uses(neg->output());
  neg->move_before(b0->return_node());
  EXPECT_EQ(neg->owning_block(), b0);
  EXPECT_EQ(uses(neg->output()), before);
  EXPECT_EQ(uses(x), sorted({use(neg, 0), use(b0->return_node(), 1), use(iff->blocks()[1]->return_node(), 0),
                             use(iff->blocks()[1]->return_node(), 1)}));
  verify(g);
  b0->erase_output(0);
  EXPECT_TRUE(uses(neg->output()).empty());
  EXPECT_EQ(uses(x), sorted({use(neg, 0), use(b0->return_node(), 0), use(iff->blocks()[1]->return_node(), 0),
                             use(iff->blocks()[1]->return_node(), 1)}));
  expect_error([&] { verify(g); });  // block0 now returns 1 value for 2 outputs
}

TEST(JitGraph, InsertAndMoveNodes) {
  Graph g;
  Value* x = g.add_input("x");
  Node* a = g.insert_op("aten::neg", {x});
  Node* c = g.insert_op("aten::relu", {x});
  Node* b = g.create(Symbol::aten("sin"), {x});
  b->insert_after(a);
  auto order = [&] {
    std::vector<Node*> r;
    for (Node* n : g.nodes()) r.push_back(n);
    return r;
  };
  EXPECT_EQ(order(), (std::vector<Node*>{a, b, c}));
  EXPECT_TRUE(a->is_before(b) && b->is_before(c) && a->is_before(c));
  EXPECT_TRUE(c->is_after(a));
  c->move_before(a);
  EXPECT_EQ(order(), (std::vector<Node*>{c, a, b}));
  EXPECT_TRUE(c->is_before(a));
  c->move_after(b);
  EXPECT_EQ(order(), (std::vector<Node*>{a, b, c}));
  std::vector<Node*> rev;
  for (Node* n : g.block()->reverse_nodes()) rev.push_back(n);
  EXPECT_EQ(rev, (std::vector<Node*>{c, b, a}));
  expect_error([&] { a->insert_before(b); });  // already inserted
  expect_error([&] { g.create(Symbol::aten("neg"), {x})->insert_after(g.return_node()); });
  // Many insertions at one place exhaust the position gaps and renumber the block.
  for (int i = 0; i < 100; ++i) g.create(Symbol::aten("neg"), {x})->insert_after(a);
  Node* prev = nullptr;
  for (Node* n : g.nodes()) {
    if (prev) {
      EXPECT_TRUE(prev->is_before(n));
    }
    prev = n;
  }
  EXPECT_TRUE(a->is_before(c));
  // Insertion point.
  g.set_insert_point(b);
  Node* d = g.insert_op("aten::cos", {x});
  EXPECT_EQ(d->next(), b);
  {
    InsertPointGuard guard(g, g.block());
    EXPECT_EQ(g.insert_op("aten::tan", {x})->next(), g.return_node());
  }
  EXPECT_EQ(g.insert_point(), b);
}

// if flag: y = neg(x) else: y = x ; loop n times: y = y * i
TEST(JitGraph, ControlFlowBlocks) {
  Graph g;
  Value* x = g.add_input("x");
  Value* flag = g.add_input("flag", Type::bool_type());
  Value* n = g.add_input("n", Type::int_type());
  Node* iff = g.insert_if(flag, 1);
  {
    InsertPointGuard guard(g, iff->blocks()[0]);
    iff->blocks()[0]->register_output(g.insert_op("aten::neg", {x})->output());
  }
  iff->blocks()[1]->register_output(x);
  Value* t = g.insert_constant(IValue(true));
  std::vector<Value*> carried = {iff->output()};
  Node* loop = g.insert_loop(n, t, carried);
  Block* body = loop->blocks()[0];
  body->inputs()[0]->set_debug_name("i");
  {
    InsertPointGuard guard(g, body);
    Node* mul = g.insert_op("aten::mul", {body->inputs()[1], body->inputs()[0]});
    body->register_output(t);
    body->register_output(mul->output());
  }
  g.register_output(loop->output());
  EXPECT_EQ(g.str(),
            "graph(%x : Tensor,\n"
            "      %flag : bool,\n"
            "      %n : int):\n"
            "  %3 : Tensor = prim::If(%flag)\n"
            "    block0():\n"
            "      %4 : Tensor = aten::neg(%x)\n"
            "      -> (%4)\n"
            "    block1():\n"
            "      -> (%x)\n"
            "  %5 : bool = prim::Constant[value=1]()\n"
            "  %6 : Tensor = prim::Loop(%n, %5, %3)\n"
            "    block0(%i : int, %8 : Tensor):\n"
            "      %9 : Tensor = aten::mul(%8, %i)\n"
            "      -> (%5, %9)\n"
            "  return (%6)\n");
  verify(g);
  Node* inner_mul = body->nodes().begin().operator*();
  EXPECT_EQ(inner_mul->owning_block()->owning_node(), loop);
  // Cross-block order: the If (and what is inside it) comes before the loop's body.
  Node* inner_neg = *iff->blocks()[0]->nodes().begin();
  EXPECT_TRUE(inner_neg->is_before(inner_mul));
  EXPECT_TRUE(inner_mul->is_after(iff));
  EXPECT_FALSE(iff->is_before(inner_neg));  // a node and its own nested nodes are unordered
  EXPECT_FALSE(inner_neg->is_before(iff));
  // A node cannot move into its own block, nor a new node with blocks be inserted into them.
  expect_error([&] { loop->move_before(inner_mul); });
  Node* lone_if = g.create(prim::If, {flag}, 0);
  Block* lone_block = lone_if->add_block();
  EXPECT_EQ(lone_block->param_node()->next(), lone_block->return_node());  // an empty block
  expect_error([&] { lone_if->insert_before(lone_block->return_node()); });
  lone_if->destroy();

  // Moving the loop's multiply out of its block makes it use %i outside its scope.
  inner_mul->move_before(loop);
  Error e = expect_error([&] { verify(g); });
  EXPECT_TRUE(contains(e.what(), "is used before its definition or outside the block that defines it"));
  EXPECT_TRUE(contains(e.what(), "in: %9 : Tensor = aten::mul(%8, %i)"));
  inner_mul->move_before(body->return_node());
  verify(g);

  // Block inputs: erase refuses a used one.
  expect_error([&] { body->erase_input(0); });
  // A block whose value is used outside it cannot be destroyed; the If as a whole neither (its output is used).
  expect_error([&] { iff->destroy(); });
  size_t values = g.all_values().size();
  loop->blocks()[0]->erase_output(1);
  loop->blocks()[0]->erase_output(0);
  g.erase_output(0);
  loop->destroy();  // destroys its block with the multiply inside; releases %5 and %3
  EXPECT_EQ(g.all_values().size(), values - 4);  // %6, %i, %8, %9
  EXPECT_TRUE(uses(t).empty());
  EXPECT_TRUE(uses(iff->output()).empty());
  EXPECT_TRUE(uses(n).empty());
  iff->destroy();
  EXPECT_TRUE(uses(x).empty());
  verify(g);
}

TEST(JitGraph, ValueNames) {
  Graph g;
  Value* a = g.add_input("x");
  Value* b = g.add_input("x");  // takes the name; the old owner becomes x.1 (Note [value names])
  EXPECT_EQ(b->debug_name(), "x");
  EXPECT_EQ(a->debug_name(), "x.1");
  Value* c = g.add_input("x");
  EXPECT_EQ(c->debug_name(), "x");
  EXPECT_EQ(b->debug_name(), "x.2");
  Value* d = g.add_input("x.2");  // a name with a suffix continues from it
  EXPECT_EQ(d->debug_name(), "x.2");
  EXPECT_EQ(b->debug_name(), "x.3");
  Value* e = g.add_input();
  EXPECT_FALSE(e->has_debug_name());
  EXPECT_EQ(e->display_name(), std::to_string(e->unique()));
  e->set_debug_name("self.conv.weight");
  EXPECT_EQ(e->display_name(), "self.conv.weight");
  e->set_debug_name("");
  EXPECT_FALSE(e->has_debug_name());
  a->set_debug_name("y");  // frees x.1
  EXPECT_EQ(g.add_input("x.1")->debug_name(), "x.1");
  expect_error([&] { e->set_debug_name("12"); });
  expect_error([&] { e->set_debug_name("a b"); });
  expect_error([&] { e->set_debug_name("%a"); });
}

TEST(JitGraph, ListsTuplesDictsAttributes) {
  Graph g;
  auto net = ClassType::create("__torch__.Net");
  net->add_attribute("w", TensorType::create(kFloat32, TensorType::Sizes{2}));
  Value* self = g.add_input("self", net);
  Value* n = g.add_input("n", Type::int_type());
  Value* w = g.insert_get_attr(self, "w");
  EXPECT_EQ(w->type()->str(), "Float(2)");
  Value* b = g.insert_get_attr(self, "b", OptionalType::create(Type::tensor_type()));
  Value* one = g.insert_constant(IValue(int64_t{1}));
  std::vector<Value*> items = {one, n};
  Value* list = g.insert_list(Type::int_type(), items);
  Node* unpack = g.insert_list_unpack(list, 2);
  std::vector<Value*> parts = {w, b, list};
  Value* tup = g.insert_tuple(parts);
  Node* tunpack = g.insert_tuple_unpack(tup);
  Value* key = g.insert_constant(IValue("k"));
  std::vector<Value*> keys = {key}, vals = {unpack->output(1)};
  Value* dict = g.insert_dict(Type::str_type(), Type::int_type(), keys, vals);
  g.register_output(tunpack->output(2));
  g.register_output(dict);
  EXPECT_EQ(g.str(),
            "graph(%self : __torch__.Net,\n"
            "      %n : int):\n"
            "  %w : Float(2) = prim::GetAttr[name=\"w\"](%self)\n"
            "  %b : Tensor? = prim::GetAttr[name=\"b\"](%self)\n"
            "  %4 : int = prim::Constant[value=1]()\n"
            "  %5 : int[] = prim::ListConstruct(%4, %n)\n"
            "  %6 : int, %7 : int = prim::ListUnpack(%5)\n"
            "  %8 : (Float(2), Tensor?, int[]) = prim::TupleConstruct(%w, %b, %5)\n"
            "  %9 : Float(2), %10 : Tensor?, %11 : int[] = prim::TupleUnpack(%8)\n"
            "  %12 : str = prim::Constant[value=\"k\"]()\n"
            "  %13 : Dict(str, int) = prim::DictConstruct(%12, %7)\n"
            "  return (%11, %13)\n");
  verify(g);
  // GetAttr names: the debug name follows the attribute, as TorchScript's do.
  expect_error([&] { g.insert_get_attr(n, "w"); });
  expect_error([&] { g.insert_get_attr(self, "unknown"); });
  expect_error([&] { g.insert_list(Type::int_type(), parts); });

  // Attributes: typed access, kinds checked.
  Node* c = one->node();
  EXPECT_EQ(c->i("value"), 1);
  Error e = expect_error([&] { c->f("value"); });
  EXPECT_TRUE(contains(e.what(), "attribute 'value' of prim::Constant is of kind i, not f"));
  expect_error([&] { c->i("nope"); });
  c->i_("value", 3);
  EXPECT_EQ(c->i("value"), 3);
  EXPECT_EQ(c->attributes().size(), 1u);
  Node* m = g.create(prim::CallMethod, {self}, 0);
  m->s_("name", "forward")->is_("dims", {1, 2})->fs_("scales", {0.5})->ss_("names", {"a"});
  EXPECT_EQ(m->str(), " = prim::CallMethod[name=\"forward\", dims=[1, 2], scales=[0.5], names=[\"a\"]](%self)");
  m->remove_attribute("dims");
  EXPECT_FALSE(m->has_attribute("dims"));
  EXPECT_EQ(m->ss("names")[0], "a");
  m->destroy();
}

TEST(JitGraph, CopyIsIdentical) {
  Graph g;
  Value* x = g.add_input("x.1");
  Value* flag = g.add_input("flag", Type::bool_type());
  Node* iff = g.insert_if(flag, 1);
  {
    InsertPointGuard guard(g, iff->blocks()[0]);
    iff->blocks()[0]->register_output(g.insert_op("aten::neg", {x})->output());
  }
  iff->blocks()[1]->register_output(x);
  g.register_output(iff->output());
  auto c = g.copy();
  EXPECT_EQ(c->str(), g.str());
  verify(*c);
  // New values in the copy are numbered after the original's.
  Value* fresh = c->insert_constant(IValue(int64_t{0}));
  EXPECT_EQ(fresh->unique(), 4u);
  // The copy is independent.
  EXPECT_EQ(uses(x).size(), 2u);
  EXPECT_EQ(c->inputs()[0]->uses().size(), 2u);
  EXPECT_NE(c->inputs()[0], x);
}

TEST(JitTypes, SpellingsAndSubtyping) {
  auto t23 = TensorType::create(kFloat32, TensorType::Sizes{2, 3});
  auto t2x = TensorType::create(kFloat32, TensorType::Sizes{2, std::nullopt});
  EXPECT_EQ(t23->str(), "Float(2, 3)");
  EXPECT_EQ(t2x->str(), "Float(2, *)");
  EXPECT_EQ(TensorType::create(kInt64, std::nullopt)->str(), "Long");
  EXPECT_EQ(TensorType::create(kBool, TensorType::Sizes{})->str(), "Bool()");
  EXPECT_EQ(TensorType::create(std::nullopt, TensorType::Sizes{4})->str(), "Tensor(4)");
  EXPECT_EQ(TensorType::create(std::nullopt, std::nullopt), Type::tensor_type());
  EXPECT_TRUE(t23->is_subtype_of(*t2x));
  EXPECT_FALSE(t2x->is_subtype_of(*t23));
  EXPECT_TRUE(t23->is_subtype_of(*Type::tensor_type()));
  EXPECT_FALSE(TensorType::create(kFloat64, std::nullopt)->is_subtype_of(*TensorType::create(kFloat32, std::nullopt)));
  auto opt = OptionalType::create(Type::int_type());
  EXPECT_EQ(opt->str(), "int?");
  EXPECT_TRUE(Type::none_type()->is_subtype_of(*opt));
  EXPECT_TRUE(Type::int_type()->is_subtype_of(*opt));
  EXPECT_FALSE(Type::float_type()->is_subtype_of(*opt));
  EXPECT_TRUE(Type::bool_type()->is_subtype_of(*Type::number_type()));
  EXPECT_TRUE(ListType::create(Type::int_type())->is_subtype_of(*Type::any_type()));
  EXPECT_EQ(ListType::create(OptionalType::create(Type::tensor_type()))->str(), "Tensor?[]");
  EXPECT_EQ(TupleType::create({Type::tensor_type(), ListType::create(Type::int_type())})->str(), "(Tensor, int[])");
  EXPECT_EQ(TupleType::create({})->str(), "()");
  EXPECT_EQ(DictType::create(Type::str_type(), Type::tensor_type())->str(), "Dict(str, Tensor)");
  EXPECT_TRUE(*DictType::create(Type::str_type(), Type::int_type()) ==
              *DictType::create(Type::str_type(), Type::int_type()));
  EXPECT_FALSE(*ListType::create(Type::int_type()) == *ListType::create(Type::float_type()));
  expect_error([] { DictType::create(Type::float_type(), Type::int_type()); });
  expect_error([] { ClassType::create("not a name"); });
  expect_error([] { ClassType::create("a..b"); });
  EXPECT_EQ(*ClassType::create("__torch__.Net"), *ClassType::create("__torch__.Net"));
  EXPECT_EQ(dtype_type_name(kFloat64), "Double");
  EXPECT_EQ(dtype_from_type_name("Half"), kFloat16);
  EXPECT_FALSE(dtype_from_type_name("float"));
}

TEST(JitSymbols, InterningAndBuiltins) {
  EXPECT_EQ(prim::Constant.qual_string(), "prim::Constant");
  EXPECT_EQ(Symbol::prim("Constant"), prim::Constant);
  EXPECT_TRUE(prim::If.is_prim());
  Symbol s = Symbol::from_qual_string("myops::fused_act");
  EXPECT_EQ(s, Symbol::from_ns("myops", "fused_act"));
  EXPECT_EQ(s.ns(), "myops");
  EXPECT_EQ(s.name(), "fused_act");
  EXPECT_NE(s, Symbol::aten("fused_act"));
  EXPECT_FALSE(Symbol().valid());
  expect_error([] { Symbol::from_qual_string("add"); });
  expect_error([] { Symbol::from_qual_string("::add"); });
  expect_error([] { Symbol::from_qual_string("a::b::c"); });
}

}  // namespace
