// Fuzz target: the GGUF reader, ember::serialize::GgufFile::from_bytes (Gguf.h): header, metadata key-values
// (nested arrays), tensor infos, alignment and data offsets, then every tensor materialized (dequantized when
// block-quantized). Any bytes read or raise ember::Error. Seeds: small GGUF files (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/serialize/Gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto g = ember::serialize::GgufFile::from_bytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                                    "fuzz.gguf");
    for (const auto& [k, v] : g.metadata()) (void)v.repr();
    for (const std::string& name : g.tensor_names()) (void)g.get_tensor(name).numel();
  } catch (const ember::Error&) {
  }
  return 0;
}
