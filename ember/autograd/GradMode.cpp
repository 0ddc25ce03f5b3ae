#include "ember/autograd/GradMode.h"

#include "ember/core/TensorImpl.h"

namespace ember::autograd {
namespace {
thread_local bool t_grad_enabled = true;
}
bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

InferenceMode::InferenceMode(bool enabled)
    : prev_inference_(inference_mode_enabled()), prev_grad_(t_grad_enabled),
      prev_excluded_(tls_local_keys().excluded) {
  set_inference_mode_enabled(enabled);
  t_grad_enabled = !enabled;
  tls_local_keys().excluded =
      enabled ? prev_excluded_ | DispatchKeySet(DispatchKey::Autograd) : prev_excluded_.remove(DispatchKey::Autograd);
}

InferenceMode::~InferenceMode() {
  set_inference_mode_enabled(prev_inference_);
  t_grad_enabled = prev_grad_;
  tls_local_keys().excluded = prev_excluded_;
}

bool InferenceMode::is_enabled() { return inference_mode_enabled(); }

}  // namespace ember::autograd
