// InstanceNorm1d/2d/3d (python/ember/nn/modules/instancenorm.py) over F::instance_norm.
#include "ember/nn/InstanceNorm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
#include "ember/nn/functional/normalization.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

template <size_t D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options_)
    : Cloneable<InstanceNormImpl<D>>(fmt::format("InstanceNorm{}d", D)), options(options_) {
  reset();
}

template <size_t D>
void InstanceNormImpl<D>::reset() {
  register_norm_state(*this, options.num_features(), options.affine(), options.track_running_stats());
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
