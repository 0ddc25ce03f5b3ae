#pragma once
// The op profiler behind ember.autograd.profiler (Note [op profiler]).
//
// Note [op profiler]
// While a profiler is on (ember.autograd.profiler.profile), every op call that enters from Python (ember.add,
// x.add, a + b: the generic op binding, op_binding.cpp) and every ember.autograd.profiler.record_function range
// is recorded as an event: the op's qualified name ("aten::add"), its start and end on a steady clock (ns),
// the recording thread and the nesting depth of ranges open on that thread when it started. Self and total
// times, the call tree and the tables are computed in Python from the events. The check on the hot path is one
// relaxed atomic load; recording only happens while profiling. Ops that a C++ kernel calls internally (the
// addmm inside linear) are not seen: only calls from Python are, which PyTorch's profiler also shows but then
// with their C++ children.
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace ember::python::profiler {

extern std::atomic<bool> g_enabled;

/// Whether a profiler is recording.
inline bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

/// One recorded range (an op call or a record_function block) of the current thread: opens at construction,
/// recorded at destruction (also when the op raises).
class Range {
 public:
  explicit Range(std::string name);
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  std::string name_;
  int64_t start_ns_;
  int depth_;
};

/// Registers _profiler_enable, _profiler_disable (returns the events), _profiler_range_push/_pop on m.
void init_profiler(pybind11::module_& m);

}  // namespace ember::python::profiler
