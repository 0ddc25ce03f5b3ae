// The interpreter (ember/jit/runtime/Interpreter.h): graphs parsed from text, run, and compared with the same
// computation by direct op calls; control flow; constants; release of registers at their last use; errors.
#include <gtest/gtest.h>

#include "TestSupport.h"
#include "ember/dispatch/Library.h"
#include "ember/jit/ir/IR.h"
#include "ember/jit/runtime/Interpreter.h"
#include "ember/ops/Functions.h"

namespace {

using namespace ember;
using namespace ember::jit;
using ember::testing::contains;
using ember::testing::expect_error;

// jittest::refs(x) -> int: how many references x's TensorImpl has while the op runs. The boxed call's stack
// holds one; each register (or caller) still holding x adds one. This observes, inside the graph, whether the
// interpreter released a register at its last use (Note [freeing at last use]).
int64_t refs(const Tensor& x) { return static_cast<int64_t>(x.impl()->use_count()); }
// jittest::storage_refs(x): the references to x's storage (each live view of it adds one).
int64_t storage_refs(const Tensor& x) { return static_cast<int64_t>(x.impl()->storage()->use_count()); }
// Integer arithmetic for control-flow tests (the op database has tensor ops only; TorchScript's int ops are
// part of the future script compiler).
int64_t add_int(int64_t a, int64_t b) { return a + b; }
bool lt_int(int64_t a, int64_t b) { return a < b; }
bool is_even(int64_t a) { return a % 2 == 0; }

EMBER_LIBRARY(jittest, m) {
  m.def("refs(Tensor x) -> int", &refs);
  m.def("storage_refs(Tensor x) -> int", &storage_refs);
  m.def("add_int(int a, int b) -> int", &add_int);
  m.def("lt_int(int a, int b) -> bool", &lt_int);
  m.def("is_even(int a) -> bool", &is_even);
}

Tensor rand(std::vector<int64_t> sizes) { return randn(sizes); }

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  ASSERT_EQ(a.dtype(), b.dtype());
  EXPECT_TRUE(equal(a, b));
}

TEST(Interpreter, ElementwiseChainMatchesDirectCalls) {
  Function f("chain", R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : float = prim::Constant[value=2.]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::mul(%a, %two)
  %c : Tensor = aten::sigmoid(%b)
  %d : Tensor = aten::sub(%c, %x, %two)
  return (%d)
)IR");
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 4}, {0, 5}, {}}) {
    Tensor x = rand(shape), y = rand(shape);
    Tensor want = sub(sigmoid(mul(add(x, y), 2.0)), x, 2.0);
    expect_same(f({x, y}).to_tensor(), want);
  }
  // float64 and broadcasting
  Tensor x = randn({2, 3}, DType::Float64), y = randn({3}, DType::Float64);
  expect_same(f({x, y}).to_tensor(), sub(sigmoid(mul(add(x, y), 2.0)), x, 2.0));
}

TEST(Interpreter, ConvReluWithListsAndDTypeConstants) {
  Function f("convrelu", R"IR(graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %s : int = prim::Constant[value=1]()
  %p : int = prim::Constant[value=1]()
  %stride : int[] = prim::ListConstruct(%s, %s)
  %pad : int[] = prim::ListConstruct(%p, %p)
  %dil : int[] = prim::Constant[value=[1, 1]]()
  %g : int = prim::Constant[value=1]()
  %c : Tensor = aten::conv2d(%x, %w, %b, %stride, %pad, %dil, %g)
  %r : Tensor = aten::relu(%c)
  return (%r)
)IR");
  Tensor x = rand({2, 3, 8, 8}), w = rand({4, 3, 3, 3}), b = rand({4});
  expect_same(f({x, w, b}).to_tensor(), relu(conv2d(x, w, b, {1, 1}, {1, 1}, {1, 1}, 1)));
}

