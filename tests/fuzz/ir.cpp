// Fuzz target: the IR text parser, ember::jit::parse_ir (ember/jit/ir/IRParser.h), which reads every method of a
// saved module (ember::jit::load) and TorchScript's printed graphs. Any text either parses or raises
// ember::Error; a parsed graph is verified (ember::jit::verify: ember::Error or success) and its printed text
// parses back to a graph that prints the same (IRParser.h: print(parse(print(g))) == print(g)). The tensor table
// holds two tensors so that <Tensor:k> attributes resolve. Seeds: the graphs of traced and saved modules
// (make_seeds.py).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ember/jit/ir/IRParser.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/ir/Verifier.h"
#include "ember/ops/Functions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<ember::Tensor> table = {ember::ones({2, 3}), ember::zeros({}, ember::kInt64)};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ember::jit::ParseOptions options;
  options.tensor_table = &table;
  std::string printed;
  try {
    std::shared_ptr<ember::jit::Graph> g = ember::jit::parse_ir(text, options);
    printed = ember::jit::to_string(*g);
    ember::jit::verify(*g);
  } catch (const ember::Error&) {
    if (printed.empty()) return 0;  // a parse error; a verify error still round-trips below
  }
  std::string reprinted;
  try {
    reprinted = ember::jit::to_string(*ember::jit::parse_ir(printed));
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "ir fuzz: the printed graph does not parse back:\n%s\n%s\n", printed.c_str(), e.what());
    std::abort();
  }
  if (reprinted != printed) {
    std::fprintf(stderr, "ir fuzz: printing does not round-trip:\n%s\n%s\n", printed.c_str(), reprinted.c_str());
    std::abort();
  }
  return 0;
}
