#include "ember/autograd/AnomalyMode.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "ember/autograd/Node.h"

namespace ember::autograd {
namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_check_nan{true};
std::mutex g_mutex;  // guards the two functions below (set rarely, read only in anomaly mode)
std::function<std::string()> g_provider;
std::function<void(const std::string&)> g_warn;
}  // namespace

bool AnomalyMode::is_enabled() { return g_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return g_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  g_enabled.store(enabled);
  g_check_nan.store(check_nan);
}
void AnomalyMode::set_trace_provider(std::function<std::string()> provider) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_provider = std::move(provider);
}
void AnomalyMode::set_warning_handler(std::function<void(const std::string&)> handler) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_warn = std::move(handler);
}

void AnomalyMode::record(Node& node) {
  std::function<std::string()> provider;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    provider = g_provider;
  }
  std::string trace = provider ? provider() : std::string();
  node.anomaly_trace = trace.empty() ? "  (forward op recorded as " + node.name() + ", called from C++)\n" : trace;
}

void AnomalyMode::report_error(const Node& node) {
  std::string msg = "Error detected in " + node.name() + ". ";
  if (node.anomaly_trace.empty())
    msg += "No forward pass information available. Enable detect anomaly during forward pass for more information.";
  else
    msg += "Traceback of forward call that caused the error:\n" + node.anomaly_trace;
  std::function<void(const std::string&)> warn;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    warn = g_warn;
  }
  if (warn) warn(msg);
  else std::fprintf(stderr, "Warning: %s\n", msg.c_str());
}

DetectAnomalyGuard::DetectAnomalyGuard(bool enabled, bool check_nan)
    : prev_enabled_(AnomalyMode::is_enabled()), prev_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(enabled, check_nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_enabled_, prev_check_nan_); }

}  // namespace ember::autograd
