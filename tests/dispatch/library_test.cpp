// Registration and dispatch exactly as a custom-op library does it: EMBER_LIBRARY / EMBER_LIBRARY_IMPL in the
// namespace gtest_ops, typed and boxed calls, boxed-only kernels, the signature check, duplicate and unknown
// ops, dispatch key order, fallthrough, alias keys and a boxed fallback on the Tracer key.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::contains;
using ember::testing::expect_error;
using ember::testing::make_tensor;
using ember::testing::values;

// Which kernels ran, in order (per thread).
std::vector<std::string>& trace() {
  static thread_local std::vector<std::string> t;
  return t;
}

Tensor scale_cpu(const Tensor& x, double alpha) {
  trace().push_back("scale:CPU");
  return ember::mul(x, Scalar(alpha));
}
std::tuple<Tensor, Tensor> split_sign_cpu(const Tensor& x) { return {ember::relu(x), ember::relu(ember::neg(x))}; }
int64_t count_cpu(TensorList xs) { return static_cast<int64_t>(xs.size()); }
std::vector<Tensor> repeat_cpu(const Tensor& x, int64_t n) { return std::vector<Tensor>(static_cast<size_t>(n), x); }
void sink_cpu(const Tensor& x) { trace().push_back("sink:" + std::to_string(x.numel())); }

// Every argument kind of Note [typed and boxed kernels] in one kernel; records what it received.
Tensor describe_cpu(const Tensor& x, const std::optional<Tensor>& y, IntArrayRef dims, std::string_view mode,
                    std::optional<DType> dtype, const Scalar& s, std::optional<int64_t> k, bool flag) {
  trace().push_back(fmt::format("x={} y={} dims=[{}] mode={} dtype={} s={} k={} flag={}", x.numel(),
                                y ? std::to_string(y->numel()) : "None", fmt::join(dims, ","), mode,
                                dtype ? std::string(dtype_name(*dtype)) : "None", s.str(),
                                k ? std::to_string(*k) : "None", flag));
  return x;
}

// The optional and list kinds; returns how many optionals were given (and checks the list's values).
int64_t optionals_cpu(const std::vector<std::optional<Tensor>>& xs, const std::optional<Scalar>& s,
                      const std::optional<Generator>& g, OptionalIntArrayRef dims, std::optional<double> f,
                      std::optional<bool> b, std::optional<MemoryFormat> mf, std::optional<Device> d) {
  int64_t n = 0;
  for (const auto& x : xs) n += x.has_value();
  n +=
      s.has_value() + g.has_value() + dims.has_value() + f.has_value() + b.has_value() + mf.has_value() + d.has_value();
  trace().push_back(fmt::format("xs={} s={} dims={} f={} mf={} d={}", xs.size(), s ? s->str() : "None",
                                dims ? fmt::format("[{}]", fmt::join(*dims, ",")) : "None", f ? *f : -1.0,
                                mf ? static_cast<int>(*mf) : -1, d ? d->str() : "None"));
  return n;
}

// The same op reached at three keys; each layer records itself and re-dispatches below itself.
Tensor layered_cpu(const Tensor& x) {
  trace().push_back("layered:CPU");
  return x;
}
Tensor layered_below(const Tensor& x, DispatchKey self_key, const char* name) {
  trace().push_back(name);
  ExcludeDispatchKeyGuard g(self_key);
  static const auto op = typed_op<Tensor(const Tensor&)>("gtest_ops::layered");
  return op(x);
}
Tensor layered_autograd(const Tensor& x) { return layered_below(x, DispatchKey::Autograd, "layered:Autograd"); }
Tensor layered_tracer(const Tensor& x) { return layered_below(x, DispatchKey::Tracer, "layered:Tracer"); }

Tensor late_cpu_for_race(const Tensor& x) { return ember::neg(x); }

Tensor ft_cpu(const Tensor& x) {
  trace().push_back("ft:CPU");
  return x;
}
Tensor twice(const Tensor& x) { return ember::add(x, x); }
Tensor explicit_composite(const Tensor& x) {
  trace().push_back("explicit:Composite");
  return x;
}
Tensor explicit_cpu(const Tensor& x) {
  trace().push_back("override:CPU");
  return x;
}

// A tensor that carries (fake) autograd metadata, so its calls include the Autograd key.
struct FakeAutogradMeta : AutogradMetaInterface {
  bool requires_grad() const override { return true; }
};
Tensor with_autograd_meta(Tensor t) {
  t.impl()->set_autograd_meta(std::make_unique<FakeAutogradMeta>());
  return t;
}

}  // namespace

