// Fuzz target: the TorchScript lexer and parser, ember::jit::script::parse_script (ember/jit/frontend/Parser.h),
// which will read the code/ files of every PyTorch archive ember::jit::load opens. Any bytes either parse or
// raise ember::Error, within the limits of Note [TorchScript grammar] (no stack overflow on deep nesting, no
// unbounded allocation); a parsed tree prints (to_sexpr walks the whole tree), and parsing is deterministic.
// Seeds: code/ files of archives saved by PyTorch 1.13 and hand-written sources covering the grammar
// (make_seeds.py); dictionary: dicts/script_parser.dict.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ember/base/Error.h"
#include "ember/jit/frontend/Parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string printed;
  try {
    printed = ember::jit::script::to_sexpr(*ember::jit::script::parse_script(text, "fuzz.py"));
  } catch (const ember::Error&) {
    return 0;
  }
  std::string again = ember::jit::script::to_sexpr(*ember::jit::script::parse_script(text, "fuzz.py"));
  if (again != printed) {
    std::fprintf(stderr, "script_parser fuzz: parsing is not deterministic:\n%s\n%s\n", printed.c_str(),
                 again.c_str());
    std::abort();
  }
  return 0;
}
