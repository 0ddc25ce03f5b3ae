#include "ember/dispatch/Library.h"

namespace ember {

Library::Library(Kind kind, std::string ns, DispatchKey key, std::string where)
    : kind_(kind), ns_(std::move(ns)), key_(key), where_(std::move(where)) {}

std::string Library::qualify(std::string_view name) const {
  if (name.find("::") != std::string_view::npos) {
    EMBER_CHECK(name.substr(0, name.find("::")) == ns_ || ns_ == "_",
                "{}: the op name {} names another namespace than this library's ({})", where_, name, ns_);
    return std::string(name);
  }
  return ns_ + "::" + std::string(name);
}

OperatorHandle Library::def_handle(std::string_view schema, OpInfo info) {
  EMBER_CHECK(kind_ != Kind::Impl, "{}: def() is not allowed in an EMBER_LIBRARY_IMPL block", where_);
  // A qualified schema name must be this library's namespace.
  size_t paren = schema.find('(');
  std::string_view head = schema.substr(0, paren);
  if (head.find("::") != std::string_view::npos) (void)qualify(head.substr(0, head.find('.')));
  return Dispatcher::singleton().def(schema, std::move(info), ns_, where_);
}

Library& Library::def(std::string_view schema, OpInfo info) {
  def_handle(schema, std::move(info));
  return *this;
}

Library& Library::impl(std::string_view name, DispatchKey key, KernelFunction k) {
  Dispatcher::singleton().impl(qualify(name), key, std::move(k), where_);
  return *this;
}

Library& Library::fallback(KernelFunction k) {
  EMBER_CHECK(ns_ == "_", "{}: fallback() needs the namespace '_' (it covers every op)", where_);
  Dispatcher::singleton().fallback(key_, std::move(k));
  return *this;
}

void register_library(Library::Kind kind, const char* ns, const char* key_name_str, void (*body)(Library&),
                      const char* file, int line) {
  DispatchKey key = DispatchKey::CompositeImplicitAutograd;
  if (kind == Library::Kind::Impl) {
    EMBER_CHECK(parse_key(key_name_str, &key), "EMBER_LIBRARY_IMPL at {}:{}: unknown dispatch key '{}'", file, line,
                key_name_str);
  }
  Library lib(kind, ns, key, fmt::format("{}:{}", file, line));
  body(lib);
}

namespace {
std::mutex g_errors_mu;
std::vector<std::string>& pending_errors() {
  static auto* v = new std::vector<std::string>();
  return *v;
}
}  // namespace

LibraryRegistrar::LibraryRegistrar(Library::Kind kind, const char* ns, const char* key, void (*body)(Library&),
                                   const char* file, int line) {
  try {
    register_library(kind, ns, key, body, file, line);
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> g(g_errors_mu);
    pending_errors().emplace_back(e.what());
  }
}

std::vector<std::string> take_registration_errors() {
  std::lock_guard<std::mutex> g(g_errors_mu);
  return std::exchange(pending_errors(), {});
}

}  // namespace ember