EMBER_LIBRARY(gtest_ops, m) {
  OpInfo info;
  info.doc = "Multiplies x by alpha.";
  m.def("scale(Tensor x, float alpha=1.0) -> Tensor", info);
  m.def("boxed_only(Tensor x, int n) -> Tensor");
  m.def("split_sign(Tensor x) -> (Tensor pos, Tensor neg)");
  m.def("count(Tensor[] xs) -> int");
  m.def("repeat(Tensor x, int n) -> Tensor[]");
  m.def("sink(Tensor x) -> ()");
  m.def(
      "describe(Tensor x, Tensor? y, int[] dims, str mode, ScalarType? dtype, Scalar s, int? k, bool flag) -> Tensor");
  m.def(
      "describe_boxed(Tensor x, Tensor? y, int[] dims, str mode, ScalarType? dtype, Scalar s, int? k, bool flag) -> "
      "Tensor");
  m.def("optionals(Tensor?[] xs, Scalar? s, Generator? g, int[]? dims, float? f, bool? b, MemoryFormat? mf, "
        "Device? d) -> int");
  m.def("optionals_boxed(Tensor?[] xs, Scalar? s, Generator? g, int[]? dims, float? f, bool? b, MemoryFormat? mf, "
        "Device? d) -> int");
  m.def("layered(Tensor x) -> Tensor");
  m.def("ft(Tensor x) -> Tensor");
  m.def("unimplemented(Tensor x, float alpha) -> Tensor");
  m.def("twice(Tensor x) -> Tensor", &twice);
  m.def("explicit(Tensor x) -> Tensor");
  m.def("override(Tensor x) -> Tensor");
}

EMBER_LIBRARY_IMPL(gtest_ops, CPU, m) {
  m.impl("scale", &scale_cpu);
  m.impl("boxed_only", KernelFunction::from_boxed([](const OperatorHandle& op, Stack* s) {
    // Arguments on top of the stack: x, n. Replace them with x * n.
    EXPECT_EQ(op.schema().full_name(), "gtest_ops::boxed_only");
    int64_t n = s->back().to_int();
    Tensor x = (*s)[s->size() - 2].to_tensor();
    s->resize(s->size() - 2);
    trace().push_back("boxed_only:CPU");
    s->emplace_back(ember::mul(x, Scalar(n)));
  }));
  m.impl("split_sign", &split_sign_cpu);
  m.impl("count", &count_cpu);
  m.impl("repeat", &repeat_cpu);
  m.impl("sink", &sink_cpu);
  m.impl("describe", &describe_cpu);
  m.impl("describe_boxed", KernelFunction::from_boxed([](const OperatorHandle&, Stack* s) {
    // Checks the boxed forms the typed-call boxing produces, then runs the typed kernel on them.
    const IValue* a = s->data() + s->size() - 8;
    EXPECT_TRUE(a[0].is_tensor());
    EXPECT_TRUE(a[1].is_none() || a[1].is_tensor());
    EXPECT_TRUE(a[2].is_int_list());
    EXPECT_TRUE(a[3].is_string());
    EXPECT_TRUE(a[4].is_none() || a[4].tag() == IValue::Tag::DType);
    EXPECT_TRUE(a[5].is_scalar());
    EXPECT_TRUE(a[6].is_none() || a[6].is_int());
    EXPECT_TRUE(a[7].is_bool());
    Tensor r = describe_cpu(a[0].to_tensor(), a[1].is_none() ? std::nullopt : std::optional<Tensor>(a[1].to_tensor()),
                            a[2].to_int_list(), a[3].to_string(),
                            a[4].is_none() ? std::nullopt : std::optional<DType>(a[4].to_dtype()), a[5].to_scalar(),
                            a[6].is_none() ? std::nullopt : std::optional<int64_t>(a[6].to_int()), a[7].to_bool());
    s->resize(s->size() - 8);
    s->emplace_back(r);
  }));
  m.impl("optionals", &optionals_cpu);
  m.impl("optionals_boxed", KernelFunction::from_boxed([](const OperatorHandle& op, Stack* s) {
    // Unboxes with the same converters the typed kernels use, then calls the typed kernel.
    ASSERT_EQ(op.schema().arguments.size(), 8u);
    const IValue* a = s->data() + s->size() - 8;
    int64_t r = optionals_cpu(
        boxing::Arg<const std::vector<std::optional<Tensor>>&>::get(a[0]),
        boxing::Arg<const std::optional<Scalar>&>::get(a[1]), boxing::Arg<const std::optional<Generator>&>::get(a[2]),
        boxing::Arg<OptionalIntArrayRef>::get(a[3]), boxing::Arg<std::optional<double>>::get(a[4]),
        boxing::Arg<std::optional<bool>>::get(a[5]), boxing::Arg<std::optional<MemoryFormat>>::get(a[6]),
        boxing::Arg<std::optional<Device>>::get(a[7]));
    s->resize(s->size() - 8);
    s->emplace_back(r);
  }));
  m.impl("layered", &layered_cpu);
  m.impl("layered", DispatchKey::Autograd, &layered_autograd);
  m.impl("layered", DispatchKey::Tracer, &layered_tracer);
  m.impl("ft", &ft_cpu);
  m.impl("ft", DispatchKey::Autograd, KernelFunction::make_fallthrough());
  m.impl("override", &explicit_cpu);
}

