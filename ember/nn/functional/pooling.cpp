// ember::nn::functional's pooling over the ops Python's ember.nn.functional calls.
#include "ember/nn/functional/pooling.h"

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return ember::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad());
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return ember::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                           o.divisor_override());
}

namespace {
// As Python's _list_with_default: a nullopt entry takes the size of the matching trailing input dim.
template <size_t D>
std::vector<int64_t> with_defaults(const ExpandingArray<D, std::optional<int64_t>>& output_size, const Tensor& input) {
  const auto& wanted = *output_size;
  bool all_given = true;
  for (const auto& w : wanted) all_given = all_given && w.has_value();
  EMBER_CHECK_VALUE(input.dim() > static_cast<int64_t>(D) || all_given, "Input dimension should be at least {}",
                    D + 1);
  std::vector<int64_t> size(D);
  for (size_t i = 0; i < D; ++i) {
    size[i] = wanted[i] ? *wanted[i] : input.size(input.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(i));
  }
  return size;
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  return ember::adaptive_avg_pool2d(input, with_defaults(options.output_size(), input));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  return ember::adaptive_avg_pool1d(input, options.output_size());
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  return ember::adaptive_avg_pool3d(input, with_defaults(options.output_size(), input));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool1dFuncOptions& options) {
  return ember::adaptive_max_pool1d(input, options.output_size());
}
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool2dFuncOptions& options) {
  return ember::adaptive_max_pool2d(input, with_defaults(options.output_size(), input));
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                             const AdaptiveMaxPool3dFuncOptions& options) {
  return ember::adaptive_max_pool3d(input, with_defaults(options.output_size(), input));
}
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, options));
}

namespace {
// Python's _unpool_output_size: the default (in - 1) * stride + kernel - 2 * padding per dim, or the given
// size (spatial, or with the leading dims), which must lie strictly within a stride of the default.
template <size_t D>
std::vector<int64_t> unpool_output_size(const Tensor& input, const MaxUnpoolFuncOptions<D>& o) {
  const auto n = static_cast<int64_t>(D);
  EMBER_CHECK(input.dim() >= n, "max_unpool{}d: expected an input of at least {} dims, got one of shape [{}]", D, n,
              fmt::join(input.sizes(), ", "));
  std::vector<int64_t> defaults(D);
  for (size_t d = 0; d < D; ++d) {
    defaults[d] = (input.size(input.dim() - n + static_cast<int64_t>(d)) - 1) * o.stride()[d] + o.kernel_size()[d] -
                  2 * o.padding()[d];
  }
  if (!o.output_size()) return defaults;
  std::vector<int64_t> size = *o.output_size();
  if (size.size() == D + 2) {
    size.erase(size.begin(), size.begin() + 2);
  } else if (size.size() == D + 1) {
    size.erase(size.begin());
  }
  EMBER_CHECK_VALUE(size.size() == D,
                    "max_unpool{}d: output_size should be a sequence containing {} or {} elements, but it has a "
                    "length of '{}'", D, D, D + 2, o.output_size()->size());
  for (size_t d = 0; d < D; ++d) {
    const int64_t lo = defaults[d] - o.stride()[d], hi = defaults[d] + o.stride()[d];
    EMBER_CHECK_VALUE(lo < size[d] && size[d] < hi,
                      "max_unpool{}d: invalid output_size \"[{}]\" (dim {} must be between {} and {})", D,
                      fmt::join(*o.output_size(), ", "), d, lo, hi);
  }
  return size;
}
}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options) {
  std::vector<int64_t> size = unpool_output_size(input, options);
  size.push_back(1);
  return ember::squeeze(ember::max_unpool2d(ember::unsqueeze(input, -1), ember::unsqueeze(indices, -1), size), -1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options) {
  return ember::max_unpool2d(input, indices, unpool_output_size(input, options));
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options) {
  return ember::max_unpool3d(input, indices, unpool_output_size(input, options), options.stride(), options.padding());
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const std::vector<int64_t> no_padding{0};
  const Tensor out = ember::avg_pool1d(ember::pow(input, o.norm_type()), o.kernel_size(), o.stride(), no_padding,
                                       o.ceil_mode(), /*count_include_pad=*/true);
  return ember::pow((ember::sign(out) * ember::relu(ember::abs(out))) * o.kernel_size()[0], 1.0 / o.norm_type());
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const std::vector<int64_t> no_padding{0, 0};
  const Tensor out = ember::avg_pool2d(ember::pow(input, o.norm_type()), o.kernel_size(), o.stride(), no_padding,
                                       o.ceil_mode(), /*count_include_pad=*/true, std::nullopt);
  const int64_t window = o.kernel_size()[0] * o.kernel_size()[1];
  return ember::pow((ember::sign(out) * ember::relu(ember::abs(out))) * window, 1.0 / o.norm_type());
}

namespace {
// Python's _fractional: the output size from output_ratio when not given, and samples drawn as PyTorch's
// (rand(N, C, D) in the input's dtype from the default generator) when not given.
template <size_t D>
std::tuple<Tensor, Tensor> fractional(const Tensor& input, const FractionalMaxPoolOptions<D>& o) {
  const auto n = static_cast<int64_t>(D);
  EMBER_CHECK_VALUE(o.output_size() || o.output_ratio(),
                    "fractional_max_pool{}d requires specifying either an output_size or an output_ratio", D);
  EMBER_CHECK(input.dim() == n + 1 || input.dim() == n + 2,
              "fractional_max_pool{}d: expected a {}-D or {}-D input, got one of shape [{}]", D, n + 1, n + 2,
              fmt::join(input.sizes(), ", "));
  std::array<int64_t, D> size{};
  for (size_t i = 0; i < D; ++i) {
    size[i] = o.output_size() ? (**o.output_size())[i]
                              : static_cast<int64_t>(static_cast<double>(input.size(-n + static_cast<int64_t>(i))) *
                                                     (**o.output_ratio())[i]);
  }
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    const int64_t batch = input.dim() == n + 1 ? 1 : input.size(0);
    samples = ember::rand({batch, input.size(-n - 1), n}, input.dtype());
  }
  const IntArrayRef out_size(size.data(), D);
  if constexpr (D == 2) {
    return ember::fractional_max_pool2d(input, o.kernel_size(), out_size, samples);
  } else {
    return ember::fractional_max_pool3d(input, o.kernel_size(), out_size, samples);
  }
}
}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                               const FractionalMaxPool2dFuncOptions& options) {
  return fractional(input, options);
}
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional(input, options));
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                               const FractionalMaxPool3dFuncOptions& options) {
  return fractional(input, options);
}
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional(input, options));
}

}  // namespace ember::nn::functional
