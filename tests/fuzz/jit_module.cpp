// Fuzz target: the saved-module loader, ember::jit::load(std::istream&) (ember/jit/runtime/SavedModule.h; the
// path overload and Python's ember.jit.load read through the same code): the archive, the module tree, its
// attributes and types, and every method's IR text, parsed, verified and compiled for the interpreter. Any bytes
// load or raise ember::Error (methods are not run: a loaded model may legitimately ask for any amount of work).
// zip_mutator.cpp mutates inside the zip's entries, past its CRCs. Seeds: small modules saved by ember.jit.save
// (make_seeds.py).
#include <cstdint>
#include <sstream>
#include <string>

#include "ember/jit/runtime/SavedModule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    ember::jit::ExtraFiles extra;
    ember::jit::load(in, &extra);
  } catch (const ember::Error&) {
  }
  return 0;
}