EMBER_LIBRARY_IMPL(gtest_ops, CompositeExplicitAutograd, m) {
  m.impl("explicit", &explicit_composite);
  m.impl("override", &explicit_composite);
}

namespace {

class Library : public ::testing::Test {
 protected:
  void SetUp() override { trace().clear(); }
};

TEST_F(Library, StaticRegistrationSucceeded) {
  std::vector<std::string> errors = take_registration_errors();
  EXPECT_TRUE(errors.empty()) << fmt::format("{}", fmt::join(errors, "\n"));
  OperatorHandle h = Dispatcher::singleton().find("gtest_ops::scale");
  ASSERT_TRUE(h.valid());
  EXPECT_EQ(h.schema().str(), "gtest_ops::scale(Tensor x, float alpha=1.) -> Tensor");
  EXPECT_EQ(h.info().doc, "Multiplies x by alpha.");
  EXPECT_TRUE(h.entry()->has_kernel(DispatchKey::CPU));
  // No Autograd kernel of its own: the slot holds the autograd layer's boxed fallback (Note [ops without a
  // derivative]), registered by ember::init() for every op.
  EXPECT_TRUE(h.entry()->has_kernel(DispatchKey::Autograd));
  bool listed = false;
  for (const OperatorHandle& o : Dispatcher::singleton().all_ops()) listed |= o.entry() == h.entry();
  EXPECT_TRUE(listed);
}

TEST_F(Library, TypedCall) {
  auto scale = typed_op<Tensor(const Tensor&, double)>("gtest_ops::scale");
  Tensor y = scale(make_tensor<float>({1, 2, 3}), 2.5);
  EXPECT_EQ(values<float>(y), (std::vector<float>{2.5f, 5.0f, 7.5f}));
  EXPECT_EQ(trace(), (std::vector<std::string>{"scale:CPU"}));
}

TEST_F(Library, BoxedCallOfATypedKernel) {
  OperatorHandle op = Dispatcher::singleton().find_or_throw("gtest_ops::scale");
  Tensor x = make_tensor<float>({1, -2});
  Stack s{IValue("below the arguments"), IValue(x), IValue(3.0)};
  op.call_boxed(&s);
  ASSERT_EQ(s.size(), 2u);  // the two arguments were replaced by one result; the rest is untouched
  EXPECT_EQ(s[0].to_string(), "below the arguments");
  EXPECT_EQ(values<float>(s[1].to_tensor()), (std::vector<float>{3, -6}));
  // An int where the schema says float is accepted (a Python int for a float argument).
  Stack t{IValue(x), IValue(2)};
  op.call_boxed(&t);
  EXPECT_EQ(values<float>(t[0].to_tensor()), (std::vector<float>{2, -4}));
  // A wrong boxed type raises a TypeError instead of misreading memory.
  Stack bad{IValue(x), IValue("two")};
  expect_error([&] { op.call_boxed(&bad); }, ErrorKind::Type);
}

TEST_F(Library, BoxedOnlyKernelFromATypedCall) {
  auto op = typed_op<Tensor(const Tensor&, int64_t)>("gtest_ops::boxed_only");
  Tensor y = op(make_tensor<int64_t>({1, 2}), 4);
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(trace(), (std::vector<std::string>{"boxed_only:CPU"}));
  Stack s{IValue(make_tensor<int64_t>({5})), IValue(2)};
  Dispatcher::singleton().find("gtest_ops::boxed_only").call_boxed(&s);
  EXPECT_EQ(values<int64_t>(s.at(0).to_tensor()), (std::vector<int64_t>{10}));
}

TEST_F(Library, EveryArgumentKindBoxesAndUnboxes) {
  Tensor x = make_tensor<float>({1, 2, 3}), y = make_tensor<float>({1});
  std::vector<int64_t> dims{0, -1};
  auto typed =
      typed_op<Tensor(const Tensor&, const std::optional<Tensor>&, IntArrayRef, std::string_view, std::optional<DType>,
                      const Scalar&, std::optional<int64_t>, bool)>("gtest_ops::describe");
  auto boxed = typed_op<Tensor(const Tensor&, const std::optional<Tensor>&, IntArrayRef, std::string_view,
                               std::optional<DType>, const Scalar&, std::optional<int64_t>, bool)>(
      "gtest_ops::describe_boxed");
  Tensor r1 = typed(x, y, dims, "mean", kInt16, Scalar(2.5), 7, true);
  Tensor r2 = boxed(x, y, dims, "mean", kInt16, Scalar(2.5), 7, true);
  Tensor r3 = boxed(x, std::nullopt, {}, "", std::nullopt, Scalar(true), std::nullopt, false);
  EXPECT_TRUE(r1.is_same(x));
  EXPECT_TRUE(r2.is_same(x));
  ASSERT_EQ(trace().size(), 3u);
  EXPECT_EQ(trace()[0], "x=3 y=1 dims=[0,-1] mode=mean dtype=int16 s=2.5 k=7 flag=true");
  EXPECT_EQ(trace()[1], trace()[0]);
  EXPECT_EQ(trace()[2], "x=3 y=None dims=[] mode= dtype=None s=True k=None flag=false");
  // The typed kernel through the boxed path.
  Stack s{IValue(x), IValue(), IValue(std::vector<int64_t>{4}), IValue("sum"), IValue(kFloat64), IValue(3),
          IValue(), IValue(false)};
  Dispatcher::singleton().find("gtest_ops::describe").call_boxed(&s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(trace()[3], "x=3 y=None dims=[4] mode=sum dtype=float64 s=3 k=None flag=false");
}

TEST_F(Library, OptionalAndListArguments) {
  using Sig = int64_t(const std::vector<std::optional<Tensor>>&, const std::optional<Scalar>&,
                      const std::optional<Generator>&, OptionalIntArrayRef, std::optional<double>, std::optional<bool>,
                      std::optional<MemoryFormat>, std::optional<Device>);
  auto typed = typed_op<Sig>("gtest_ops::optionals");
  auto boxed = typed_op<Sig>("gtest_ops::optionals_boxed");
  Tensor t = make_tensor<float>({1});
  std::vector<std::optional<Tensor>> xs = {t, std::nullopt, t};
  std::vector<int64_t> dims = {2, 3};
  for (const auto& op : {typed, boxed}) {
    trace().clear();
    EXPECT_EQ(op(xs, Scalar(1.5), default_generator(), IntArrayRef(dims), 0.5, true, MemoryFormat::Preserve,
                 Device("cpu:0")),
              2 + 7);
    EXPECT_EQ(op({}, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt),
              0);
    ASSERT_EQ(trace().size(), 2u);
    EXPECT_EQ(trace()[0], "xs=3 s=1.5 dims=[2,3] f=0.5 mf=1 d=cpu:0");
    EXPECT_EQ(trace()[1], "xs=0 s=None dims=None f=-1 mf=-1 d=None");
  }
  // From a boxed caller: a Tensor?[] may come as a generic list with None entries or as a Tensor[].
  OperatorHandle h = Dispatcher::singleton().find("gtest_ops::optionals");
  Stack s{IValue::list({IValue(t), IValue()}), IValue(), IValue(), IValue(std::vector<int64_t>{}), IValue(2),
          IValue(), IValue(), IValue()};
  h.call_boxed(&s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].to_int(), 1 + 2);  // one tensor, the empty int list, the int as a float
  Stack s2{
      IValue(std::vector<Tensor>{t, t}), IValue(), IValue(), IValue(), IValue(), IValue(false), IValue(), IValue()};
  h.call_boxed(&s2);
  EXPECT_EQ(s2.at(0).to_int(), 3);
}

TEST_F(Library, ResultKinds) {
  auto split = typed_op<std::tuple<Tensor, Tensor>(const Tensor&)>("gtest_ops::split_sign");
  auto [pos, neg] = split(make_tensor<float>({-1, 2}));
  EXPECT_EQ(values<float>(pos), (std::vector<float>{0, 2}));
  EXPECT_EQ(values<float>(neg), (std::vector<float>{1, 0}));
  Stack s{IValue(make_tensor<float>({3, -4}))};
  Dispatcher::singleton().find("gtest_ops::split_sign").call_boxed(&s);
  ASSERT_EQ(s.size(), 2u);  // a tuple return leaves one stack entry per result, in order
  EXPECT_EQ(values<float>(s[0].to_tensor()), (std::vector<float>{3, 0}));
  EXPECT_EQ(values<float>(s[1].to_tensor()), (std::vector<float>{0, 4}));

  Tensor a = make_tensor<float>({1});
  auto count = typed_op<int64_t(TensorList)>("gtest_ops::count");
  EXPECT_EQ(count(std::vector<Tensor>{a, a, a}), 3);
  auto repeat = typed_op<std::vector<Tensor>(const Tensor&, int64_t)>("gtest_ops::repeat");
  std::vector<Tensor> r = repeat(a, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[1].is_same(a));
  auto sink = typed_op<void(const Tensor&)>("gtest_ops::sink");
  sink(make_tensor<float>({1, 2, 3, 4}));
  EXPECT_EQ(trace(), (std::vector<std::string>{"sink:4"}));
  Stack v{IValue(a)};
  Dispatcher::singleton().find("gtest_ops::sink").call_boxed(&v);
  EXPECT_TRUE(v.empty());  // `-> ()` pushes nothing
}

TEST_F(Library, SignatureCheckRejectsMismatchedKernels) {
  ember::Library lib(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "signature test");
  Tensor (*wrong_arg)(const Tensor&, int64_t) = [](const Tensor& x, int64_t) { return x; };
  Error e = expect_error([&] { lib.impl("unimplemented", wrong_arg); });
  EXPECT_TRUE(contains(e.what(), "gtest_ops::unimplemented"));
  EXPECT_TRUE(contains(e.what(), "(Tensor, int) -> Tensor"));
  EXPECT_TRUE(contains(e.what(), "(Tensor, float) -> Tensor"));
  int64_t (*wrong_ret)(const Tensor&, double) = [](const Tensor&, double) { return int64_t{0}; };
  expect_error([&] { lib.impl("unimplemented", wrong_ret); });
  Tensor (*too_few)(const Tensor&) = [](const Tensor& x) { return x; };
  expect_error([&] { lib.impl("unimplemented", too_few); });
  // Nothing was registered: calling the op reports that it has no kernel, naming it.
  auto op = typed_op<Tensor(const Tensor&, double)>("gtest_ops::unimplemented");
  Error n = expect_error([&] { op(make_tensor<float>({1}), 1.0); }, ErrorKind::NotImplemented);
  EXPECT_TRUE(contains(n.what(), "gtest_ops::unimplemented"));
  // typed_op checks the requested C++ signature against the schema too.
  Error t = expect_error([] { typed_op<Tensor(const Tensor&, int64_t)>("gtest_ops::scale"); });
  EXPECT_TRUE(contains(t.what(), "(Tensor, float) -> Tensor"));
  expect_error([] { typed_op<Tensor(const Tensor&)>("gtest_ops::split_sign"); });
}

TEST_F(Library, DuplicatesAreRejected) {
  ember::Library defs(ember::Library::Kind::Fragment, "gtest_ops", DispatchKey::CompositeImplicitAutograd, "dup test");
  Error e = expect_error([&] { defs.def("scale(Tensor x, float alpha=1.0) -> Tensor"); });
  EXPECT_TRUE(contains(e.what(), "duplicate definition of op gtest_ops::scale"));
  expect_error([&] { defs.def("scale(Tensor x) -> Tensor"); });  // same name and overload, other signature
  expect_error(
      [&] { Dispatcher::singleton().def("add.Tensor(Tensor self, Tensor other) -> Tensor", {}, "aten", "t"); });
  ember::Library impls(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "dup test");
  Error k = expect_error([&] { impls.impl("scale", &scale_cpu); });
  EXPECT_TRUE(contains(k.what(), "already registered"));
  // The original kernel still serves the op.
  EXPECT_EQ(values<float>(typed_op<Tensor(const Tensor&, double)>("gtest_ops::scale")(make_tensor<float>({2}), 2.0)),
            (std::vector<float>{4}));
}

TEST_F(Library, UnknownOpsAreNamed) {
  EXPECT_FALSE(Dispatcher::singleton().find("gtest_ops::nope").valid());
  EXPECT_FALSE(Dispatcher::singleton().find("aten::add").valid());  // "aten::add" is the empty overload
  Error e = expect_error([] { Dispatcher::singleton().find_or_throw("gtest_ops::nope"); });
  EXPECT_TRUE(contains(e.what(), "gtest_ops::nope"));
  Error t = expect_error([] { typed_op<Tensor(const Tensor&)>("gtest_ops::nope.overload"); });
  EXPECT_TRUE(contains(t.what(), "gtest_ops::nope.overload"));
  ember::Library impls(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "unknown test");
  Error i = expect_error([&] { impls.impl("nope", &ft_cpu); });
  EXPECT_TRUE(contains(i.what(), "no op named gtest_ops::nope"));
  std::vector<std::string> names;
  for (const OperatorHandle& h : Dispatcher::singleton().overloads("aten::add")) names.push_back(h.schema().overload);
  EXPECT_NE(std::find(names.begin(), names.end(), "Tensor"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "Scalar"), names.end());
}

TEST_F(Library, RegistrationRules) {
  ember::Library impls(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "rules test");
  Error d = expect_error([&] { impls.def("another(Tensor x) -> Tensor"); });
  EXPECT_TRUE(contains(d.what(), "not allowed in an EMBER_LIBRARY_IMPL block"));
  Error ns = expect_error([&] { impls.impl("aten::relu", &ft_cpu); });
  EXPECT_TRUE(contains(ns.what(), "another namespace"));
  ember::Library defs(ember::Library::Kind::Fragment, "gtest_ops", DispatchKey::CompositeImplicitAutograd, "rules");
  expect_error([&] { defs.def("aten::mine(Tensor x) -> Tensor"); });
  expect_error([&] { defs.fallback(KernelFunction::make_fallthrough()); });  // fallbacks need namespace '_'
  Error key = expect_error([] {
    register_library(ember::Library::Kind::Impl, "gtest_ops", "Bogus", [](ember::Library&) {}, "file.cpp", 7);
  });
  EXPECT_TRUE(contains(key.what(), "unknown dispatch key 'Bogus'"));
  EXPECT_TRUE(contains(key.what(), "file.cpp:7"));
  Error bad = expect_error([&] { defs.def("broken(Tensor x -> Tensor"); });
  EXPECT_TRUE(contains(bad.what(), "at column"));
}

TEST_F(Library, DispatchKeyOrder) {
  auto layered = typed_op<Tensor(const Tensor&)>("gtest_ops::layered");
  Tensor plain = make_tensor<float>({1});
  Tensor tracked = with_autograd_meta(make_tensor<float>({1}));

  layered(plain);
  EXPECT_EQ(trace(), (std::vector<std::string>{"layered:CPU"}));
  trace().clear();
  layered(tracked);  // the tensor's autograd metadata adds the Autograd key
  EXPECT_EQ(trace(), (std::vector<std::string>{"layered:Autograd", "layered:CPU"}));
  trace().clear();
  {
    IncludeDispatchKeyGuard inc(DispatchKey::Tracer);
    layered(tracked);
    EXPECT_TRUE(tls_local_keys().included.has(DispatchKey::Tracer));
  }
  EXPECT_FALSE(tls_local_keys().included.has(DispatchKey::Tracer));  // the guard restores the set
  EXPECT_EQ(trace(), (std::vector<std::string>{"layered:Tracer", "layered:Autograd", "layered:CPU"}));
  trace().clear();
  {
    IncludeDispatchKeyGuard inc(DispatchKey::Tracer);
    ExcludeDispatchKeyGuard exc(DispatchKey::Autograd);
    layered(tracked);
  }
  EXPECT_EQ(trace(), (std::vector<std::string>{"layered:Tracer", "layered:CPU"}));
  trace().clear();
  Stack s{IValue(tracked)};  // the boxed path computes the same keys
  Dispatcher::singleton().find("gtest_ops::layered").call_boxed(&s);
  EXPECT_EQ(trace(), (std::vector<std::string>{"layered:Autograd", "layered:CPU"}));
  EXPECT_TRUE(s.at(0).to_tensor().is_same(tracked));

  DispatchKeySet ks = DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::Tracer) |
                      DispatchKeySet(DispatchKey::Autograd);
  EXPECT_EQ(ks.highest(), DispatchKey::Tracer);
  EXPECT_EQ(ks.remove(DispatchKey::Tracer).highest(), DispatchKey::Autograd);
  EXPECT_EQ((ks - DispatchKeySet(DispatchKey::Autograd)).remove(DispatchKey::Tracer).highest(), DispatchKey::CPU);
  DispatchKey k{};
  EXPECT_TRUE(parse_key("CompositeExplicitAutograd", &k));
  EXPECT_EQ(k, DispatchKey::CompositeExplicitAutograd);
  EXPECT_FALSE(parse_key("cpu", &k));
  EXPECT_EQ(key_name(DispatchKey::Autograd), "Autograd");
}