TEST(Interpreter, IntForIntListAndScalarType) {
  // int for int[2] (broadcast) and an int dtype for ScalarType?, as TorchScript graphs pass them.
  Function f("pool", R"IR(graph(%x : Tensor, %k : int):
  %e : int[] = prim::ListConstruct()
  %z : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %m : Tensor = aten::max_pool2d(%x, %k, %e, %z, %one, %f)
  %dt : int = prim::Constant[value=7]()
  %s : Tensor = aten::sum(%m, %dt)
  return (%s)
)IR");
  Tensor x = rand({1, 2, 4, 4});
  Tensor got = f({x, IValue(2)}).to_tensor();
  EXPECT_EQ(got.dtype(), DType::Float64);
  expect_same(got, sum(max_pool2d(x, {2, 2}, {}, {0, 0}, {1, 1}, false), DType::Float64));
}

TEST(Interpreter, TuplesListsAndUnpack) {
  Function f("tuples", R"IR(graph(%x : Tensor, %t : (Tensor, int)):
  %a : Tensor, %n : int = prim::TupleUnpack(%t)
  %l : Tensor[] = prim::ListConstruct(%x, %a)
  %d : int = prim::Constant[value=0]()
  %c : Tensor = aten::cat(%l, %d)
  %p : Tensor, %q : Tensor = prim::ListUnpack(%l)
  %one : int = prim::Constant[value=1]()
  %s : Tensor = aten::add(%p, %q, %n)
  %r : (Tensor, Tensor, int) = prim::TupleConstruct(%c, %s, %n)
  return (%r)
)IR");
  Tensor x = rand({2}), a = rand({2});
  IValue r = f({x, IValue::tuple({a, IValue(3)})});
  const auto& items = r.to_tuple();
  ASSERT_EQ(items.size(), 3u);
  expect_same(items[0].to_tensor(), cat({x, a}, 0));
  expect_same(items[1].to_tensor(), add(x, a, 3));
  EXPECT_EQ(items[2].to_int(), 3);
  // Several graph outputs come back as a tuple; a list input may be a generic list of tensors.
  Function g("two", R"IR(graph(%l : Tensor[]):
  %d : int = prim::Constant[value=0]()
  %c : Tensor = aten::cat(%l, %d)
  %n : Tensor = aten::neg(%c)
  return (%c, %n)
)IR");
  IValue r2 = g({IValue::list({IValue(x), IValue(a)})});
  expect_same(r2.to_tuple()[1].to_tensor(), neg(cat({x, a}, 0)));
}

TEST(Interpreter, DictConstructAndTupleIndex) {
  Function f("dict", R"IR(graph(%x : Tensor):
  %k : str = prim::Constant[value="out"]()
  %n : Tensor = aten::neg(%x)
  %d : Dict(str, Tensor) = prim::DictConstruct(%k, %n)
  return (%d)
)IR");
  Tensor x = rand({3});
  IValue d = f({x});
  ASSERT_EQ(d.to_dict().size(), 1u);
  EXPECT_EQ(d.to_dict()[0].first.to_string(), "out");
  expect_same(d.to_dict()[0].second.to_tensor(), neg(x));
}

const char* kIfGraph = R"IR(graph(%x : Tensor, %flag : bool):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %one)
  %z : Tensor = prim::If(%flag)
    block0():
      %n : Tensor = aten::neg(%y)
      -> (%n)
    block1():
      -> (%y)
  %r : Tensor = aten::mul(%z, %x)
  return (%r)
)IR";

TEST(Interpreter, If) {
  Function f("if", kIfGraph);
  Tensor x = rand({4});
  expect_same(f({x, true}).to_tensor(), mul(neg(add(x, x)), x));
  expect_same(f({x, false}).to_tensor(), mul(add(x, x), x));
}

const char* kLoopGraph = R"IR(graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %w : Tensor = aten::mul(%x, %one)
  %acc : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %a : Tensor):
      %b : Tensor = aten::add(%a, %w, %i)
      -> (%true, %b)
  return (%acc)
)IR";

