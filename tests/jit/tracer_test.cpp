// The tracer (Note [tracing] in ember/jit/frontend/Tracer.h): op calls recorded into a graph, in-place and
// out= ops, list arguments and results, module attributes, per-thread state and exception safety.
#include <gtest/gtest.h>

#include <thread>

#include "TestSupport.h"
#include "ember/api/ember.h"
#include "ember/jit/frontend/Tracer.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
namespace tr = ember::jit::tracer;

std::string text(const Graph& g) { return to_string(g); }

TEST(Tracer, RecordsOpsWithConstantsAndTypes) {
  Tensor x = ember::ones({2, 3}), y = ember::ones({2, 3});
  auto g = tr::trace(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{ember::relu(ember::add(in[0], in[1], 2)).sum()}; },
      {x, y}, {"x", "y"});
  EXPECT_EQ(text(*g),
            "graph(%x : Float(2, 3),\n"
            "      %y : Float(2, 3)):\n"
            "  %2 : int = prim::Constant[value=2]()\n"
            "  %3 : Float(2, 3) = aten::add(%x, %y, %2)\n"
            "  %4 : Float(2, 3) = aten::relu(%3)\n"
            "  %5 : NoneType = prim::Constant()\n"
            "  %6 : Float() = aten::sum(%4, %5)\n"
            "  return (%6)\n");
  verify(*g);
  EXPECT_FALSE(tr::is_tracing());
}

TEST(Tracer, CompositeOpsAreRecordedWhole) {
  Tensor x = ember::ones({4, 3}), w = ember::ones({2, 3}), b = ember::ones({2});
  auto g = tr::trace(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{ember::linear(in[0], in[1], in[2])}; }, {x, w, b});
  int n = 0;
  for (Node* node : g->nodes()) {
    EXPECT_EQ(node->kind().qual_string(), "aten::linear") << node->str();
    ++n;
  }
  EXPECT_EQ(n, 1);
}

TEST(Tracer, InplaceOpsBecomeTheTensorsValue) {
  Tensor x = ember::ones({3});
  auto g = tr::trace([](const std::vector<Tensor>& in) {
    Tensor t = ember::mul(in[0], in[0]);
    t.add_(in[0]);
    Tensor o = ember::empty({3});
    ember::add_out(o, t, in[0]);
    return std::vector<Tensor>{t, o};
  }, {x}, {"x"});
  std::string s = text(*g);
  // add_ writes %1 (mul's result) and its output %3 stands for t afterwards; the out= op's output for o.
  EXPECT_TRUE(contains(s, "%3 : Float(3) = aten::add_(%1, %x, %2)")) << s;
  EXPECT_TRUE(contains(s, "= aten::add(%3, %x, %")) << s;
  const Node* ret = g->return_node();
  EXPECT_EQ(ret->input(0)->display_name(), "3");
  EXPECT_EQ(ret->input(1)->node()->kind().qual_string(), "aten::add");
  EXPECT_EQ(ret->input(1)->node()->num_inputs(), 4u);  // add.out(self, other, alpha, out)
  verify(*g);
}

TEST(Tracer, ListArgumentsAndResults) {
  Tensor x = ember::ones({4, 2});
  auto g = tr::trace([](const std::vector<Tensor>& in) {
    std::vector<Tensor> parts = ember::split(in[0], 2);
    return std::vector<Tensor>{ember::cat({parts[1], parts[0]}, 1)};
  }, {x}, {"x"});
  std::string s = text(*g);
  EXPECT_TRUE(contains(s, "Tensor[] = aten::split(%x")) << s;
  EXPECT_TRUE(contains(s, "%4 : Tensor, %5 : Tensor = prim::ListUnpack(%3)")) << s;
  EXPECT_TRUE(contains(s, "%6 : Tensor[] = prim::ListConstruct(%5, %4)")) << s;
  EXPECT_TRUE(contains(s, "%8 : Float(2, 4) = aten::cat(%6, %7)")) << s;
  verify(*g);
}

TEST(Tracer, UnknownTensorsBecomeConstantsWithAWarning) {
  Tensor x = ember::ones({2}), c = ember::ones({2});
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  {
    tr::TracingGuard guard(state);
    state->graph().register_output(state->value_of(ember::mul(x, c)));
  }
  ASSERT_EQ(state->warnings().size(), 1u);
  EXPECT_TRUE(contains(state->warnings()[0], "recorded as a constant"));
  EXPECT_TRUE(contains(text(state->graph()), "prim::Constant[value=<Tensor>]()"));
  verify(state->graph());
}

