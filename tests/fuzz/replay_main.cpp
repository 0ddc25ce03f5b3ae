// The main() of the fuzz targets in the regular build (tests/fuzz/CMakeLists.txt): replays the files of the
// folders given as arguments (the regression inputs and the seed corpus of one target) through the target's
// LLVMFuzzerTestOneInput, the same entry point libFuzzer calls. Each input must return (loaded, or refused with
// an ember::Error, which the target catches); anything else (another exception, a crash, an abort from a failed
// check) ends the process, and the handlers below name the input first.
//
//   fuzz_replay_schema tests/fuzz/regressions/schema tests/fuzz/corpus/schema
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string current;  // the input being replayed, for the handlers

void name_input() {
  const std::string line = "fuzz replay: failed on input " + current + "\n";
  (void)!::write(2, line.data(), line.size());
}

void on_signal(int sig) {
  name_input();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate([] {
    if (std::exception_ptr e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        std::fprintf(stderr, "fuzz replay: uncaught exception (not an ember::Error): %s\n", x.what());
      } catch (...) {
        std::fprintf(stderr, "fuzz replay: uncaught exception of an unknown type\n");
      }
    }
    std::abort();
  });
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_signal);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <folder or file>...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p = argv[i];
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (std::filesystem::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "fuzz replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  for (const auto& p : inputs) {
    current = p.string();
    std::ifstream in(p, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("fuzz replay: %zu inputs replayed without a crash\n", inputs.size());
  return inputs.empty() ? 1 : 0;
}
