// Conv1d/2d/3d and ConvTranspose1d/2d/3d: ConvNdImpl<D> and ConvTransposeNdImpl<D> (python/ember/nn/modules/
// conv.py's _ConvNd and _ConvTransposeNd).
#include "ember/nn/Conv.h"

#include <vector>

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/Repr.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"

namespace ember::nn {
namespace {

template <size_t D>
Tensor conv(const Tensor& input, const Tensor& weight, const functional::ConvFuncOptions<D>& options) {
  if constexpr (D == 1) {
    return functional::conv1d(input, weight, options);
  } else if constexpr (D == 2) {
    return functional::conv2d(input, weight, options);
  } else {
    return functional::conv3d(input, weight, options);
  }
}

template <size_t D>
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const functional::ConvTransposeFuncOptions<D>& o) {
  if constexpr (D == 1) {
    return functional::conv_transpose1d(input, weight, o);
  } else if constexpr (D == 2) {
    return functional::conv_transpose2d(input, weight, o);
  } else {
    return functional::conv_transpose3d(input, weight, o);
  }
}

// "L", "H, W" or "D, H, W": the spatial dims of a D-d layer's input, for messages.
const char* spatial_names(size_t d) { return d == 1 ? "L" : d == 2 ? "H, W" : "D, H, W"; }

}  // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) {
  const auto& o = options;
  EMBER_CHECK_VALUE(o.groups() > 0, "{}: groups must be a positive integer", layer_name());
  EMBER_CHECK_VALUE(o.in_channels() % o.groups() == 0, "{}: in_channels ({}) must be divisible by groups ({})",
                    layer_name(), o.in_channels(), o.groups());
  EMBER_CHECK_VALUE(o.out_channels() % o.groups() == 0, "{}: out_channels ({}) must be divisible by groups ({})",
                    layer_name(), o.out_channels(), o.groups());
  if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    for (int64_t s : *o.stride()) {
      EMBER_CHECK_VALUE(s == 1, "{}: padding='same' is not supported for strided convolutions", layer_name());
    }
  }
  std::vector<int64_t> shape{o.out_channels(), o.in_channels() / o.groups()};
  shape.insert(shape.end(), o.kernel_size()->begin(), o.kernel_size()->end());
  weight = register_parameter("weight", ember::empty(shape));
  if (o.bias()) bias = register_parameter("bias", ember::empty({o.out_channels()}));
  reset_parameters();
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  // Python's _reset_weight_and_bias(weight, bias, draw_if_no_fan_in=False): a conv with no fan-in leaves its
  // bias undrawn.
  init::default_linear_init_(weight, bias, /*draw_bias_without_fan_in=*/false);
}

template <size_t D>
Tensor ConvNdImpl<D>::forward(const Tensor& input) {
  const auto& o = options;
  const int64_t rank = input.dim();
  const bool rank_ok = rank == static_cast<int64_t>(D) + 1 || rank == static_cast<int64_t>(D) + 2;
  EMBER_CHECK(rank_ok && input.size(rank - static_cast<int64_t>(D) - 1) == o.in_channels(),
              "{}: expected input of shape (N, {}, {}) or ({}, {}) for in_channels={}, but got input of shape [{}]",
              layer_name(), o.in_channels(), spatial_names(D), o.in_channels(), spatial_names(D),
              o.in_channels(), fmt::join(input.sizes(), ", "));
  functional::ConvFuncOptions<D> f;
  f.bias(bias).stride(o.stride()).dilation(o.dilation()).groups(o.groups());
  if (std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    f.padding(o.padding());
    return conv<D>(input, weight, f);
  }
  // Other padding modes pad with F::pad first (Python's _reversed_padding_repeated_twice: last dim first;
  // 'same' puts the odd pixel last), then convolve without padding.
  std::vector<int64_t> pads(2 * D, 0);
  for (size_t i = 0; i < D; ++i) {
    const size_t dim = D - 1 - i;  // pads list the last dim first
    if (const auto* amounts = std::get_if<ExpandingArray<D>>(&o.padding())) {
      pads[2 * i] = pads[2 * i + 1] = (**amounts)[dim];
    } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
      const int64_t total = o.dilation()[dim] * (o.kernel_size()[dim] - 1);
      pads[2 * i] = total / 2;
      pads[2 * i + 1] = total - total / 2;
    }
  }
  functional::PadFuncOptions::mode_t mode = ember::kReflect;
  if (std::holds_alternative<enumtype::kReplicate>(o.padding_mode())) mode = ember::kReplicate;
  if (std::holds_alternative<enumtype::kCircular>(o.padding_mode())) mode = ember::kCircular;
  const Tensor padded = functional::pad(input, functional::PadFuncOptions(pads).mode(mode));
  f.padding(0);
  return conv<D>(padded, weight, f);
}

