#pragma once
// Grad modes: whether autograd records operations on this thread (PyTorch's GradMode). The Autograd-key
// kernels read it; ops on tensors without autograd metadata never reach them (Note [autograd dispatch]).
// Inference mode (below) is grad mode off plus inference tensors (Note [inference tensors]).
#include "ember/dispatch/DispatchKey.h"

namespace ember::autograd {

/// The thread-local switch for recording the autograd graph (on by default in every thread).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// RAII: sets grad mode to `enabled` for the current thread and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// RAII: no graph is recorded in its scope (PyTorch's torch::NoGradGuard / `with torch.no_grad()`).
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// RAII: inference mode for the current thread (PyTorch's c10::InferenceMode / `torch.inference_mode()`).
/// InferenceMode(true): grad mode off, the Autograd key excluded (so enable_grad inside records nothing,
/// as PyTorch), and every tensor allocated in scope is an inference tensor (Note [inference tensors]).
/// InferenceMode(false): the opposite for its scope (grad mode on, normal tensors), e.g. nested inside
/// an enabled one. Leaving the scope restores all three settings.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  /// Whether inference mode is on in this thread.
  static bool is_enabled();

 private:
  bool prev_inference_, prev_grad_;
  DispatchKeySet prev_excluded_;
};

}  // namespace ember::autograd

namespace ember {
/// `ember::InferenceMode guard;` as LibTorch's `c10::InferenceMode guard;`.
using autograd::InferenceMode;
/// `ember::NoGradGuard no_grad;`, `ember::AutoGradMode enable_grad(true);` and `ember::GradMode::is_enabled()`
/// as LibTorch's torch::NoGradGuard, torch::AutoGradMode and at::GradMode.
using autograd::AutoGradMode;
using autograd::GradMode;
using autograd::NoGradGuard;
}  // namespace ember
