#include "ember/dispatch/LoadLibrary.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

#include "ember/dispatch/Library.h"

namespace ember {

// Note [unloading]
// A loaded op library is never closed: its kernels are function pointers held by the operator table, by
// compiled graphs and by autograd nodes that may outlive any call, and nothing tells when the last of them is
// gone. torch.ops.load_library has no unload either.
namespace {
std::mutex g_load_mu;
std::vector<std::string>& loaded() {
  static auto* v = new std::vector<std::string>();
  return *v;
}
}  // namespace

void load_library(const std::string& path) {
  EMBER_CHECK(!path.empty(), "load_library: expected the path of a shared library, got an empty string");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw LibraryLoadError(fmt::format("load_library: no such file '{}'", path));
  std::lock_guard<std::mutex> g(g_load_mu);
  (void)take_registration_errors();  // errors of earlier static registrars belong to no load
  // A path without a slash would make dlopen search the library path instead of opening this file.
  std::string target = path.find('/') == std::string::npos ? "./" + path : path;
  if (!dlopen(target.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char* why = dlerror();
    throw LibraryLoadError(fmt::format("load_library: could not load '{}': {}", path, why ? why : "unknown error"));
  }
  std::vector<std::string> errors = take_registration_errors();
  if (!errors.empty()) {
    std::string more = errors.size() > 1 ? fmt::format(" (and {} more registration errors)", errors.size() - 1) : "";
    EMBER_FAIL("load_library: '{}' failed to register its ops: {}{}", path, errors[0], more);
  }
  for (const std::string& p : loaded())
    if (p == path) return;
  loaded().push_back(path);
}

std::vector<std::string> loaded_libraries() {
  std::lock_guard<std::mutex> g(g_load_mu);
  return loaded();
}

}  // namespace ember
