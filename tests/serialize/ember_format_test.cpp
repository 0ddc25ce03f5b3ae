// Ember's file format (ember/serialize/EmberFormat.h): round trips of IValue trees through files and bytes
// (values, shared storages and views, attributes), atomic writes, and corrupt files (cut, flipped bytes,
// hand-made zips with missing or short entries) that must raise "load: '<file>': ..." and never crash.
#include <gtest/gtest.h>
#include <zip.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
namespace fs = std::filesystem;
using ember::testing::values;
using ember::testing::vec;

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_file(const fs::path& p, std::string_view data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// A fresh directory per test, removed afterwards.
class EmberFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / fmt::format("ember_serialize_{}_{}", info->name(), static_cast<long>(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string path(const char* name) const { return (dir / name).string(); }
  fs::path dir;
};

IValue sample(const Tensor& x) {
  return IValue::dict(
      {{"x", x},
       {"xt", x.t()},
       {"row", x.select(0, 1)},
       {"again", x},
       {"ints", IValue(std::vector<int64_t>{1, -2, 3})},
       {7, IValue::tuple({IValue(), true, int64_t{-5}, 2.5, std::nan(""), -0.0, "text", kBFloat16})},
       {"nested", IValue::list({IValue::dict({}), IValue::list({}), IValue::tuple({x.select(1, 2)})})}});
}

void check_sample(const IValue& v) {
  const auto& items = v.to_dict();
  ASSERT_EQ(items.size(), 7u);
  const Tensor& x = items[0].second.to_tensor();
  const Tensor& xt = items[1].second.to_tensor();
  const Tensor& row = items[2].second.to_tensor();
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(vec(xt.sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(xt.strides()), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(row.storage_offset(), 3);
  EXPECT_EQ(values<float>(row), (std::vector<float>{3, 4, 5}));
  EXPECT_TRUE(shares_storage(x, xt) && shares_storage(x, row));
  EXPECT_TRUE(items[3].second.to_tensor().is_same(x));  // the same TensorImpl twice loads as one
  EXPECT_EQ(items[4].second.to_list().size(), 3u);       // an int[] comes back as a generic list
  EXPECT_EQ(items[4].second.to_list()[1].to_int(), -2);
  EXPECT_EQ(items[5].first.to_int(), 7);
  const auto& tup = items[5].second.to_tuple();
  ASSERT_TRUE(items[5].second.is_tuple());
  EXPECT_TRUE(tup[0].is_none());
  EXPECT_TRUE(tup[1].to_bool());
  EXPECT_EQ(tup[2].to_int(), -5);
  EXPECT_EQ(tup[3].to_double(), 2.5);
  EXPECT_TRUE(std::isnan(tup[4].to_double()));
  EXPECT_TRUE(std::signbit(tup[5].to_double()));
  EXPECT_EQ(tup[6].to_string(), "text");
  EXPECT_EQ(tup[7].to_dtype(), kBFloat16);
  const auto& nested = items[6].second.to_list();
  EXPECT_TRUE(nested[0].to_dict().empty());
  EXPECT_TRUE(nested[1].is_list() && nested[1].to_list().empty());
  const Tensor& col = nested[2].to_tuple()[0].to_tensor();
  EXPECT_EQ(values<float>(col), (std::vector<float>{2, 5}));
  EXPECT_TRUE(shares_storage(col, x));
}

TEST_F(EmberFormat, RoundTripThroughFileAndBytes) {
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  serialize::save(sample(x), path("a.ember"));
  EXPECT_EQ(listing(), std::vector<std::string>{"a.ember"});  // no temporary left behind
  check_sample(serialize::load(path("a.ember")));
  std::string bytes = serialize::save_to_bytes(sample(x));
  check_sample(serialize::load_from_bytes(bytes));
  // Deterministic: the same object gives the same bytes, by path or in memory.
  EXPECT_EQ(read_file(dir / "a.ember"), bytes);
  EXPECT_EQ(serialize::save_to_bytes(sample(x)), bytes);
}

TEST_F(EmberFormat, EveryDTypeAndEmptyAndZeroDim) {
  std::vector<IValue> items;
  for (DType d : {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kFloat32, kFloat64, kBool, kBFloat16}) {
    items.push_back(arange(5, d == kBool ? kInt64 : kFloat32).to(d));
    items.push_back(ones({0, 3}, d));
    items.push_back(ones({}, d));
  }
  IValue loaded = serialize::load_from_bytes(serialize::save_to_bytes(IValue::list(items)));
  const auto& got = loaded.to_list();
  ASSERT_EQ(got.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Tensor& a = items[i].to_tensor();
    const Tensor& b = got[i].to_tensor();
    EXPECT_EQ(a.dtype(), b.dtype());
    EXPECT_EQ(vec(a.sizes()), vec(b.sizes()));
    EXPECT_TRUE(a.equal(b)) << a.str() << " vs " << b.str();
  }
}

TEST_F(EmberFormat, AttributesRoundTrip) {
  Tensor w = ones({2, 2});
  Tensor b = zeros({2});
  autograd::set_requires_grad(w, true);
  IValue meta = IValue::dict({{"", IValue::dict({{"version", 1}})}});
  IValue sd = IValue::dict({{"w", w}, {"b", b}});
  serialize::Attributes attrs;
  attrs.ordered_dicts.insert(sd.payload_ptr());
  attrs.dict_metadata.emplace(sd.payload_ptr(), meta);
  attrs.parameters.insert(w.impl());
  serialize::save(sd, path("sd.ember"), &attrs);

  serialize::Attributes got;
  IValue v = serialize::load(path("sd.ember"), &got);
  const Tensor& lw = v.to_dict()[0].second.to_tensor();
  const Tensor& lb = v.to_dict()[1].second.to_tensor();
  EXPECT_TRUE(got.ordered_dicts.count(v.payload_ptr()));
  ASSERT_TRUE(got.dict_metadata.count(v.payload_ptr()));
  EXPECT_EQ(got.dict_metadata.at(v.payload_ptr()).to_dict()[0].second.to_dict()[0].second.to_int(), 1);
  EXPECT_TRUE(got.parameters.count(lw.impl()) && !got.parameters.count(lb.impl()));
  EXPECT_TRUE(got.requires_grad.count(lw.impl()) && !got.requires_grad.count(lb.impl()));
  // Without attributes the values load the same.
  EXPECT_TRUE(serialize::load(path("sd.ember")).to_dict()[0].second.to_tensor().equal(w));
}

// Note [tuple classes]: a Size and a namedtuple keep their class through save and load; a C++ reader without
// attributes sees plain tuples; a Size of non-ints or a namedtuple with the wrong number of fields is refused.
TEST_F(EmberFormat, TupleClassesRoundTrip) {
  IValue size = IValue::tuple({2, 3});
  IValue point = IValue::tuple({ones({2}), 7});
  IValue plain = IValue::tuple({});
  IValue obj = IValue::list({size, point, plain});
  serialize::Attributes attrs;
  attrs.tuple_classes[size.payload_ptr()].size = true;
  attrs.tuple_classes[point.payload_ptr()] = {false, "pkg.mod", "Outer.Point", {"x", "y"}};
  std::string bytes = serialize::save_to_bytes(obj, &attrs);

  serialize::Attributes got;
  IValue v = serialize::load_from_bytes(bytes, &got);
  const auto& items = v.to_list();
  ASSERT_EQ(got.tuple_classes.size(), 2u);
  EXPECT_TRUE(got.tuple_classes.at(items[0].payload_ptr()).size);
  const serialize::TupleClass& p = got.tuple_classes.at(items[1].payload_ptr());
  EXPECT_FALSE(p.size);
  EXPECT_EQ(p.module, "pkg.mod");
  EXPECT_EQ(p.qualname, "Outer.Point");
  EXPECT_EQ(p.fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(got.tuple_classes.count(items[2].payload_ptr()));
  EXPECT_EQ(serialize::load_from_bytes(bytes).to_list()[0].to_tuple()[1].to_int(), 3);  // no attrs: tuples

  attrs.tuple_classes[size.payload_ptr()] = {true, "", "", {}};
  IValue bad_size = IValue::tuple({2, 2.5});
  attrs.tuple_classes[bad_size.payload_ptr()].size = true;
  EMBER_EXPECT_ERROR(serialize::save_to_bytes(IValue::list({1, bad_size}), &attrs), Type,
                     "the Size at obj[1] holds a float, not an int");
  attrs.tuple_classes[point.payload_ptr()].fields = {"x"};
  EMBER_EXPECT_ERROR(serialize::save_to_bytes(point, &attrs), Type,
                     "the namedtuple at obj has 2 items but 1 field names");
}

TEST_F(EmberFormat, UnsupportedValuesRaiseBeforeAnyFileExists) {
  IValue bad = IValue::dict({{"g", IValue::list({1, default_generator()})}});
  EMBER_EXPECT_ERROR(serialize::save(bad, path("bad.ember")), Type, "Generator (at obj['g'][1])");
  EMBER_EXPECT_ERROR(serialize::save(IValue::dict({{IValue(2.5), 1}}), path("bad.ember")), Type,
                     "dict keys must be str or int");
  IValue deep = IValue::list({});
  for (int i = 0; i < serialize::kMaxDepth + 5; ++i) deep = IValue::list({deep});
  EMBER_EXPECT_ERROR(serialize::save(deep, path("bad.ember")), Runtime, "nested more than");
  EMBER_EXPECT_ERROR(serialize::save(IValue(std::string("\xff\xfe")), path("bad.ember")), Value, "UTF-8");
  EXPECT_TRUE(listing().empty());
}

TEST_F(EmberFormat, FailedWritesLeaveNothingBehind) {
  serialize::save(IValue(ones({3})), path("keep.ember"));
  const std::string before = read_file(dir / "keep.ember");
  EMBER_EXPECT_ERROR(serialize::save(IValue(default_generator()), path("keep.ember")), Type, "Generator");
  EXPECT_EQ(read_file(dir / "keep.ember"), before);
  fs::create_directory(dir / "sub");
  EMBER_EXPECT_ERROR(serialize::save(IValue(ones({3})), path("sub")), Runtime, "is a directory");
  EMBER_EXPECT_ERROR(serialize::save(IValue(ones({3})), path("missing/x.ember")), Runtime, "missing/x.ember");
  EXPECT_EQ(listing(), (std::vector<std::string>{"keep.ember", "sub"}));
  EXPECT_TRUE(fs::is_empty(dir / "sub"));
}

// ---- corrupt archives ------------------------------------------------------------------------------------

// A zip written by hand with libzip: (name, bytes, compress) entries.
struct Entry {
  std::string name, data;
  bool deflate = false;
};
void write_zip(const std::string& p, const std::vector<Entry>& entries) {
  int err = 0;
  zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  for (const Entry& e : entries) {
    zip_source_t* s = zip_source_buffer(z, e.data.data(), e.data.size(), 0);
    zip_int64_t i = zip_file_add(z, e.name.c_str(), s, 0);
    ASSERT_GE(i, 0);
    zip_set_file_compression(z, static_cast<zip_uint64_t>(i), e.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

// The entries of a good archive of a 2x3 float tensor and its transpose.
std::vector<Entry> good_entries() {
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  std::string bytes = serialize::save_to_bytes(IValue::list({x, x.t()}));
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  zip_t* z = zip_open_from_source(src, ZIP_RDONLY, &err);
  std::vector<Entry> out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
    std::string data(st.size, '\0');
    zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    zip_fread(f, data.data(), st.size);
    zip_fclose(f);
    out.push_back({st.name, data});
  }
  zip_discard(z);
  return out;
}

void replace(std::string& s, std::string_view from, std::string_view to) {
  size_t pos = s.find(from);
  ASSERT_NE(pos, std::string::npos) << from;
  s.replace(pos, from.size(), to);
}

TEST_F(EmberFormat, CorruptFilesRaiseNamingTheFile) {
  auto expect_corrupt = [&](const std::vector<Entry>& entries, const std::string& part) {
    write_zip(path("bad.ember"), entries);
    std::string msg = ember::testing::expect_error([&] { serialize::load(path("bad.ember")); }).what();
    EXPECT_TRUE(ember::testing::contains(msg, "load: '" + path("bad.ember") + "': "));
    EXPECT_TRUE(ember::testing::contains(msg, part));
  };
  std::vector<Entry> good = good_entries();
  ASSERT_EQ(good.size(), 2u);
  write_zip(path("good.ember"), good);
  EXPECT_EQ(serialize::load(path("good.ember")).to_list()[1].to_tensor().stride(1), 3);

  expect_corrupt({good[1]}, "no entry 'manifest.json'");
  expect_corrupt({good[0]}, "no entry 'storages/0'");
  expect_corrupt({good[0], {"storages/0", good[1].data.substr(0, 20)}}, "holds 20 bytes but the manifest says 24");
  expect_corrupt({good[0], {"storages/0", good[1].data + "xx"}}, "holds 26 bytes but the manifest says 24");
  auto with_manifest = [&](std::string_view from, std::string_view to) {
    std::vector<Entry> e = good;
    replace(e[0].data, from, to);
    return e;
  };
  expect_corrupt(with_manifest("\"version\":1", "\"version\":7"), "unsupported archive format version 7");
  expect_corrupt(with_manifest("\"float32\"", "\"float128\""), "unknown dtype 'float128'");
  expect_corrupt(with_manifest("\"sizes\":[2,3]", "\"sizes\":[2,-3]"), "negative size");
  expect_corrupt(with_manifest("\"sizes\":[2,3]", "\"sizes\":[2,4]"), "tensor 0 does not fit its storage");
  expect_corrupt(with_manifest("\"strides\":[3,1]", "\"strides\":[4611686018427387904,1]"), "does not fit");
  expect_corrupt(with_manifest("\"nbytes\":24", "\"nbytes\":99999999999"), "manifest says 99999999999");
  expect_corrupt(with_manifest("{\"format\"", "{\"format"), "is not valid JSON");
  expect_corrupt(with_manifest("\"kind\":\"tensor\"", "\"kind\":\"object\""), "unknown kind 'object'");
  // Deflated entries (another zip tool) are read.
  std::vector<Entry> deflated = good;
  for (Entry& e : deflated) e.deflate = true;
  write_zip(path("deflated.ember"), deflated);
  EXPECT_EQ(values<float>(serialize::load(path("deflated.ember")).to_list()[0].to_tensor()),
            (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST_F(EmberFormat, TruncatedOrFlippedBytesNeverCrash) {
  serialize::save(IValue::dict({{"w", arange(1000, kFloat32)}}), path("good.ember"));
  const std::string good = read_file(dir / "good.ember");
  // Every cut point of the header and the tail, and a sample in between: an error each time.
  for (size_t cut = 0; cut < good.size(); cut += (cut < 200 || cut + 200 > good.size()) ? 1 : 97) {
    write_file(dir / "cut.ember", good.substr(0, cut));
    EMBER_EXPECT_ERROR(serialize::load(path("cut.ember")), Runtime, "cut.ember");
    EMBER_EXPECT_ERROR(serialize::load_from_bytes(good.substr(0, cut), nullptr, "mem"), Runtime, "'mem'");
  }
  // Flipping any one byte either raises or loads the same values (a byte the format does not read).
  const Tensor expect = arange(1000, kFloat32);
  for (size_t i = 0; i < good.size(); i += (i < 400 || i + 400 > good.size()) ? 1 : 61) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x41);
    try {
      IValue v = serialize::load_from_bytes(bad, nullptr, "flipped");
      EXPECT_TRUE(v.to_dict().at(0).second.to_tensor().equal(expect)) << "byte " << i;
    } catch (const Error& e) {
      EXPECT_TRUE(ember::testing::contains(e.what(), "load: 'flipped': ")) << "byte " << i;
    }
  }
}

// Note [manifest objects]: a manifest object with 200,000 keys (here: extra keys of the root node, which the
// loader ignores) is read in time linear in its size. Not a timed test: with ordered_json's objects this took
// 400 s (ctest's timeout stops it), with std::map's well under a second.
TEST_F(EmberFormat, ManyKeysInOneManifestObjectLoadInLinearTime) {
  std::string manifest = R"({"format": "ember-archive", "version": 1, "storages": [], "tensors": [], "root": {)";
  for (int i = 0; i < 200000; ++i) manifest += "\"k" + std::to_string(i) + "\": 0, ";
  manifest += R"("kind": "int", "value": 7}})";
  write_zip(path("wide.ember"), {{"manifest.json", manifest, true}});
  EXPECT_EQ(serialize::load(path("wide.ember")).to_int(), 7);
}

TEST_F(EmberFormat, MissingAndEmptyFiles) {
  EMBER_EXPECT_ERROR(serialize::load(path("nope.ember")), Runtime, "nope.ember");
  write_file(dir / "empty.ember", "");
  EMBER_EXPECT_ERROR(serialize::load(path("empty.ember")), Runtime, "Not a zip archive");
  EMBER_EXPECT_ERROR(serialize::load_from_bytes(""), Runtime, "Not a zip archive");
  write_file(dir / "text.ember", "plain text, no archive");
  EMBER_EXPECT_ERROR(serialize::load(path("text.ember")), Runtime, "Not a zip archive");
}

}  // namespace
