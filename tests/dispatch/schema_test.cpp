// The schema parser on real PyTorch schemas: overloads, every kind of default, keyword-only arguments, alias
// annotations, optional and list types, named tuple returns; str() parses back to an equal schema; malformed
// text raises an error naming the column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/dispatch/Schema.h"

namespace {

using namespace ember;
using ember::testing::contains;
using Kind = SchemaType::Kind;

// Structural equality of two schemas (names, types, defaults with their tags, kwarg-only, aliases).
::testing::AssertionResult same_schema(const FunctionSchema& a, const FunctionSchema& b) {
  auto fail = [&](const std::string& what) {
    return ::testing::AssertionFailure() << what << ": '" << a.str() << "' vs '" << b.str() << "'";
  };
  if (a.name != b.name || a.overload != b.overload) return fail("name");
  auto same_args = [](const std::vector<SchemaArgument>& x, const std::vector<SchemaArgument>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      const auto &p = x[i], &q = y[i];
      if (p.name != q.name || p.type.str() != q.type.str() || p.kwarg_only != q.kwarg_only) return false;
      if (p.default_value.has_value() != q.default_value.has_value()) return false;
      if (p.default_value && (p.default_value->tag() != q.default_value->tag() ||
                              p.default_value->repr() != q.default_value->repr()))
        return false;
      if (p.alias.has_value() != q.alias.has_value()) return false;
      if (p.alias && (p.alias->set != q.alias->set || p.alias->is_write != q.alias->is_write ||
                      p.alias->to_wildcard != q.alias->to_wildcard))
        return false;
    }
    return true;
  };
  if (!same_args(a.arguments, b.arguments)) return fail("arguments");
  if (!same_args(a.returns, b.returns)) return fail("returns");
  return ::testing::AssertionSuccess();
}

// Schemas from PyTorch 1.13's native_functions.yaml (and a few written in the same grammar).
const std::vector<std::string> kPyTorchSchemas = {
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> "
    "(Tensor(a!) values, Tensor(b!) indices)",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
    "int groups=1) -> Tensor",
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True) -> Tensor",
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "randint.generator(int high, int[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "std.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False) -> Tensor",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, "
    "Generator? generator=None) -> Tensor",
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    "is_nonzero(Tensor self) -> bool",
    "_local_scalar_dense(Tensor self) -> Scalar",
    "size.int(Tensor self, int dim) -> int",
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    "pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "_assert_async(Tensor self) -> ()",
    "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False) -> Tensor",
    "upsample_nearest2d.vec(Tensor input, int[]? output_size, float[]? scale_factors) -> Tensor",
    "var_mean.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False) -> "
    "(Tensor, Tensor)",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "_batch_norm_impl_index_backward(int impl_index, Tensor input, Tensor grad_output, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_var_transform, bool train, "
    "float eps, bool[3] output_mask, Tensor reservedSpace) -> (Tensor, Tensor, Tensor)",
    "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None) -> Tensor",
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor",
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor",
    "split_with_sizes(Tensor(a) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
    "meshgrid(Tensor[] tensors) -> Tensor[]",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor",
    "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
    "new_full(Tensor self, int[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::relu(Tensor self) -> Tensor",
    "segment_reduce(Tensor data, str reduce=\"mean\", *, Tensor? lengths=None, Scalar? initial=None) -> Tensor",
    "clamp_limits(Tensor self, float lo=-inf, float hi=inf) -> Tensor",
    "full_default(int[] size=[2, 3], ScalarType dtype=float32, Device? device=None) -> Tensor",
    "randperm(int n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor",
};

TEST(Schema, ParsesPyTorchSchemasAndRoundTrips) {
  for (const std::string& text : kPyTorchSchemas) {
    SCOPED_TRACE(text);
    FunctionSchema s;
    ASSERT_NO_THROW(s = parse_schema(text)) << text;
    FunctionSchema again;
    ASSERT_NO_THROW(again = parse_schema(s.str())) << s.str();
    EXPECT_TRUE(same_schema(s, again));
    EXPECT_EQ(again.str(), s.str());
  }
}

