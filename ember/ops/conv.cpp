// Convolution front doors (conv1d, conv2d, conv3d and their "same"/"valid" overloads, conv_transpose1d/2d/3d)
// and the argument checks shared
// with the CPU kernels (ember/ops/conv.h). The composites follow PyTorch 1.13's conv1d/conv2d and
// _convolution_mode (aten/src/ATen/native/Convolution.cpp): check the bias dtype, add the batch dim of an
// unbatched input, call `convolution`, and drop the batch dim again.
#include "ember/ops/conv.h"

#include <algorithm>

#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"

namespace ember {

namespace conv {

namespace {

// PyTorch's expand_param_if_needed: one value repeats for every spatial dim; otherwise one value per dim.
DimVector expand_param(std::string_view op, IntArrayRef values, const char* name, int64_t dims) {
  if (values.size() == 1) return DimVector(static_cast<size_t>(dims), values[0]);
  EMBER_CHECK(static_cast<int64_t>(values.size()) == dims,
              "{}: expected {} to be a single integer value or a list of {} values to match the convolution "
              "dimensions, but got {}={}", op, name, dims, name, values);
  return DimVector(values.begin(), values.end());
}

}  // namespace

ConvParams check_convolution(std::string_view op, const Tensor& input, IntArrayRef weight_sizes,
                             OptionalIntArrayRef bias_sizes, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  const int64_t k = static_cast<int64_t>(weight_sizes.size());
  const int64_t dims = k - 2;
  EMBER_CHECK(dims > 0, "{}: weight should have at least three dimensions, but got weight of size {}", op,
              weight_sizes);
  EMBER_CHECK(groups > 0, "{}: non-positive groups is not supported (groups={})", op, groups);
  ConvParams p;
  p.stride = expand_param(op, stride, "stride", dims);
  p.padding = expand_param(op, padding, "padding", dims);
  p.dilation = expand_param(op, dilation, "dilation", dims);
  p.output_padding = expand_param(op, output_padding, "output_padding", dims);
  p.transposed = transposed;
  p.groups = groups;

  // check_shape_forward
  const auto any = [](const DimVector& v, auto pred) { return std::any_of(v.begin(), v.end(), pred); };
  EMBER_CHECK(!any(p.padding, [](int64_t v) { return v < 0; }), "{}: negative padding is not supported (padding={})",
              op, p.padding);
  EMBER_CHECK(!any(p.output_padding, [](int64_t v) { return v < 0; }),
              "{}: negative output_padding is not supported (output_padding={})", op, p.output_padding);
  EMBER_CHECK(!any(p.stride, [](int64_t v) { return v <= 0; }), "{}: non-positive stride is not supported (stride={})",
              op, p.stride);
  EMBER_CHECK(!any(p.dilation, [](int64_t v) { return v <= 0; }),
              "{}: non-positive dilation is not supported (dilation={})", op, p.dilation);
  EMBER_CHECK(input.dim() == k,
              "{}: Expected {}-dimensional input for {}-dimensional weight {}, but got {}-dimensional input of size {} "
              "instead", op, k, k, weight_sizes, input.dim(), input.sizes());
  // A kernel dim of 0 (Conv2d(1, 2, 0)) would give an output of the bias alone: PyTorch raises.
  EMBER_CHECK(std::all_of(weight_sizes.begin() + 2, weight_sizes.end(), [](int64_t v) { return v > 0; }),
              "{}: kernel size should be greater than zero, but got {} (weight of size {})", op,
              dims == 2 ? fmt::format("kernel_height: {} kernel_width: {}", weight_sizes[2], weight_sizes[3])
                        : fmt::format("kernel size {}", IntArrayRef(weight_sizes.begin() + 2, weight_sizes.size() - 2)),
              weight_sizes);
  EMBER_CHECK(weight_sizes[0] >= groups,
              "{}: Given groups={}, expected weight to be at least {} at dimension 0, but got weight of size {} "
              "instead", op, groups, groups, weight_sizes);
  EMBER_CHECK(weight_sizes[0] % groups == 0,
              "{}: Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size {} "
              "instead", op, groups, groups, weight_sizes);
  if (transposed) {
    // A transposed convolution's weight is (C_in, C_out / groups, *kernel) (Note [transposed convolution]).
    EMBER_CHECK(input.size(1) == weight_sizes[0],
                "{}: Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels "
                "instead", op, weight_sizes, input.sizes(), weight_sizes[0], input.size(1));
    EMBER_CHECK(!bias_sizes || (bias_sizes->size() == 1 && (*bias_sizes)[0] == weight_sizes[1] * groups),
                "{}: Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} elements, "
                "but got bias of size {} instead", op, weight_sizes, weight_sizes[1] * groups,
                bias_sizes ? *bias_sizes : IntArrayRef());
    for (int64_t i = 0; i < dims; ++i)
      EMBER_CHECK(p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i],
                  "{}: output padding must be smaller than either stride or dilation, but got output_padding={}, "
                  "stride={}, dilation={}", op, p.output_padding, p.stride, p.dilation);
    const DimVector out = transposed_output_sizes(input.sizes(), weight_sizes, p);
    std::string in_s, out_s;
    bool positive = true;
    for (int64_t i = 0; i < dims; ++i) {
      positive = positive && out[i + 2] > 0;
      in_s += (i ? " x " : "") + std::to_string(input.size(i + 2));
      out_s += (i ? " x " : "") + std::to_string(out[i + 2]);
    }
    EMBER_CHECK(positive,
                "{}: Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too "
                "small", op, in_s, out_s);
    return p;
  }
  EMBER_CHECK(input.size(1) == weight_sizes[1] * groups,
              "{}: Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels "
              "instead", op, groups, weight_sizes, input.sizes(), weight_sizes[1] * groups, input.size(1));
  EMBER_CHECK(!bias_sizes || (bias_sizes->size() == 1 && (*bias_sizes)[0] == weight_sizes[0]),
              "{}: Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size "
              "{} instead", op, weight_sizes, weight_sizes[0], bias_sizes ? *bias_sizes : IntArrayRef());
  bool fits = true;
  std::string padded, kernel;
  for (int64_t i = 0; i < dims; ++i) {
    // Checked: padding or dilation near 2**62 must not wrap the sizes around (output_sizes() relies on these).
    int64_t in = 0, ker = 0;
    const bool overflow = __builtin_mul_overflow(p.padding[i], 2, &in) ||
                          __builtin_add_overflow(in, input.size(i + 2), &in) ||
                          __builtin_mul_overflow(p.dilation[i], weight_sizes[i + 2] - 1, &ker) ||
                          __builtin_add_overflow(ker, 1, &ker);
    EMBER_CHECK(!overflow,
                "{}: integer out of range computing the output size of dim {} (input size {}, kernel size {}, padding "
                "{}, dilation {})", op, i + 2, input.size(i + 2), weight_sizes[i + 2], p.padding[i], p.dilation[i]);
    fits = fits && in >= ker;
    padded += (i ? " x " : "") + std::to_string(in);
    kernel += (i ? " x " : "") + std::to_string(ker);
  }
  EMBER_CHECK(fits,
              "{}: Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater "
              "than actual input size", op, padded, kernel);
  return p;
}

DimVector output_sizes(IntArrayRef input_sizes, IntArrayRef weight_sizes, const ConvParams& p) {
  DimVector out{input_sizes[0], weight_sizes[0]};
  for (size_t i = 0; i + 2 < input_sizes.size(); ++i) {
    const int64_t ker = p.dilation[i] * (weight_sizes[i + 2] - 1) + 1;
    out.push_back((input_sizes[i + 2] + 2 * p.padding[i] - ker) / p.stride[i] + 1);
  }
  return out;
}

DimVector transposed_output_sizes(IntArrayRef input_sizes, IntArrayRef weight_sizes, const ConvParams& p) {
  DimVector out{input_sizes[0], weight_sizes[1] * p.groups};
  for (size_t i = 0; i + 2 < input_sizes.size(); ++i)
    out.push_back((input_sizes[i + 2] - 1) * p.stride[i] - 2 * p.padding[i] +
                  p.dilation[i] * (weight_sizes[i + 2] - 1) + p.output_padding[i] + 1);
  return out;
}


}  // namespace conv

