// Matrix products written with other ops (matmul, outer, linear; trace, kron, tensordot, inner, vdot) and the
// argument checks shared with the kernels of mm, bmm, mv, dot (ember/kernels/cpu/matmul.cpp). matmul follows
// PyTorch 1.13's _matmul_impl (aten/src/ATen/native/LinearAlgebra.cpp) case by case, so its results, output
// strides and errors match; tensordot follows its tensordot (the permutations, the summed size-1 dims).
#include "ember/ops/linalg.h"

#include <bitset>

#include "ember/core/TypePromotion.h"
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember {

namespace linalg {

std::string_view scalar_type_name(DType dtype) {
  switch (dtype) {
    case kUInt8: return "Byte";
    case kInt8: return "Char";
    case kInt16: return "Short";
    case kInt32: return "Int";
    case kInt64: return "Long";
    case kFloat16: return "Half";
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kBool: return "Bool";
    case kBFloat16: return "BFloat16";
    case kComplexFloat: return "ComplexFloat";
    case kComplexDouble: return "ComplexDouble";
  }
  return "Undefined";
}

std::string_view type_meta_name(DType dtype) {
  switch (dtype) {
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kFloat16: return "c10::Half";
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kBool: return "bool";
    case kBFloat16: return "c10::BFloat16";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
  }
  return "undefined";
}

namespace {
void check_same_dtype(std::string_view op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(),
              "{}: expected scalar type {} but found {} (both operands must have the same dtype)", op,
              scalar_type_name(a.dtype()), scalar_type_name(b.dtype()));
}
}  // namespace

void check_mm(std::string_view op, const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 2, "{}: self must be a matrix (got a {}-D tensor)", op, self.dim());
  EMBER_CHECK(mat2.dim() == 2, "{}: mat2 must be a matrix (got a {}-D tensor)", op, mat2.dim());
  EMBER_CHECK(self.size(1) == mat2.size(0),
              "{}: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{}); mat1's last dim ({}) must equal "
              "mat2's first dim ({})",
              op, self.size(0), self.size(1), mat2.size(0), mat2.size(1), self.size(1), mat2.size(0));
  check_same_dtype(op, self, mat2);
}

void check_bmm(std::string_view op, const Tensor& batch1, const Tensor& batch2) {
  EMBER_CHECK(batch1.dim() == 3, "{}: batch1 must be a 3D tensor (got {}-D)", op, batch1.dim());
  EMBER_CHECK(batch2.dim() == 3, "{}: batch2 must be a 3D tensor (got {}-D)", op, batch2.dim());
  EMBER_CHECK(batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2),
              "{}: Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}]. "
              "(batch1 is [{}])",
              op, batch1.size(0), batch1.size(2), batch2.size(0), batch2.size(1), fmt::join(batch1.sizes(), ", "));
  check_same_dtype(op, batch1, batch2);
}

void check_mv(std::string_view op, const Tensor& self, const Tensor& vec) {
  // PyTorch allocates the result with self.size(0) first: a 0-dim self raises IndexError.
  EMBER_CHECK_INDEX(self.dim() > 0, "{}: Dimension specified as 0 but tensor has no dimensions", op);
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "{}: vector + matrix @ vector expected, got 1, {}, {}", op,
              self.dim(), vec.dim());
  EMBER_CHECK(self.size(1) == vec.size(0),
              "{}: size mismatch, got {}, {}x{},{} (the matrix has {} columns, the vector {} elements)", op,
              self.size(0), self.size(0), self.size(1), vec.size(0), self.size(1), vec.size(0));
  check_same_dtype(op, self, vec);
}

void check_dot(std::string_view op, const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "{}: 1D tensors expected, but got {}D and {}D tensors", op,
              self.dim(), other.dim());
  EMBER_CHECK(self.dtype() == other.dtype(), "{}: expected both vectors to have same dtype, but found {} and {}", op,
              scalar_type_name(self.dtype()), scalar_type_name(other.dtype()));
  EMBER_CHECK(self.numel() == other.numel(),
              "{}: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, "
              "but got {} and {} elements respectively",
              op, self.numel(), other.numel(), self.numel(), other.numel());
}

void check_dot_out_dtype(std::string_view op, const Tensor& out, DType input) {
  EMBER_CHECK(out.dtype() == input, "{}: result dtype {} does not match input dtype {}", op,
              scalar_type_name(out.dtype()), scalar_type_name(input));
}

void check_out_dtype(std::string_view op, const Tensor& out, DType result) {
  EMBER_CHECK(out.dtype() == result, "{}: Expected out tensor to have dtype {}, but got {} instead", op,
              type_meta_name(result), type_meta_name(out.dtype()));
}

