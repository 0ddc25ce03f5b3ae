#include "ember/kernels/cpu/Parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#include "ember/base/Error.h"

extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace ember {

namespace {
std::atomic<int> g_threads{0};  // 0: not set yet, use OpenMP's default
}

void set_num_threads(int n) {
  EMBER_CHECK(n >= 1, "set_num_threads: expected a positive number of threads, got {}", n);
  g_threads.store(n);
  omp_set_num_threads(n);
  if (openblas_set_num_threads) openblas_set_num_threads(n);
}

int get_num_threads() {
  int n = g_threads.load();
  return n > 0 ? n : omp_get_max_threads();
}

bool in_parallel_region() { return omp_in_parallel(); }

namespace cpu {

void parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> f) {
  if (n <= 0) return;
  int threads = get_num_threads();
  int64_t max_tasks = std::max<int64_t>(1, n / std::max<int64_t>(grain, 1));
  int tasks = static_cast<int>(std::min<int64_t>(threads, max_tasks));
  if (tasks <= 1 || omp_in_parallel()) {
    f(0, n);
    return;
  }
  std::exception_ptr error;
  std::mutex mu;
#pragma omp parallel num_threads(tasks)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = t * chunk, e = std::min(n, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace cpu
}  // namespace ember
