#include "ember/nn/NormImplBase.h"

#include "ember/autograd/GradMode.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

void NormImplBase::register_norm_state(Module& self, int64_t num_features, bool affine, bool track_running_stats) {
  if (affine) {
    weight = self.register_parameter("weight", ember::empty({num_features}));
    bias = self.register_parameter("bias", ember::empty({num_features}));
  }
  if (track_running_stats) {
    running_mean = self.register_buffer("running_mean", ember::zeros({num_features}));
    running_var = self.register_buffer("running_var", ember::ones({num_features}));
    num_batches_tracked = self.register_buffer("num_batches_tracked", ember::zeros({}, kInt64));
  }
  reset_parameters();
}

void NormImplBase::reset_running_stats() {
  if (!running_mean.defined()) return;
  autograd::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void NormImplBase::reset_parameters() {
  reset_running_stats();
  if (weight.defined()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

}  // namespace ember::nn
