#pragma once
// safetensors files (the format of Hugging Face's model hub), read strictly and written, with the API of
// safetensors.torch as Python's ember.safetensors.
//
//   auto f = ember::serialize::SafetensorsFile::open("model.safetensors");   // memory-mapped
//   for (const std::string& k : f.keys()) use(k, f.get_tensor(k));
//   ember::serialize::save_safetensors({{"w", w}}, {{"format", "pt"}}, "out.safetensors");
//
// Note [safetensors format]
// A file is an 8-byte little-endian header size N, N bytes of a JSON object, then the data buffer. The object maps
// each tensor's name to {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]} (offsets into the buffer)
// and may hold "__metadata__", an object of str -> str. Reading is strict, as the reference implementation: N at
// most 100 MB and within the file, the header a JSON object starting with '{' (trailing spaces allowed, the
// writers' padding), known keys only, every dtype one Ember has (BOOL U8 I8 I16 I32 I64 F16 BF16 F32 F64; others
// are refused naming them), shapes of non-negative ints whose product times the element size, computed with
// overflow checks, equals end - begin, and the tensors' ranges, sorted, tiling the whole buffer with no gap or
// overlap. Errors: RuntimeError "safetensors: '<file>': <problem>".
// Reads from a path map the file (MappedFile); get_tensor's tensor adopts its bytes in place (copy-on-write pages,
// the file is never written) when they are aligned for the element type, and copies them otherwise. Writing
// puts the tensors in name order, pads the header with spaces to a multiple of 8 bytes (so each tensor stays
// aligned as the reference writer does), and writes to a temporary file renamed over the path.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::serialize {

class MappedFile;

/// An opened safetensors file: its header parsed and checked, its data in memory (mapped or owned).
class SafetensorsFile {
 public:
  /// Maps and checks the file at path. Errors: as Note [safetensors format], and I/O errors.
  static SafetensorsFile open(const std::string& path);
  /// Checks a file held in memory (copied: the tensors own their bytes); name stands for it in errors.
  static SafetensorsFile from_bytes(std::string_view data, std::string_view name);

  /// The tensor names, in the order of their data in the file.
  std::vector<std::string> keys() const;
  /// The "__metadata__" of the header (empty when absent).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  /// Whether the file has a tensor of that name.
  bool contains(const std::string& name) const { return index_.count(name) > 0; }
  /// The tensor `name` (contiguous, CPU). Errors: no such tensor (RuntimeError naming it and the file).
  Tensor get_tensor(const std::string& name) const;

 private:
  struct Entry {
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;  // into the data buffer
  };
  void parse(std::string_view bytes);
  std::string file_;
  std::shared_ptr<MappedFile> mapped_;   // a mapped file, or
  std::shared_ptr<std::string> owned_;   // the bytes given
  uint64_t data_start_ = 0;
  std::map<std::string, std::string> metadata_;
  std::vector<std::pair<std::string, Entry>> entries_;
  std::map<std::string, size_t> index_;
};

/// Every tensor of the file at path, in name order (safetensors.torch.load_file).
std::vector<std::pair<std::string, Tensor>> load_safetensors(const std::string& path);

/// The bytes of a safetensors file holding tensors (names unique; each tensor contiguous and on the CPU) and
/// metadata. Errors (ValueError): a duplicate or empty name, a non-contiguous tensor (naming it), an undefined one.
std::string safetensors_bytes(const std::vector<std::pair<std::string, Tensor>>& tensors,
                              const std::map<std::string, std::string>& metadata = {});
/// Writes safetensors_bytes(...) to path (atomically: a temporary file renamed over it).
void save_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata, const std::string& path);

}  // namespace ember::serialize
