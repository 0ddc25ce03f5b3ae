// Matrix product kernels: mm, bmm, mv, dot, addmm, baddbmm (and their in-place and out= forms). Each checks
// its arguments as PyTorch 1.13 does (ember/ops/linalg.h), describes its operands as one batched GEMM on
// strided memory and runs it through gemm() (Note [gemm]), which asks the providers (OpenBLAS) first and
// falls back to the reference kernel. matmul, outer and linear are composites of these (ember/ops/linalg.cpp).
#include <cmath>
#include <limits>

#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/kernels/cpu/Gemm.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

namespace {

// A 2-D tensor as a matrix; a 3-D tensor as a batch of matrices.
MatrixRef matrix_of(const Tensor& t) {
  if (t.dim() == 3) return {t.data_ptr(), t.size(1), t.size(2), t.stride(0), t.stride(1), t.stride(2)};
  return {t.data_ptr(), t.size(0), t.size(1), 0, t.stride(0), t.stride(1)};
}
// A 1-D tensor as a column (n, 1) or a row (1, n).
MatrixRef column_of(const Tensor& t) { return {t.data_ptr(), t.size(0), 1, 0, t.stride(0), 1}; }
MatrixRef row_of(const Tensor& t) { return {t.data_ptr(), 1, t.size(0), 0, t.size(0), t.stride(0)}; }
// The output C of each product: 0-D (dot) 1x1, 1-D (mv) a column, 2-D a matrix, 3-D a batch.
MatrixRef output_of(const Tensor& t) {
  if (t.dim() == 0) return {t.data_ptr(), 1, 1, 0, 1, 1};
  if (t.dim() == 1) return column_of(t);
  return matrix_of(t);
}

// Whether gemm may write C in place (Note [gemm]): each matrix row- or column-major, and the matrices of a
// batch not overlapping.
bool gemm_writable(const MatrixRef& c, int64_t batch) {
  if (matrix_layout(c.rows, c.cols, c.row_stride, c.col_stride) == MatrixLayout::Other) return false;
  const int64_t span = (c.rows - 1) * c.row_stride + (c.cols - 1) * c.col_stride + 1;
  return batch <= 1 || c.batch_stride >= span;
}

// PyTorch's C++ type name in "value cannot be converted to type int8_t without overflow".
const char* cpp_type_name(DType d) {
  switch (d) {
    case kUInt8: return "uint8_t";
    case kInt8: return "int8_t";
    case kInt16: return "int16_t";
    case kInt32: return "int";
    case kInt64: return "int64_t";
    default: return "float";
  }
}

// alpha and beta must convert to the dtype (to float for the 16-bit floats) without overflow, as PyTorch's
// checked Scalar conversion: uint8 also takes negative values down to -255 (they wrap).
void check_scalar_fits(const char* op, const char* name, const Scalar& s, DType dtype) {
  if (dtype == kBool || dtype == kFloat64 || is_complex(dtype) || s.is_bool()) return;
  bool ok = true;
  if (is_floating_point(dtype)) {
    const double v = s.to_double();
    ok = !std::isfinite(v) || std::fabs(v) <= std::numeric_limits<float>::max();
  } else {
    double lo = 0, hi = 0;
    switch (dtype) {
      case kUInt8: lo = -255, hi = 255; break;
      case kInt8: lo = -128, hi = 127; break;
      case kInt16: lo = -32768, hi = 32767; break;
      case kInt32: lo = -2147483648.0, hi = 2147483647.0; break;
      default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    }
    if (s.is_integral()) {
      const int64_t v = s.to_long();
      ok = dtype == kInt64 || (static_cast<double>(v) >= lo && static_cast<double>(v) <= hi);
    } else {
      const double v = s.to_double();
      ok = !(v < lo || v > hi);
    }
  }
  EMBER_CHECK(ok, "{}: value cannot be converted to type {} without overflow ({} = {} for dtype {})", op,
              cpp_type_name(dtype), name, s.str(), dtype);
}

// One product: C (out_sizes) = alpha * A @ B (+ beta * init).
struct Product {
  DType dtype;
  int64_t batch, m, n, k;
  MatrixRef a, b;
  DimVector out_sizes;
};

// Runs p into `out` (undefined: a new tensor) and returns it. `init` (undefined: none) is the term scaled by
// beta, already expanded to out_sizes; it may be out itself (in-place addmm_). C is computed in place when
// gemm may write out directly and out does not overlap an input, else in a fresh tensor copied into out.
Tensor run_product(const Product& p, const Tensor& out, const Tensor& init, const Scalar& beta, const Scalar& alpha,
                   const Tensor& in_a, const Tensor& in_b) {
  Tensor target;
  if (out.defined() && gemm_writable(output_of(out), p.batch) && !may_overlap(out, in_a) && !may_overlap(out, in_b))
    target = out;
  else
    target = make_empty(p.out_sizes, p.dtype);
  const bool use_init = init.defined() && beta.to_double() != 0.0;
  if (use_init && !init.is_same(target)) target.copy_(init);
  GemmArgs g;
  g.dtype = p.dtype;
  g.batch = p.batch;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.a = p.a;
  g.b = p.b;
  g.c = output_of(target);
  g.alpha = alpha;
  g.beta = use_init ? beta : Scalar(int64_t{0});
  gemm(g);
  if (!out.defined()) return target;
  if (!target.is_same(out)) out.copy_(target);
  return out;
}

Product mm_product(const Tensor& self, const Tensor& mat2) {
  return {self.dtype(), 1, self.size(0), mat2.size(1), self.size(1), matrix_of(self), matrix_of(mat2),
          {self.size(0), mat2.size(1)}};
}
Product bmm_product(const Tensor& b1, const Tensor& b2) {
  return {b1.dtype(), b1.size(0), b1.size(1), b2.size(2), b1.size(2), matrix_of(b1), matrix_of(b2),
          {b1.size(0), b1.size(1), b2.size(2)}};
}
Product mv_product(const Tensor& self, const Tensor& vec) {
  return {self.dtype(), 1, self.size(0), 1, self.size(1), matrix_of(self), column_of(vec), {self.size(0)}};
}
Product dot_product(const Tensor& self, const Tensor& other) {
  return {self.dtype(), 1, 1, 1, self.size(0), row_of(self), column_of(other), {}};
}

const Scalar kOne = Scalar(int64_t{1});
const Scalar kZero = Scalar(int64_t{0});

// addmm's checks in PyTorch's order: dims, dtypes, then the product's shapes.
void check_addmm(const char* op, const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  EMBER_CHECK(mat1.dim() == 2, "{}: mat1 must be a matrix, got {}-D tensor", op, mat1.dim());
  EMBER_CHECK(mat2.dim() == 2, "{}: mat2 must be a matrix, got {}-D tensor", op, mat2.dim());
  EMBER_CHECK(self.dtype() == mat2.dtype(), "{}: self and mat2 must have the same dtype (got {} and {})", op,
              self.dtype(), mat2.dtype());
  EMBER_CHECK(mat1.dtype() == mat2.dtype(), "{}: mat1 and mat2 must have the same dtype (got {} and {})", op,
              mat1.dtype(), mat2.dtype());
  linalg::check_mm(op, mat1, mat2);
}

// The sizes baddbmm broadcasts self to: (batch1.size(0), batch1.size(1), batch2.size(2)), computed before any
// other check as PyTorch does (a dim out of range raises IndexError).
DimVector baddbmm_sizes(const Tensor& batch1, const Tensor& batch2) {
  return {batch1.size(0), batch1.size(1), batch2.size(2)};
}

// A plain product (alpha 1, no beta term) into a new tensor, or into out= (dtype checked, resized).
Tensor product(const Product& p, const Tensor& a, const Tensor& b) {
  return run_product(p, Tensor(), Tensor(), kZero, kOne, a, b);
}
Tensor product_out(const char* op, const Product& p, const Tensor& a, const Tensor& b, const Tensor& out) {
  linalg::check_out_dtype(op, out, p.dtype);
  linalg::resize_output(out, p.out_sizes);
  return run_product(p, out, Tensor(), kZero, kOne, a, b);
}

void check_inplace(const char* op, const Tensor& self, IntArrayRef sizes, DType dtype) {
  EMBER_CHECK(self.sizes().equals(sizes),
              "{}: Bad in-place call: input tensor size [{}] and output tensor size [{}] should match", op,
              fmt::join(self.sizes(), ", "), fmt::join(sizes, ", "));
  EMBER_CHECK(self.dtype() == dtype,
              "{}: Bad in-place call: input tensor dtype {} and output tensor dtype {} should match", op,
              linalg::type_meta_name(self.dtype()), linalg::type_meta_name(dtype));
}

}  // namespace

