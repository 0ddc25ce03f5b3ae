// ember::nn::functional's fold and unfold, with Python's checks (python/ember/nn/_functional_spatial.py).
#include "ember/nn/functional/fold.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/ops/Functions.h"

namespace ember::nn::functional {

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  EMBER_CHECK_NOT_IMPLEMENTED(input.dim() == 3 || input.dim() == 4,
                              "unfold: Input Error: Only 3D or 4D input Tensors are supported (got {}D input of "
                              "shape [{}])", input.dim(), fmt::join(input.sizes(), ", "));
  return ember::im2col(input, o.kernel_size(), o.dilation(), o.padding(), o.stride());
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  EMBER_CHECK_NOT_IMPLEMENTED(input.dim() == 2 || input.dim() == 3,
                              "fold: Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                              "(got {}D input of shape [{}])", input.dim(), fmt::join(input.sizes(), ", "));
  return ember::col2im(input, o.output_size(), o.kernel_size(), o.dilation(), o.padding(), o.stride());
}

}  // namespace ember::nn::functional
