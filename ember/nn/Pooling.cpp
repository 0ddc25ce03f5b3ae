// The pooling modules that are classes of their own: MaxUnpool1d/2d/3d and FractionalMaxPool2d/3d
// (python/ember/nn/modules/pooling.py).
#include "ember/nn/Pooling.h"

#include <fmt/format.h>

namespace ember::nn {

template <size_t D>
MaxUnpoolImpl<D>::MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_)
    : Cloneable<MaxUnpoolImpl<D>>(fmt::format("MaxUnpool{}d", D)), options(options_) {}

template <size_t D>
Tensor MaxUnpoolImpl<D>::forward(const Tensor& input, const Tensor& indices,
                                 const std::optional<std::vector<int64_t>>& output_size) {
  functional::MaxUnpoolFuncOptions<D> o(options.kernel_size());
  o.stride(options.stride()).padding(options.padding()).output_size(output_size);
  if constexpr (D == 1) {
    return functional::max_unpool1d(input, indices, o);
  } else if constexpr (D == 2) {
    return functional::max_unpool2d(input, indices, o);
  } else {
    return functional::max_unpool3d(input, indices, o);
  }
}

template <size_t D>
std::string MaxUnpoolImpl<D>::extra_repr() const {
  // Python keeps these as D-tuples (_ntuple), so they always print as tuples.
  return fmt::format("kernel_size={}, stride={}, padding={}", repr::py_tuple(options.kernel_size()),
                     repr::py_tuple(options.stride()), repr::py_tuple(options.padding()));
}

template class MaxUnpoolImpl<1>;
template class MaxUnpoolImpl<2>;
template class MaxUnpoolImpl<3>;

template <size_t D>
FractionalMaxPoolImpl<D>::FractionalMaxPoolImpl(const FractionalMaxPoolOptions<D>& options_)
    : Cloneable<FractionalMaxPoolImpl<D>>(fmt::format("FractionalMaxPool{}d", D)), options(options_) {
  EMBER_CHECK_VALUE(options.output_size() || options.output_ratio(),
                    "FractionalMaxPool{}d requires specifying either an output size, or a pooling ratio", D);
  EMBER_CHECK_VALUE(!(options.output_size() && options.output_ratio()),
                    "FractionalMaxPool{}d: only one of output_size and output_ratio may be specified", D);
  if (options.output_ratio()) {
    const auto& ratio = **options.output_ratio();
    for (double r : ratio) {
      EMBER_CHECK_VALUE(r > 0 && r < 1, "FractionalMaxPool{}d: output_ratio must be between 0 and 1 (got {})", D,
                        repr::py_size(ratio));
    }
  }
  reset();
}

template <size_t D>
void FractionalMaxPoolImpl<D>::reset() {
  _random_samples = this->register_buffer("_random_samples", options._random_samples());
}

template <size_t D>
std::tuple<Tensor, Tensor> FractionalMaxPoolImpl<D>::forward_with_indices(const Tensor& input) {
  FractionalMaxPoolOptions<D> o = options;
  o._random_samples(_random_samples);
  if constexpr (D == 2) {
    return functional::fractional_max_pool2d_with_indices(input, o);
  } else {
    return functional::fractional_max_pool3d_with_indices(input, o);
  }
}

template <size_t D>
Tensor FractionalMaxPoolImpl<D>::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

template class FractionalMaxPoolImpl<2>;
template class FractionalMaxPoolImpl<3>;

}  // namespace ember::nn
