// safetensors (ember/serialize/Safetensors.h) and GGUF (Gguf.h) from C++: a round trip through safetensors
// bytes and a file (memory-mapped), strict header checks, and GGUF files built here by the format's definition.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "ember/api/ember.h"
#include "ember/serialize/Gguf.h"
#include "ember/serialize/Safetensors.h"

namespace {

using namespace ember;
using namespace ember::serialize;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, RoundTripBytesAndFile) {
  Tensor a = arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3});
  Tensor b = ones({4}, TensorOptions().dtype(kBFloat16));
  Tensor c = ones({0, 2}, TensorOptions().dtype(kInt64));
  const std::string bytes = safetensors_bytes({{"b", b}, {"a", a}, {"c", c}}, {{"format", "pt"}});
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
  SafetensorsFile f = SafetensorsFile::from_bytes(bytes, "mem");
  EXPECT_EQ(f.keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_TRUE(equal(f.get_tensor("a"), a));
  EXPECT_TRUE(equal(f.get_tensor("b"), b));
  EXPECT_EQ(f.get_tensor("c").sizes().vec(), (std::vector<int64_t>{0, 2}));

  const auto path = (std::filesystem::temp_directory_path() / ("ember_st_" + std::to_string(getpid()))).string();
  save_safetensors({{"a", a}}, {}, path);
  auto loaded = load_safetensors(path);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_TRUE(equal(loaded[0].second, a));
  loaded[0].second.fill_(7.0);  // copy-on-write pages: the file keeps its bytes
  EXPECT_TRUE(equal(load_safetensors(path)[0].second, a));
  std::filesystem::remove(path);

  EXPECT_NE(error_of([&] { safetensors_bytes({{"t", a.t()}}); }).find("non contiguous"), std::string::npos);
  EXPECT_NE(error_of([&] { f.get_tensor("zz"); }).find("no tensor named 'zz'"), std::string::npos);
}

TEST(Safetensors, StrictHeader) {
  auto file = [](const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    const uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + data;
  };
  auto err = [&](const std::string& bytes) {
    return error_of([&] { SafetensorsFile::from_bytes(bytes, "x.safetensors"); });
  };
  EXPECT_NE(err("abc").find("fewer than the 8"), std::string::npos);
  EXPECT_NE(err(file("[]", "")).find("does not start with '{'"), std::string::npos);
  EXPECT_NE(err(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(4, '\0')))
                .find("outside the data buffer"),
            std::string::npos);
  EXPECT_NE(err(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(8, '\0')))
                .find("the data buffer has 8"),
            std::string::npos);
  EXPECT_NE(err(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", std::string(4, '\0')))
                .find("unknown field 'x'"),
            std::string::npos);
  EXPECT_NE(err(file(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", std::string(4, '\0')))
                .find("not a non-negative int"),
            std::string::npos);
  EXPECT_NE(err(file("{" + std::string(100, '[') + std::string(100, ']') + "}", "")).find("nests JSON"),
            std::string::npos);
}

// A GGUF v3 file with one metadata string and the given tensors (name, ggml type, ne, raw bytes).
struct GgufTensor {
  std::string name;
  uint32_t type;
  std::vector<uint64_t> ne;
  std::string raw;
};
std::string gguf(const std::vector<GgufTensor>& tensors) {
  std::string out = "GGUF";
  auto put = [&](auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto str = [&](const std::string& s) {
    put(uint64_t{s.size()});
    out += s;
  };
  put(uint32_t{3});
  put(uint64_t{tensors.size()});
  put(uint64_t{1});
  str("general.name");
  put(uint32_t{8});
  str("test");
  std::string data;
  for (const auto& t : tensors) {
    data.append((32 - data.size() % 32) % 32, '\0');
    str(t.name);
    put(uint32_t(t.ne.size()));
    for (uint64_t n : t.ne) put(n);
    put(t.type);
    put(uint64_t{data.size()});
    data += t.raw;
  }
  out.append((32 - out.size() % 32) % 32, '\0');
  return out + data;
}

TEST(Gguf, ReadsAndDequantizes) {
  std::string f32(24, '\0');
  for (int i = 0; i < 6; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(f32.data() + 4 * i, &v, 4);
  }
  // One Q8_0 block: d = 0.5 (float16 0x3800), quants -16..15.
  std::string q8(34, '\0');
  q8[0] = 0x00;
  q8[1] = 0x38;
  for (int j = 0; j < 32; ++j) q8[2 + j] = static_cast<char>(j - 16);
  GgufFile g = GgufFile::from_bytes(gguf({{"a", 0, {3, 2}, f32}, {"q", 8, {32}, q8}}), "t.gguf");
  EXPECT_EQ(g.version(), 3);
  EXPECT_EQ(g.metadata().at(0).second.to_string(), "test");
  Tensor a = g.get_tensor("a");
  EXPECT_EQ(a.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(equal(a, arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3})));
  Tensor q = g.get_tensor("q");
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_EQ(q[0].item<float>(), -8.0f);
  EXPECT_EQ(q[31].item<float>(), 7.5f);
  EXPECT_EQ(g.tensor_type("q"), "Q8_0");
  // Past the end, and a bad type.
  std::string cut = gguf({{"a", 0, {3, 2}, f32}});
  cut.resize(cut.size() - 4);
  EXPECT_NE(error_of([&] { GgufFile::from_bytes(cut, "c.gguf"); }).find("past the end"), std::string::npos);
  EXPECT_NE(error_of([&] { GgufFile::from_bytes(gguf({{"a", 99, {1}, "x"}}), "c.gguf"); }).find("ggml type 99"),
            std::string::npos);
}

}  // namespace
