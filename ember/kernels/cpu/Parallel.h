#pragma once
// Threads for CPU kernels. Kernels split work with parallel_for (OpenMP underneath) only above a grain size,
// so small tensors never pay for waking threads.
#include <cstdint>
#include <type_traits>

namespace ember {

/// Number of threads used by parallel kernels (and OpenBLAS). Errors: n < 1 (RuntimeError).
void set_num_threads(int n);
int get_num_threads();
/// True inside a parallel region (nested parallel_for calls then run serially).
bool in_parallel_region();

namespace cpu {

/// Elements per task below which parallel_for runs serially.
inline constexpr int64_t kGrainSize = 32768;

/// A non-owning reference to a callable, so the loop engine is not a template (no std::function on the path).
template <class Sig>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, FunctionRef>)
  FunctionRef(F&& f) : obj_(const_cast<void*>(static_cast<const void*>(&f))) {
    call_ = [](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(static_cast<A>(a)...); };
  }
  R operator()(A... a) const { return call_(obj_, static_cast<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

/// Runs f(begin, end) over [0, n) split into at most get_num_threads() contiguous ranges of at least grain
/// elements each; serial when n < 2 * grain, one thread is set, or already inside a parallel region.
/// Exceptions thrown by f are rethrown in the calling thread.
void parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> f);

}  // namespace cpu
}  // namespace ember