// ---- mm, bmm, mv, dot
Tensor mm(const Tensor& self, const Tensor& mat2) {
  linalg::check_mm("mm", self, mat2);
  return product(mm_product(self, mat2), self, mat2);
}
Tensor mm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  linalg::check_mm("mm", self, mat2);
  return product_out("mm", mm_product(self, mat2), self, mat2, out);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  linalg::check_bmm("bmm", self, mat2);
  return product(bmm_product(self, mat2), self, mat2);
}
Tensor bmm_out(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  linalg::check_bmm("bmm", self, mat2);
  return product_out("bmm", bmm_product(self, mat2), self, mat2, out);
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  linalg::check_mv("mv", self, vec);
  return product(mv_product(self, vec), self, vec);
}
Tensor mv_out(const Tensor& self, const Tensor& vec, const Tensor& out) {
  linalg::check_mv("mv", self, vec);
  return product_out("mv", mv_product(self, vec), self, vec, out);
}

Tensor dot(const Tensor& self, const Tensor& tensor) {
  linalg::check_dot("dot", self, tensor);
  return product(dot_product(self, tensor), self, tensor);
}
Tensor dot_out(const Tensor& self, const Tensor& tensor, const Tensor& out) {
  linalg::check_dot("dot", self, tensor);
  linalg::resize_output(out, {});
  linalg::check_dot_out_dtype("dot", out, self.dtype());  // dot's own message, after the resize as PyTorch
  return run_product(dot_product(self, tensor), out, Tensor(), kZero, kOne, self, tensor);
}