TEST(Interpreter, Loop) {
  Function f("loop", kLoopGraph);
  Tensor x = rand({3});
  for (int64_t n : {0, 1, 5}) {
    Tensor want = x;
    for (int64_t i = 0; i < n; ++i) want = add(want, mul(x, 1), i);
    expect_same(f({x, IValue(n)}).to_tensor(), want);
  }
}

TEST(Interpreter, UnusedOutputsAndCarriedValues) {
  // max.dim's unused indices are popped and dropped; %q is carried through the loop without being read in the
  // body, and the loop's second output is its last value (the input when the loop runs zero times).
  Function f("unused", R"IR(graph(%x : Tensor, %n : int):
  %d : int = prim::Constant[value=0]()
  %f : bool = prim::Constant[value=0]()
  %v : Tensor, %i : Tensor = aten::max(%x, %d, %f)
  %true : bool = prim::Constant[value=1]()
  %a : Tensor, %b : Tensor = prim::Loop(%n, %true, %v, %x)
    block0(%it : int, %p : Tensor, %q : Tensor):
      %p2 : Tensor = aten::neg(%p)
      -> (%true, %p2, %v)
  return (%a, %b)
)IR");
  Tensor x = rand({3, 2});
  Tensor v = std::get<0>(max(x, 0, false));
  IValue r0 = f({x, IValue(0)});
  expect_same(r0.to_tuple()[0].to_tensor(), v);
  expect_same(r0.to_tuple()[1].to_tensor(), x);
  IValue r3 = f({x, IValue(3)});
  expect_same(r3.to_tuple()[0].to_tensor(), neg(v));
  expect_same(r3.to_tuple()[1].to_tensor(), v);
}

TEST(Interpreter, LoopConditionStopsEarly) {
  // while (i < 10 and cond): cond = a.sum() < 3; a = a + 1
  Function f("while", R"IR(graph(%a0 : Tensor):
  %max : int = prim::Constant[value=10]()
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %r : Tensor, %k : int = prim::Loop(%max, %true, %a0, %one)
    block0(%i : int, %a : Tensor, %c : int):
      %b : Tensor = aten::add(%a, %one, %one)
      %c2 : int = jittest::add_int(%c, %one)
      %lt : bool = jittest::lt_int(%c2, %three)
      -> (%lt, %b, %c2)
  %t : (Tensor, int) = prim::TupleConstruct(%r, %k)
  return (%t)
)IR");
  Tensor a = zeros({2});
  IValue r = f({a});
  EXPECT_EQ(r.to_tuple()[1].to_int(), 3);
  expect_same(r.to_tuple()[0].to_tensor(), full({2}, 2.0));
}

TEST(Interpreter, NestedIfInLoop) {
  Function f("nested", R"IR(graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %acc : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %a : Tensor):
      %even : bool = jittest::is_even(%i)
      %b : Tensor = prim::If(%even)
        block0():
          %p : Tensor = aten::add(%a, %x, %one)
          -> (%p)
        block1():
          %q : Tensor = aten::mul(%a, %x)
          -> (%q)
      -> (%true, %b)
  return (%acc)
)IR");
  Tensor x = rand({3});
  Tensor want = x;
  for (int i = 0; i < 4; ++i) want = i % 2 == 0 ? add(want, x) : mul(want, x);
  expect_same(f({x, IValue(4)}).to_tensor(), want);
}