TEST_F(Library, FallthroughSkipsToTheNextKey) {
  OperatorHandle h = Dispatcher::singleton().find("gtest_ops::ft");
  EXPECT_FALSE(h.entry()->has_kernel(DispatchKey::Autograd));  // its own fallthrough wins over the fallback
  auto ft = typed_op<Tensor(const Tensor&)>("gtest_ops::ft");
  ft(with_autograd_meta(make_tensor<float>({1})));
  EXPECT_EQ(trace(), (std::vector<std::string>{"ft:CPU"}));
}

TEST_F(Library, AliasKeys) {
  // CompositeImplicitAutograd serves the backend and Autograd.
  OperatorHandle tw = Dispatcher::singleton().find("gtest_ops::twice");
  EXPECT_TRUE(tw.entry()->has_kernel(DispatchKey::CPU));
  EXPECT_TRUE(tw.entry()->has_kernel(DispatchKey::Autograd));
  auto twice_op = typed_op<Tensor(const Tensor&)>("gtest_ops::twice");
  EXPECT_EQ(values<int32_t>(twice_op(make_tensor<int32_t>({3, 4}))), (std::vector<int32_t>{6, 8}));
  // Through the Autograd key with real metadata: the kernels twice() calls read it as autograd's own (a fake
  // one, as with_autograd_meta's, is only for ops whose kernels never look at it).
  EXPECT_EQ(values<float>(twice_op(make_tensor<float>({5}).requires_grad_())), (std::vector<float>{10}));
  // CompositeExplicitAutograd serves backends only; a backend's own kernel wins over it.
  OperatorHandle ex = Dispatcher::singleton().find("gtest_ops::explicit");
  EXPECT_TRUE(ex.entry()->has_kernel(DispatchKey::CPU));
  EXPECT_TRUE(ex.entry()->has_kernel(DispatchKey::Autograd));  // the autograd fallback, as above
  typed_op<Tensor(const Tensor&)>("gtest_ops::explicit")(make_tensor<float>({1}));
  typed_op<Tensor(const Tensor&)>("gtest_ops::override")(make_tensor<float>({1}));
  EXPECT_EQ(trace(), (std::vector<std::string>{"explicit:Composite", "override:CPU"}));
}

