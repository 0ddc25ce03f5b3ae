#pragma once
// Note [dispatch keys]
// Few keys, ordered by priority (a higher value dispatches first): Tracer (records calls into a graph),
// Autograd (records the tape), ADInplaceOrView (version counters and view bases, Note [version counter]),
// then backends (CPU; CUDA reserved). A call's key set is the union of its
// tensor arguments' keys plus the thread-local included keys, minus the thread-local excluded keys; the
// highest key's kernel runs and re-dispatches below itself by excluding its own key. A kernel slot with no
// kernel falls through to the next key. The alias keys only exist at registration:
//  - CompositeImplicitAutograd: written with other ops; serves every backend, ADInplaceOrView and autograd
//    (both see the inner ops), unless a key has its own kernel.
//  - CompositeExplicitAutograd: serves every backend; autograd needs its own formula.
// A new key needs a Note and a test: the list stays short.
#include <bit>
#include <cstdint>
#include <string_view>

namespace ember {

enum class DispatchKey : uint8_t {
  CPU = 0,
  CUDA = 1,  // reserved
  ADInplaceOrView = 2,  // in every call's key set unless excluded: Note [version counter]
  Autograd = 4,
  Tracer = 6,
  kNumRuntime = 8,
  CompositeImplicitAutograd = 8,
  CompositeExplicitAutograd = 9,
};
inline constexpr int kNumDispatchKeys = 8;

std::string_view key_name(DispatchKey k);
/// Parses a key name as written in EMBER_LIBRARY_IMPL (CPU, Autograd, Tracer, CompositeImplicitAutograd, ...).
bool parse_key(std::string_view name, DispatchKey* out);

/// A set of runtime keys as a bitmask.
class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : bits_(uint8_t(1u << static_cast<int>(k))) {}
  constexpr static DispatchKeySet from_bits(uint8_t b) {
    DispatchKeySet s;
    s.bits_ = b;
    return s;
  }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DispatchKeySet remove(DispatchKey k) const {
    return from_bits(bits_ & ~uint8_t(1u << static_cast<int>(k)));
  }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr bool has(DispatchKey k) const { return bits_ & (1u << static_cast<int>(k)); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint8_t bits() const { return bits_; }
  /// The highest-priority key. Precondition: !empty().
  constexpr DispatchKey highest() const { return static_cast<DispatchKey>(7 - std::countl_zero(bits_)); }

 private:
  uint8_t bits_ = 0;
};

/// Thread-local keys added to / removed from every call's key set (Note [dispatch keys]).
struct LocalDispatchKeySet {
  DispatchKeySet included, excluded;
};
LocalDispatchKeySet& tls_local_keys();

/// RAII: excludes keys for the current thread (how a layer re-dispatches below itself).
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet ks) : saved_(tls_local_keys().excluded) {
    tls_local_keys().excluded = saved_ | ks;
  }
  explicit ExcludeDispatchKeyGuard(DispatchKey k) : ExcludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~ExcludeDispatchKeyGuard() { tls_local_keys().excluded = saved_; }
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

/// RAII: includes keys for the current thread (the tracer turns itself on this way).
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet ks) : saved_(tls_local_keys().included) {
    tls_local_keys().included = saved_ | ks;
  }
  explicit IncludeDispatchKeyGuard(DispatchKey k) : IncludeDispatchKeyGuard(DispatchKeySet(k)) {}
  ~IncludeDispatchKeyGuard() { tls_local_keys().included = saved_; }
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

}  // namespace ember