TEST(Interpreter, TensorConstantsFromTable) {
  Tensor c = rand({3});
  std::vector<Tensor> table{c};
  ParseOptions opts;
  opts.tensor_table = &table;
  Function f("const", parse_ir(R"IR(graph(%x : Tensor):
  %c : Tensor = prim::Constant[value=<Tensor:0>]()
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %c, %one)
  return (%y)
)IR", opts));
  Tensor x = rand({3});
  expect_same(f({x}).to_tensor(), add(x, c));
  // Without the table the constant has no data: a compile-time error naming it.
  EMBER_EXPECT_ERROR(Function("noconst", R"IR(graph(%x : Tensor):
  %c : Tensor = prim::Constant[value=<Tensor>]()
  return (%c)
)IR"), Runtime, "");
}

TEST(Interpreter, RegistersReleasedAtLastUse) {
  // %a's last use is refs(%a): the register is moved onto the stack, so only the stack holds it (1).
  Function last("last", R"IR(graph(%x : Tensor):
  %a : Tensor = aten::neg(%x)
  %n : int = jittest::refs(%a)
  return (%n)
)IR");
  EXPECT_EQ(last({rand({2})}).to_int(), 1);
  // Used again later: the register keeps its reference while refs runs (2).
  Function kept("kept", R"IR(graph(%x : Tensor):
  %a : Tensor = aten::neg(%x)
  %n : int = jittest::refs(%a)
  %b : Tensor = aten::neg(%a)
  %t : (int, Tensor) = prim::TupleConstruct(%n, %b)
  return (%t)
)IR");
  EXPECT_EQ(kept({rand({2})}).to_tuple()[0].to_int(), 2);
  // The input: the caller's handle plus the stack (moved out of the register at its last use).
  Tensor x = rand({2});
  Function input("input", R"IR(graph(%x : Tensor):
  %n : int = jittest::refs(%x)
  return (%n)
)IR");
  std::vector<IValue> in;
  in.emplace_back(x);  // (an initializer list would hold one more reference for the whole call)
  EXPECT_EQ(input(std::move(in)).to_int(), 2);
  // An intermediate dies right after its last consumer: a view of x holds a reference to x's storage, so the
  // release of the view at its last use (neg) shows as the storage's count dropping by one.
  Function view("view", R"IR(graph(%x : Tensor):
  %v : Tensor = aten::view_as(%x, %x)
  %before : int = jittest::storage_refs(%x)
  %b : Tensor = aten::neg(%v)
  %after : int = jittest::storage_refs(%x)
  %t : (int, int, Tensor) = prim::TupleConstruct(%before, %after, %b)
  return (%t)
)IR");
  IValue r = view({x});
  EXPECT_EQ(r.to_tuple()[0].to_int() - r.to_tuple()[1].to_int(), 1) << "the view was not released at neg";
}

TEST(Interpreter, ReleasePlanInTheListing) {
  // ^rN: the operand moves out of register N (its last use). %a is read twice: copied by exp, moved by add.
  // %x is read after the If only in its else-branch: the then-branch drops it at its start; %c flows out of
  // the then-branch and is dropped at the start of the else-branch.
  Function f("plan", R"IR(graph(%x : Tensor, %flag : bool):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::neg(%x)
  %b : Tensor = aten::exp(%a)
  %c : Tensor = aten::add(%b, %a, %one)
  %z : Tensor = prim::If(%flag)
    block0():
      -> (%c)
    block1():
      %n : Tensor = aten::neg(%x)
      -> (%n)
  return (%z)
)IR");
  EXPECT_EQ(f.code().dump(),
            "  0 CallOp aten::neg (r0) -> r2\n"
            "  1 CallOp aten::exp (r2) -> r3\n"
            "  2 CallOp aten::add.Tensor (^r3, ^r2, c0) -> r4\n"
            "  3 JumpIfFalse ->7 (^r1)\n"
            "  4 Drop (^r0)\n"
            "  5 Move (^r4) -> r5\n"
            "  6 Jump ->10 ()\n"
            "  7 Drop (^r4)\n"
            "  8 CallOp aten::neg (^r0) -> r6\n"
            "  9 Move (^r6) -> r5\n"
            " 10 Return (^r5)\n");
  Tensor x = rand({2});
  expect_same(f({x, true}).to_tensor(), add(exp(neg(x)), neg(x)));
  expect_same(f({x, false}).to_tensor(), neg(x));
}

TEST(Interpreter, ValuesUsedInLoopsLiveUntilTheLoopEnds) {
  // %w is defined outside and read in every iteration: never moved inside the body (refs sees the register
  // and the stack: 2 each time), released after the loop.
  Function f("loopref", R"IR(graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %w : Tensor = aten::neg(%x)
  %s : int = prim::Constant[value=0]()
  %total : int = prim::Loop(%n, %true, %s)
    block0(%i : int, %acc : int):
      %r : int = jittest::refs(%w)
      %acc2 : int = jittest::add_int(%acc, %r)
      -> (%true, %acc2)
  return (%total)
)IR");
  EXPECT_EQ(f({rand({2}), IValue(3)}).to_int(), 6);
  // The instruction listing shows the drop after the loop.
  EXPECT_TRUE(contains(f.code().dump(), "Drop"));
}

TEST(Interpreter, IfBranchReleasesOnBothPaths) {
  // %y (a view of x) is used by one branch only: that branch moves it out, the other drops it at its start;
  // either way storage_refs(%x) after the If sees x's storage held by x alone.
  Function f("ifrel", R"IR(graph(%x : Tensor, %flag : bool):
  %y : Tensor = aten::view_as(%x, %x)
  %z : Tensor = prim::If(%flag)
    block0():
      %n : Tensor = aten::neg(%y)
      -> (%n)
    block1():
      %m : Tensor = aten::neg(%x)
      -> (%m)
  %k : int = jittest::storage_refs(%x)
  %t : (int, Tensor) = prim::TupleConstruct(%k, %z)
  return (%t)
)IR");
  Tensor x = rand({2});
  int64_t a = f({x, true}).to_tuple()[0].to_int();
  int64_t b = f({x, false}).to_tuple()[0].to_int();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, 1);
}

