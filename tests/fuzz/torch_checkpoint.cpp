// Fuzz target: torch.save's files read by Ember, ember::serialize::read_torch_bytes (TorchCheckpoint.h): the zip
// format (the archive, data.pkl through the safe pickle reader, storages checked against their entries) and the
// legacy format (five pickles in a row and the raw storages after them). Any bytes load or raise ember::Error;
// a loaded object is converted to an IValue and printed. zip_mutator.cpp mutates the entries inside a valid zip.
// Seeds: small files of torch.save in both formats (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/serialize/TorchCheckpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember::serialize;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    CheckpointOptions o;
    o.placeholders = true;
    PickleValue v = read_torch_bytes(bytes, "fuzz.pt", o);
    Attributes attrs;
    (void)to_ivalue(v, &attrs, "fuzz.pt").repr();
  } catch (const ember::Error&) {
  }
  return 0;
}
