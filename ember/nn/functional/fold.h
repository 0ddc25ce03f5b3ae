#pragma once
// ember::nn::functional's fold and unfold (LibTorch's F::fold / F::unfold) over the ops col2im and im2col.
#include "ember/core/Tensor.h"
#include "ember/nn/options/fold.h"

namespace ember::nn::functional {

/// The sliding kH x kW blocks of (N, C, H, W) or (C, H, W) input as columns: (N, C*kH*kW, L) or (C*kH*kW, L),
/// L the number of block positions. Errors: another rank (naming it); sizes the op rejects (a block larger
/// than the padded input, a kernel, dilation or stride below 1).
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);

/// The adjoint of unfold: columns (N, C*kH*kW, L) or (C*kH*kW, L) summed back into (N, C, *output_size) (or
/// (C, *output_size)); overlapping entries add. Errors: another rank; dim -2 not divisible by kH*kW; L not
/// the number of blocks of output_size (each naming the sizes).
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace ember::nn::functional
