#pragma once
// Grad modes: whether autograd records operations on this thread (PyTorch's GradMode). The Autograd-key
// kernels read it; ops on tensors without autograd metadata never reach them (Note [autograd dispatch]).
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

}  // namespace ember::autograd