void resize_output(const Tensor& out, IntArrayRef sizes) {
  if (!out.sizes().equals(sizes)) out.impl()->resize(sizes);
}

}  // namespace linalg

namespace composite {

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

// Writes the result of `f(view)` into out through view = out.reshape(sizes): directly when reshape gives a
// view of out, else into the copy reshape made, which is then copied back.
template <class F>
void write_through_reshape(const Tensor& out, IntArrayRef sizes, F&& f) {
  Tensor reshaped = out.reshape(sizes);
  f(reshaped);
  if (!shares_storage(reshaped, out)) out.copy_(reshaped.view(out.sizes()));
}

// PyTorch 1.13's should_fold: whether tensor1 (>= 3-D) times a 1-D or 2-D operand runs as one mm/mv on tensor1
// folded to a matrix. Not when tensor1 is a batch of transposed matrices (3-D whose last two dims are swapped):
// bmm handles those without the copy folding would need.
bool should_fold(const Tensor& tensor1, int64_t dim_tensor2) {
  if (!(tensor1.dim() >= 3 && (dim_tensor2 == 1 || dim_tensor2 == 2))) return false;
  IntArrayRef sizes = tensor1.sizes(), strides = tensor1.strides();
  return !(tensor1.dim() == 3 && dim_tensor2 == 2 && strides.back() != 1 && strides[0] == sizes[1] * sizes[2]);
}

// The broadcast of two batch shapes, with the op's name on broadcast_shapes' error.
DimVector broadcast_batch(std::string_view op, IntArrayRef a, IntArrayRef b) {
  try {
    return broadcast_shapes(a, b);
  } catch (const Error& e) {
    EMBER_FAIL("{}: {} (batch dims [{}] and [{}] do not broadcast)", op, e.what(), fmt::join(a, ", "),
               fmt::join(b, ", "));
  }
}

// See Note [matmul cases]. `out` is undefined for the functional form.
Tensor matmul_impl(std::string_view op, const Tensor& out, const Tensor& tensor1, const Tensor& tensor2) {
  const int64_t dim1 = tensor1.dim(), dim2 = tensor2.dim();
  EMBER_CHECK(dim1 != 0 && dim2 != 0, "{}: both arguments to matmul need to be at least 1D, but they are {}D and {}D",
              op, dim1, dim2);
  const bool has_out = out.defined();

  if (dim1 == 1 && dim2 == 1) {
    linalg::check_dot(op, tensor1, tensor2);
    if (!has_out) return ember::dot(tensor1, tensor2);
    linalg::check_dot_out_dtype(op, out, tensor1.dtype());
    return ember::dot_out(out, tensor1, tensor2);
  }
  if (dim1 == 2 && dim2 == 1) {
    linalg::check_mv(op, tensor1, tensor2);
    if (!has_out) return ember::mv(tensor1, tensor2);
    linalg::check_out_dtype(op, out, tensor1.dtype());
    return ember::mv_out(out, tensor1, tensor2);
  }
  if (dim1 == 1 && dim2 == 2) {
    Tensor row = tensor1.unsqueeze(0);
    linalg::check_mm(op, row, tensor2);
    if (!has_out) return ember::mm(row, tensor2).squeeze(0);
    linalg::check_out_dtype(op, out, row.dtype());
    linalg::resize_output(out, {tensor2.size(1)});
    ember::mm_out(out.unsqueeze(0), row, tensor2);
    return out;
  }
  if (dim1 == 2 && dim2 == 2) {
    linalg::check_mm(op, tensor1, tensor2);
    if (!has_out) return ember::mm(tensor1, tensor2);
    linalg::check_out_dtype(op, out, tensor1.dtype());
    return ember::mm_out(out, tensor1, tensor2);
  }
  if (should_fold(tensor1, dim2) || should_fold(tensor2, dim1)) {
    // The larger operand t1 (>= 3-D) folded to a matrix (rows: all its dims but the last) times t2 (1-D or
    // 2-D); when the larger one is on the right, the product is computed transposed: (t1 @ t2)^T = t2^T @ t1^T.
    const bool transpose = dim2 > dim1;
    const Tensor t1 = transpose ? tensor2.transpose(-1, -2) : tensor1;
    const Tensor t2 = !transpose ? tensor2 : dim1 == 2 ? tensor1.t() : tensor1;
    IntArrayRef sizes1 = t1.sizes();
    DimVector output_shape(sizes1.begin(), sizes1.end() - 1);
    const int64_t folded = checked_numel(output_shape);
    const bool t2_is_matrix = t2.dim() == 2;
    if (t2_is_matrix) output_shape.push_back(t2.size(1));
    const Tensor t1_folded = t1.reshape({folded, sizes1.back()});
    if (t2_is_matrix) linalg::check_mm(op, t1_folded, t2);
    else linalg::check_mv(op, t1_folded, t2);
    if (!has_out) {
      if (!t2_is_matrix) return ember::mv(t1_folded, t2).view(output_shape);
      Tensor output = ember::mm(t1_folded, t2).view(output_shape);
      return transpose ? output.transpose(-1, -2).contiguous() : output;
    }
    linalg::check_out_dtype(op, out, t1.dtype());
    if (transpose && t2_is_matrix) {
      DimVector final_shape = output_shape;
      std::swap(final_shape[final_shape.size() - 1], final_shape[final_shape.size() - 2]);
      linalg::resize_output(out, final_shape);
      Tensor out_t = out.transpose(-1, -2);
      write_through_reshape(out_t, {folded, t2.size(1)}, [&](const Tensor& r) { ember::mm_out(r, t1_folded, t2); });
    } else {
      linalg::resize_output(out, output_shape);
      if (t2_is_matrix) {
        write_through_reshape(out, {folded, t2.size(1)}, [&](const Tensor& r) { ember::mm_out(r, t1_folded, t2); });
      } else {
        write_through_reshape(out, {folded}, [&](const Tensor& r) { ember::mv_out(r, t1_folded, t2); });
      }
    }
    return out;
  }

  // Batched: both operands broadcast to the common batch shape, flattened to one batch dim, then bmm. A 1-D
  // left operand is a row (1, m), a 1-D right operand a column (m, 1); those dims are dropped from the result.
  const int64_t n = dim1 > 1 ? tensor1.size(-2) : 1;
  const int64_t m1 = tensor1.size(-1);
  IntArrayRef batch1(tensor1.sizes().data(), static_cast<size_t>(std::max<int64_t>(dim1 - 2, 0)));
  const int64_t m2 = dim2 > 1 ? tensor2.size(-2) : tensor2.size(0);
  const int64_t p = dim2 > 1 ? tensor2.size(-1) : 1;
  IntArrayRef batch2(tensor2.sizes().data(), static_cast<size_t>(std::max<int64_t>(dim2 - 2, 0)));
  DimVector output_shape = broadcast_batch(op, batch1, batch2);
  const int64_t batch = checked_numel(output_shape);

  DimVector expand1 = output_shape;
  expand1.push_back(n);
  expand1.push_back(m1);
  const Tensor t1 = tensor1.expand(expand1).reshape({batch, n, m1});
  const bool vector_rhs = dim2 == 1;
  DimVector expand2 = output_shape;
  expand2.push_back(m2);
  if (!vector_rhs) expand2.push_back(p);
  const Tensor t2 = vector_rhs ? tensor2.expand(expand2).reshape({batch, m2}).unsqueeze(2)
                               : tensor2.expand(expand2).reshape({batch, m2, p});
  if (dim1 > 1) output_shape.push_back(n);
  if (dim2 > 1) output_shape.push_back(p);
  linalg::check_bmm(op, t1, t2);
  if (!has_out) {
    Tensor r = ember::bmm(t1, t2);
    return (vector_rhs ? r.squeeze(-1) : r).view(output_shape);
  }
  linalg::check_out_dtype(op, out, t1.dtype());
  linalg::resize_output(out, output_shape);
  write_through_reshape(out, {batch, n, p}, [&](const Tensor& r) { ember::bmm_out(r, t1, t2); });
  return out;
}

void check_1d(const Tensor& t, const char* arg) {
  EMBER_CHECK(t.dim() == 1, "outer: Expected 1-D argument {}, but got {}-D", arg, t.dim());
}

}  // namespace