TEST_F(Library, InitIsIdempotent) {
  EXPECT_NO_THROW(ember::init());  // the built-in ops are registered once, however often init() runs
  EXPECT_TRUE(Dispatcher::singleton().find("aten::add.Tensor").valid());
}

TEST_F(Library, CallsRaceRegistrationsSafely) {
  // Lookups are lock-free while other threads register ops and kernels (Note [lock-free lookups]).
  std::atomic<bool> stop{false};
  std::atomic<int64_t> calls{0}, wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 2; ++t)
    callers.emplace_back([&] {
      auto scale = typed_op<Tensor(const Tensor&, double)>("gtest_ops::scale");
      Tensor x = make_tensor<float>({1, 2});
      while (!stop.load()) {
        if (values<float>(scale(x, 2.0)) != std::vector<float>{2, 4}) ++wrong;
        if (values<float>(ember::add(x, x)) != std::vector<float>{2, 4}) ++wrong;
        ++calls;
      }
    });
  for (int i = 0; i < 40; ++i) {
    ember::Library defs(ember::Library::Kind::Fragment, "gtest_ops", DispatchKey::CompositeImplicitAutograd, "race");
    defs.def(fmt::format("race_{}(Tensor x) -> Tensor", i), &late_cpu_for_race);
    ember::Library impl(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "race");
    impl.impl(fmt::format("race_{}", i), &late_cpu_for_race);
  }
  while (calls.load() < 50) std::this_thread::yield();
  stop = true;
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  auto r = typed_op<Tensor(const Tensor&)>("gtest_ops::race_39");
  EXPECT_EQ(values<float>(r(make_tensor<float>({5}))), (std::vector<float>{-5}));
}

