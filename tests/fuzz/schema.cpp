// Fuzz target: the schema parser, ember::parse_schema (ember/dispatch/Schema.h), which reads the schemas of the
// op database and of custom ops (EMBER_LIBRARY, ember.library from Python, and the schemas a loaded library
// registers). Any text either parses or raises ember::Error; a parsed schema prints (FunctionSchema::str) as text
// that parses back to the same schema, as Schema.h promises. Seeds: every registered op's schema (make_seeds.py).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ember/dispatch/Schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string printed;
  try {
    printed = ember::parse_schema(text).str();
  } catch (const ember::Error&) {
    return 0;
  }
  std::string reprinted;
  try {
    reprinted = ember::parse_schema(printed).str();
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "schema fuzz: the printed schema does not parse back:\n  %s\n  %s\n", printed.c_str(),
                 e.what());
    std::abort();
  }
  if (reprinted != printed) {
    std::fprintf(stderr, "schema fuzz: printing does not round-trip:\n  %s\n  %s\n", printed.c_str(),
                 reprinted.c_str());
    std::abort();
  }
  return 0;
}