// Note [matmul cases]
// As PyTorch 1.13 (torch.matmul's documentation and _matmul_impl):
//   1-D @ 1-D            dot, a 0-dim result
//   2-D @ 1-D            mv
//   1-D @ 2-D            mm of the vector as a (1, m) row, the row dim removed
//   2-D @ 2-D            mm
//   >=3-D with 1-D/2-D   one mm or mv of the larger operand folded to a matrix (should_fold), unless it is a 3-D
//                        batch of transposed matrices
//   otherwise            bmm after broadcasting the batch dims (a 1-D operand gets the dim it lacks, removed after)
// Each case checks the operands it passes on with the check of the op it calls, named "matmul".
Tensor matmul(const Tensor& self, const Tensor& other) { return matmul_impl("matmul", Tensor(), self, other); }
Tensor matmul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return matmul_impl("matmul", out, self, other);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  check_1d(self, "self");
  check_1d(vec2, "vec2");
  return ember::mul(self.reshape({self.size(0), 1}), vec2);
}
Tensor outer_out(const Tensor& self, const Tensor& vec2, const Tensor& out) {
  check_1d(self, "self");
  check_1d(vec2, "vec2");
  return ember::mul_out(out, self.reshape({self.size(0), 1}), vec2);
}

// As PyTorch 1.13's linear: a 2-D input with a bias, and a contiguous 3-D input with one (folded to 2-D), run
// as one addmm; everything else as matmul followed by an in-place add of the bias (so the bias may broadcast
// but not widen the result).
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = bias && bias->defined();
  if (has_bias && input.dim() == 2) return ember::addmm(*bias, input, weight.t());
  if (has_bias && input.dim() == 3 && input.is_contiguous()) {
    IntArrayRef s = input.sizes();
    Tensor r = ember::addmm(*bias, input.view({s[0] * s[1], s[2]}), weight.t());
    return r.view({s[0], s[1], r.size(1)});
  }
  Tensor output = matmul_impl("linear", Tensor(), input, weight.t());
  if (has_bias) output.add_(*bias);
  return output;
}
Tensor linear_out(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const Tensor& out) {
  const bool has_bias = bias && bias->defined();
  if (has_bias && input.dim() == 2) return ember::addmm_out(out, *bias, input, weight.t());
  matmul_impl("linear", out, input, weight.t());
  if (has_bias) out.add_(*bias);
  return out;
}