// ---- a boxed fallback on the Tracer key ---------------------------------------------------------------------
// Fallbacks are process-wide and cannot be removed, so the test's fallback always re-dispatches below itself
// and only records while this thread's flag is set; the Tracer key is only ever in a key set inside an
// IncludeDispatchKeyGuard, so other tests never reach it.
thread_local bool t_recording = false;
std::vector<std::string>& recorded() {
  static thread_local std::vector<std::string> r;
  return r;
}
void install_tracer_fallback() {
  static const bool once = [] {
    Dispatcher::singleton().fallback(DispatchKey::Tracer, KernelFunction::from_boxed([](const OperatorHandle& op,
                                                                                        Stack* s) {
      if (t_recording) recorded().push_back(op.schema().full_name());
      // Forward to the keys below Tracer, as the tracer does after recording the call.
      DispatchKeySet below = compute_keys_boxed(*s, op.schema().arguments.size()).remove(DispatchKey::Tracer);
      ExcludeDispatchKeyGuard g(DispatchKey::Tracer);  // nested ops are not recorded
      op.redispatch_boxed(below, s);
    }));
    return true;
  }();
  (void)once;
}
struct Recording {
  IncludeDispatchKeyGuard tracer{DispatchKey::Tracer};
  Recording() {
    install_tracer_fallback();
    recorded().clear();
    t_recording = true;
  }
  ~Recording() { t_recording = false; }
};

