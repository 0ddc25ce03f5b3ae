// IValue: every tag, accessors that check the tag (TypeError otherwise), and reference counting of heap
// payloads, especially tensors, through copies, moves and containers.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "TestSupport.h"
#include "ember/dispatch/IValue.h"

namespace {

using namespace ember;
using ember::testing::expect_error;
using Tag = IValue::Tag;

TEST(IValue, InlineValues) {
  IValue none;
  EXPECT_TRUE(none.is_none());
  EXPECT_EQ(none.repr(), "None");
  EXPECT_TRUE(IValue(std::nullopt).is_none());
  EXPECT_EQ(none.payload_ptr(), nullptr);

  IValue b(true);
  EXPECT_EQ(b.tag(), Tag::Bool);
  EXPECT_TRUE(b.to_bool());
  EXPECT_EQ(b.repr(), "True");
  EXPECT_EQ(IValue(false).repr(), "False");

  IValue i(int64_t{-42});
  EXPECT_EQ(i.tag(), Tag::Int);
  EXPECT_EQ(i.to_int(), -42);
  EXPECT_EQ(i.to_double(), -42.0);  // ints read as floats
  EXPECT_EQ(i.repr(), "-42");
  EXPECT_EQ(IValue(int8_t{3}).tag(), Tag::Int);
  EXPECT_EQ(IValue(3u).to_int(), 3);

  IValue d(2.5);
  EXPECT_EQ(d.tag(), Tag::Double);
  EXPECT_EQ(d.to_double(), 2.5);
  EXPECT_EQ(d.repr(), "2.5");
  EXPECT_TRUE(d.is_scalar());

  IValue t(kBFloat16);
  EXPECT_EQ(t.tag(), Tag::DType);
  EXPECT_EQ(t.to_dtype(), kBFloat16);
  EXPECT_EQ(t.repr(), "bfloat16");

  for (Device dev : {Device(DeviceType::CPU), Device(DeviceType::CPU, 0), Device(DeviceType::CUDA, 3)}) {
    IValue v(dev);
    EXPECT_EQ(v.tag(), Tag::Device);
    EXPECT_EQ(v.to_device(), dev);
    EXPECT_EQ(v.repr(), dev.str());
  }
  EXPECT_EQ(IValue(MemoryFormat::Preserve).to_int(), static_cast<int64_t>(MemoryFormat::Preserve));
}

TEST(IValue, Scalars) {
  EXPECT_EQ(IValue(Scalar(true)).tag(), Tag::Bool);
  EXPECT_EQ(IValue(Scalar(7)).tag(), Tag::Int);
  EXPECT_EQ(IValue(Scalar(0.25)).tag(), Tag::Double);
  Scalar s = IValue(Scalar(7)).to_scalar();
  EXPECT_TRUE(s.is_integral());
  EXPECT_EQ(s.to_long(), 7);
  EXPECT_TRUE(IValue(false).to_scalar().is_bool());
  EXPECT_TRUE(IValue(1.5).to_scalar().is_floating_point());
  expect_error([] { IValue("x").to_scalar(); }, ErrorKind::Type);
}

TEST(IValue, Optionals) {
  EXPECT_TRUE(IValue(std::optional<int64_t>()).is_none());
  EXPECT_EQ(IValue(std::optional<int64_t>(5)).to_int(), 5);
  EXPECT_EQ(IValue(std::optional<DType>(kInt8)).to_dtype(), kInt8);
  EXPECT_TRUE(IValue(std::optional<Tensor>()).is_none());
  EXPECT_TRUE(IValue(std::optional<double>(1.0)).is_double());
}

TEST(IValue, WrongTagRaisesTypeError) {
  Error e = expect_error([] { IValue(2.5).to_int(); }, ErrorKind::Type);
  EXPECT_STREQ(e.what(), "expected a value of type int but got float");
  expect_error([] { IValue(1).to_bool(); }, ErrorKind::Type);
  expect_error([] { IValue(true).to_double(); }, ErrorKind::Type);
  expect_error([] { IValue().to_tensor(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_string(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_dtype(); }, ErrorKind::Type);
  expect_error([] { IValue(kFloat32).to_device(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_int_list(); }, ErrorKind::Type);
  expect_error([] { IValue(std::vector<int64_t>{1}).to_tensor_list(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_list(); }, ErrorKind::Type);
  expect_error([] { IValue::list({}).to_tuple(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_dict(); }, ErrorKind::Type);
  expect_error([] { IValue(1).to_generator(); }, ErrorKind::Type);
}

TEST(IValue, Strings) {
  IValue a("abc");
  IValue b(std::string("abc"));
  IValue c(std::string_view("xyz"));
  EXPECT_EQ(a.tag(), Tag::String);
  EXPECT_EQ(a.to_string(), "abc");
  EXPECT_EQ(c.to_string(), "xyz");
  EXPECT_EQ(a.repr(), "\"abc\"");
  IValue copy = a;
  EXPECT_EQ(copy.payload_ptr(), a.payload_ptr());  // copies share the string
  EXPECT_NE(b.payload_ptr(), a.payload_ptr());
  IValue moved = std::move(copy);
  EXPECT_TRUE(copy.is_none());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.to_string(), "abc");
}

TEST(IValue, TensorRefcounts) {
  Tensor t = make_empty({2, 3}, kFloat32);
  EXPECT_EQ(t.use_count(), 1u);
  {
    IValue v(t);
    EXPECT_EQ(v.tag(), Tag::Tensor);
    EXPECT_TRUE(v.to_tensor().is_same(t));
    EXPECT_EQ(v.payload_ptr(), t.impl());
    EXPECT_EQ(t.use_count(), 2u);
    IValue copy = v;
    EXPECT_EQ(t.use_count(), 3u);
    IValue moved = std::move(copy);
    EXPECT_EQ(t.use_count(), 3u);
    EXPECT_TRUE(copy.is_none());  // NOLINT(bugprone-use-after-move)
    IValue assigned(1);
    assigned = v;
    EXPECT_EQ(t.use_count(), 4u);
    assigned = IValue("replaces the tensor");
    EXPECT_EQ(t.use_count(), 3u);
    assigned = std::move(moved);
    EXPECT_EQ(t.use_count(), 3u);
    IValue& alias = v;
    v = alias;  // self-assignment keeps one reference
    EXPECT_EQ(t.use_count(), 3u);
    EXPECT_EQ(v.repr(), "Tensor(float32[2, 3])");
  }
  EXPECT_EQ(t.use_count(), 1u);
  {
    Tensor tmp = t;
    EXPECT_EQ(t.use_count(), 2u);
    IValue stolen(std::move(tmp));  // takes the handle's reference
    EXPECT_FALSE(tmp.defined());    // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(t.use_count(), 2u);
  }
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_TRUE(IValue(Tensor()).is_none());  // an undefined tensor boxes as None
}

TEST(IValue, Swap) {
  Tensor t = make_empty({1}, kInt64);
  IValue a(t), b(3);
  a.swap(b);
  EXPECT_EQ(a.to_int(), 3);
  EXPECT_TRUE(b.to_tensor().is_same(t));
  EXPECT_EQ(t.use_count(), 2u);
}

TEST(IValue, Lists) {
  IValue ints(std::vector<int64_t>{1, 2, 3});
  EXPECT_EQ(ints.tag(), Tag::IntList);
  EXPECT_EQ(ints.to_int_list().vec(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(ints.repr(), "[1, 2, 3]");
  IValue from_ref(IntArrayRef({4, 5}));
  EXPECT_EQ(from_ref.to_int_list().vec(), (std::vector<int64_t>{4, 5}));

  Tensor a = make_empty({1}, kFloat32), b = make_empty({2}, kFloat32);
  {
    IValue tl(std::vector<Tensor>{a, b});
    EXPECT_EQ(tl.tag(), Tag::TensorList);
    EXPECT_EQ(a.use_count(), 2u);
    TensorList l = tl.to_tensor_list();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_TRUE(l[1].is_same(b));
    EXPECT_EQ(tl.repr(), "Tensor[2]");
    IValue copy = tl;
    EXPECT_EQ(a.use_count(), 2u);  // the list is shared, not its elements copied
    IValue from_list(TensorList(std::vector<Tensor>{a}));
    EXPECT_EQ(a.use_count(), 3u);
  }
  EXPECT_EQ(a.use_count(), 1u);

  {
    IValue g = IValue::list({IValue(1), IValue(2.5), IValue(a), IValue()});
    EXPECT_EQ(g.tag(), Tag::List);
    EXPECT_EQ(g.to_list().size(), 4u);
    EXPECT_EQ(a.use_count(), 2u);
    EXPECT_EQ(g.repr(), "[1, 2.5, Tensor(float32[1]), None]");
    IValue nested = IValue::list({g, g});
    EXPECT_EQ(a.use_count(), 2u);
  }
  EXPECT_EQ(a.use_count(), 1u);
}

TEST(IValue, TuplesAndDicts) {
  Tensor t = make_empty({3}, kInt32);
  {
    IValue tup = IValue::tuple({IValue(t), IValue("s"), IValue(1)});
    EXPECT_EQ(tup.tag(), Tag::Tuple);
    EXPECT_EQ(tup.to_tuple().size(), 3u);
    EXPECT_EQ(tup.to_list().size(), 3u);  // to_list reads a tuple too
    EXPECT_EQ(tup.repr(), "(Tensor(int32[3]), \"s\", 1)");
    EXPECT_EQ(IValue::tuple({IValue(1)}).repr(), "(1,)");
    EXPECT_EQ(t.use_count(), 2u);
    IValue dict = IValue::dict({{IValue("w"), IValue(t)}, {IValue(2), IValue(2.5)}});
    EXPECT_EQ(dict.tag(), Tag::Dict);
    ASSERT_EQ(dict.to_dict().size(), 2u);
    EXPECT_EQ(dict.to_dict()[0].first.to_string(), "w");  // insertion order
    EXPECT_EQ(dict.repr(), "{\"w\": Tensor(int32[3]), 2: 2.5}");
    EXPECT_EQ(t.use_count(), 3u);
  }
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(IValue, Generators) {
  const Generator& g = default_generator();
  uint32_t before = g.use_count();
  {
    IValue v(g);
    EXPECT_EQ(v.tag(), Tag::Generator);
    EXPECT_EQ(g.use_count(), before + 1);
    Generator back = v.to_generator();
    EXPECT_EQ(back.get(), g.get());
    EXPECT_EQ(g.use_count(), before + 2);
    EXPECT_EQ(v.repr(), "Generator");
  }
  EXPECT_EQ(g.use_count(), before);
  auto own = make_intrusive<GeneratorImpl>(42);
  IValue v(own);
  EXPECT_EQ(v.to_generator()->initial_seed(), 42u);
}

TEST(IValue, TagNames) {
  EXPECT_EQ(IValue().tag_name(), "None");
  EXPECT_EQ(IValue(1).tag_name(), "int");
  EXPECT_EQ(IValue(1.0).tag_name(), "float");
  EXPECT_EQ(IValue("a").tag_name(), "str");
  EXPECT_EQ(IValue(make_empty({1}, kFloat32)).tag_name(), "Tensor");
  EXPECT_EQ(IValue(kInt8).tag_name(), "ScalarType");
  EXPECT_EQ(IValue(std::vector<int64_t>{}).tag_name(), "int[]");
  EXPECT_EQ(IValue::tuple({}).tag_name(), "tuple");
}

}  // namespace
