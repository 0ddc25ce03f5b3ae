#pragma once
// Note [providers]
// Every op has a plain reference CPU kernel that covers every dtype and layout. Optional backend libraries
// (OpenBLAS now, oneDNN later) offer faster kernels for some of the calls: they register as *providers*. A
// provider is a named, process-wide switch (`Provider`); each of its kernels is registered in the
// `ProviderSlot` of one kernel-level operation (GEMM, ...) with a priority, a `supports(args)` check and a
// run function. The CPU kernel of an op builds the operation's argument struct and calls `slot.run(args)`:
// the enabled kernels are tried by priority (highest first; equal priorities in registration order) and the
// first whose supports() holds runs; when none does, run() returns false and the op falls back to its
// reference kernel. Switching a provider off (`set_provider_enabled("blas", false)`, in Python
// `ember.backends.blas.enabled = False`) makes every kernel of it invisible at once, so tests can compare
// each provider with the reference.
//
// Registration takes a mutex and publishes an immutable list; lookups read one atomic pointer and never lock
// or allocate (as Note [lock-free lookups] for the operator table). Lists and providers are never freed.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ember::cpu {

/// An optional backend library that provides faster kernels for some calls of some ops (Note [providers]).
/// Created on first use by name, enabled, and never freed.
class Provider {
 public:
  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  /// Switches every kernel of this provider on or off (takes effect at the next call of an op).
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }

  explicit Provider(std::string name) : name_(std::move(name)) {}
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

 private:
  std::string name_;
  std::atomic<bool> enabled_{true};
};

/// The provider called `name` ("blas", "onednn"), created enabled on first use.
Provider& provider(std::string_view name);
/// The provider called `name`, or null when nothing created it.
Provider* find_provider(std::string_view name);
/// Every provider, in creation order.
std::vector<Provider*> providers();
/// Whether the provider called `name` is on. Errors: no provider of that name (RuntimeError listing them).
bool provider_enabled(std::string_view name);
/// Switches the provider called `name` on or off. Errors: no provider of that name (RuntimeError).
void set_provider_enabled(std::string_view name, bool enabled);

/// " from <path>": the real path of the shared library that holds `symbol` (a provider's config() names the
/// library the loader actually mapped, through any alternatives symlinks); empty when unknown.
std::string library_of(const void* symbol);

/// The ranked provider kernels of one kernel-level operation whose arguments are the struct Args (Note
/// [providers]). Declare one per operation as a function-local static, e.g. gemm_providers() in Matmul.h.
template <class Args>
class ProviderSlot {
 public:
  using SupportsFn = bool (*)(const Args&);
  using RunFn = void (*)(const Args&);
  struct Kernel {
    Provider* provider;
    int priority;         // higher is tried first
    SupportsFn supports;  // whether this kernel can run these arguments (dtype, layout, sizes)
    RunFn run;
  };

  explicit ProviderSlot(const char* name) : name_(name) {}
  ProviderSlot(const ProviderSlot&) = delete;
  ProviderSlot& operator=(const ProviderSlot&) = delete;

  const char* name() const { return name_; }

  /// Registers a kernel of provider p. Thread-safe; calls of run() racing it see the old or the new list.
  void add(Provider& p, int priority, SupportsFn supports, RunFn run) {
    std::lock_guard<std::mutex> g(mu_);
    auto next = std::make_unique<std::vector<Kernel>>(*list_.load(std::memory_order_acquire));
    auto pos = std::find_if(next->begin(), next->end(), [&](const Kernel& k) { return k.priority < priority; });
    next->insert(pos, Kernel{&p, priority, supports, run});
    list_.store(next.get(), std::memory_order_release);
    versions_.push_back(std::move(next));
  }

  /// The kernel run() would choose for args: the first, by priority, of an enabled provider whose supports()
  /// holds; null when none (the caller then runs its reference kernel).
  const Kernel* select(const Args& args) const {
    for (const Kernel& k : *list_.load(std::memory_order_acquire))
      if (k.provider->enabled() && k.supports(args)) return &k;
    return nullptr;
  }

  /// Runs the selected kernel; false when none supports args.
  bool run(const Args& args) const {
    const Kernel* k = select(args);
    if (!k) return false;
    k->run(args);
    return true;
  }

  /// The registered kernels in the order they are tried.
  std::vector<Kernel> kernels() const { return *list_.load(std::memory_order_acquire); }

 private:
  const char* name_;
  std::mutex mu_;
  std::vector<std::unique_ptr<std::vector<Kernel>>> versions_ = [] {
    std::vector<std::unique_ptr<std::vector<Kernel>>> v;
    v.push_back(std::make_unique<std::vector<Kernel>>());
    return v;
  }();
  std::atomic<const std::vector<Kernel>*> list_{versions_.front().get()};
};

}  // namespace ember::cpu
