#pragma once
// What BLAS-style GEMM providers (OpenBLAS, oneDNN) share: how a strided matrix of Note [gemm] is read through
// a leading dim (as it is, or as a transpose), packing when it fits neither, and the batch loop.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/kernels/cpu/Gemm.h"
#include "ember/kernels/cpu/Parallel.h"

namespace ember::cpu {

/// How a BLAS-style kernel reads a (rows, cols) matrix in a row-major call: as it is (trans false, row i at
/// ld * i) or as the transpose of a row-major matrix (trans true, column j at ld * j).
struct BlasLayout {
  bool trans;
  int64_t ld;
};

/// The BlasLayout of a matrix with element strides (rs, cs); none when neither dim has a unit stride (or the
/// other stride does not span it).
inline std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  switch (matrix_layout(rows, cols, rs, cs)) {
    case MatrixLayout::RowMajor: return BlasLayout{false, rows <= 1 ? std::max<int64_t>(1, cols) : rs};
    case MatrixLayout::ColMajor: return BlasLayout{true, cols <= 1 ? std::max<int64_t>(1, rows) : cs};
    case MatrixLayout::Other: break;
  }
  return std::nullopt;
}

/// One operand (A or B) of matrix `batch_index`: its address and how a BLAS kernel reads it, packed to
/// row-major first when its strides fit no BLAS layout (a slice with a step in both dims, a broadcast with
/// stride 0, ...).
template <class T>
struct BlasOperand {
  const T* data;
  BlasLayout layout;
  std::vector<T> packed;

  BlasOperand(const MatrixRef& r, int64_t batch_index) {
    data = static_cast<const T*>(r.data) + batch_index * r.batch_stride;
    if (auto l = blas_layout(r.rows, r.cols, r.row_stride, r.col_stride)) {
      layout = *l;
      return;
    }
    packed.resize(static_cast<size_t>(r.rows * r.cols));
    for (int64_t i = 0; i < r.rows; ++i)
      for (int64_t j = 0; j < r.cols; ++j) packed[i * r.cols + j] = data[i * r.row_stride + j * r.col_stride];
    data = packed.data();
    layout = BlasLayout{false, r.cols};
  }
};

/// Below this many multiply-adds per matrix, a batch runs one matrix per thread (the BLAS kernel then stays on
/// one thread inside the parallel region); above it, matrices run one after another on all the BLAS threads.
inline constexpr int64_t kSmallGemm = 1 << 18;

/// Calls one(b) for every matrix b of the batch, splitting small matrices over the threads (kSmallGemm).
inline void for_each_matrix(const GemmArgs& g, FunctionRef<void(int64_t)> one) {
  if (g.batch > 1 && g.m * g.n * g.k <= kSmallGemm) {
    parallel_for(g.batch, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.m * g.n * g.k)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b) one(b);
                 });
    return;
  }
  for (int64_t b = 0; b < g.batch; ++b) one(b);
}

}  // namespace ember::cpu
