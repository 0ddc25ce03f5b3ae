#include "profiler.h"

#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

// See Note [op profiler].
namespace ember::python::profiler {

std::atomic<bool> g_enabled{false};

namespace py = pybind11;

namespace {

struct Event {
  std::string name;
  int64_t start_ns, end_ns;
  uint64_t thread;
  int depth;
};

std::mutex g_mu;
std::vector<Event> g_events;  // guarded by g_mu
thread_local int t_depth = 0;
// The ranges record_function opened on this thread and has not closed, innermost last.
thread_local std::vector<std::unique_ptr<Range>> t_user_ranges;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t thread_id() { return static_cast<uint64_t>(std::hash<std::thread::id>()(std::this_thread::get_id())); }

}  // namespace

Range::Range(std::string name) : name_(std::move(name)), start_ns_(now_ns()), depth_(t_depth++) {}

Range::~Range() {
  const int64_t end = now_ns();
  --t_depth;
  if (!enabled()) return;  // the profiler stopped while this range was open
  std::lock_guard<std::mutex> lock(g_mu);
  g_events.push_back({std::move(name_), start_ns_, end, thread_id(), depth_});
}

void init_profiler(py::module_& m) {
  m.def("_profiler_enable", []() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_enabled.load()) throw std::runtime_error("Profiler is already enabled (profiles do not nest)");
    g_events.clear();
    g_enabled.store(true);
  }, "Starts recording op calls and record_function ranges (Note [op profiler]).");
  m.def("_profiler_disable", []() {
    std::vector<Event> events;
    {
      std::lock_guard<std::mutex> lock(g_mu);
      g_enabled.store(false);
      events.swap(g_events);
    }
    py::list out;
    for (const Event& e : events) out.append(py::make_tuple(e.name, e.start_ns, e.end_ns, e.thread, e.depth));
    return out;
  }, "Stops recording; returns the events as (name, start_ns, end_ns, thread, depth) tuples.");
  m.def("_profiler_enabled", &enabled);
  m.def("_profiler_range_push", [](std::string name) { t_user_ranges.push_back(std::make_unique<Range>(name)); },
        "Opens a named range on this thread (ember.autograd.profiler.record_function).");
  m.def("_profiler_range_pop", []() {
    if (t_user_ranges.empty()) throw std::runtime_error("record_function: no open range to close on this thread");
    t_user_ranges.pop_back();
  }, "Closes the innermost range this thread opened.");
}

}  // namespace ember::python::profiler
