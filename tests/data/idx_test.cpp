// ember::data::read_idx: every IDX type code, plain and gzip, the shapes of the header (0-dim, zero-size), each
// way a file can be broken (with the error naming the file and the fault), and the real Fashion-MNIST files
// of Debian's dataset-fashion-mnist when they are installed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "IdxFiles.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::Shape;
using ember::testing::vec;
namespace fs = std::filesystem;
using ember::testing::Bytes;
using ember::testing::gzip;
using ember::testing::idx_file;
using ember::testing::idx_header;

/// A temporary folder per test (see IdxFiles.h).
class Idx : public ember::testing::TempDirTest {};

/// The tensor's values, compared bit for bit with `want` (so NaN and -0.0 count).
template <class T>
void expect_values(const Tensor& t, const std::vector<T>& want) {
  ASSERT_EQ(t.numel(), int64_t(want.size()));
  ASSERT_TRUE(t.is_contiguous());
  EXPECT_EQ(std::memcmp(t.data_ptr(), want.data(), want.size() * sizeof(T)), 0);
}

template <class T>
void check_dtype(Idx& fx, std::string (Idx::*write)(const std::string&, const Bytes&), unsigned char code,
                 DType dtype, const std::vector<T>& values) {
  SCOPED_TRACE(std::string(dtype_name(dtype)));
  Tensor t = data::read_idx((fx.*write)("a.idx", idx_file(code, {2, 3}, values)));
  EXPECT_EQ(t.dtype(), dtype);
  EXPECT_EQ(vec(t.sizes()), (Shape{2, 3}));
  expect_values(t, values);
}

void check_every_dtype(Idx& fx, std::string (Idx::*write)(const std::string&, const Bytes&)) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  check_dtype<uint8_t>(fx, write, 0x08, kUInt8, {0, 1, 127, 128, 200, 255});
  check_dtype<int8_t>(fx, write, 0x09, kInt8, {0, 1, -1, 127, -128, 42});
  check_dtype<int16_t>(fx, write, 0x0B, kInt16, {0, 1, -1, 32767, -32768, 0x1234});
  check_dtype<int32_t>(fx, write, 0x0C, kInt32, {0, -1, 0x12345678, std::numeric_limits<int32_t>::min(),
                                                 std::numeric_limits<int32_t>::max(), 7});
  check_dtype<float>(fx, write, 0x0D, kFloat32, {0.0f, -0.0f, 1.5f, -3.25e-7f, float(inf), float(nan)});
  check_dtype<double>(fx, write, 0x0E, kFloat64, {0.0, -0.0, 1.0 / 3.0, -1e300, -inf, nan});
}

TEST_F(Idx, EveryDtypePlain) { check_every_dtype(*this, &Idx::plain); }
TEST_F(Idx, EveryDtypeGzip) { check_every_dtype(*this, &Idx::gz); }

TEST_F(Idx, Shapes) {
  for (auto write : {&Idx::plain, &Idx::gz}) {
    // Three dimensions, the layout of MNIST images.
    std::vector<uint8_t> v(2 * 3 * 4);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 7);
    Tensor t = data::read_idx((this->*write)("img.idx", idx_file<uint8_t>(0x08, {2, 3, 4}, v)));
    EXPECT_EQ(vec(t.sizes()), (Shape{2, 3, 4}));
    expect_values(t, v);
    // No dimensions: one value, a 0-dim tensor.
    t = data::read_idx((this->*write)("scalar.idx", idx_file<int32_t>(0x0C, {}, {-5})));
    EXPECT_EQ(t.dim(), 0);
    expect_values<int32_t>(t, {-5});
    // A zero-size dimension: no data at all.
    t = data::read_idx((this->*write)("empty.idx", idx_header(0x0D, {0, 28, 28})));
    EXPECT_EQ(vec(t.sizes()), (Shape{0, 28, 28}));
    EXPECT_EQ(t.dtype(), kFloat32);
  }
}

TEST_F(Idx, MissingOrUnreadable) {
  std::string missing = (dir_ / "nope-idx1-ubyte.gz").string();
  EMBER_EXPECT_ERROR(data::read_idx(missing), Runtime, "read_idx: cannot open '" + missing + "'");
  EMBER_EXPECT_ERROR(data::read_idx(missing), Runtime, "No such file or directory");
  EMBER_EXPECT_ERROR(data::read_idx(dir_.string()), Runtime, "Is a directory");
}

