// Fuzz target: Ember's archive loader, ember::serialize::load_from_bytes (ember/serialize/EmberFormat.h; load()
// and the Python ember.load read files through the same Reader): the zip container, the JSON manifest and the
// object tree it describes, tensors checked against their storages. Any bytes load or raise ember::Error; a
// loaded object prints (IValue::repr, what Python's repr and error messages show). zip_mutator.cpp mutates the
// manifest and the other entries inside a valid zip, so that mutations get past the zip's CRCs. Seeds: small
// archives saved by ember.save (make_seeds.py).
#include <cstdint>
#include <string_view>

#include "ember/serialize/EmberFormat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::serialize::Attributes attrs;
    ember::IValue v =
        ember::serialize::load_from_bytes(std::string_view(reinterpret_cast<const char*>(data), size), &attrs);
    (void)v.repr();
  } catch (const ember::Error&) {
  }
  return 0;
}
