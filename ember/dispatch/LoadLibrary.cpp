#include "ember/dispatch/LoadLibrary.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "ember/dispatch/Dispatcher.h"
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
// Note [op sources]
// Saved models name the ops they call; a program loading one must have them defined. For an op of a custom
// library the archive records the library's path and for a Python op where it was defined, so that loading
// the model where the op is missing can say what to load (or that it needs Python) instead of only "unknown
// op". load_library() attributes to the library every op its registrars added (the op table only grows; an op
// another thread defines during the dlopen would be attributed too, which only affects that message).
std::mutex g_source_mu;
std::unordered_map<std::string, OpSource>& op_sources() {
  static auto* m = new std::unordered_map<std::string, OpSource>();
  return *m;
}
}  // namespace

void load_library(const std::string& path) {
  EMBER_CHECK(!path.empty(), "load_library: expected the path of a shared library, got an empty string");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw LibraryLoadError(fmt::format("load_library: no such file '{}'", path));
  std::lock_guard<std::mutex> g(g_load_mu);
  (void)take_registration_errors();  // errors of earlier static registrars belong to no load
  size_t ops_before = Dispatcher::singleton().all_ops().size();
  // A path without a slash would make dlopen search the library path instead of opening this file.
  std::string target = path.find('/') == std::string::npos ? "./" + path : path;
  if (!dlopen(target.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char* why = dlerror();
    throw LibraryLoadError(fmt::format("load_library: could not load '{}': {}", path, why ? why : "unknown error"));
  }
  // The ops this load added (the table only grows) belong to this library.
  std::vector<OperatorHandle> ops = Dispatcher::singleton().all_ops();
  for (size_t i = ops_before; i < ops.size(); ++i)
    set_op_source(ops[i].schema().name, OpSource{OpSource::Kind::Library, path});
  std::vector<std::string> errors = take_registration_errors();
  if (!errors.empty()) {
    std::string more = errors.size() > 1 ? fmt::format(" (and {} more registration errors)", errors.size() - 1) : "";
    EMBER_FAIL("load_library: '{}' failed to register its ops: {}{}", path, errors[0], more);
  }
  for (const std::string& p : loaded())
    if (p == path) return;
  loaded().push_back(path);
}

OpSource op_source(std::string_view name) {
  std::lock_guard<std::mutex> g(g_source_mu);
  auto it = op_sources().find(std::string(name));
  return it == op_sources().end() ? OpSource{} : it->second;
}

void set_op_source(std::string_view name, OpSource source) {
  std::lock_guard<std::mutex> g(g_source_mu);
  op_sources()[std::string(name)] = std::move(source);
}

std::vector<std::string> loaded_libraries() {
  std::lock_guard<std::mutex> g(g_load_mu);
  return loaded();
}

}  // namespace ember