TEST(Interpreter, InputErrorsNameTheFunction) {
  Function f("myfn", kIfGraph);
  Tensor x = rand({2});
  auto e = expect_error([&] { f({x}); });
  EXPECT_TRUE(contains(e.what(), "myfn: expected 2 inputs (x : Tensor, flag : bool) but got 1"));
  e = expect_error([&] { f({x, IValue(3)}); });
  EXPECT_TRUE(contains(e.what(), "myfn: input 1 (flag : bool) expected a value of type bool"));
  e = expect_error([&] { f({IValue(1.5), true}); });
  EXPECT_TRUE(contains(e.what(), "input 0 (x : Tensor)"));
}

TEST(Interpreter, OpErrorsNameTheNode) {
  Function f("bad", R"IR(graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  return (%a)
)IR");
  auto e = expect_error([&] { f({rand({2}), rand({3})}); });
  EXPECT_TRUE(contains(e.what(), "bad: "));
  EXPECT_TRUE(contains(e.what(), "in node: %a : Tensor = aten::add(%x, %y, %one)"));
  // Raise
  Function r("raise", R"IR(graph(%x : Tensor):
  %m : str = prim::Constant[value="boom"]()
   = prim::RaiseException(%m)
  return (%x)
)IR");
  EXPECT_TRUE(contains(expect_error([&] { r({rand({1})}); }).what(), "boom"));
}

TEST(Interpreter, RejectsWhatItCannotRun) {
  auto e = expect_error([&] {
    Function("unverified", R"IR(graph(%x : Tensor):
  %a : Tensor = aten::add(%x)
  return (%a)
)IR");
  });
  // The function's name, then the verifier's message once (it used to read "the graph does not verify: verify:").
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("unverified: verify: ", 0), 0u) << what;
  EXPECT_EQ(what.find("verify", what.find("verify") + 1), std::string::npos) << what;
  EXPECT_TRUE(contains(what, "%a : Tensor = aten::add(%x)")) << what;
}

}  // namespace
