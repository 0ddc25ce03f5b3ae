#pragma once
// Backward formulas too long for a one-line entry of the op database (ember/ops/ops*.yaml `grad:`). All are
// written with Ember ops, so they are themselves differentiable (create_graph=True).
#include <array>
#include <cmath>  // M_LN2, M_2_SQRTPI, ... in the formulas of the op database
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/autograd/Node.h"
#include "ember/autograd/Views.h"
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
/// t * s, or t itself when s is 1, so a gradient scaled by a default alpha or beta of 1 costs no pass.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
/// Note [mm backward layout]
/// The gradients of alpha * (mat1 @ mat2) (mm, addmm; mat1 (m, k), mat2 (k, n), grad (m, n)) are computed in
/// the layout of the input they belong to: mat1's is grad @ mat2^T, but when mat1 is column-major (a
/// transposed view, like linear's weight.t()) it is computed as (mat2 @ grad^T)^T, a column-major result;
/// the same for mat2. The view's own backward (t) then hands a row-major gradient to the parameter, which
/// accumulates with a contiguous add instead of a transposing one (the same products, so the same values up to
/// float rounding; PyTorch's mm_mat1_backward/mm_mat2_backward choose layouts likewise).
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha);
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
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
/// grad of permute: the inverse permutation.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
/// grad of slice: the ops-layer slice_backward with slice's optional bounds filled in (Note [view backward ops]).
Tensor slice_backward_opt(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step);
/// grad of as_strided: as_strided_backward from the output's geometry to self's (Note [view backward ops]).
/// self: the input's geometry when the op ran (as PyTorch, only that is saved, so as_strided_ can change it).
Tensor as_strided_grad(const Tensor& grad, const TensorGeometry& self, IntArrayRef size, IntArrayRef stride,
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


// ---------------------------------------------------------------------------------------------- reductions
/// grad (a reduction's result) with the reduced dims put back as size-1 dims when !keepdim, so that it
/// broadcasts against the input of `ndim` dims. Absent or empty dims: all dims.
Tensor unsqueeze_reduced(const Tensor& grad, int64_t ndim, OptionalIntArrayRef dims, bool keepdim);
/// grad of nansum: sum_backward, zero where self is NaN.
Tensor nansum_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dims, bool keepdim);
/// grads of prod(self) and prod(self, dim): grad * result / self when self has no zero, else grad times the
/// product of the other elements of the slice (Note [prod and cumprod with zeros]).
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
/// grad of sgn(self) (Note [complex gradients]): zero for real self; for complex self PyTorch's formula
/// (grad - real(grad * conj(sgn)) sgn) / |self|, zero where self is 0.
Tensor sgn_backward(const Tensor& self, const Tensor& grad, const Tensor& result);
/// grad of angle(self): zero for real self; grad * i self / |self|^2 for complex self, zero where self is 0.
Tensor angle_backward(const Tensor& grad, const Tensor& self);
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
/// grad of max(self)/min(self) (full reductions): split evenly among the elements equal to the result (among
/// the NaNs when the result is NaN), as PyTorch 1.13.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
/// grad of amax/amin over dims: split evenly among the elements equal to the result in each slice (a slice
/// whose result is NaN has none: its gradient is NaN, as PyTorch's).
Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim);
/// grad of var(self, dims, correction): 2 / (N - correction) * grad * (self - mean).
Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dims, std::optional<int64_t> correction,
                    bool keepdim);
/// grad of std: var_backward of grad / (2 * result), zero where the result is 0.
Tensor std_backward(const Tensor& grad, const Tensor& result, const Tensor& self, OptionalIntArrayRef dims,
                    std::optional<int64_t> correction, bool keepdim);
/// grad of linalg_vector_norm(self, ord, dims) (Note [norm gradients]).
Tensor norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                     OptionalIntArrayRef dims, bool keepdim);
/// grad of logsumexp: grad * exp(self - result).
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dims, bool keepdim);
/// grad of cumsum along dim: the reversed running sum of grad.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
/// grad of cumprod along dim (Note [prod and cumprod with zeros]).
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
/// grad of logcumsumexp along dim (PyTorch's formula: the positive and negative parts of grad each summed in
/// log space by a reversed logcumsumexp, so no exp overflows).
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);

// ---------------------------------------------------------------------------------------------- indexing
/// grad of index_select: grad added into zeros of `sizes` at index along dim (duplicates add up).
Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
/// grad of scatter/scatter_add w.r.t. src: grad gathered at index, zero in the part of src that index does not
/// cover (index may be smaller than src).
Tensor scatter_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
/// grad of index_add w.r.t. source: alpha * grad selected at index along dim.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha);
/// grad of masked_select: grad put back at the mask's True positions of zeros of the broadcast shape of self
/// and mask (summed back to self's sizes by the node).
/// grads of scatter_reduce.two for self and src (PyTorch's scatter_reduce_backward): sum passes grad through;
/// prod divides the product by each factor (the product of the others where a single zero is scattered); mean
/// divides by the count; amax/amin share grad evenly among the values equal to the result. Without include_self
/// self's gradient is 0 at the written positions.
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result);
Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask);

// ---------------------------------------------------------------------------------------------- shape
/// grad of constant_pad_nd: grad cropped by the pads (padded back where the forward cropped).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);
/// grad of repeat: the tiles of grad summed onto self's sizes.
Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes);
/// grad of split/split_with_sizes (`grads`: one per piece, zeros where none flowed): the pieces' gradients
/// joined along dim into self's sizes.
Tensor split_backward(const std::vector<Tensor>& grads, int64_t dim, IntArrayRef sizes);
/// grads of stack(tensors, dim): grad.select(dim, i) for each of the n inputs.
variable_list stack_backward(const Tensor& grad, size_t n, int64_t dim);
/// How a pad fills its border: reflection (the edge not repeated), replication (copies of the edge) or
/// circular (wrapping around).
enum class PadMode { Reflection, Replication, Circular };
/// grad of the reflection/replication/circular pads: each output element's gradient added to the input
/// element it copies (pad as Note [pad layout] in ember/ops/padding.cpp; negative pads crop).
Tensor pad_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef pad, PadMode mode);

}  // namespace ember::autograd::detail

namespace ember::autograd::detail {
// ---------------------------------------------------------------------------------------------- special (issue 19)
/// A derivative PyTorch 1.13 leaves unimplemented: raises when backward reaches it, as PyTorch's
/// not_implemented() (NotImplementedError "the derivative for 'what' is not implemented.") or, with
/// not_implemented_error false, its NotImplemented node (RuntimeError "derivative for what is not implemented").
Tensor grad_not_implemented(const Tensor& grad, std::string_view what, bool not_implemented_error);
/// grad of copysign wrt self: grad * result / self, 0 where self is 0.
Tensor copysign_self_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
/// grad of mvlgamma(self, p): grad * sum_{j<p} digamma(self - j/2).
Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p);
/// grad of logit(self, eps): grad / (self (1 - self)); with eps, 0 outside [eps, 1 - eps]; without, NaN outside
/// [0, 1] (PyTorch's logit_backward).
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
/// grad of sinc: grad (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0.
Tensor sinc_backward(const Tensor& grad, const Tensor& self);
/// grads of special_i1 (I1' = I0 - I1/x) and special_i1e (i1e' = i0e - i1e (sgn x + 1/x)): 0.5 at x = 0 (|x| below
/// the dtype's epsilon), as PyTorch's i1_backward/i1e_backward.
Tensor special_i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor special_i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
}  // namespace ember::autograd::detail
