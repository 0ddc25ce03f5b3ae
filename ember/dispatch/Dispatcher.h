#pragma once
// The operator table: one OperatorEntry per op (schema + a kernel slot per dispatch key), found by name once
// and then held as an OperatorHandle. See Note [dispatch keys] and Note [typed and boxed kernels].
//
// Note [lock-free lookups]
// Registration takes a mutex; lookups never do. Entries are never freed (pointers stay valid for the
// process), and each kernel slot is an atomic pointer to an immutable KernelFunction record that registration
// replaces whole (old records are kept alive, so a reader racing a registration sees the old or the new one).
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ember/dispatch/Boxing.h"
#include "ember/dispatch/DispatchKey.h"
#include "ember/dispatch/Schema.h"

namespace ember {

class OperatorHandle;

/// A boxed kernel: reads its arguments from the top of the stack and replaces them with its results.
using BoxedKernelFn = void (*)(void* ctx, const OperatorHandle& op, Stack* stack);
/// A boxed kernel with state (Python callables, lambdas). Owned by the operator table once registered.
using BoxedFunctor = std::function<void(const OperatorHandle&, Stack*)>;

/// One registered kernel: an optional typed function pointer and its boxed form.
struct KernelFunction {
  void* unboxed = nullptr;       // R(*)(A...) matching the schema, or null for boxed-only kernels
  BoxedKernelFn boxed = nullptr;
  void* ctx = nullptr;           // passed to boxed (the unboxed pointer, or a BoxedFunctor*)
  bool fallthrough = false;      // skip this key and dispatch to the next one
  std::string signature;         // "(Tensor, Scalar) -> Tensor" for typed kernels, for the signature check
  std::string debug;             // where it was registered (library name)

  /// A kernel from a typed function pointer.
  template <class R, class... A>
  static KernelFunction from_fn(R (*fn)(A...)) {
    KernelFunction k;
    k.unboxed = reinterpret_cast<void*>(fn);
    k.boxed = &boxed_wrapper<R, A...>;
    k.ctx = k.unboxed;
    k.signature = boxing::signature_string<R, A...>();
    return k;
  }
  /// A boxed-only kernel with state.
  static KernelFunction from_boxed(BoxedFunctor f);
  static KernelFunction make_fallthrough() {
    KernelFunction k;
    k.fallthrough = true;
    return k;
  }

 private:
  template <class R, class... A, size_t... I>
  static R call_unboxed(R (*f)(A...), IValue* args, std::index_sequence<I...>) {
    return f(boxing::Arg<A>::get(args[I])...);
  }
  template <class R, class... A>
  static void boxed_wrapper(void* ctx, const OperatorHandle&, Stack* stack) {
    auto f = reinterpret_cast<R (*)(A...)>(ctx);
    constexpr size_t n = sizeof...(A);
    IValue* args = stack->data() + stack->size() - n;
    if constexpr (std::is_void_v<R>) {
      call_unboxed(f, args, std::index_sequence_for<A...>{});
      stack->resize(stack->size() - n);
    } else {
      R r = call_unboxed(f, args, std::index_sequence_for<A...>{});
      stack->resize(stack->size() - n);
      boxing::Ret<R>::push(*stack, std::move(r));
    }
  }
};

/// Per-op metadata from the op database beyond the schema. Where Python binds an op is Python's business
/// (python/csrc/python_op_table.h, generated from the same database), not the dispatcher's.
struct OpInfo {
  std::string doc;    // one line for the API docs
  std::string shape;  // the shape/dtype rule (ember/ops/meta.h, Note [shape rules]), or empty
};

/// The table entry of one operator.
class OperatorEntry {
 public:
  OperatorEntry(FunctionSchema schema, OpInfo info) : schema_(std::move(schema)), info_(std::move(info)) {}
  const FunctionSchema& schema() const { return schema_; }
  const OpInfo& info() const { return info_; }
  /// The kernel for a key set (Note [dispatch keys]). Errors: no kernel for any key in the set (RuntimeError
  /// naming the op and keys).
  const KernelFunction& lookup(DispatchKeySet ks) const {
    DispatchKey at;
    return lookup(ks, &at);
  }
  /// The same, also telling which key's slot held the kernel.
  const KernelFunction& lookup(DispatchKeySet ks, DispatchKey* at) const {
    while (!ks.empty()) {
      DispatchKey k = ks.highest();
      const KernelFunction* f = table_[static_cast<int>(k)].load(std::memory_order_acquire);
      if (f && !f->fallthrough) {
        *at = k;
        return *f;
      }
      ks = ks.remove(k);
    }
    no_kernel(ks);
  }
  bool has_kernel(DispatchKey k) const;

