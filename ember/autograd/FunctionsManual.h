#pragma once
// Backward formulas too long for a one-line entry of the op database (ember/ops/ops*.yaml `grad:`). All are
// written with Ember ops, so they are themselves differentiable (create_graph=True).
#include <array>
#include <cmath>  // M_LN2, M_2_SQRTPI, ... in the formulas of the op database
#include <optional>
#include <string_view>
#include <tuple>

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
/// grads of clamp.Tensor (self, min, max; Note [clamp with tensor bounds] in FunctionsManual.cpp), the ones
/// asked for by mask.
std::tuple<Tensor, Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self,
                                                          const std::optional<Tensor>& min,
                                                          const std::optional<Tensor>& max,
                                                          const std::array<bool, 3>& mask);
/// grad of relu (zero at 0): grad where result > 0.
Tensor threshold_backward(const Tensor& grad, const Tensor& result);
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
/// grad of permute: the inverse permutation.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
/// grad of slice: the ops-layer slice_backward with slice's optional bounds filled in (Note [view backward ops]).
Tensor slice_backward_opt(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step);
/// grad of as_strided: as_strided_backward from the output's geometry to self's (Note [view backward ops]).
Tensor as_strided_grad(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset);

/// grad of gelu, exact (approximate "none": Phi(x) + x phi(x)) or of its tanh approximation.
Tensor gelu_backward(const Tensor& grad, const Tensor& self, std::string_view approximate);
/// grad of silu: s (1 + x (1 - s)) with s = sigmoid(x).
Tensor silu_backward(const Tensor& grad, const Tensor& self);
/// grads of div.Tensor_mode: the true-division formulas without a rounding mode, zero with one (the rounded
/// quotient is piecewise constant), as PyTorch.
Tensor div_mode_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> rounding_mode);
Tensor div_mode_backward_other(const Tensor& grad, const Tensor& self, const Tensor& other,
                               std::optional<std::string_view> rounding_mode);
/// Note [ties of maximum and minimum]
/// maximum/minimum split the gradient evenly between self and other where they are equal; where either is
/// NaN (neither compares less) both get the whole gradient, as PyTorch 1.13. fmax/fmin do not split: a tie
/// goes to self, and a NaN operand gets nothing while the other one gets the gradient.
/// `is_max` picks maximum (true) or minimum; `for_self` which operand's gradient is returned.
Tensor max_min_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self);
Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self);

/// grads of cat(tensors, dim): the slices of grad along dim, one per input (sizes[i] are the inputs' sizes;
/// 1-D empty inputs, which cat skips, get an empty gradient).
variable_list cat_backward(const Tensor& grad, const std::vector<IntArrayRef>& sizes, int64_t dim);
/// grad of the values of a reduction that selects one element per slice (max.dim, min.dim, median.dim, ...):
/// grad scattered into zeros of `sizes` at `indices` along dim (the one chosen index takes it all).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);

}  // namespace ember::autograd::detail
