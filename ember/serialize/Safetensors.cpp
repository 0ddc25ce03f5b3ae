// safetensors read strictly and written (Note [safetensors format] in Safetensors.h).
#include "ember/serialize/Safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "ember/core/TensorImpl.h"
#include "ember/serialize/MappedFile.h"
#include "ember/serialize/ShapeLimits.h"

namespace ember::serialize {

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit
constexpr int kMaxHeaderDepth = 8;                 // the format nests three levels

struct DTypeCode {
  const char* code;
  DType dtype;
};
constexpr DTypeCode kCodes[] = {{"BOOL", kBool}, {"U8", kUInt8},   {"I8", kInt8},       {"I16", kInt16},
                                {"I32", kInt32}, {"I64", kInt64},   {"F16", kFloat16},   {"BF16", kBFloat16},
                                {"F32", kFloat32}, {"F64", kFloat64}};

std::string_view code_of(DType t) {
  for (const DTypeCode& c : kCodes)
    if (c.dtype == t) return c.code;
  return "?";
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return s;
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  SafetensorsFile f;
  f.file_ = path;
  f.mapped_ = MappedFile::open(path);
  f.parse(f.mapped_->bytes());
  return f;
}

SafetensorsFile SafetensorsFile::from_bytes(std::string_view data, std::string_view name) {
  SafetensorsFile f;
  f.file_ = std::string(name);
  f.owned_ = std::make_shared<std::string>(data);
  f.parse(*f.owned_);
  return f;
}

void SafetensorsFile::parse(std::string_view bytes) {
  auto fail = [&](const std::string& why) -> void { EMBER_FAIL("safetensors: '{}': {}", file_, why); };
  if (bytes.size() < 8)
    fail("the file has " + std::to_string(bytes.size()) + " bytes, fewer than the 8 of the header size");
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  if (n > kMaxHeaderBytes) fail("the header claims " + std::to_string(n) + " bytes, more than the limit of 100 MB");
  if (n > bytes.size() - 8)
    fail("the header claims " + std::to_string(n) + " bytes but the file has " + std::to_string(bytes.size() - 8) +
         " after the size");
  const std::string_view header = bytes.substr(8, n);
  if (header.empty() || header[0] != '{') fail("the header does not start with '{'");
  // Depth before parsing: the JSON parser recurses (Note [manifest limits] in EmberFormat.h does the same).
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < header.size(); ++i) {
    const char c = header[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if ((c == '[' || c == '{') && ++depth > kMaxHeaderDepth) {
      fail("the header nests JSON more than " + std::to_string(kMaxHeaderDepth) + " levels deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  json h;
  try {
    h = json::parse(header);
  } catch (const json::exception& e) {
    fail(std::string("the header is not valid JSON (") + e.what() + ")");
  }
  if (!h.is_object()) fail("the header is not a JSON object");
  data_start_ = 8 + n;
  const uint64_t buffer = bytes.size() - data_start_;
  for (const auto& [name, v] : h.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) fail("__metadata__ is not an object");
      for (const auto& [k, x] : v.items()) {
        if (!x.is_string()) fail("the metadata value of '" + k + "' is not a string");
        metadata_[k] = x.get<std::string>();
      }
      continue;
    }
    const std::string what = "tensor '" + name + "'";
    if (!v.is_object()) fail(what + " is not described by an object");
    for (const auto& [k, x] : v.items())
      if (k != "dtype" && k != "shape" && k != "data_offsets") fail(what + " has the unknown field '" + k + "'");
    if (!v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      fail(what + " lacks dtype, shape or data_offsets");
    Entry e{};
    const json& dt = v["dtype"];
    if (!dt.is_string()) fail(what + " has a dtype that is not a string");
    const std::string code = dt.get<std::string>();
    bool known = false;
    for (const DTypeCode& c : kCodes)
      if (code == c.code) {
        e.dtype = c.dtype;
        known = true;
      }
    if (!known)
      fail(what + " has dtype " + code +
           ", which Ember does not have (it reads BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64)");
    const json& shape = v["shape"];
    if (!shape.is_array()) fail(what + " has a shape that is not an array");
    uint64_t numel = 1, extent = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        fail(what + " has a shape entry " + d.dump() + " that is not a non-negative int");
      const uint64_t s = d.get<uint64_t>();
      if (!accumulate_size(s, numel, extent)) fail(what + " has a shape whose size overflows 64 bits");
      e.shape.push_back(static_cast<int64_t>(s));
    }
    uint64_t nbytes;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(element_size(e.dtype)), &nbytes))
      fail(what + " has a shape whose size overflows 64 bits");
    const json& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(what + " has data_offsets that are not two non-negative ints");
    e.begin = off[0].get<uint64_t>();
    e.end = off[1].get<uint64_t>();
    if (e.begin > e.end || e.end > buffer)
      fail(what + " has data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
           "] outside the data buffer of " + std::to_string(buffer) + " bytes");
    if (e.end - e.begin != nbytes)
      fail(what + " of shape " + shape.dump() + " and dtype " + code + " needs " + std::to_string(nbytes) +
           " bytes but its data_offsets hold " + std::to_string(e.end - e.begin));
    entries_.emplace_back(name, std::move(e));
  }
  std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.begin, a.second.end) < std::tie(b.second.begin, b.second.end);
  });
  uint64_t at = 0;
  for (const auto& [name, e] : entries_) {
    if (e.begin != at)
      fail("tensor '" + name + "' starts at byte " + std::to_string(e.begin) + " of the data buffer, not at " +
           std::to_string(at) + " (tensors must tile the buffer without gaps or overlaps)");
    at = e.end;
  }
  if (at != buffer)
    fail("the tensors hold " + std::to_string(at) + " bytes but the data buffer has " + std::to_string(buffer));
  for (size_t i = 0; i < entries_.size(); ++i) index_[entries_[i].first] = i;
}