 private:
  friend class Dispatcher;
  [[noreturn]] void no_kernel(DispatchKeySet ks) const;
 public:
  /// Throws: a typed call passed an undefined (default-constructed) Tensor for a Tensor argument.
  [[noreturn]] void undefined_argument() const;
  /// Throws: a boxed call with fewer values on the stack than the schema has arguments.
  [[noreturn]] void too_few_arguments(size_t on_stack) const;

 private:
  // Refreshes one slot from the direct and alias registrations and, failing those, the key's fallback.
  void recompute(DispatchKey runtime_key, const KernelFunction* fallback);

  FunctionSchema schema_;
  OpInfo info_;
  std::array<std::atomic<const KernelFunction*>, kNumDispatchKeys> table_{};
  std::array<const KernelFunction*, kNumDispatchKeys> direct_{};  // registered for the key itself
  const KernelFunction* composite_implicit_ = nullptr;
  const KernelFunction* composite_explicit_ = nullptr;
};

/// The key set a tensor contributes to a call: its backend, and Autograd when it has autograd metadata.
inline DispatchKeySet tensor_keys(const TensorImpl* t) {
  DispatchKeySet ks(DispatchKey::CPU);
  if (t->autograd_meta()) ks = ks | DispatchKeySet(DispatchKey::Autograd);
  return ks;
}

namespace detail {
// The keys of a typed call's arguments, and whether a Tensor argument (not a Tensor?) was undefined.
struct KeyAccumulator {
  // Factories without tensor arguments go to CPU; ADInplaceOrView is in every call (Note [version counter]).
  DispatchKeySet ks = DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::ADInplaceOrView);
  bool undefined = false;
};
inline void add_keys(KeyAccumulator& a, const Tensor& t) {
  if (t.defined()) [[likely]]
    a.ks = a.ks | tensor_keys(t.impl());
  else
    a.undefined = true;
}
inline void add_keys(KeyAccumulator& a, const std::optional<Tensor>& t) {
  if (t && t->defined()) a.ks = a.ks | tensor_keys(t->impl());
}
inline void add_keys(KeyAccumulator& a, TensorList l) {
  for (const Tensor& t : l) add_keys(a, t);
}
inline void add_keys(KeyAccumulator& a, const std::vector<std::optional<Tensor>>& l) {
  for (const auto& t : l) add_keys(a, t);
}
template <class T>
inline void add_keys(KeyAccumulator&, const T&) {}
}  // namespace detail

/// The key set of a call from its arguments and the thread's local keys.
template <class... A>
DispatchKeySet compute_keys(const A&... args) {
  detail::KeyAccumulator a;
  (detail::add_keys(a, args), ...);
  const LocalDispatchKeySet& local = tls_local_keys();
  return (a.ks | local.included) - local.excluded;
}
/// The key set of a boxed call: the tensors among the top n stack entries plus local keys.
DispatchKeySet compute_keys_boxed(const Stack& stack, size_t n);

