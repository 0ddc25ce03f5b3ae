// The safe pickle reader (ember/serialize/Pickle.h) on pickles written by CPython's pickle module (protocols 2, 4
// and 5, embedded below as bytes), hostile and malformed pickles that must raise naming the problem and never run
// or crash, and torch.save's zip format written by save_torch and read back (TorchCheckpoint.h).
#include <gtest/gtest.h>

#include <string>

#include "ember/api/ember.h"
#include "ember/serialize/FileFormat.h"
#include "ember/serialize/Pickle.h"
#include "ember/serialize/TorchCheckpoint.h"

namespace {

using namespace ember;
using namespace ember::serialize;
using Kind = PickleValue::Kind;
using namespace std::string_literals;  // "..."s keeps the NUL bytes of hand-written pickles

// pickle.dumps(...) of Python 3.11 (the generator is in the commit that added this file).
const std::string kNested2(
    "\x80\x02\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71\x02\x28\x4b\x01\x4a\xfe\xff\xff"
    "\xff\x4d\x2c\x01\x4a\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\xff\x8a\x08\xff\xff\xff\xff\xff"
    "\xff\xff\x7f\x65\x58\x01\x00\x00\x00\x62\x71\x03\x28\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x4e\x88"
    "\x89\x74\x71\x04\x58\x01\x00\x00\x00\x63\x71\x05\x58\x03\x00\x00\x00\x68\xc3\xa9\x71\x06\x58\x01"
    "\x00\x00\x00\x64\x71\x07\x63\x5f\x63\x6f\x64\x65\x63\x73\x0a\x65\x6e\x63\x6f\x64\x65\x0a\x71\x08"
    "\x58\x03\x00\x00\x00\x00\xc3\xbf\x71\x09\x58\x06\x00\x00\x00\x6c\x61\x74\x69\x6e\x31\x71\x0a\x86"
    "\x71\x0b\x52\x71\x0c\x75\x2e",
    151);
const std::string kNested4(
    "\x80\x04\x95\xb5\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x61\x94\x5d\x94\x28\x4b\x01\x4a"
    "\xfe\xff\xff\xff\x4d\x2c\x01\x4a\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\xff\x8a\x08\xff\xff"
    "\xff\xff\xff\xff\xff\x7f\x65\x8c\x01\x62\x94\x28\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x4e\x88\x89"
    "\x74\x94\x8c\x01\x63\x94\x8c\x03\x68\xc3\xa9\x94\x8c\x01\x64\x94\x43\x02\x00\xff\x94\x8c\x01\x73"
    "\x94\x8f\x94\x28\x4b\x01\x4b\x02\x90\x8c\x01\x66\x94\x28\x4b\x03\x91\x94\x8c\x01\x78\x94\x8c\x08"
    "\x62\x75\x69\x6c\x74\x69\x6e\x73\x94\x8c\x07\x63\x6f\x6d\x70\x6c\x65\x78\x94\x93\x94\x47\x3f\xf0"
    "\x00\x00\x00\x00\x00\x00\x47\x40\x00\x00\x00\x00\x00\x00\x00\x86\x94\x52\x94\x8c\x02\x73\x6c\x94"
    "\x68\x0e\x8c\x05\x73\x6c\x69\x63\x65\x94\x93\x94\x4b\x01\x4b\x05\x4b\x02\x87\x94\x52\x94\x75\x2e",
    192);
const std::string kShared5(
    "\x80\x05\x95\x0f\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x5d\x94\x28\x4b\x01\x4b\x02\x65\x68\x01"
    "\x65\x2e",
    26);
const std::string kBig("\x80\x02\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x2e", 18);
const std::string kEvil(
    "\x80\x02\x63\x70\x6f\x73\x69\x78\x0a\x73\x79\x73\x74\x65\x6d\x0a\x71\x00\x58\x0a\x00\x00\x00\x65"
    "\x63\x68\x6f\x20\x70\x77\x6e\x65\x64\x71\x01\x85\x71\x02\x52\x71\x03\x2e",
    42);
const std::string kObject(
    "\x80\x02\x63\x6d\x79\x6d\x6f\x64\x0a\x50\x6f\x69\x6e\x74\x0a\x71\x00\x29\x81\x71\x01\x7d\x71\x02"
    "\x28\x58\x01\x00\x00\x00\x78\x71\x03\x4b\x01\x58\x01\x00\x00\x00\x79\x71\x04\x5d\x71\x05\x4b\x02"
    "\x61\x75\x62\x2e",
    52);

// The value of a str key of a dict value.
PickleValue at(const PickleValue& d, const std::string& key) {
  for (const auto& [k, v] : d.node()->entries)
    if (k.is(Kind::String) && k.node()->text == key) return v;
  ADD_FAILURE() << "no key " << key;
  return {};
}

std::string error_of(const std::string& data, PickleOptions o = {}) {
  try {
    read_pickle(data, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Pickle, ReadsProtocol2Values) {
  PickleValue d = read_pickle(kNested2, {});
  ASSERT_TRUE(d.is(Kind::Dict));
  const PickleValue a = at(d, "a");
  ASSERT_TRUE(a.is(Kind::List));
  std::vector<int64_t> ints;
  for (const auto& x : a.node()->items) ints.push_back(x.to_int());
  EXPECT_EQ(ints, (std::vector<int64_t>{1, -2, 300, 70000, -(int64_t{1} << 40), INT64_MAX}));
  const PickleValue b = at(d, "b");
  ASSERT_TRUE(b.is(Kind::Tuple));
  EXPECT_EQ(b.node()->items[0].to_double(), 1.5);
  EXPECT_TRUE(b.node()->items[1].is(Kind::None));
  EXPECT_TRUE(b.node()->items[2].to_bool());
  EXPECT_EQ(at(d, "c").node()->text, "h\xc3\xa9");
  // Protocol 2 pickles bytes as _codecs.encode(<latin-1 text>, 'latin1').
  ASSERT_TRUE(at(d, "d").is(Kind::Bytes));
  EXPECT_EQ(at(d, "d").node()->text, std::string("\x00\xff", 2));
}

TEST(Pickle, ReadsProtocol4FramesSetsComplexSlices) {
  PickleValue d = read_pickle(kNested4, {});
  EXPECT_EQ(at(d, "d").node()->text, std::string("\x00\xff", 2));
  EXPECT_TRUE(at(d, "s").is(Kind::Set));
  EXPECT_EQ(at(d, "s").node()->items.size(), 2u);
  EXPECT_TRUE(at(d, "f").is(Kind::Set) && at(d, "f").node()->flag);
  EXPECT_EQ(at(d, "x").to_double(), 1.0);
  EXPECT_EQ(at(d, "x").imag(), 2.0);
  ASSERT_TRUE(at(d, "sl").is(Kind::Slice));
  EXPECT_EQ(at(d, "sl").node()->items[2].to_int(), 2);
}

TEST(Pickle, MemoSharesNodes) {
  PickleValue l = read_pickle(kShared5, {});
  ASSERT_EQ(l.node()->items.size(), 2u);
  EXPECT_EQ(l.node()->items[0].node(), l.node()->items[1].node());
}

TEST(Pickle, BigIntsKeepTheirBytes) {
  PickleValue v = read_pickle(kBig, {});
  ASSERT_TRUE(v.is(Kind::BigInt));
  EXPECT_EQ(v.node()->text.size(), 13u);
}

TEST(Pickle, RefusesGlobalsOutsideTheAllowList) {
  const std::string e = error_of(kEvil);
  EXPECT_NE(e.find("global 'posix.system' is not allowed"), std::string::npos) << e;
  EXPECT_NE(e.find("offset 2"), std::string::npos) << e;
  // Placeholders: inert, with the call's arguments.
  PickleOptions o;
  o.placeholders = true;
  PickleValue v = read_pickle(kEvil, o);
  ASSERT_TRUE(v.is(Kind::Object));
  EXPECT_EQ(v.node()->text, "posix.system");
  EXPECT_EQ(v.node()->items[0].node()->text, "echo pwned");
}

TEST(Pickle, PlaceholderKeepsClassAndState) {
  EXPECT_NE(error_of(kObject).find("'mymod.Point' is not allowed"), std::string::npos);
  PickleOptions o;
  o.placeholders = true;
  PickleValue v = read_pickle(kObject, o);
  ASSERT_TRUE(v.is(Kind::Object));
  EXPECT_EQ(v.node()->text, "mymod.Point");
  ASSERT_EQ(v.node()->state.size(), 1u);
  EXPECT_EQ(at(v.node()->state[0], "x").to_int(), 1);
}

TEST(Pickle, BadInputRaises) {
  // Every prefix of a valid pickle is truncated.
  for (size_t n = 0; n < kNested4.size(); ++n) {
    const std::string e = error_of(kNested4.substr(0, n));
    EXPECT_NE(e.find("pickle: '<pickle>'"), std::string::npos) << n << ": " << e;
  }
  EXPECT_NE(error_of("\x80\x02\xff.").find("unsupported opcode 0xff"), std::string::npos);
  EXPECT_NE(error_of("\x80\x02h\x05.").find("memo entry 5 was never stored"), std::string::npos);
  EXPECT_NE(error_of("\x80\x02.").find("the stack is empty"), std::string::npos);
  EXPECT_NE(error_of("\x80\x02\x95\x01\x00\x00\x00\x00\x00\x00\x00\x97."s).find("out-of-band"), std::string::npos);
  // A list that contains itself: EMPTY_LIST BINPUT 0 BINGET 0 APPEND STOP.
  EXPECT_NE(error_of("\x80\x02]q\x00h\x00\x61."s).find("contains itself"), std::string::npos);
  // A cycle that is popped before STOP leaks nothing (checked under ASan) and the result reads.
  EXPECT_EQ(read_pickle(std::string("\x80\x02]q\x00h\x00\x61\x30N.", 11), {}).kind(), Kind::None);
  // BINUNICODE claiming 4 GB in a small input.
  EXPECT_NE(error_of(std::string("\x80\x02X\xff\xff\xff\xff", 8)).find("truncated"), std::string::npos);
  // A torch.device called with an int.
  EXPECT_NE(error_of("\x80\x02\x63torch\ndevice\nK\x01\x85R.").find("torch.device of a int"), std::string::npos);
}

TEST(Pickle, LimitsDepthMarksAndMemo) {
  // 5000 nested one-tuples: EMPTY_TUPLE then TUPLE1 x 5000.
  std::string deep = "\x80\x02)" + std::string(5000, '\x85') + ".";
  EXPECT_NE(error_of(deep).find("nested more than 1000"), std::string::npos);
  std::string marks = "\x80\x02" + std::string(2000, '(') + ".";
  EXPECT_NE(error_of(marks).find("MARKs nested more than 1000"), std::string::npos);
  PickleOptions o;
  o.limits.max_memo = 2;
  EXPECT_NE(error_of("\x80\x02Nq\x00q\x01q\x02."s, o).find("memo holds more than 2"), std::string::npos);
  o = {};
  o.limits.max_stack = 3;
  EXPECT_NE(error_of("\x80\x02NNNN.", o).find("stack holds more than 3"), std::string::npos);
}

TEST(Pickle, PersistentIdsGoToTheCallback) {
  // ('a',) BINPERSID
  PickleOptions o;
  o.persistent_load = [](const PickleValue& pid) {
    EXPECT_TRUE(pid.is(Kind::Tuple));
    return PickleValue::integer(42);
  };
  EXPECT_EQ(read_pickle(std::string("\x80\x02X\x01\x00\x00\x00\x61\x85Q.", 11), o).to_int(), 42);
  EXPECT_NE(error_of(std::string("\x80\x02X\x01\x00\x00\x00\x61\x85Q.", 11)).find("persistent id"), std::string::npos);
}

// ---- torch.save's zip format: written by save_torch, read back -----------------------------------------------

TEST(TorchCheckpoint, RoundTripSharesStorages) {
  Tensor x = arange(12, TensorOptions().dtype(kFloat32)).reshape({3, 4});
  Tensor xt = x.t();
  Tensor b = ones({3}, TensorOptions().dtype(kBool));
  Tensor h = ones({2}, TensorOptions().dtype(kBFloat16));
  Attributes attrs;
  IValue obj = IValue::dict({{"x", x}, {"xt", xt}, {"row", x.select(0, 1)}, {"b", b}, {"h", h}, {"n", int64_t{-7}},
                             {"f", 2.5}, {"s", "str"}, {"l", IValue::list({IValue(1), IValue()})}});
  attrs.ordered_dicts.insert(obj.payload_ptr());
  const std::string bytes = save_torch_to_bytes(obj, &attrs);
  EXPECT_EQ(sniff_format(bytes), FileFormat::Zip);
  Attributes back;
  IValue v = load_from_bytes(bytes, &back, "x.pt");  // serialize::load reads torch files by content
  EXPECT_TRUE(back.ordered_dicts.count(v.payload_ptr()));
  const auto& d = v.to_dict();
  ASSERT_EQ(d.size(), 9u);
  Tensor x2 = d[0].second.to_tensor(), xt2 = d[1].second.to_tensor(), row2 = d[2].second.to_tensor();
  EXPECT_TRUE(equal(x2, x));
  EXPECT_TRUE(equal(xt2, xt));
  EXPECT_EQ(xt2.strides().vec(), xt.strides().vec());
  EXPECT_EQ(row2.storage_offset(), 4);
  EXPECT_EQ(x2.impl()->storage().get(), xt2.impl()->storage().get());
  EXPECT_EQ(x2.impl()->storage().get(), row2.impl()->storage().get());
  EXPECT_EQ(d[3].second.to_tensor().dtype(), kBool);
  EXPECT_EQ(d[4].second.to_tensor().dtype(), kBFloat16);
  EXPECT_EQ(d[5].second.to_int(), -7);
  EXPECT_EQ(d[6].second.to_double(), 2.5);
  EXPECT_EQ(d[7].second.to_string(), "str");
}

TEST(TorchCheckpoint, StorageSmallerThanItsViewIsRefused) {
  // _rebuild_tensor_v2(<storage of 2 floats>, 0, (10^6, 10^6), (10^6, 1), False, {}): a 10^12-element view.
  const std::string pkl(
      "\x80\x02" "ctorch._utils\n_rebuild_tensor_v2\n"
      "(" "X\x01\x00\x00\x00s\x85Q" "K\x00" "(J\x40\x42\x0f\x00J\x40\x42\x0f\x00t" "(J\x40\x42\x0f\x00K\x01t"
      "\x89}tR.",
      72);
  PickleOptions o;
  o.persistent_load = [](const PickleValue&) {
    auto n = std::make_shared<PickleNode>();
    n->storage = make_intrusive<StorageImpl>(8);
    n->storage_dtype = kFloat32;
    n->storage_numel = 2;
    return PickleValue::with_node(Kind::Storage, n);
  };
  const std::string e = error_of(pkl, o);
  EXPECT_NE(e.find("does not fit its storage of 2 elements"), std::string::npos) << e;
}

}  // namespace