TEST(Schema, NamesOverloadsAndNamespaces) {
  FunctionSchema s = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.name, "aten::add");
  EXPECT_EQ(s.overload, "Tensor");
  EXPECT_EQ(s.full_name(), "aten::add.Tensor");
  EXPECT_EQ(s.base_name(), "add");
  EXPECT_FALSE(s.is_mutable());
  FunctionSchema r = parse_schema("relu(Tensor self) -> Tensor", "myops");
  EXPECT_EQ(r.full_name(), "myops::relu");
  EXPECT_EQ(r.overload, "");
  FunctionSchema q = parse_schema("other::relu(Tensor self) -> Tensor", "myops");
  EXPECT_EQ(q.name, "other::relu");
  EXPECT_EQ(parse_schema("  relu ( Tensor  self )  ->  Tensor ").str(), "aten::relu(Tensor self) -> Tensor");
}

TEST(Schema, ArgumentTypesAndKwargOnly) {
  FunctionSchema s = parse_schema(
      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
      "int[2] dilation=1, int groups=1) -> Tensor");
  ASSERT_EQ(s.arguments.size(), 7u);
  EXPECT_EQ(s.arguments[2].type.kind, Kind::Optional);
  EXPECT_EQ(s.arguments[2].type.elem->kind, Kind::Tensor);
  EXPECT_TRUE(s.arguments[2].default_value->is_none());
  const SchemaArgument& stride = s.arguments[3];
  EXPECT_EQ(stride.type.kind, Kind::List);
  EXPECT_EQ(stride.type.fixed_size, 2);
  EXPECT_EQ(stride.type.str(), "int[2]");
  ASSERT_TRUE(stride.default_value->is_int_list());
  EXPECT_EQ(stride.default_value->to_int_list().vec(), (std::vector<int64_t>{1, 1}));  // a single int broadcasts
  EXPECT_EQ(s.arguments[4].default_value->to_int_list().vec(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(s.arguments[6].default_value->to_int(), 1);
  for (const auto& a : s.arguments) EXPECT_FALSE(a.kwarg_only);

  FunctionSchema e = parse_schema(
      "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor");
  EXPECT_EQ(e.arguments[0].type.str(), "int[]");
  EXPECT_FALSE(e.arguments[0].kwarg_only);
  for (size_t i = 1; i < e.arguments.size(); ++i) {
    EXPECT_TRUE(e.arguments[i].kwarg_only) << i;
    EXPECT_TRUE(e.arguments[i].default_value->is_none()) << i;
    EXPECT_TRUE(e.arguments[i].type.is_optional()) << i;
  }
  EXPECT_EQ(e.arguments[1].type.str(), "ScalarType?");
  EXPECT_EQ(e.arguments[2].type.elem->kind, Kind::Layout);
  EXPECT_EQ(e.arguments[3].type.elem->kind, Kind::Device);
  EXPECT_EQ(e.arguments[5].type.elem->kind, Kind::MemoryFormat);

  FunctionSchema idx = parse_schema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  const SchemaType& t = idx.arguments[1].type;
  EXPECT_EQ(t.kind, Kind::List);
  EXPECT_EQ(t.elem->kind, Kind::Optional);
  EXPECT_EQ(t.elem->elem->kind, Kind::Tensor);
  EXPECT_EQ(t.str(), "Tensor?[]");
  FunctionSchema opt_list = parse_schema("sum.dim_IntList(Tensor self, int[1]? dim) -> Tensor");
  EXPECT_EQ(opt_list.arguments[1].type.kind, Kind::Optional);
  EXPECT_EQ(opt_list.arguments[1].type.elem->fixed_size, 1);
  EXPECT_EQ(opt_list.arguments[1].type.str(), "int[1]?");
}

TEST(Schema, DefaultsOfEveryKind) {
  FunctionSchema s = parse_schema(
      "f(float eps=1e-05, str reduce=\"mean\", str approximate='tanh', ScalarType? dtype=None, "
      "MemoryFormat memory_format=contiguous_format, MemoryFormat? keep=preserve_format, bool flag=True, "
      "Scalar alpha=1, Scalar beta=0.5, Scalar on=False, int dim=-1, int[] dims=[], int[] sizes=[2, -3], "
      "float lo=-inf, float m=10, ScalarType dt=float64, Tensor[] ts=[], int? k=None) -> Tensor");
  auto d = [&](size_t i) -> const IValue& { return *s.arguments[i].default_value; };
  EXPECT_TRUE(d(0).is_double());
  EXPECT_DOUBLE_EQ(d(0).to_double(), 1e-05);
  EXPECT_EQ(d(1).to_string(), "mean");
  EXPECT_EQ(d(2).to_string(), "tanh");
  EXPECT_TRUE(d(3).is_none());
  EXPECT_EQ(d(4).to_int(), static_cast<int64_t>(MemoryFormat::Contiguous));
  EXPECT_EQ(d(5).to_int(), static_cast<int64_t>(MemoryFormat::Preserve));
  EXPECT_TRUE(d(6).to_bool());
  EXPECT_TRUE(d(7).is_int());  // Scalar defaults keep the literal's kind
  EXPECT_EQ(d(7).to_int(), 1);
  EXPECT_TRUE(d(8).is_double());
  EXPECT_TRUE(d(9).is_bool());
  EXPECT_EQ(d(10).to_int(), -1);
  EXPECT_TRUE(d(11).to_int_list().empty());
  EXPECT_EQ(d(12).to_int_list().vec(), (std::vector<int64_t>{2, -3}));
  EXPECT_TRUE(std::isinf(d(13).to_double()) && d(13).to_double() < 0);
  EXPECT_TRUE(d(14).is_double());  // a float argument's integer literal is a float
  EXPECT_EQ(d(14).to_double(), 10.0);
  EXPECT_EQ(d(15).to_dtype(), kFloat64);
  EXPECT_TRUE(d(16).to_list().empty());
  EXPECT_TRUE(d(17).is_none());
  EXPECT_TRUE(same_schema(s, parse_schema(s.str())));
}

TEST(Schema, ReductionEnumDefaults) {
  // PyTorch writes loss reductions as enum names (at::Reduction: Mean = 1, Sum = 2) and dtypes by their
  // short names (randperm's dtype=long).
  FunctionSchema s =
      parse_schema("l(Tensor self, int b=Mean, int c=Sum, ScalarType? d=long, ScalarType e=float) -> Tensor");
  ASSERT_TRUE(s.arguments[1].default_value->is_int());
  EXPECT_EQ(s.arguments[1].default_value->to_int(), 1);
  EXPECT_EQ(s.arguments[2].default_value->to_int(), 2);
  EXPECT_EQ(s.arguments[3].default_value->to_dtype(), kInt64);
  EXPECT_EQ(s.arguments[4].default_value->to_dtype(), kFloat32);
  EXPECT_TRUE(same_schema(s, parse_schema(s.str())));
  // A None default is only for optional types, as in PyTorch.
  ember::testing::expect_error([] { parse_schema("l(Tensor self, int a=None) -> Tensor"); });
}

TEST(Schema, AliasAnnotationsAndReturns) {
  FunctionSchema s = parse_schema(
      "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> "
      "(Tensor(a!) values, Tensor(b!) indices)");
  EXPECT_TRUE(s.is_mutable());
  EXPECT_FALSE(s.arguments[0].alias.has_value());
  ASSERT_TRUE(s.arguments[3].alias.has_value());
  EXPECT_EQ(s.arguments[3].alias->set, "a");
  EXPECT_TRUE(s.arguments[3].alias->is_write);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  EXPECT_EQ(s.arguments[4].alias->set, "b");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_EQ(s.returns[1].alias->set, "b");
  EXPECT_TRUE(s.returns[1].alias->is_write);

  FunctionSchema view = parse_schema("view(Tensor(a) self, int[] size) -> Tensor(a)");
  EXPECT_FALSE(view.is_mutable());
  EXPECT_EQ(view.arguments[0].alias->set, "a");
  EXPECT_FALSE(view.arguments[0].alias->is_write);
  EXPECT_EQ(view.returns[0].alias->set, "a");
  EXPECT_EQ(view.returns[0].name, "");

  // A list of views of self (split, chunk, unbind): self's set flows into the wildcard set.
  FunctionSchema split = parse_schema("split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_FALSE(split.is_mutable());
  EXPECT_EQ(split.arguments[0].alias->set, "a");
  EXPECT_TRUE(split.arguments[0].alias->to_wildcard);
  EXPECT_FALSE(split.returns[0].alias->to_wildcard);
  EXPECT_EQ(split.returns[0].type.str(), "Tensor[]");
  EXPECT_EQ(split.str(), "aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_TRUE(same_schema(split, parse_schema(split.str())));

  FunctionSchema none = parse_schema("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other) -> ()");
  EXPECT_TRUE(none.returns.empty());
  EXPECT_EQ(none.arguments[0].type.str(), "Tensor[]");
  EXPECT_TRUE(none.arguments[0].alias->is_write);
  EXPECT_EQ(none.str(), "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other) -> ()");

  FunctionSchema tup = parse_schema("f(Tensor x) -> (Tensor, Tensor[], int, float, bool, Scalar)");
  ASSERT_EQ(tup.returns.size(), 6u);
  EXPECT_EQ(tup.returns[1].type.str(), "Tensor[]");
  EXPECT_EQ(tup.returns[5].type.kind, Kind::Scalar);
  FunctionSchema one = parse_schema("f(Tensor x) -> (Tensor y)");
  ASSERT_EQ(one.returns.size(), 1u);
  EXPECT_EQ(one.returns[0].name, "y");
  EXPECT_TRUE(same_schema(one, parse_schema(one.str())));
}

TEST(Schema, StrIsCanonical) {
  EXPECT_EQ(parse_schema("conv(Tensor x, int[2] stride=1, float eps=1e-05, float m=0.1, float b=10.0) -> Tensor").str(),
            "aten::conv(Tensor x, int[2] stride=[1, 1], float eps=1e-05, float m=0.1, float b=10.) -> Tensor");
  EXPECT_EQ(parse_schema("g(Tensor self, *, str approximate='none') -> Tensor").str(),
            "aten::g(Tensor self, *, str approximate=\"none\") -> Tensor");
  EXPECT_EQ(parse_schema("h(*, Tensor(a!) out) -> Tensor(a!)").str(), "aten::h(*, Tensor(a!) out) -> Tensor(a!)");
}

// The column (1-based) an error message names, or -1.
int column_of(const std::string& msg) {
  size_t p = msg.find("at column ");
  return p == std::string::npos ? -1 : std::stoi(msg.substr(p + 10));
}

struct Malformed {
  const char* text;
  int column;        // 1-based column the error must name
  const char* what;  // part of the message
};

TEST(Schema, MalformedSchemasNameTheColumn) {
  const Malformed cases[] = {
      {"add(Tensor self", 16, "expected ')'"},
      {"add(Tensor self) Tensor", 18, "expected '->'"},
      {"add(Tensr self) -> Tensor", 5, "unknown type 'Tensr'"},
      {"add(Tensor self, Tensor self) -> Tensor", 25, "duplicate argument name 'self'"},
      {"add(int x=1.5) -> Tensor", 11, "expected an integer default"},
      {"add(Tensor x=None) -> Tensor", 14, "None default for a non-optional argument"},
      {"add(Tensor self) -> Tensor junk more", 33, "unexpected trailing text"},
      {"add(bool x=Maybe) -> Tensor", 12, "expected True or False"},
      {"add(str s=\"abc) -> Tensor", 11, "unterminated string"},
      {"add(*, *, Tensor x) -> Tensor", 8, "'*' given twice"},
      {"(Tensor x) -> Tensor", 1, "expected a name"},
      {"add(int(a) x) -> Tensor", 8, "alias annotations apply to Tensor only"},
      {"add(int[2 x) -> Tensor", 11, "expected ']'"},
      {"", 1, "expected a name"},
      {"add(Tensor x) ->", 17, "expected a name"},
      {"add(Tensor) -> Tensor", 11, "expected an argument name"},
      {"add(Tensor x, int[] y=3) -> Tensor", 23, "a scalar default needs a fixed-size list type"},
      {"add(MemoryFormat m=channels_last) -> Tensor", 20, "unknown memory format 'channels_last'"},
      {"add(ScalarType t=float128) -> Tensor", 18, "unknown dtype 'float128'"},
      {"add(Tensor x=1) -> Tensor", 14, "no default values for type Tensor"},
      {"add(float f=1.2.3) -> Tensor", 13, "malformed number"},
  };
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.text);
    Error e = ember::testing::expect_error([&] { parse_schema(c.text); });
    std::string msg = e.what();
    EXPECT_TRUE(contains(msg, c.what));
    EXPECT_EQ(column_of(msg), c.column) << msg;
    EXPECT_TRUE(contains(msg, std::string("'") + c.text + "'"));  // the message quotes the schema
  }
}

// Note [schema type depth]: list/optional suffixes are bounded, so a hostile schema cannot build a type chain
// whose printing or destruction overflows the stack.
TEST(Schema, TypeNestingIsBounded) {
  EXPECT_EQ(parse_schema("f(Tensor?[] a, int[]? b) -> Tensor").arguments[0].type.str(), "Tensor?[]");
  std::string deep = "f(Tensor";
  for (int i = 0; i < 1000000; ++i) deep += (i % 2 ? "?" : "[]");
  deep += " x) -> Tensor";
  Error e = ember::testing::expect_error([&] { parse_schema(deep); });
  EXPECT_TRUE(contains(e.what(), "nests more than 16 list/optional suffixes")) << e.what();
  std::string at_limit = "f(Tensor";
  for (int i = 0; i < kMaxSchemaTypeDepth; ++i) at_limit += "[]";
  EXPECT_NO_THROW(parse_schema(at_limit + " x) -> Tensor"));
}

// A fixed list size bounds what a broadcast default allocates (kMaxSchemaFixedSize); a size of 10^12 asked
// for 8 TB before. An integer list default cut off at the end of the text is an error (it read past the text).
TEST(Schema, FixedListSizesAreBounded) {
  EXPECT_EQ(parse_schema("f(int[64] x=1) -> Tensor").arguments[0].default_value->to_int_list().size(), 64u);
  for (const char* text : {"f(int[65] x=1) -> Tensor", "f(int[999999999999] x=1) -> Tensor"}) {
    Error e = ember::testing::expect_error([&] { parse_schema(text); });
    EXPECT_TRUE(contains(e.what(), "is above the limit of 64 at column 7")) << e.what();
  }
  EMBER_EXPECT_ERROR(parse_schema("f(int[] x=["), Runtime, "expected an integer at column 12");
  EMBER_EXPECT_ERROR(parse_schema("f(int[2] x="), Runtime, "expected an integer at column 12");
}

// Duplicate argument names are found in time linear in the number of arguments (100,000 here; they were
// compared pairwise before).
TEST(Schema, ManyArgumentsParseInLinearTime) {
  std::string text = "f(";
  for (int i = 0; i < 100000; ++i) text += "Tensor a" + std::to_string(i) + ", ";
  EXPECT_EQ(parse_schema(text + "Tensor b) -> Tensor").arguments.size(), 100001u);
  Error e = ember::testing::expect_error([&] { parse_schema(text + "Tensor a99999) -> Tensor"); });
  EXPECT_TRUE(contains(e.what(), "duplicate argument name 'a99999'")) << std::string(e.what()).substr(0, 200);
}

}  // namespace
