#pragma once
// Note [gemm]
// Every matrix product of the op database (mm, bmm, mv, dot, addmm, baddbmm, and through them matmul and
// linear) becomes one batched GEMM call on strided memory:
//     C[b] = alpha * A[b] @ B[b] + beta * C[b]      A[b]: (m, k), B[b]: (k, n), C[b]: (m, n), b < batch
// as BLAS defines it: when beta is 0, C is not read (NaN or inf in it does not propagate); when alpha is 0,
// A and B are not read. mv is the case n = 1, dot the case m = n = 1 (a provider may use gemv or dot for
// them). gemm() handles the empty cases itself (m, n or batch zero: nothing; k zero or alpha zero: C = beta
// * C) and then asks the providers of gemm_providers() (Note [providers]), falling back to
// gemm_reference(), which covers every dtype: integers accumulate in 64 bits and wrap to the dtype as
// PyTorch's integer products do, bool gives "any a_ip and b_pj" (NumPy's bool matmul), float16 and bfloat16
// accumulate in float32, float32 in float32 and float64 in float64; each output element sums its k products
// in order, so the result does not depend on the thread count.
//
// The op kernels (kernels/cpu/matmul.cpp) guarantee that C's matrices are row- or column-major (a stride of 1
// along one dim) and never overlap A or B; A and B may have any strides, including 0 (broadcast).
#include <algorithm>
#include <cstdint>

#include "ember/core/DType.h"
#include "ember/core/Scalar.h"
#include "ember/kernels/cpu/Provider.h"

namespace ember::cpu {

/// One operand of a batched GEMM: element (i, j) of matrix b is at
/// data + (b * batch_stride + i * row_stride + j * col_stride) * element_size. Strides are in elements.
struct MatrixRef {
  void* data = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

/// How a (rows, cols) matrix with element strides (rs, cs) lies in memory: row-major (unit stride along a row,
/// rows at least a row apart), column-major (the transpose), or neither. A dim of size 1 may have any stride.
/// Row-major and column-major matrices are the ones BLAS-style kernels read through a leading dim, and the
/// layouts C must have (Note [gemm]).
enum class MatrixLayout { RowMajor, ColMajor, Other };
inline MatrixLayout matrix_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) return MatrixLayout::RowMajor;
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) return MatrixLayout::ColMajor;
  return MatrixLayout::Other;
}

/// The arguments of one batched GEMM (Note [gemm]). All three operands have dtype `dtype`.
struct GemmArgs {
  DType dtype = kFloat32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  MatrixRef a, b, c;  // (m, k), (k, n), (m, n)
  Scalar alpha = Scalar(int64_t{1});
  Scalar beta = Scalar(int64_t{0});
};

/// The providers of GEMM (OpenBLAS registers here). They see only calls with batch, m, n, k > 0 and a
/// nonzero alpha.
ProviderSlot<GemmArgs>& gemm_providers();

/// Runs a batched GEMM: the empty cases, then the first provider that supports it, else the reference.
void gemm(const GemmArgs& args);

/// The reference GEMM for every dtype (Note [gemm]); parallel over the rows of C.
void gemm_reference(const GemmArgs& args);

}  // namespace ember::cpu
