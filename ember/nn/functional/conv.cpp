// ember::nn::functional's convolutions over ember::conv1d/2d/3d and ember::conv_transpose1d/2d/3d.
#include "ember/nn/functional/conv.h"

#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"

namespace ember::nn::functional {
namespace {

// The op's overload for each padding alternative: amounts, or the strings "valid" / "same".
template <size_t D, typename Op>
Tensor conv_nd(Op op, const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o) {
  const auto bias = detail::optional_tensor(o.bias());
  if (const auto* amounts = std::get_if<ExpandingArray<D>>(&o.padding())) {
    return op(input, weight, bias, o.stride(), IntArrayRef(*amounts), o.dilation(), o.groups());
  }
  const std::string mode = std::holds_alternative<enumtype::kSame>(o.padding()) ? "same" : "valid";
  return op(input, weight, bias, o.stride(), std::string_view(mode), o.dilation(), o.groups());
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_nd<1>([](auto&&... a) { return ember::conv1d(a...); }, input, weight, options);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_nd<2>([](auto&&... a) { return ember::conv2d(a...); }, input, weight, options);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_nd<3>([](auto&&... a) { return ember::conv3d(a...); }, input, weight, options);
}

namespace {

template <size_t D, typename Op>
Tensor conv_transpose_nd(Op op, const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions<D>& o) {
  return op(input, weight, detail::optional_tensor(o.bias()), o.stride(), o.padding(), o.output_padding(),
            o.groups(), o.dilation());
}

}  // namespace

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options) {
  return conv_transpose_nd<1>([](auto&&... a) { return ember::conv_transpose1d(a...); }, input, weight, options);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return conv_transpose_nd<2>([](auto&&... a) { return ember::conv_transpose2d(a...); }, input, weight, options);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options) {
  return conv_transpose_nd<3>([](auto&&... a) { return ember::conv_transpose3d(a...); }, input, weight, options);
}

}  // namespace ember::nn::functional
