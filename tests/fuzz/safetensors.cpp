// Fuzz target: the strict safetensors reader, ember::serialize::SafetensorsFile::from_bytes (Safetensors.h): the
// header size, the JSON header (depth-checked before parsing), dtypes, shapes and data offsets that must tile the
// buffer. Any bytes read or raise ember::Error; every tensor of a file that reads is materialized and summed
// over its bytes. Seeds: small files written by ember.safetensors (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/serialize/Safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto f = ember::serialize::SafetensorsFile::from_bytes(std::string_view(reinterpret_cast<const char*>(data), size),
                                                           "fuzz.safetensors");
    unsigned sum = 0;
    for (const std::string& k : f.keys()) {
      ember::Tensor t = f.get_tensor(k);
      const auto* p = static_cast<const unsigned char*>(t.impl()->storage()->data());
      for (size_t i = 0; i < t.impl()->storage()->nbytes(); ++i) sum += p[i];
    }
    (void)f.metadata();
    if (sum == 0xdeadbeef) return 1;
  } catch (const ember::Error&) {
  }
  return 0;
}