/// Note [version counter]
/// A tensor's version counts the in-place ops that wrote it (through it, a view of it or a detach() alias,
/// which share one counter); autograd compares it with the version a saved tensor had (Note [saved variable
/// versions]). As in PyTorch, it is bumped at the op boundary, not inside kernels: the ADInplaceOrView key sits
/// in every call's key set, and its kernels (generated for every op whose schema writes an argument,
/// `Tensor(a!)`) run the op below the key and then bump each written argument once. A functional op has no
/// kernel there, so its call reaches its backend kernel with ADInplaceOrView still in the key set: the
/// dispatcher then excludes the key while that kernel runs (run_below_inplace_or_view), so the in-place ops a
/// kernel runs on its own fresh tensors (clone's copy_, zeros' fill_) bump nothing, and ember.zeros(3),
/// x.clone() and x + 1 are at version 0. The CompositeImplicitAutograd kernels of in-place and view ops serve
/// the key themselves (their inner ops are seen one by one); those of functional ops are left to the backend
/// slot and run below the key like backend kernels (Note [kernel precedence]). When autograd records a
/// composite op (its kernel serves the Autograd key), the key stays on inside, so views made there know their
/// bases. The same key records the base of every view (Note [view base]).
namespace detail {
/// Whether a kernel found at slot `at` for key set ks must run with ADInplaceOrView excluded.
inline bool below_inplace_or_view(DispatchKeySet ks, DispatchKey at) {
  return static_cast<int>(at) < static_cast<int>(DispatchKey::ADInplaceOrView) &&
         ks.has(DispatchKey::ADInplaceOrView);
}
/// RAII: excludes ADInplaceOrView from the thread's key set (already fetched as `local`).
struct BelowInplaceOrView {
  explicit BelowInplaceOrView(LocalDispatchKeySet& local) : local_(local), saved_(local.excluded) {
    local.excluded = saved_ | DispatchKeySet(DispatchKey::ADInplaceOrView);
  }
  ~BelowInplaceOrView() { local_.excluded = saved_; }
  BelowInplaceOrView(const BelowInplaceOrView&) = delete;
  BelowInplaceOrView& operator=(const BelowInplaceOrView&) = delete;
  LocalDispatchKeySet& local_;
  DispatchKeySet saved_;
};
}  // namespace detail

/// A cheap handle to an operator of the table.
class OperatorHandle {
 public:
  OperatorHandle() = default;
  explicit OperatorHandle(OperatorEntry* e) : e_(e) {}
  bool valid() const { return e_ != nullptr; }
  const FunctionSchema& schema() const { return e_->schema(); }
  const OpInfo& info() const { return e_->info(); }
  OperatorEntry* entry() const { return e_; }

  /// Boxed call: the arguments (all of them, defaults filled) on top of the stack are replaced by the results.
  /// Errors: fewer values on the stack than the schema has arguments (RuntimeError naming the op and schema).
  void call_boxed(Stack* stack) const {
    const size_t n = e_->schema().arguments.size();
    if (stack->size() < n) [[unlikely]] e_->too_few_arguments(stack->size());
    redispatch_boxed(compute_keys_boxed(*stack, n), stack);
  }
  /// Boxed call with the key set ks (how a boxed fallback forwards a call below its own key).
  void redispatch_boxed(DispatchKeySet ks, Stack* stack) const {
    DispatchKey at;
    const KernelFunction& k = e_->lookup(ks, &at);
    if (detail::below_inplace_or_view(ks, at)) {
      detail::BelowInplaceOrView guard(tls_local_keys());
      k.boxed(k.ctx, *this, stack);
      return;
    }
    k.boxed(k.ctx, *this, stack);
  }

  /// Typed call. The C++ signature must match the schema (the generated functions guarantee it).
  template <class R, class... A>
  R call(A... args) const {
    detail::KeyAccumulator acc;
    (detail::add_keys(acc, args), ...);
    // A default-constructed Tensor has no TensorImpl for a kernel to read: refuse it here, naming the op.
    if (acc.undefined) [[unlikely]] e_->undefined_argument();
    LocalDispatchKeySet& local = tls_local_keys();
    const DispatchKeySet ks = (acc.ks | local.included) - local.excluded;
    DispatchKey at;
    const KernelFunction& k = e_->lookup(ks, &at);
    if (detail::below_inplace_or_view(ks, at)) {  // Note [version counter]
      detail::BelowInplaceOrView guard(local);
      return invoke<R, A...>(k, std::forward<A>(args)...);
    }
    return invoke<R, A...>(k, std::forward<A>(args)...);
  }