TEST_F(Idx, TruncatedHeader) {
  for (auto write : {&Idx::plain, &Idx::gz}) {
    std::string p = (this->*write)("h.idx", Bytes{0, 0});
    EMBER_EXPECT_ERROR(data::read_idx(p), Runtime,
                       "'" + p + "': truncated header: expected 4 bytes of magic number, got 2");
    p = (this->*write)("h.idx", {});
    EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "expected 4 bytes of magic number, got 0");
    Bytes cut = idx_header(0x08, {60000, 28, 28});
    cut.resize(cut.size() - 3);
    p = (this->*write)("h.idx", cut);
    EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "truncated header: 3 dimensions need 12 bytes, got 9");
  }
}

TEST_F(Idx, TruncatedData) {
  Bytes b = idx_file<int16_t>(0x0B, {2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  b.resize(b.size() - 3);  // 17 of the 20 bytes of data
  std::string p = plain("t.idx", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime,
                     "'" + p + "': truncated data: dimensions [2, 5] of int16 need 20 bytes, got 17");
  p = gz("t.idx.gz", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "truncated data: dimensions [2, 5] of int16 need 20 bytes, got 17");
}

TEST_F(Idx, TruncatedGzipFile) {
  // The compressed file itself is cut: inside the data, then just before the end marker and CRC.
  std::vector<uint8_t> v(5000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i % 251);
  Bytes z = gzip(idx_file<uint8_t>(0x08, {5000}, v));
  Bytes cut(z.begin(), z.begin() + z.size() / 2);
  std::string p = plain("cut.gz", cut);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "truncated data: dimensions [5000] of uint8 need 5000 bytes, got");
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "(the gzip stream ends early)");
  cut.assign(z.begin(), z.end() - 4);  // the 4-byte length of the trailer missing
  p = plain("cut.gz", cut);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "'" + p + "': the gzip stream ends early");
}

TEST_F(Idx, BadMagic) {
  Bytes b = idx_file<uint8_t>(0x08, {2}, {1, 2});
  b[0] = 0x12;
  std::string p = plain("m.idx", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "'" + p + "': bad magic number 0x12000801");
  b[0] = 0;
  b[1] = 0xFF;
  p = gz("m.idx.gz", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "bad magic number 0x00FF0801");
  // A text file.
  p = plain("readme.txt", Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "bad magic number 0x68656C6C");
}

TEST_F(Idx, UnknownTypeCode) {
  for (unsigned char code : {0x00, 0x07, 0x0A, 0x0F, 0xFF}) {
    std::string p = plain("c.idx", idx_file<uint8_t>(code, {1}, {0}));
    EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, fmt::format("'{}': unknown type code 0x{:02X}", p, code));
  }
}

TEST_F(Idx, TrailingGarbage) {
  Bytes b = idx_file<uint8_t>(0x08, {3}, {1, 2, 3});
  b.insert(b.end(), {9, 9, 9, 9, 9});
  std::string p = plain("g.idx", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime,
                     "'" + p + "': 5 bytes of trailing data after the 3 bytes that dimensions [3] of uint8 need");
  p = gz("g.idx.gz", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "5 bytes of trailing data after the 3 bytes");
  // Lots of trailing data (a decompression bomb after valid data): reported without inflating it all.
  b.resize(b.size() + 1000000);
  p = gz("bomb.idx.gz", b);
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "at least 65536 bytes of trailing data");
}

// Note [gzip members]: members back to back are one stream; after the last only zero padding may follow.
TEST_F(Idx, ConcatenatedGzipMembers) {
  std::vector<int32_t> v{1, -2, 3, 0x12345678, -5, 6};
  Bytes whole = idx_file<int32_t>(0x0C, {2, 3}, v);
  // Split inside the header, inside a value and at the end (an empty last member).
  for (size_t cut : {size_t(2), size_t(13), whole.size()}) {
    SCOPED_TRACE(cut);
    Bytes z = gzip(Bytes(whole.begin(), whole.begin() + std::ptrdiff_t(cut)));
    Bytes rest = gzip(Bytes(whole.begin() + std::ptrdiff_t(cut), whole.end()));
    z.insert(z.end(), rest.begin(), rest.end());
    Tensor t = data::read_idx(plain("m.idx.gz", z));
    EXPECT_EQ(vec(t.sizes()), (Shape{2, 3}));
    expect_values(t, v);
    // Zero padding between and after members is skipped, as Python's gzip module does.
    Bytes padded = gzip(Bytes(whole.begin(), whole.begin() + std::ptrdiff_t(cut)));
    padded.insert(padded.end(), 7, 0);
    padded.insert(padded.end(), rest.begin(), rest.end());
    padded.insert(padded.end(), 5, 0);
    expect_values(data::read_idx(plain("p.idx.gz", padded)), v);
  }
  // A second member with more values is trailing data, not a silently ignored tail.
  Bytes z = gzip(whole);
  Bytes more = gzip(Bytes{0, 0, 0, 9});
  z.insert(z.end(), more.begin(), more.end());
  EMBER_EXPECT_ERROR(data::read_idx(plain("x.idx.gz", z)), Runtime, "4 bytes of trailing data after the 24 bytes");
}