// ---- addmm, baddbmm
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_addmm("addmm", self, mat1, mat2);
  check_scalar_fits("addmm", "beta", beta, mat1.dtype());
  check_scalar_fits("addmm", "alpha", alpha, mat1.dtype());
  Product p = mm_product(mat1, mat2);
  return run_product(p, Tensor(), self.expand(p.out_sizes), beta, alpha, mat1, mat2);
}
Tensor addmm_(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_addmm("addmm_", self, mat1, mat2);
  Product p = mm_product(mat1, mat2);
  check_inplace("addmm_", self, p.out_sizes, mat1.dtype());
  check_scalar_fits("addmm_", "beta", beta, mat1.dtype());
  check_scalar_fits("addmm_", "alpha", alpha, mat1.dtype());
  return run_product(p, self, self, beta, alpha, mat1, mat2);
}
Tensor addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  check_addmm("addmm", self, mat1, mat2);
  linalg::check_out_dtype("addmm", out, mat1.dtype());
  check_scalar_fits("addmm", "beta", beta, mat1.dtype());
  check_scalar_fits("addmm", "alpha", alpha, mat1.dtype());
  Product p = mm_product(mat1, mat2);
  Tensor init = self.expand(p.out_sizes);
  if (may_overlap(out, self) && !out.is_same(self)) init = init.clone();  // resizing out must not change init
  linalg::resize_output(out, p.out_sizes);
  return run_product(p, out, init, beta, alpha, mat1, mat2);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  Tensor init = self.expand(baddbmm_sizes(batch1, batch2));
  linalg::check_bmm("baddbmm", batch1, batch2);
  check_scalar_fits("baddbmm", "beta", beta, batch1.dtype());
  check_scalar_fits("baddbmm", "alpha", alpha, batch1.dtype());
  return run_product(bmm_product(batch1, batch2), Tensor(), init, beta, alpha, batch1, batch2);
}
Tensor baddbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                const Scalar& alpha) {
  DimVector sizes = baddbmm_sizes(batch1, batch2);
  self.expand(sizes);  // raises expand's error first for a self that does not broadcast, as PyTorch
  linalg::check_bmm("baddbmm_", batch1, batch2);
  check_inplace("baddbmm_", self, sizes, batch1.dtype());
  check_scalar_fits("baddbmm_", "beta", beta, batch1.dtype());
  check_scalar_fits("baddbmm_", "alpha", alpha, batch1.dtype());
  return run_product(bmm_product(batch1, batch2), self, self, beta, alpha, batch1, batch2);
}
Tensor baddbmm_out(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha, const Tensor& out) {
  Tensor init = self.expand(baddbmm_sizes(batch1, batch2));
  linalg::check_bmm("baddbmm", batch1, batch2);
  linalg::check_out_dtype("baddbmm", out, batch1.dtype());
  check_scalar_fits("baddbmm", "beta", beta, batch1.dtype());
  check_scalar_fits("baddbmm", "alpha", alpha, batch1.dtype());
  if (may_overlap(out, self) && !out.is_same(self)) init = init.clone();
  Product p = bmm_product(batch1, batch2);
  linalg::resize_output(out, p.out_sizes);
  return run_product(p, out, init, beta, alpha, batch1, batch2);
}

}  // namespace ember::cpu