// ---------------------------------------------------------------------------------------------- other products

Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim {}", self.dim());
  // (PyTorch's CPU kernel also refuses float16 and bfloat16; Ember sums them as it sums any tensor)
  EMBER_CHECK(self.dtype() != kBool, "\"trace\" not implemented for 'Bool'");
  return self.diagonal().sum();
}

// Both shapes padded with leading 1s to one rank n; self viewed as (a0, 1, a1, 1, ...) times other as
// (1, b0, 1, b1, ...) is (a0, b0, a1, b1, ...), whose reshape to (a0 * b0, a1 * b1, ...) is the product.
Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t n = std::max(self.dim(), other.dim());
  DimVector a_view, b_view, sizes;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = i < n - self.dim() ? 1 : self.size(i - (n - self.dim()));
    const int64_t b = i < n - other.dim() ? 1 : other.size(i - (n - other.dim()));
    a_view.push_back(a);
    a_view.push_back(1);
    b_view.push_back(1);
    b_view.push_back(b);
    sizes.push_back(a * b);
  }
  return ember::mul(self.reshape(a_view), other.reshape(b_view)).reshape(sizes);
}
Tensor kron_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return write_out("kron", out, composite::kron(self, other));
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(), "both dimension lists should have same length");
  // (mm of bool operands, which Ember computes, is refused by PyTorch's CPU kernel: so is tensordot's)
  EMBER_CHECK(self.dtype() != kBool || other.dtype() != kBool, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  Tensor t1 = self, t2 = other;
  int64_t contracted = 1;  // the product of the contracted sizes (after summing the size-1 ones away)
  std::bitset<64> in1, in2;  // (ranks above 64 are refused by the checks of the view ops before this matters)
  DimVector d1, d2;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    d1.push_back(checked_dim("tensordot", dims_self[i], self.dim()));
    d2.push_back(checked_dim("tensordot", dims_other[i], other.dim()));
    EMBER_CHECK(!in1[d1.back()], "dim {} appears multiple times in the list of dims", d1.back());
    EMBER_CHECK(!in2[d2.back()], "dim {} appears multiple times in the list of dims", d2.back());
    in1[d1.back()] = in2[d2.back()] = true;
    const int64_t s1 = self.size(d1.back()), s2 = other.size(d2.back());
    if (s2 == 1) {  // a broadcast dim: summed right away
      t1 = t1.sum(IntArrayRef{d1.back()}, true);
    } else if (s1 == 1) {
      t2 = t2.sum(IntArrayRef{d2.back()}, true);
    } else {
      EMBER_CHECK(s1 == s2, "contracted dimensions need to match, but first has size {} in dim {} and second has "
                  "size {} in dim {}", s1, dims_self[i], s2, dims_other[i]);
      contracted *= s1;
    }
  }
  DimVector p1, p2, sizes;
  int64_t free1 = 1, free2 = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (in1[i]) continue;
    p1.push_back(i);
    free1 *= t1.size(i);
    sizes.push_back(t1.size(i));
  }
  for (int64_t d : d1) p1.push_back(d);
  for (int64_t d : d2) p2.push_back(d);
  for (int64_t i = 0; i < other.dim(); ++i) {
    if (in2[i]) continue;
    p2.push_back(i);
    free2 *= t2.size(i);
    sizes.push_back(t2.size(i));
  }
  return ember::mm(t1.permute(p1).reshape({free1, contracted}), t2.permute(p2).reshape({contracted, free2}))
      .reshape(sizes);
}
Tensor tensordot_out(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other,
                     const Tensor& out) {
  return write_out("tensordot", out, composite::tensordot(self, other, dims_self, dims_other));
}

Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return ember::mul(self, other);
  EMBER_CHECK(self.size(-1) == other.size(-1), "inner() the last dimension must match on both input tensors but got "
              "shapes [{}] and [{}]", fmt::join(self.sizes(), ", "), fmt::join(other.sizes(), ", "));
  return composite::tensordot(self, other, {-1}, {-1});
}
Tensor inner_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  if (self.dim() == 0 || other.dim() == 0) return ember::mul_out(out, self, other);
  return write_out("inner", out, composite::inner(self, other));
}

