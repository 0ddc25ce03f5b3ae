#pragma once
// Note [registration]
// Ops are declared and implemented through one API, the same for Ember's built-in ops and for users:
//
//   EMBER_LIBRARY(myops, m) { m.def("fused_act(Tensor x, float alpha=1.0) -> Tensor"); }
//   EMBER_LIBRARY_IMPL(myops, CPU, m) { m.impl("fused_act", &fused_act_cpu); }
//
// Each macro defines a function `ember_library_<kind>_<ns>[_<key>](ember::Library&)` holding the body, plus a
// static registrar that calls it when the shared object loads (which is how a library loaded with
// ember.ops.load_library registers). Built-in ops do not rely on static initializers: libember's init calls
// their registration functions explicitly from one list (ember/api/init.cpp), so nothing is dropped by a
// static link; a user linking an extension statically can call the generated function explicitly too,
// through ember::register_library().
#include <string>
#include <string_view>

#include "ember/dispatch/Dispatcher.h"

namespace ember {

/// A registration context bound to one namespace (and, for IMPL blocks, one dispatch key).
class Library {
 public:
  enum class Kind { Def, Impl, Fragment };
  Library(Kind kind, std::string ns, DispatchKey key, std::string where);

  /// Declares an op from a schema (the namespace is the library's unless the name is qualified).
  Library& def(std::string_view schema, OpInfo info = {});
  /// Declares an op and registers fn as its CompositeImplicitAutograd kernel.
  template <class R, class... A>
  Library& def(std::string_view schema, R (*fn)(A...)) {
    OperatorHandle h = def_handle(schema, {});
    Dispatcher::singleton().impl(h.schema().full_name(), DispatchKey::CompositeImplicitAutograd,
                                 KernelFunction::from_fn(fn), where_);
    return *this;
  }
  /// Registers a typed kernel for `name` under this block's key (or `key` when given).
  template <class R, class... A>
  Library& impl(std::string_view name, R (*fn)(A...)) {
    return impl(name, KernelFunction::from_fn(fn));
  }
  template <class R, class... A>
  Library& impl(std::string_view name, DispatchKey key, R (*fn)(A...)) {
    return impl(name, key, KernelFunction::from_fn(fn));
  }
  Library& impl(std::string_view name, KernelFunction k) { return impl(name, key_, std::move(k)); }
  Library& impl(std::string_view name, DispatchKey key, KernelFunction k);
  /// A boxed fallback for every op at this block's key (ns must be "_").
  Library& fallback(KernelFunction k);

  const std::string& ns() const { return ns_; }

 private:
  OperatorHandle def_handle(std::string_view schema, OpInfo info);
  std::string qualify(std::string_view name) const;
  Kind kind_;
  std::string ns_;
  DispatchKey key_;
  std::string where_;
};

/// Runs a library body now (used by the registrar objects and for explicit registration).
void register_library(Library::Kind kind, const char* ns, const char* key, void (*body)(Library&),
                      const char* file, int line);

/// Registration errors raised while a shared object's static registrars ran (they cannot throw out of a
/// static initializer without aborting). load_library() takes them and raises the first.
std::vector<std::string> take_registration_errors();

struct LibraryRegistrar {
  LibraryRegistrar(Library::Kind kind, const char* ns, const char* key, void (*body)(Library&), const char* file,
                   int line);
};

}  // namespace ember

#define EMBER_LIBRARY(ns, m)                                                                              \
  void ember_library_def_##ns(::ember::Library&);                                                         \
  static const ::ember::LibraryRegistrar ember_library_registrar_def_##ns(                                \
      ::ember::Library::Kind::Def, #ns, "", &ember_library_def_##ns, __FILE__, __LINE__);                 \
  void ember_library_def_##ns(::ember::Library& m)

#define EMBER_LIBRARY_FRAGMENT(ns, m) EMBER_LIBRARY_FRAGMENT_UID(ns, m, __COUNTER__)
#define EMBER_LIBRARY_FRAGMENT_UID(ns, m, uid) EMBER_LIBRARY_FRAGMENT_UID2(ns, m, uid)
#define EMBER_LIBRARY_FRAGMENT_UID2(ns, m, uid)                                                           \
  static void ember_library_fragment_##ns##_##uid(::ember::Library&);                                     \
  static const ::ember::LibraryRegistrar ember_library_registrar_fragment_##ns##_##uid(                   \
      ::ember::Library::Kind::Fragment, #ns, "", &ember_library_fragment_##ns##_##uid, __FILE__, __LINE__); \
  static void ember_library_fragment_##ns##_##uid(::ember::Library& m)

#define EMBER_LIBRARY_IMPL(ns, key, m)                                                                    \
  void ember_library_impl_##ns##_##key(::ember::Library&);                                                \
  static const ::ember::LibraryRegistrar ember_library_registrar_impl_##ns##_##key(                       \
      ::ember::Library::Kind::Impl, #ns, #key, &ember_library_impl_##ns##_##key, __FILE__, __LINE__);     \
  void ember_library_impl_##ns##_##key(::ember::Library& m)
