// Fuzz target: the IDX reader, ember::data::read_idx_from_bytes (ember/data/Idx.h; read_idx reads files through
// the same code), plain and gzip-compressed: any bytes give a tensor or raise ember::Error, and a corrupt header
// never allocates more than the bytes can hold (Note [IDX format]). Seeds: small IDX files of every type code,
// plain and gzip, one of several gzip members, and the first images and labels of Fashion-MNIST (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/data/Idx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::data::read_idx_from_bytes(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ember::Error&) {
  }
  return 0;
}