TEST_F(Idx, GarbageAfterGzipStream) {
  std::vector<uint8_t> v{1, 2, 3};
  const Bytes z = gzip(idx_file<uint8_t>(0x08, {3}, v));
  const Bytes member = gzip(Bytes{});
  struct Case {
    Bytes tail;
    std::string error;  // empty: the file is valid
  };
  const std::vector<Case> cases = {
      {{'j', 'u', 'n', 'k'},
       fmt::format("trailing garbage after the end of the gzip stream at byte {} (0x6A...)", z.size())},
      {{0, 0, 'x'}, fmt::format("at byte {} (0x78...)", z.size() + 2)},
      {{0x1F}, "trailing garbage after the end of the gzip stream"},  // half a magic number
      {{0x1F, 0x8B}, "the gzip stream ends early"},                   // a member cut after its magic
      {member, ""},
      {{0, 0, 0}, ""},
  };
  for (const Case& c : cases) {
    Bytes b = z;
    b.insert(b.end(), c.tail.begin(), c.tail.end());
    std::string p = plain("t.idx.gz", b);
    SCOPED_TRACE(c.error);
    if (c.error.empty()) {
      expect_values(data::read_idx(p), v);
    } else {
      EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "'" + p + "': ");
      EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, c.error);
    }
  }
  // Garbage after a member that ends inside the header is reported as such, not as a short header.
  Bytes b = gzip(Bytes{0, 0});
  b.insert(b.end(), {'?', '?'});
  EMBER_EXPECT_ERROR(data::read_idx(plain("h.idx.gz", b)), Runtime,
                     "trailing garbage after the end of the gzip stream");
}

TEST_F(Idx, Pipe) {
  // A FIFO has no size to check against: the reads alone find the data, its truncation and trailing bytes.
  std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader that stops early must fail the test, not kill it with SIGPIPE in the writer.
  std::signal(SIGPIPE, SIG_IGN);
  auto through_fifo = [&](const Bytes& b) {
    std::thread writer([&] {
      std::ofstream(fifo, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    });
    std::optional<Tensor> t;
    std::string error;
    try {
      t = data::read_idx(fifo);
    } catch (const Error& e) {
      error = e.what();
    }
    writer.join();
    return std::make_pair(t, error);
  };
  std::vector<int16_t> v{1, -2, 300};
  auto [t, error] = through_fifo(idx_file<int16_t>(0x0B, {3}, v));
  ASSERT_TRUE(t.has_value()) << error;
  expect_values(*t, v);
  std::tie(t, error) = through_fifo(gzip(idx_file<int16_t>(0x0B, {3}, v)));
  ASSERT_TRUE(t.has_value()) << error;
  expect_values(*t, v);
  Bytes cut = idx_file<int16_t>(0x0B, {3}, v);
  cut.pop_back();
  std::tie(t, error) = through_fifo(cut);
  EXPECT_TRUE(ember::testing::contains(error, "truncated data: dimensions [3] of int16 need 6 bytes, got 5"));
  cut.insert(cut.end(), {1, 2, 3});
  std::tie(t, error) = through_fifo(cut);
  EXPECT_TRUE(ember::testing::contains(error, "2 bytes of trailing data after the 6 bytes"));
}

TEST_F(Idx, CorruptGzip) {
  std::vector<uint8_t> v(20000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t((i * i) % 7);  // compressible: real deflate blocks
  Bytes z = gzip(idx_file<uint8_t>(0x08, {20000}, v));
  for (size_t at : {size_t(12), z.size() / 2, z.size() - 6}) {  // block header, body, CRC
    Bytes bad = z;
    bad[at] ^= 0x5A;
    std::string p = plain("bad.gz", bad);
    SCOPED_TRACE(at);
    EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "'" + p + "': corrupt gzip stream (");
  }
}

TEST_F(Idx, AbsurdDimensions) {
  // The product overflows int64.
  std::string p = plain("o.idx", idx_header(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}));
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime,
                     "'" + p + "': dimensions [4294967295, 4294967295, 4294967295] of float64 overflow");
  // Fits int64 but not the file: refused before allocating 2.8e14 bytes.
  p = plain("big.idx", idx_file<uint8_t>(0x08, {65536, 65536, 65536}, {1, 2, 3}));
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "need 281474976710656 bytes, got 3");
  p = gz("big.idx.gz", idx_file<uint8_t>(0x08, {65536, 65536, 65536}, {1, 2, 3}));
  EMBER_EXPECT_ERROR(data::read_idx(p), Runtime, "need 281474976710656 bytes of data, more than a gzip file of");
}