std::vector<std::string> SafetensorsFile::keys() const {
  std::vector<std::string> k;
  for (const auto& [name, i] : index_) k.push_back(name);
  return k;
}

Tensor SafetensorsFile::get_tensor(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) EMBER_FAIL("safetensors: '{}': no tensor named '{}'", file_, name);
  const Entry& e = entries_[it->second].second;
  const uint64_t nbytes = e.end - e.begin;
  const char* src = (mapped_ ? mapped_->bytes().data() : owned_->data()) + data_start_ + e.begin;
  if (e.dtype == kBool)
    for (uint64_t i = 0; i < nbytes; ++i)
      if (static_cast<unsigned char>(src[i]) > 1)
        EMBER_FAIL("safetensors: '{}': tensor '{}' is BOOL but its byte {} is {} (a bool byte is 0 or 1)", file_, name,
                   i, static_cast<int>(static_cast<unsigned char>(src[i])));
  Storage st;
  if (mapped_ && reinterpret_cast<uintptr_t>(src) % static_cast<uintptr_t>(element_size(e.dtype)) == 0) {
    st = MappedFile::as_storage(mapped_, data_start_ + e.begin, nbytes);
  } else {
    st = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes));
    if (nbytes) std::memcpy(st->data(), src, nbytes);
  }
  std::vector<int64_t> strides = contiguous_strides(e.shape);
  return Tensor(make_intrusive<TensorImpl>(std::move(st), e.dtype, IntArrayRef(e.shape), IntArrayRef(strides), 0));
}

std::vector<std::pair<std::string, Tensor>> load_safetensors(const std::string& path) {
  SafetensorsFile f = SafetensorsFile::open(path);
  std::vector<std::pair<std::string, Tensor>> r;
  for (const std::string& k : f.keys()) r.emplace_back(k, f.get_tensor(k));
  return r;
}

namespace {

// The header (size + padded JSON) of tensors in name order; each tensor's data follows in that order.
std::string header_of(std::vector<std::pair<std::string, Tensor>>& sorted,
                      const std::map<std::string, std::string>& metadata) {
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json h = json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  uint64_t at = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& [name, t] = sorted[i];
    EMBER_CHECK_VALUE(!name.empty() && name != "__metadata__", "safetensors: the tensor name '{}' is not allowed",
                      name);
    EMBER_CHECK_VALUE(i == 0 || sorted[i - 1].first != name, "safetensors: the name '{}' is used twice", name);
    EMBER_CHECK_VALUE(t.defined(), "safetensors: tensor '{}' is undefined", name);
    EMBER_CHECK_VALUE(t.is_contiguous(),
                      "You are trying to save a non contiguous tensor: `{}` which is not allowed. It either means you "
                      "are trying to save tensors which are reference of each other in which case it's recommended to "
                      "save only the full tensors, and reslice at load time, or simply call `.contiguous()` on your "
                      "tensor to pack it before saving.",
                      name);
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * static_cast<uint64_t>(t.element_size());
    h[name] = {{"dtype", code_of(t.dtype())}, {"shape", t.sizes().vec()}, {"data_offsets", {at, at + nbytes}}};
    at += nbytes;
  }
  std::string text;
  try {
    text = h.dump();
  } catch (const json::exception&) {
    EMBER_FAIL_KIND(ErrorKind::Value, "safetensors: a name or metadata string is not valid UTF-8");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = text.size();
  std::memcpy(out.data(), &n, 8);
  return out + text;
}

const char* data_of(const Tensor& t) {
  return static_cast<const char*>(t.impl()->storage()->data()) + t.storage_offset() * t.element_size();
}

}  // namespace

std::string safetensors_bytes(const std::vector<std::pair<std::string, Tensor>>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  auto sorted = tensors;
  std::string out = header_of(sorted, metadata);
  for (const auto& [name, t] : sorted) out.append(data_of(t), static_cast<size_t>(t.numel() * t.element_size()));
  return out;
}

void save_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata, const std::string& path) {
  auto sorted = tensors;
  const std::string header = header_of(sorted, metadata);
  std::string tmp = path + ".ember-" + std::to_string(::getpid()) + "-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) EMBER_FAIL("safetensors: cannot create a temporary file beside '{}': {}", path, std::strerror(errno));
  ::fchmod(fd, 0644);  // mkstemp's 0600 would make the saved file private
  std::FILE* f = ::fdopen(fd, "wb");
  bool ok = f && std::fwrite(header.data(), 1, header.size(), f) == header.size();
  for (const auto& [name, t] : sorted) {
    const size_t n = static_cast<size_t>(t.numel() * t.element_size());
    ok = ok && std::fwrite(data_of(t), 1, n, f) == n;
  }
  ok = f && std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    EMBER_FAIL("safetensors: cannot write '{}': {}", path, std::strerror(e));
  }
}

}  // namespace ember::serialize
