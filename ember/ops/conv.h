#pragma once
// Argument checks and output sizes of convolution (ops_conv.yaml), shared by the composites conv1d/conv2d
// (ember/ops/conv.cpp) and the CPU kernels of convolution and convolution_backward
// (ember/kernels/cpu/conv.cpp). The checks, their order and their messages follow PyTorch 1.13's
// _convolution and check_shape_forward (aten/src/ATen/native/Convolution.cpp), prefixed with the op name.
#include <string_view>

#include "ember/core/Tensor.h"

namespace ember::conv {

/// The parameters of one convolution, each expanded to one value per spatial dim.
struct ConvParams {
  DimVector stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

/// Expands stride/padding/dilation/output_padding to one value per spatial dim (a single value repeats) and
/// checks a convolution of `input` (N, C_in, *spatial) with weight sizes (C_out, C_in / groups, *kernel) and
/// bias sizes (C_out) or none. Errors (RuntimeError): weight below 3-D ("weight should have at least three
/// dimensions"); groups < 1; a parameter list of another length ("expected stride to be a single integer
/// value or a list of 2 values ..."); negative padding; non-positive stride or dilation; input rank other than
/// weight's; C_out below or not divisible by groups; C_in != weight.size(1) * groups ("Given groups=1, weight
/// of size [6, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 channels, but got 4 channels instead"); bias
/// not 1-D of C_out elements; a dilated kernel larger than the padded input ("Calculated padded input size
/// per channel: (8 x 8). Kernel size: (9 x 9). ...").
ConvParams check_convolution(std::string_view op, const Tensor& input, IntArrayRef weight_sizes,
                             OptionalIntArrayRef bias_sizes, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups);

/// The output sizes (N, C_out, *out) of a checked, non-transposed convolution:
/// out[i] = floor((in[i] + 2*padding[i] - dilation[i]*(k[i]-1) - 1) / stride[i]) + 1.
DimVector output_sizes(IntArrayRef input_sizes, IntArrayRef weight_sizes, const ConvParams& p);

/// The output sizes (N, C_out, *out) of a checked transposed convolution (weight (C_in, C_out / groups, *k)):
/// out[i] = (in[i] - 1)*stride[i] - 2*padding[i] + dilation[i]*(k[i]-1) + output_padding[i] + 1.
DimVector transposed_output_sizes(IntArrayRef input_sizes, IntArrayRef weight_sizes, const ConvParams& p);

/// The output sizes of a checked convolution, transposed or not.
inline DimVector result_sizes(IntArrayRef input_sizes, IntArrayRef weight_sizes, const ConvParams& p) {
  return p.transposed ? transposed_output_sizes(input_sizes, weight_sizes, p)
                      : output_sizes(input_sizes, weight_sizes, p);
}

}  // namespace ember::conv
