// GGUF read with dequantization (Note [gguf format] in Gguf.h).
#include "ember/serialize/Gguf.h"

#include <cstring>
#include <optional>

#include "ember/core/TensorImpl.h"
#include "ember/serialize/GgufQuant.h"
#include "ember/serialize/MappedFile.h"
#include "ember/serialize/ShapeLimits.h"

namespace ember::serialize {

namespace {

constexpr int kMaxArrayDepth = 8;
constexpr uint32_t kMaxDims = 4;

// ggml's unquantized types (ggml.h's numbering); the block-quantized ones are GgufQuant.h's.
enum GgmlType : uint32_t { F32 = 0, F16 = 1, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, BF16 = 30 };

struct TypeInfo {
  uint32_t type;
  const char* name;
  uint64_t block;        // values per block (1: unquantized)
  uint64_t block_bytes;  // bytes per block
  DType dtype;           // what get_tensor returns
  void (*dequantize)(const unsigned char* block, float* out);  // block types only
};
constexpr TypeInfo kPlainTypes[] = {
    {F32, "F32", 1, 4, kFloat32, nullptr},    {F16, "F16", 1, 2, kFloat16, nullptr},
    {BF16, "BF16", 1, 2, kBFloat16, nullptr}, {F64, "F64", 1, 8, kFloat64, nullptr},
    {I8, "I8", 1, 1, kInt8, nullptr},         {I16, "I16", 1, 2, kInt16, nullptr},
    {I32, "I32", 1, 4, kInt32, nullptr},      {I64, "I64", 1, 8, kInt64, nullptr},
};

// The type numbered t, or nullopt when Ember does not read it.
std::optional<TypeInfo> type_info(uint32_t t) {
  for (const TypeInfo& i : kPlainTypes)
    if (i.type == t) return i;
  if (const GgmlBlockType* b = ggml_block_type(t))
    return TypeInfo{b->type, b->name, b->block, b->block_bytes, kFloat32, b->dequantize};
  return std::nullopt;
}

class Cursor {
 public:
  Cursor(std::string_view data, const std::string& file) : data_(data), file_(file) {}
  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    EMBER_FAIL("gguf: '{}' offset {}: {}", file_, pos_, fmt::format(f, std::forward<A>(a)...));
  }
  uint64_t left() const { return data_.size() - pos_; }
  size_t pos() const { return pos_; }
  std::string_view take(uint64_t n) {
    if (n > left()) fail("truncated: needs {} bytes but {} remain", n, left());
    std::string_view s = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    return v;
  }
  std::string string() { return std::string(take(get<uint64_t>())); }

 private:
  std::string_view data_;
  const std::string& file_;
  size_t pos_ = 0;
};

// Size in bytes of one scalar metadata type, 0 for string / array, -1 for unknown.
int scalar_size(uint32_t t) {
  static constexpr int sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return t < 13 ? sizes[t] : -1;
}

IValue value(Cursor& c, uint32_t type, int depth) {
  switch (type) {
    case 0: return IValue(int64_t{c.get<uint8_t>()});
    case 1: return IValue(int64_t{c.get<int8_t>()});
    case 2: return IValue(int64_t{c.get<uint16_t>()});
    case 3: return IValue(int64_t{c.get<int16_t>()});
    case 4: return IValue(int64_t{c.get<uint32_t>()});
    case 5: return IValue(int64_t{c.get<int32_t>()});
    case 6: return IValue(static_cast<double>(c.get<float>()));
    case 7: {
      const uint8_t b = c.get<uint8_t>();
      if (b > 1) c.fail("a bool holds {}", b);
      return IValue(b == 1);
    }
    case 8: return IValue(c.string());
    case 9: {
      if (depth >= kMaxArrayDepth) c.fail("arrays nested more than {} deep", kMaxArrayDepth);
      const uint32_t et = c.get<uint32_t>();
      const uint64_t n = c.get<uint64_t>();
      const int es = scalar_size(et);
      if (es < 0) c.fail("an array of the unknown type {}", et);
      // Each element takes at least its size (8 for a string's length, 12 for an array's header).
      const uint64_t least = es > 0 ? static_cast<uint64_t>(es) : et == 8 ? 8 : 12;
      if (n > c.left() / least) c.fail("an array claims {} elements but {} bytes remain", n, c.left());
      std::vector<IValue> items;
      items.reserve(static_cast<size_t>(n));
      for (uint64_t i = 0; i < n; ++i) items.push_back(value(c, et, depth + 1));
      return IValue::list(std::move(items));
    }
    case 10: {
      const uint64_t v = c.get<uint64_t>();
      if (v > static_cast<uint64_t>(INT64_MAX)) c.fail("a uint64 value {} does not fit in int64", v);
      return IValue(static_cast<int64_t>(v));
    }
    case 11: return IValue(c.get<int64_t>());
    case 12: return IValue(c.get<double>());
    default: c.fail("a metadata value of the unknown type {}", type);
  }
}

}  // namespace

GgufFile GgufFile::open(const std::string& path) {
  GgufFile g;
  g.file_ = path;
  g.mapped_ = MappedFile::open(path);
  g.parse(g.mapped_->bytes());
  return g;
}

GgufFile GgufFile::from_bytes(std::string_view data, std::string_view name) {
  GgufFile g;
  g.file_ = std::string(name);
  g.owned_ = std::make_shared<std::string>(data);
  g.parse(*g.owned_);
  return g;
}

