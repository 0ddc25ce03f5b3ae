#include "ember/jit/ir/Symbol.h"

#include <array>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "ember/base/Error.h"

namespace ember::jit {

namespace {

constexpr std::array<std::string_view, static_cast<size_t>(detail::BuiltinSymbol::NumBuiltins)> kBuiltinNames = {
    "",
#define EMBER_JIT_PRIM_NAME(n) "prim::" #n,
    EMBER_JIT_FORALL_PRIMS(EMBER_JIT_PRIM_NAME)
#undef EMBER_JIT_PRIM_NAME
};

// The interned names beyond the built-ins. A deque keeps each string at a stable address, so a string_view
// handed out stays valid for the process; lookups and insertions take the mutex (symbols are interned when
// graphs are built or parsed, never per element).
struct SymbolTable {
  std::mutex mu;
  std::deque<std::string> names;                      // id - NumBuiltins -> name
  std::unordered_map<std::string_view, uint32_t> ids;  // name -> id (views into names / kBuiltinNames)

  SymbolTable() {
    for (uint32_t i = 1; i < kBuiltinNames.size(); ++i) ids.emplace(kBuiltinNames[i], i);
  }
  static SymbolTable& get() {
    static SymbolTable* t = new SymbolTable();  // never destroyed: symbols may be printed at exit
    return *t;
  }
};

}  // namespace

Symbol Symbol::from_qual_string(std::string_view qual) {
  size_t sep = qual.find("::");
  EMBER_CHECK(sep != std::string_view::npos && sep > 0 && sep + 2 < qual.size() &&
                  qual.find("::", sep + 2) == std::string_view::npos,
              "jit: '{}' is not a qualified name of the form namespace::name", qual);
  SymbolTable& t = SymbolTable::get();
  std::lock_guard<std::mutex> g(t.mu);
  auto it = t.ids.find(qual);
  if (it != t.ids.end()) return from_id(it->second);
  t.names.emplace_back(qual);
  uint32_t id = static_cast<uint32_t>(kBuiltinNames.size() + t.names.size() - 1);
  t.ids.emplace(t.names.back(), id);
  return from_id(id);
}

Symbol Symbol::from_ns(std::string_view ns, std::string_view name) {
  std::string q;
  q.reserve(ns.size() + 2 + name.size());
  q.append(ns).append("::").append(name);
  return from_qual_string(q);
}

std::string_view Symbol::qual_string() const {
  if (id_ < kBuiltinNames.size()) return kBuiltinNames[id_];
  SymbolTable& t = SymbolTable::get();
  std::lock_guard<std::mutex> g(t.mu);
  return t.names[id_ - kBuiltinNames.size()];
}

std::string_view Symbol::ns() const {
  std::string_view q = qual_string();
  size_t sep = q.find("::");
  return sep == std::string_view::npos ? std::string_view() : q.substr(0, sep);
}

std::string_view Symbol::name() const {
  std::string_view q = qual_string();
  size_t sep = q.find("::");
  return sep == std::string_view::npos ? q : q.substr(sep + 2);
}

}  // namespace ember::jit
