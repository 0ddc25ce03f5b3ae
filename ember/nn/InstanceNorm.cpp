// InstanceNorm1d/2d/3d (python/ember/nn/modules/instancenorm.py) over F::instance_norm.
#include "ember/nn/InstanceNorm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"
#include "ember/nn/Repr.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

template <size_t D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options_)
    : Cloneable<InstanceNormImpl<D>>(fmt::format("InstanceNorm{}d", D)), options(options_) {
  reset();
}

template <size_t D>
void InstanceNormImpl<D>::reset() {
  const int64_t c = options.num_features();
  if (options.affine()) {
    weight = this->register_parameter("weight", ember::empty({c}));
    bias = this->register_parameter("bias", ember::empty({c}));
  }
  if (options.track_running_stats()) {
    running_mean = this->register_buffer("running_mean", ember::zeros({c}));
    running_var = this->register_buffer("running_var", ember::ones({c}));
    num_batches_tracked = this->register_buffer("num_batches_tracked", ember::zeros({}, kInt64));
  }
  reset_parameters();
}

template <size_t D>
void InstanceNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  autograd::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <size_t D>
void InstanceNormImpl<D>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <size_t D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  const auto no_batch_dim = static_cast<int64_t>(D) + 1;
  EMBER_CHECK_VALUE(input.dim() == no_batch_dim || input.dim() == no_batch_dim + 1,
                    "{}: expected {}D or {}D input (got {}D input of shape [{}])", this->name(), no_batch_dim,
                    no_batch_dim + 1, input.dim(), fmt::join(input.sizes(), ", "));
  const int64_t feature_dim = input.dim() - no_batch_dim;
  // Python only warns about another channel count without affine; the shapes then fail in the op if tracked.
  EMBER_CHECK_VALUE(!options.affine() || input.size(feature_dim) == options.num_features(),
                    "{}: expected input's size at dim={} to match num_features ({}), but got input of shape [{}]",
                    this->name(), feature_dim, options.num_features(), fmt::join(input.sizes(), ", "));
  const bool batched = input.dim() == no_batch_dim + 1;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor out =
      functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                       .running_mean(running_mean)
                                       .running_var(running_var)
                                       .weight(weight)
                                       .bias(bias)
                                       .use_input_stats(this->is_training() || !options.track_running_stats())
                                       .momentum(options.momentum())
                                       .eps(options.eps()));
  return batched ? out : out.squeeze(0);
}

template <size_t D>
std::string InstanceNormImpl<D>::extra_repr() const {
  const auto& o = options;
  return fmt::format("{}, eps={}, momentum={}, affine={}, track_running_stats={}", o.num_features(), repr::py(o.eps()),
                     repr::py(o.momentum()), repr::py(o.affine()), repr::py(o.track_running_stats()));
}

template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;
template class InstanceNormImpl<3>;

}  // namespace ember::nn