// read_idx_from_bytes reads bytes in memory through the same code as files (the fuzz target's entry point,
// tests/fuzz/idx.cpp): the same tensors, and the same errors naming what stands for the file.
TEST_F(Idx, FromBytesReadsAsTheFileDoes) {
  auto text = [](const Bytes& b) { return std::string(b.begin(), b.end()); };
  const Bytes file = idx_file<int16_t>(0x0B, {2, 3}, {0, 1, -1, 32767, -32768, 0x1234});
  for (const Bytes& b : {file, gzip(file), [&] { Bytes two = gzip(Bytes(file.begin(), file.begin() + 7));
                                                   Bytes rest = gzip(Bytes(file.begin() + 7, file.end()));
                                                   two.insert(two.end(), rest.begin(), rest.end());
                                                   return two; }()}) {
    Tensor t = data::read_idx_from_bytes(text(b), "mem");
    EXPECT_TRUE(t.equal(data::read_idx(plain("f.idx", b))));
    EXPECT_EQ(vec(t.sizes()), (Shape{2, 3}));
  }
  EMBER_EXPECT_ERROR(data::read_idx_from_bytes(text(Bytes(file.begin(), file.end() - 1)), "mem"), Runtime,
                     "read_idx: 'mem': truncated data: dimensions [2, 3] of int16 need 12 bytes, got 11");
  Bytes garbage = gzip(file);
  garbage.push_back('x');
  garbage.push_back('y');
  EMBER_EXPECT_ERROR(data::read_idx_from_bytes(text(garbage)), Runtime, "'<bytes>': trailing garbage");
  EMBER_EXPECT_ERROR(data::read_idx_from_bytes(text(idx_file<uint8_t>(0x08, {65536, 65536, 65536}, {1}))),
                     Runtime, "need 281474976710656 bytes, got 1");
  EMBER_EXPECT_ERROR(data::read_idx_from_bytes(""), Runtime, "truncated header");
}

// The real data set (Debian's dataset-fashion-mnist).
const char* kFashionRoot = "/usr/share/datasets/fashion-mnist";

TEST(IdxFashionMnist, TrainingSet) {
  std::string images = std::string(kFashionRoot) + "/train-images-idx3-ubyte.gz";
  std::string labels = std::string(kFashionRoot) + "/train-labels-idx1-ubyte.gz";
  if (!fs::exists(images) || !fs::exists(labels))
    GTEST_SKIP() << "Fashion-MNIST is not installed (" << images << "): apt-get install dataset-fashion-mnist";
  Tensor x = data::read_idx(images);
  EXPECT_EQ(x.dtype(), kUInt8);
  EXPECT_EQ(vec(x.sizes()), (Shape{60000, 28, 28}));
  EXPECT_EQ(x.max().item<int64_t>(), 255);
  EXPECT_EQ(x.min().item<int64_t>(), 0);
  Tensor y = data::read_idx(labels);
  EXPECT_EQ(y.dtype(), kUInt8);
  EXPECT_EQ(vec(y.sizes()), (Shape{60000}));
  std::vector<int64_t> count(256, 0);
  const auto* p = y.data_ptr<uint8_t>();
  for (int64_t i = 0; i < y.numel(); ++i) ++count[p[i]];
  for (int c = 0; c < 10; ++c) EXPECT_EQ(count[c], 6000) << "class " << c;
  EXPECT_EQ(count[10] + count[255], 0);

  Tensor t = data::read_idx(std::string(kFashionRoot) + "/t10k-images-idx3-ubyte.gz");
  EXPECT_EQ(vec(t.sizes()), (Shape{10000, 28, 28}));
}

}  // namespace
