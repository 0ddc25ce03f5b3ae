#pragma once
// GGUF files (ggml's format for llama.cpp and friends), read: metadata and tensors, block-quantized types
// dequantized to float32 on load. Python: ember.utils.gguf.
//
//   auto g = ember::serialize::GgufFile::open("model.gguf");
//   int64_t n = g.metadata().at("general.alignment").to_int();
//   ember::Tensor w = g.get_tensor("blk.0.attn_q.weight");
//
// Note [gguf format]
// Version 3 (and 2, the same layout): "GGUF", u32 version, u64 tensor count, u64 metadata count; metadata
// key-value pairs (key: u64 length + UTF-8 bytes; u32 type: u8 i8 u16 i16 u32 i32 f32 bool string array u64 i64
// f64, arrays as u32 element type + u64 count + elements, nested); tensor infos (name, u32 n_dims <= 4, u64 ne[]
// with ne[0] the fastest-varying dimension, u32 ggml type, u64 offset); then, at the next multiple of
// general.alignment (default 32), the data section, each tensor at its offset (a multiple of the alignment).
// A tensor's Ember shape is ne reversed. Types read: F32, F16, BF16, F64, I8, I16, I32, I64 as themselves, and
// ggml's block types Q4_0 ... Q8_1, the K-quants Q2_K ... Q8_K, IQ4_NL and IQ4_XS (Note [ggml block types] in
// GgufQuant.h), dequantized to float32 (ne[0] must be a multiple of the type's block of 32 or 256 values).
// Other types are refused naming them. Every count and size is checked against the bytes that remain before
// anything is allocated (a count of 2^60 entries in a small file fails at once), array nesting is at most 8 deep,
// and tensors must lie inside the data section. Errors: RuntimeError "gguf: '<file>' offset <n>: <problem>".
// Unquantized tensors adopt the mapped file's bytes when aligned (MappedFile), like safetensors.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/dispatch/IValue.h"

namespace ember::serialize {

class MappedFile;

/// An opened GGUF file (Note [gguf format]).
class GgufFile {
 public:
  /// Maps and parses the file at path. Errors: as Note [gguf format].
  static GgufFile open(const std::string& path);
  /// Parses a file held in memory (copied); name stands for it in errors.
  static GgufFile from_bytes(std::string_view data, std::string_view name);

  /// The format version (2 or 3).
  int64_t version() const { return version_; }
  /// The metadata: key -> int, float, bool, str or a (nested) list of them, in file order.
  const std::vector<std::pair<std::string, IValue>>& metadata() const { return metadata_; }
  /// The tensor names in file order.
  std::vector<std::string> tensor_names() const;
  /// The ggml type name of a tensor ("F32", "Q4_0", ...).
  std::string tensor_type(const std::string& name) const;
  /// The tensor `name`, dequantized to float32 when block-quantized. Errors: no such tensor.
  Tensor get_tensor(const std::string& name) const;

 private:
  struct Info {
    std::string name;
    std::vector<int64_t> shape;  // Ember order (ne reversed)
    uint32_t type;
    uint64_t offset, nbytes;     // into the data section
  };
  void parse(std::string_view bytes);
  std::string file_;
  std::shared_ptr<MappedFile> mapped_;
  std::shared_ptr<std::string> owned_;
  int64_t version_ = 0;
  uint64_t data_start_ = 0;
  std::vector<std::pair<std::string, IValue>> metadata_;
  std::vector<Info> infos_;
  std::map<std::string, size_t> index_;
};

}  // namespace ember::serialize