TEST(Tracer, ModuleAttributesAreGetAttrChains) {
  Tensor x = ember::ones({1, 3}), w = ember::ones({2, 3}), b = ember::zeros({2});
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  state->add_self(ClassType::create("__torch__.Net"));
  state->register_submodule("fc", ClassType::create("__torch__.Linear"));
  state->register_attribute(w, "fc.weight");
  state->register_attribute(b, "fc.bias");
  {
    tr::TracingGuard guard(state);
    state->graph().register_output(state->value_of(ember::linear(x, w, b)));
  }
  EXPECT_TRUE(state->warnings().empty());
  EXPECT_EQ(text(state->graph()),
            "graph(%self : __torch__.Net,\n"
            "      %x : Float(1, 3)):\n"
            "  %fc : __torch__.Linear = prim::GetAttr[name=\"fc\"](%self)\n"
            "  %weight : Tensor = prim::GetAttr[name=\"weight\"](%fc)\n"
            "  %bias : Tensor = prim::GetAttr[name=\"bias\"](%fc)\n"
            "  %5 : Float(1, 2) = aten::linear(%x, %weight, %bias)\n"
            "  return (%5)\n");
  verify(state->graph());
}

TEST(Tracer, ErrorsLeaveTheGraphAndTheThreadClean) {
  Tensor x = ember::ones({2, 3});
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  try {
    tr::TracingGuard guard(state);
    ember::relu(x);
    ember::view(x, {7});  // fails inside the op: its node and constants are removed
    ADD_FAILURE() << "view did not raise";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "view"));
  }
  EXPECT_FALSE(tr::is_tracing());
  EXPECT_EQ(tr::current_state(), nullptr);
  int n = 0;
  for (Node* node : state->graph().nodes()) n += 1 + 0 * static_cast<int>(node->num_inputs());
  EXPECT_EQ(n, 1) << text(state->graph());  // only relu
  verify(state->graph());
  // Op calls after the trace are not recorded.
  ember::relu(x);
  n = 0;
  for (Node* node : state->graph().nodes()) n += 1 + 0 * static_cast<int>(node->num_inputs());
  EXPECT_EQ(n, 1);
}

TEST(Tracer, StateIsPerThread) {
  Tensor x = ember::ones({2});
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  tr::TracingGuard guard(state);
  std::thread other([&] {
    EXPECT_FALSE(tr::is_tracing());
    ember::neg(x);  // not recorded: another thread
  });
  other.join();
  ember::exp(x);
  int n = 0;
  for (Node* node : state->graph().nodes()) {
    EXPECT_EQ(node->kind().qual_string(), "aten::exp");
    ++n;
  }
  EXPECT_EQ(n, 1);
}

TEST(Tracer, NestedGuardsRestoreTheOuterState) {
  Tensor x = ember::ones({2});
  auto outer = std::make_shared<tr::TracingState>();
  outer->add_input(x);
  tr::TracingGuard g1(outer);
  {
    tr::TracingGuard paused(nullptr);  // a null state pauses tracing
    EXPECT_FALSE(tr::is_tracing());
    ember::neg(x);
  }
  EXPECT_EQ(tr::current_state(), outer.get());
  ember::exp(x);
  EXPECT_EQ(outer->graph().nodes().begin().operator*()->kind().qual_string(), "aten::exp");
}

}  // namespace

namespace {

TEST(Tracer, FinishRemovesDeadNodesButKeepsWrites) {
  Tensor x = ember::ones({3}), buf = ember::zeros({3});
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  state->add_input(buf, "buf");
  {
    tr::TracingGuard guard(state);
    ember::exp(x);      // unused: removed
    buf.add_(x);        // unused result, but it writes buf: kept
    state->graph().register_output(state->value_of(ember::neg(x)));
  }
  state->finish();
  std::vector<std::string> kinds;
  for (Node* n : state->graph().nodes())
    if (n->kind() != prim::Constant) kinds.emplace_back(n->kind().qual_string());
  EXPECT_EQ(kinds, (std::vector<std::string>{"aten::add_", "aten::neg"})) << to_string(state->graph());
}

TEST(Tracer, AddConstantMapsWithoutWarning) {
  Tensor x = ember::ones({2}), c = ember::full({2}, 3.0);
  auto state = std::make_shared<tr::TracingState>();
  state->add_input(x, "x");
  state->add_constant(c);
  {
    tr::TracingGuard guard(state);
    state->graph().register_output(state->value_of(ember::mul(x, c)));
  }
  state->finish();
  EXPECT_TRUE(state->warnings().empty());
  EXPECT_EQ(state->find_value(c)->node()->kind(), prim::Constant);
}

}  // namespace