TEST_F(Library, TracerFallbackSeesTypedAndBoxedCalls) {
  Tensor a = make_tensor<float>({1, 2}), b = make_tensor<float>({10, 20});
  {
    Recording r;
    Tensor c = ember::add(a, b);
    EXPECT_EQ(values<float>(c), (std::vector<float>{11, 22}));
    Tensor z = ember::zeros({2, 2});  // a composite op: only the outer call is seen
    EXPECT_EQ(values<float>(z), (std::vector<float>(4, 0.0f)));
    Tensor s = typed_op<Tensor(const Tensor&, double)>("gtest_ops::scale")(a, 3.0);
    EXPECT_EQ(values<float>(s), (std::vector<float>{3, 6}));
    Stack st{IValue(a), IValue(2.0)};
    Dispatcher::singleton().find("gtest_ops::scale").call_boxed(&st);
    EXPECT_EQ(values<float>(st.at(0).to_tensor()), (std::vector<float>{2, 4}));
    Tensor l = typed_op<Tensor(const Tensor&)>("gtest_ops::layered")(a);  // its own Tracer kernel wins
    EXPECT_TRUE(l.is_same(a));
  }
  EXPECT_EQ(recorded(), (std::vector<std::string>{"aten::add.Tensor", "aten::zeros", "gtest_ops::scale",
                                                   "gtest_ops::scale"}));
  recorded().clear();
  ember::add(a, b);  // without the Tracer key the fallback is not reached
  EXPECT_TRUE(recorded().empty());
}

