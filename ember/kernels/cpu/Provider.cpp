// The process-wide list of providers (Note [providers]).
#include "ember/kernels/cpu/Provider.h"

#include <dlfcn.h>

#include <cstdlib>

#include "ember/base/Error.h"

namespace ember::cpu {

namespace {
struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Provider>> all;  // never shrinks: Provider pointers stay valid
};
Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

std::string known_names(const Registry& r) {
  std::string s;
  for (const auto& p : r.all) s += (s.empty() ? "" : ", ") + p->name();
  return s.empty() ? "none" : s;
}
}  // namespace

Provider& provider(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  for (const auto& p : r.all)
    if (p->name() == name) return *p;
  r.all.push_back(std::make_unique<Provider>(std::string(name)));
  return *r.all.back();
}

Provider* find_provider(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  for (const auto& p : r.all)
    if (p->name() == name) return p.get();
  return nullptr;
}

std::vector<Provider*> providers() {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  std::vector<Provider*> v;
  for (const auto& p : r.all) v.push_back(p.get());
  return v;
}

namespace {
Provider& existing(std::string_view name) {
  if (Provider* p = find_provider(name)) return *p;
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  EMBER_FAIL("providers: no provider called '{}' in this build (known: {})", name, known_names(r));
}
}  // namespace

bool provider_enabled(std::string_view name) { return existing(name).enabled(); }

void set_provider_enabled(std::string_view name, bool enabled) { existing(name).set_enabled(enabled); }

std::string library_of(const void* symbol) {
  Dl_info info;
  if (!dladdr(symbol, &info) || !info.dli_fname) return "";
  char* real = realpath(info.dli_fname, nullptr);
  std::string s = std::string(" from ") + (real ? real : info.dli_fname);
  std::free(real);
  return s;
}

}  // namespace ember::cpu