namespace composite {

namespace {

bool defined(const std::optional<Tensor>& t) { return t && t->defined(); }

// The first checks of PyTorch's conv1d/conv2d: the bias dtype, then the input rank; an unbatched input gets a
// batch dim of 1. Returns whether the input was batched.
bool batchify(const char* op, Tensor& input, const std::optional<Tensor>& bias, int64_t spatial_dims) {
  EMBER_CHECK(!defined(bias) || bias->dtype() == input.dtype(),
              "{}: Input type ({}) and bias type ({}) should be the same", op, input.dtype(), bias->dtype());
  const int64_t unbatched = spatial_dims + 1, batched = spatial_dims + 2;
  EMBER_CHECK(input.dim() == unbatched || input.dim() == batched,
              "{}: Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}", op, unbatched,
              batched, op, input.sizes());
  if (input.dim() == batched) return true;
  input = ember::unsqueeze(input, 0);
  return false;
}

// PyTorch's conv_transpose1d/2d/3d: as conv_nd, with transposed=True.
Tensor conv_transpose_nd(const char* op, int64_t spatial_dims, const Tensor& input, const Tensor& weight,
                         const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  Tensor x = input;
  const bool batched = batchify(op, x, bias, spatial_dims);
  Tensor out = ember::convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
  return batched ? out : ember::squeeze(out, 0);
}

Tensor conv_nd(const char* op, int64_t spatial_dims, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
               int64_t groups) {
  Tensor x = input;
  const bool batched = batchify(op, x, bias, spatial_dims);
  const int64_t zero = 0;
  Tensor out = ember::convolution(x, weight, bias, stride, padding, dilation, false, IntArrayRef(&zero, 1), groups);
  return batched ? out : ember::squeeze(out, 0);
}

// PyTorch's _convolution_mode. "same": the total padding of dim i is dilation*(k-1); half of it (rounded down)
// goes to each side, and an odd leftover is added to the end (right/bottom) by padding the input with zeros.
Tensor conv_nd_padding(const char* op, int64_t spatial_dims, const Tensor& input, const Tensor& weight,
                       const std::optional<Tensor>& bias, IntArrayRef stride, std::string_view padding,
                       IntArrayRef dilation, int64_t groups) {
  Tensor x = input;
  const bool batched = batchify(op, x, bias, spatial_dims);
  const DimVector zeros(static_cast<size_t>(spatial_dims), 0);
  Tensor out;
  if (padding == "valid") {
    out = ember::convolution(x, weight, bias, stride, zeros, dilation, false, zeros, groups);
  } else {
    EMBER_CHECK(padding == "same", "{}: Invalid padding string: '{}' (expected 'same' or 'valid')", op, padding);
    const int64_t dims = weight.dim() - 2;
    EMBER_CHECK(dims > 0, "{}: weight should have at least three dimensions, but got weight of size {}", op,
                weight.sizes());
    EMBER_CHECK(std::all_of(stride.begin(), stride.end(), [](int64_t s) { return s == 1; }),
                "{}: padding='same' is not supported for strided convolutions (stride={})", op, stride);
    EMBER_CHECK(dilation.size() == 1 || static_cast<int64_t>(dilation.size()) == dims,
                "{}: expected dilation to be a single integer value or a list of {} values to match the convolution "
                "dimensions, but got dilation={}", op, dims, dilation);
    DimVector pad_left(static_cast<size_t>(dims), 0);
    DimVector pad_nd(static_cast<size_t>(2 * dims), 0);  // constant_pad_nd's order: last dim first
    bool symmetric = true;
    for (int64_t i = 0; i < dims; ++i) {
      const int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
      const int64_t total = d * (weight.size(i + 2) - 1);
      pad_left[i] = total / 2;
      const int64_t extra = total - 2 * pad_left[i];
      if (extra != 0) {
        symmetric = false;
        pad_nd[2 * (dims - 1 - i) + 1] = extra;
      }
    }
    if (!symmetric && x.dim() == dims + 2) x = ember::constant_pad_nd(x, pad_nd, 0);
    out = ember::convolution(x, weight, bias, stride, pad_left, dilation, false, zeros, groups);
  }
  return batched ? out : ember::squeeze(out, 0);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}

}  // namespace composite
}  // namespace ember