Tensor late_composite(const Tensor& x) { return ember::mul(x, x); }
Tensor late_cpu(const Tensor& x) { return ember::neg(x); }

TEST_F(Library, TracerFallbackCoversOpsRegisteredAfterIt) {
  install_tracer_fallback();
  ember::Library lib(ember::Library::Kind::Fragment, "gtest_ops", DispatchKey::CompositeImplicitAutograd, "late");
  lib.def("late_composite(Tensor x) -> Tensor", &late_composite);
  lib.def("late_cpu(Tensor x) -> Tensor");
  ember::Library impl(ember::Library::Kind::Impl, "gtest_ops", DispatchKey::CPU, "late");
  impl.impl("late_cpu", &late_cpu);
  Tensor x = make_tensor<float>({3});
  {
    Recording r;
    EXPECT_EQ(values<float>(typed_op<Tensor(const Tensor&)>("gtest_ops::late_composite")(x)), (std::vector<float>{9}));
    EXPECT_EQ(values<float>(typed_op<Tensor(const Tensor&)>("gtest_ops::late_cpu")(x)), (std::vector<float>{-3}));
  }
  EXPECT_EQ(recorded(), (std::vector<std::string>{"gtest_ops::late_composite", "gtest_ops::late_cpu"}));
}

}  // namespace