void GgufFile::parse(std::string_view bytes) {
  Cursor c(bytes, file_);
  if (bytes.substr(0, 4) != "GGUF") c.fail("not a GGUF file (no \"GGUF\" magic)");  // reported at offset 0
  c.take(4);
  const uint32_t version = c.get<uint32_t>();
  if (version != 2 && version != 3) c.fail("GGUF version {} (versions 2 and 3 are read)", version);
  version_ = version;
  const uint64_t n_tensors = c.get<uint64_t>();
  const uint64_t n_kv = c.get<uint64_t>();
  if (n_kv > c.left() / 12)
    c.fail("the header claims {} metadata entries (at least 12 bytes each) but {} bytes remain", n_kv, c.left());
  uint64_t alignment = 32;
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = c.string();
    const uint32_t type = c.get<uint32_t>();
    IValue v = value(c, type, 0);
    if (key == "general.alignment") {
      if (!v.is_int() || v.to_int() <= 0 || (v.to_int() & (v.to_int() - 1)) != 0 || v.to_int() > (1 << 20))
        c.fail("general.alignment is {}, not a power of two up to 2^20", v.repr());
      alignment = static_cast<uint64_t>(v.to_int());
    }
    metadata_.emplace_back(std::move(key), std::move(v));
  }
  if (n_tensors > c.left() / 24)
    c.fail("the header claims {} tensors (at least 24 bytes each) but {} bytes remain", n_tensors, c.left());
  for (uint64_t i = 0; i < n_tensors; ++i) {
    Info t;
    t.name = c.string();
    const uint32_t n_dims = c.get<uint32_t>();
    if (n_dims > kMaxDims) c.fail("tensor '{}' has {} dimensions (at most {})", t.name, n_dims, kMaxDims);
    std::vector<uint64_t> ne(n_dims);
    uint64_t numel = 1, extent = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      ne[d] = c.get<uint64_t>();
      if (!accumulate_size(ne[d], numel, extent))
        c.fail("tensor '{}' has a shape whose size overflows 64 bits", t.name);
    }
    for (uint32_t d = n_dims; d-- > 0;) t.shape.push_back(static_cast<int64_t>(ne[d]));
    t.type = c.get<uint32_t>();
    const std::optional<TypeInfo> ti = type_info(t.type);
    if (!ti)
      c.fail("tensor '{}' has ggml type {}{}, which Ember does not read (F32, F16, BF16, F64, I8-I64, {})", t.name,
             t.type, *ggml_type_name(t.type) ? fmt::format(" ({})", ggml_type_name(t.type)) : "",
             ggml_block_type_names());
    if (ti->block > 1 && (n_dims == 0 || ne[0] % ti->block != 0))
      c.fail("tensor '{}' of type {} has rows of {} values, not a multiple of {}", t.name, ti->name,
             n_dims ? ne[0] : 0, ti->block);
    if (__builtin_mul_overflow(numel / ti->block, ti->block_bytes, &t.nbytes))
      c.fail("tensor '{}' has a shape whose size overflows 64 bits", t.name);
    t.offset = c.get<uint64_t>();
    if (t.offset % alignment != 0)
      c.fail("tensor '{}' is at offset {}, not a multiple of {}", t.name, t.offset, alignment);
    if (!index_.emplace(t.name, infos_.size()).second) c.fail("the tensor name '{}' is used twice", t.name);
    infos_.push_back(std::move(t));
  }
  data_start_ = (c.pos() + alignment - 1) / alignment * alignment;
  if (data_start_ > bytes.size() && !infos_.empty()) c.fail("the data section is missing");
  const uint64_t data_size = bytes.size() > data_start_ ? bytes.size() - data_start_ : 0;
  for (const Info& t : infos_)
    if (t.offset > data_size || t.nbytes > data_size - t.offset)
      c.fail("tensor '{}' ({} bytes at offset {}) lies past the end of the data section of {} bytes", t.name, t.nbytes,
             t.offset, data_size);
}

std::vector<std::string> GgufFile::tensor_names() const {
  std::vector<std::string> r;
  for (const Info& t : infos_) r.push_back(t.name);
  return r;
}

std::string GgufFile::tensor_type(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) EMBER_FAIL("gguf: '{}': no tensor named '{}'", file_, name);
  return type_info(infos_[it->second].type)->name;
}

Tensor GgufFile::get_tensor(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) EMBER_FAIL("gguf: '{}': no tensor named '{}'", file_, name);
  const Info& t = infos_[it->second];
  const TypeInfo ti = *type_info(t.type);
  const char* src = (mapped_ ? mapped_->bytes().data() : owned_->data()) + data_start_ + t.offset;
  std::vector<int64_t> strides(t.shape.size());
  int64_t acc = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= std::max<int64_t>(t.shape[i], 1);
  }
  Storage st;
  if (ti.block == 1) {
    if (mapped_ && reinterpret_cast<uintptr_t>(src) % ti.block_bytes == 0) {
      st = MappedFile::as_storage(mapped_, data_start_ + t.offset, t.nbytes);
    } else {
      st = make_intrusive<StorageImpl>(static_cast<size_t>(t.nbytes));
      if (t.nbytes) std::memcpy(st->data(), src, t.nbytes);
    }
  } else {
    const uint64_t blocks = t.nbytes / ti.block_bytes;
    st = make_intrusive<StorageImpl>(static_cast<size_t>(blocks * ti.block * sizeof(float)));
    const auto* in = reinterpret_cast<const unsigned char*>(src);
    auto* out = static_cast<float*>(st->data());
    for (uint64_t b = 0; b < blocks; ++b) ti.dequantize(in + b * ti.block_bytes, out + b * ti.block);
  }
  return Tensor(make_intrusive<TensorImpl>(std::move(st), ti.dtype, IntArrayRef(t.shape), IntArrayRef(strides), 0));
}

}  // namespace ember::serialize
