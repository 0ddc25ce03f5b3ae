#pragma once
// Writers of IDX files for the ember::data tests (idx_test.cpp, mnist_test.cpp): headers, big-endian values,
// gzip members, and a temporary folder per test. See Note [IDX format] in ember/data/Idx.cpp.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ember::testing {

using Bytes = std::vector<unsigned char>;

/// An IDX header: magic (two zeros, type code, number of dimensions) and big-endian dimensions.
inline Bytes idx_header(unsigned char code, const std::vector<uint32_t>& dims) {
  Bytes b{0, 0, code, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(d >> s));
  return b;
}

/// idx_header + values written big-endian.
template <class T>
Bytes idx_file(unsigned char code, const std::vector<uint32_t>& dims, const std::vector<T>& values) {
  Bytes b = idx_header(code, dims);
  for (T v : values) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    for (size_t i = sizeof(T); i-- > 0;) b.push_back(raw[i]);  // the host is little-endian
  }
  return b;
}

/// b compressed into one gzip member (zlib's deflate with the gzip wrapper, windowBits 16 + 15).
inline Bytes gzip(const Bytes& b) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&z, uLong(b.size())) + 32);
  z.next_in = const_cast<unsigned char*>(b.data());
  z.avail_in = unsigned(b.size());
  z.next_out = out.data();
  z.avail_out = unsigned(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// A test fixture with a temporary folder per test (removed afterwards) to write files into.
class TempDirTest : public ::testing::Test {
 public:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("ember_") + info->test_suite_name() + "_" + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes bytes as is into the folder and returns the path.
  std::string plain(const std::string& name, const Bytes& b) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    return p;
  }
  /// Writes bytes gzip-compressed and returns the path.
  std::string gz(const std::string& name, const Bytes& b) { return plain(name, gzip(b)); }

  std::filesystem::path dir_;
};

}  // namespace ember::testing