 private:
  template <class R, class... A>
  R invoke(const KernelFunction& k, A... args) const {
    if (k.unboxed) [[likely]] return reinterpret_cast<R (*)(A...)>(k.unboxed)(std::forward<A>(args)...);
    return call_via_boxed<R>(k, std::forward<A>(args)...);
  }
  template <class R, class... A>
  R call_via_boxed(const KernelFunction& k, A... args) const {
    Stack stack;
    stack.reserve(sizeof...(A));
    (boxing::push_arg(stack, std::forward<A>(args)), ...);
    k.boxed(k.ctx, *this, &stack);
    if constexpr (!std::is_void_v<R>) return boxing::Ret<R>::pop(stack);
  }
  OperatorEntry* e_ = nullptr;
};

/// The process-wide operator table.
class Dispatcher {
 public:
  static Dispatcher& singleton();

  /// Declares an op. Errors: malformed schema; the same name and overload declared twice (RuntimeError
  /// naming both registrations).
  OperatorHandle def(std::string_view schema, OpInfo info, std::string_view default_ns, std::string_view where);
  /// Registers a kernel for `name` ("ns::op.overload") under a runtime or alias key. Errors: unknown op;
  /// signature mismatch (Note [signature check]); a second kernel for the same op and key.
  void impl(std::string_view name, DispatchKey key, KernelFunction k, std::string_view where);
  /// Registers a boxed fallback used for every op without its own kernel at that key (the tracer's).
  void fallback(DispatchKey key, KernelFunction k);

  /// Finds "ns::op.overload" ("ns::op" means the empty overload). Returns an invalid handle when absent.
  OperatorHandle find(std::string_view name) const;
  /// Like find; raises RuntimeError naming the op (and suggesting a library to load) when absent.
  OperatorHandle find_or_throw(std::string_view name) const;
  /// All overloads of "ns::op".
  std::vector<OperatorHandle> overloads(std::string_view name) const;
  /// Every op, in registration order.
  std::vector<OperatorHandle> all_ops() const;

 private:
  Dispatcher() = default;
  mutable std::mutex mu_;
  std::vector<OperatorEntry*> ops_;  // registration order; never freed (Note [lock-free lookups])
  std::vector<std::unique_ptr<KernelFunction>> kernels_;  // owned records
  std::array<const KernelFunction*, kNumDispatchKeys> fallbacks_{};
};

/// Typed C++ handle to an op by name, checked once against the schema: `typed_op<Tensor(const Tensor&,
/// double)>("myops::fused_act")`. Errors: unknown op; the signature does not match the schema.
OperatorHandle find_op_checked(std::string_view name, const std::string& cpp_signature);
template <class Sig>
struct TypedOp;
template <class R, class... A>
struct TypedOp<R(A...)> {
  OperatorHandle op;
  R operator()(A... args) const { return op.call<R, A...>(std::forward<A>(args)...); }
};
template <class Sig>
TypedOp<Sig> typed_op(std::string_view name);
template <class R, class... A>
struct TypedOpMaker;
template <class R, class... A>
TypedOp<R(A...)> make_typed_op(std::string_view name, R (*)(A...)) {
  return {find_op_checked(name, boxing::signature_string<R, A...>())};
}
template <class Sig>
TypedOp<Sig> typed_op(std::string_view name) {
  return make_typed_op(name, static_cast<Sig*>(nullptr));
}

/// The schema signature in the normalized form compared with C++ signatures ("(Tensor, int[]) -> Tensor").
std::string schema_signature_string(const FunctionSchema& s);

}  // namespace ember