// For real dtypes vdot is dot (the conjugate of self is self), as PyTorch dispatches it.
Tensor vdot(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dtype() != kBool || other.dtype() != kBool, "\"dot\" not implemented for 'Bool'");
  return ember::dot(self, other);
}
Tensor vdot_out(const Tensor& self, const Tensor& other, const Tensor& out) { return ember::dot_out(out, self, other); }

}  // namespace composite
}  // namespace ember

// addmv, addr, addbmm (ops_linalg.yaml): the product, scaled, plus beta * self broadcast to its shape (self
// ignored when beta is 0, as addmm, so NaN in it does not propagate).
namespace ember::composite {

namespace {

Tensor add_scaled_product(const char* name, const Tensor& self, const Tensor& product, const Scalar& beta,
                          const Scalar& alpha) {
  EMBER_CHECK(self.dim() <= product.dim(), "{}: self of shape {} does not broadcast to the product's shape {}", name,
              self.sizes(), product.sizes());
  const Tensor s = self.expand(product.sizes());
  const Tensor scaled = alpha.to<double>() == 1.0 ? product : product.mul(alpha);
  if (beta.to<double>() == 0.0) return scaled.clone();
  return beta.to<double>() == 1.0 ? s.add(scaled) : s.mul(beta).add(scaled);
}

Tensor assign_inplace(const char* name, const Tensor& self, const Tensor& result) {
  EMBER_CHECK(result.sizes().equals(self.sizes()), "{}_: the result's shape {} must be self's shape {} in place", name,
              result.sizes(), self.sizes());
  return self.copy_(result);
}

}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got {}, {}, {}", self.dim(),
              mat.dim(), vec.dim());
  EMBER_CHECK(mat.dtype() != kBool, "\"addmv_impl_cpu\" not implemented for 'Bool'");
  return add_scaled_product("addmv", self, ember::mv(mat, vec), beta, alpha);
}
Tensor addmv_(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return assign_inplace("addmv", self, composite::addmv(self, mat, vec, beta, alpha));
}
Tensor addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  return write_out_same_dtype("addmv", out, composite::addmv(self, mat, vec, beta, alpha));
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got {}-D", vec1.dim());
  EMBER_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got {}-D", vec2.dim());
  return add_scaled_product("addr", self, ember::outer(vec1, vec2), beta, alpha);
}
Tensor addr_(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  return assign_inplace("addr", self, composite::addr(self, vec1, vec2, beta, alpha));
}
Tensor addr_out(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha,
                const Tensor& out) {
  return write_out("addr", out, composite::addr(self, vec1, vec2, beta, alpha));  // casts, as PyTorch's addr.out
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(batch1.dtype() != kBool, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  if (batch1.dtype() == kFloat16 || batch1.dtype() == kBFloat16)  // summed in float32, then rounded
    return composite::addbmm(self.to(kFloat32), batch1.to(kFloat32), batch2.to(kFloat32), beta, alpha)
        .to(batch1.dtype());
  const Tensor product = ember::bmm(batch1, batch2);
  return add_scaled_product("addbmm", self, product.sum(IntArrayRef({0}), false, product.dtype()), beta, alpha);
}
Tensor addbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return assign_inplace("addbmm", self, composite::addbmm(self, batch1, batch2, beta, alpha));
}
Tensor addbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                  const Scalar& alpha, const Tensor& out) {
  return write_out_same_dtype("addbmm", out, composite::addbmm(self, batch1, batch2, beta, alpha));
}

}  // namespace ember::composite
