#pragma once
// Anomaly mode (PyTorch's torch.autograd.detect_anomaly / set_detect_anomaly).
//
// Note [anomaly mode]
// When on, every node recorded records where its forward op was called (Node::anomaly_trace: the Python
// stack when the call came from Python, through a provider the binding installs; a short note naming the
// op from C++). During backward, an error escaping a node is preceded by a warning "Error detected in
// <node>. Traceback of forward call that caused the error: ...", and with check_nan a node whose output
// gradient holds a NaN raises "Function '<node>' returned nan values in its <i>th output." as PyTorch.
// The switch is process-wide (as PyTorch's), not per thread; reading it costs one relaxed atomic load.
#include <functional>
#include <string>

namespace ember::autograd {

struct Node;

/// The process-wide anomaly-detection switch.
struct AnomalyMode {
  static bool is_enabled();
  /// Whether backward checks node outputs for NaN (only meaningful when enabled).
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
  /// Installs the function that describes where a forward op is being called (the binding's returns the
  /// Python stack); an empty function restores the default (the op's name only).
  static void set_trace_provider(std::function<std::string()> provider);
  /// Installs the sink of anomaly warnings (default: standard error); the binding's raises a UserWarning.
  static void set_warning_handler(std::function<void(const std::string&)> handler);
  /// Fills node.anomaly_trace (called when a node enters the graph in anomaly mode).
  static void record(Node& node);
  /// Emits the "Error detected in <node>" warning for a node whose backward failed.
  static void report_error(const Node& node);
};

/// RAII: turns anomaly mode on (or off) for its scope and restores the previous setting (PyTorch's
/// torch::autograd::DetectAnomalyGuard; Python `with ember.autograd.detect_anomaly():`).
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool enabled = true, bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_enabled_, prev_check_nan_;
};

}  // namespace ember::autograd
