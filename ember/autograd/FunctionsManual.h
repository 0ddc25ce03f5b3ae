#pragma once
// Backward formulas too long for a one-line entry of the op database (ember/ops/ops*.yaml `grad:`). All are
// written with Ember ops, so they are themselves differentiable (create_graph=True).
#include <optional>

#include "ember/autograd/Node.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::autograd::detail {

/// Note [gradient shape and dtype]
/// Every gradient leaving a node passes through reduce_grad: a gradient of broadcast shape is summed over
/// the broadcast dims back to the input's sizes, and cast to the input's dtype (a float32 input of a
/// float64 computation gets a float32 gradient), so formulas need not care about either.
Tensor reduce_grad(const Tensor& grad, const InputMeta& input);
/// Sums g (of a shape that `sizes` broadcasts to) down to `sizes`.
Tensor sum_to(const Tensor& g, IntArrayRef sizes);
/// grad of sum(self, dims, keepdim) w.r.t. self: re-insert the reduced dims and expand to `sizes`.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dims, bool keepdim);
/// grad of mean(self, dims, keepdim): sum_backward divided by the number of averaged elements.
Tensor mean_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dims, bool keepdim);
/// grads of pow(self, exponent): zero where the exponent is 0 (self's) or where self is 0 and the exponent
/// is non-negative (exponent's), as PyTorch.
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
/// grad of clamp: passes where min <= self <= max (bounds included, as PyTorch), zero elsewhere.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
/// grad of relu (zero at 0): grad where result > 0.
Tensor threshold_backward(const Tensor& grad, const Tensor& result);
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
/// grad of permute: the inverse permutation.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
/// grad of select/slice: zeros of the input's sizes with grad written into the selected part.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);

/// grads of cat(tensors, dim): the slices of grad along dim, one per input (sizes[i] are the inputs' sizes;
/// 1-D empty inputs, which cat skips, get an empty gradient).
variable_list cat_backward(const Tensor& grad, const std::vector<IntArrayRef>& sizes, int64_t dim);
/// grad of the values of a reduction that selects one element per slice (max.dim, min.dim, median.dim, ...):
/// grad scattered into zeros of `sizes` at `indices` along dim (the one chosen index takes it all).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);

}  // namespace ember::autograd::detail
