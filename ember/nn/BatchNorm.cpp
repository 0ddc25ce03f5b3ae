// BatchNorm1d / BatchNorm2d / BatchNorm3d (python/ember/nn/modules/batchnorm.py).
#include "ember/nn/BatchNorm.h"

#include "ember/autograd/GradMode.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/Repr.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

template <size_t D>
BatchNormImpl<D>::BatchNormImpl(BatchNormOptions options_) : options(std::move(options_)) {
  register_norm_state(*this, options.num_features(), options.affine(), options.track_running_stats());
}

template <size_t D>
Tensor BatchNormImpl<D>::forward(const Tensor& input) {
  if constexpr (D == 3) {
    EMBER_CHECK_VALUE(input.dim() == 5, "{}: expected 5D input (got {}D input)", layer_name(), input.dim());
  } else if constexpr (D == 2) {
    EMBER_CHECK_VALUE(input.dim() == 4, "{}: expected 4D input (got {}D input)", layer_name(), input.dim());
  } else {
    EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "{}: expected 2D or 3D input (got {}D input)",
                      layer_name(), input.dim());
  }
  EMBER_CHECK(input.size(1) == options.num_features(),
              "{}: expected input with {} channels (dim 1, num_features), but got input of shape [{}]", layer_name(),
              options.num_features(), fmt::join(input.sizes(), ", "));
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    {
      autograd::NoGradGuard no_grad;
      num_batches_tracked.add_(ember::ones({}, kInt64));
    }
    // momentum nullopt: the running statistics are the cumulative average over the batches seen
    if (!options.momentum()) factor = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  // In eval mode without running statistics the batch statistics are used.
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool track = !is_training() || options.track_running_stats();
  return functional::batch_norm(input, track ? running_mean : Tensor(), track ? running_var : Tensor(),
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(use_batch_stats)
                                    .momentum(factor)
                                    .eps(options.eps()));
}

template <size_t D>
std::string BatchNormImpl<D>::extra_repr() const {
  const auto& o = options;
  return fmt::format("{}, eps={}, momentum={}, affine={}, track_running_stats={}", o.num_features(), repr::py(o.eps()),
                     o.momentum() ? repr::py(*o.momentum()) : "None", repr::py(o.affine()),
                     repr::py(o.track_running_stats()));
}

template class BatchNormImpl<1>;
template class BatchNormImpl<2>;
template class BatchNormImpl<3>;

}  // namespace ember::nn