template <size_t D>
std::string ConvNdImpl<D>::extra_repr() const {
  const auto& o = options;
  std::string s = fmt::format("{}, {}, kernel_size={}, stride={}", o.in_channels(), o.out_channels(),
                              repr::py_tuple(o.kernel_size()), repr::py_tuple(o.stride()));
  if (const auto* amounts = std::get_if<ExpandingArray<D>>(&o.padding())) {
    if (*amounts != ExpandingArray<D>(0)) s += ", padding=" + repr::py_tuple(*amounts);
  } else {
    s += std::holds_alternative<enumtype::kSame>(o.padding()) ? ", padding=same" : ", padding=valid";
  }
  if (o.dilation() != ExpandingArray<D>(1)) s += ", dilation=" + repr::py_tuple(o.dilation());
  if (o.groups() != 1) s += fmt::format(", groups={}", o.groups());
  if (!o.bias()) s += ", bias=False";
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode())) s += ", padding_mode=" + enum_name(o.padding_mode());
  return s;
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;
template class ConvNdImpl<3>;

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(ConvTransposeOptions<D> options_) : options(std::move(options_)) {
  const auto& o = options;
  EMBER_CHECK_VALUE(o.groups() > 0, "{}: groups must be a positive integer", layer_name());
  EMBER_CHECK_VALUE(o.in_channels() % o.groups() == 0, "{}: in_channels ({}) must be divisible by groups ({})",
                    layer_name(), o.in_channels(), o.groups());
  EMBER_CHECK_VALUE(o.out_channels() % o.groups() == 0, "{}: out_channels ({}) must be divisible by groups ({})",
                    layer_name(), o.out_channels(), o.groups());
  EMBER_CHECK_VALUE(std::holds_alternative<enumtype::kZeros>(o.padding_mode()),
                    "Only \"zeros\" padding mode is supported for {}", layer_name());
  std::vector<int64_t> shape{o.in_channels(), o.out_channels() / o.groups()};
  shape.insert(shape.end(), o.kernel_size()->begin(), o.kernel_size()->end());
  weight = register_parameter("weight", ember::empty(shape));
  if (o.bias()) bias = register_parameter("bias", ember::empty({o.out_channels()}));
  reset_parameters();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  init::default_linear_init_(weight, bias, /*draw_bias_without_fan_in=*/false);
}

template <size_t D>
std::vector<int64_t> ConvTransposeNdImpl<D>::output_padding_for(const Tensor& input,
                                                                const std::optional<IntArrayRef>& output_size) const {
  const auto& o = options;
  if (!output_size) return std::vector<int64_t>(o.output_padding()->begin(), o.output_padding()->end());
  const int64_t dims = static_cast<int64_t>(D);
  const int64_t non_spatial = input.dim() == dims + 2 ? 2 : 1;
  IntArrayRef sizes = *output_size;
  if (static_cast<int64_t>(sizes.size()) == non_spatial + dims) {
    sizes = IntArrayRef(sizes.data() + non_spatial, D);
  }
  EMBER_CHECK_VALUE(sizes.size() == D, "{}: for {}D input, output_size must have {} or {} elements (got {})",
                    layer_name(), input.dim(), dims, non_spatial + dims, output_size->size());
  std::vector<int64_t> pads(D);
  for (size_t d = 0; d < D; ++d) {
    const int64_t min_size = (input.size(static_cast<int64_t>(d) + non_spatial) - 1) * o.stride()[d] -
                             2 * o.padding()[d] + o.dilation()[d] * (o.kernel_size()[d] - 1) + 1;
    const int64_t max_size = min_size + o.stride()[d] - 1;
    EMBER_CHECK_VALUE(sizes[d] >= min_size && sizes[d] <= max_size,
                      "{}: requested an output size of [{}], but valid sizes range from {} to {} (for an input of "
                      "size [{}])",
                      layer_name(), fmt::join(sizes, ", "), min_size, max_size, fmt::join(input.sizes(), ", "));
    pads[d] = sizes[d] - min_size;
  }
  return pads;
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  const auto& o = options;
  const std::vector<int64_t> output_padding = output_padding_for(input, output_size);
  functional::ConvTransposeFuncOptions<D> f;
  f.bias(bias).stride(o.stride()).padding(o.padding()).groups(o.groups()).dilation(o.dilation());
  f.output_padding(ExpandingArray<D>(output_padding));
  return conv_transpose<D>(input, weight, f);
}

template <size_t D>
std::string ConvTransposeNdImpl<D>::extra_repr() const {
  const auto& o = options;
  std::string s = fmt::format("{}, {}, kernel_size={}, stride={}", o.in_channels(), o.out_channels(),
                              repr::py_tuple(o.kernel_size()), repr::py_tuple(o.stride()));
  if (o.padding() != ExpandingArray<D>(0)) s += ", padding=" + repr::py_tuple(o.padding());
  if (o.dilation() != ExpandingArray<D>(1)) s += ", dilation=" + repr::py_tuple(o.dilation());
  if (o.output_padding() != ExpandingArray<D>(0)) s += ", output_padding=" + repr::py_tuple(o.output_padding());
  if (o.groups() != 1) s += fmt::format(", groups={}", o.groups());
  if (!o.bias()) s += ", bias=False";
  return s;
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;
template class ConvTransposeNdImpl<3>;

}  // namespace ember::nn
