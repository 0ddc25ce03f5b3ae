// The batched GEMM of Note [gemm]: empty cases, provider selection and the reference kernel.
#include "ember/kernels/cpu/Gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/Parallel.h"

namespace ember::cpu {

ProviderSlot<GemmArgs>& gemm_providers() {
  static auto* slot = new ProviderSlot<GemmArgs>("gemm");
  return *slot;
}

namespace {

// The type the reference accumulates in (Note [gemm]): 64-bit unsigned for integers and bool (products wrap
// modulo 2^64, so the final conversion to the dtype wraps as PyTorch's integer arithmetic does), float for
// the 16-bit floats, else the type itself.
template <class T>
using gemm_acc_t = std::conditional_t<std::is_integral_v<T>, uint64_t, opmath_t<T>>;

template <class T>
inline gemm_acc_t<T> to_acc(T v) {
  if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else return static_cast<gemm_acc_t<T>>(v);
}

template <class T>
inline T from_acc(gemm_acc_t<T> v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
  else return static_cast<T>(v);
}

// alpha and beta as the reference uses them: converted to the dtype first for integers and bool (PyTorch's
// alpha.to<scalar_t>()), to the accumulation type for floating dtypes.
template <class T>
inline gemm_acc_t<T> scalar_acc(const Scalar& s) {
  if constexpr (std::is_integral_v<T>) return to_acc<T>(s.to<T>());
  else if constexpr (is_complex_v<T>) return s.to<T>();
  else return static_cast<gemm_acc_t<T>>(s.to<double>());
}

template <class T>
inline T* elem(const MatrixRef& r, int64_t b, int64_t i, int64_t j) {
  return static_cast<T*>(r.data) + b * r.batch_stride + i * r.row_stride + j * r.col_stride;
}

// C = beta * C (C = 0 when beta is 0, without reading C).
template <class T>
void scale_c(const GemmArgs& g) {
  using Acc = gemm_acc_t<T>;
  const Acc beta = scalar_acc<T>(g.beta);
  if (beta == Acc(1)) return;
  parallel_for(g.batch * g.m, std::max<int64_t>(1, kGrainSize / g.n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / g.m, i = r % g.m;
      for (int64_t j = 0; j < g.n; ++j) {
        T* c = elem<T>(g.c, b, i, j);
        *c = beta == Acc(0) ? T(0) : from_acc<T>(beta * to_acc<T>(*c));
      }
    }
  });
}

// Rows [i0, i1) of C[b] from packed B[b] (k x n, row-major, in Acc). Four rows at a time share each load of
// B, and columns go in blocks that keep the four accumulator rows in L1.
template <class T>
void reference_rows(const GemmArgs& g, int64_t b, const gemm_acc_t<T>* bp, int64_t i0, int64_t i1) {
  using Acc = gemm_acc_t<T>;
  constexpr int64_t R = 4, NB = 256;
  const int64_t n = g.n, k = g.k;
  const Acc alpha = scalar_acc<T>(g.alpha), beta = scalar_acc<T>(g.beta);
  const bool read_c = beta != Acc(0);
  Acc acc[R][NB];
  for (int64_t i = i0; i < i1; i += R) {
    const int64_t rows = std::min(R, i1 - i);
    for (int64_t j0 = 0; j0 < n; j0 += NB) {
      const int64_t nb = std::min(NB, n - j0);
      for (int64_t r = 0; r < R; ++r)
        for (int64_t j = 0; j < nb; ++j) acc[r][j] = Acc(0);
      for (int64_t p = 0; p < k; ++p) {
        // Rows past the end reuse the last row's value; their accumulators are never written back.
        Acc a[R];
        for (int64_t r = 0; r < R; ++r) a[r] = to_acc<T>(*elem<T>(g.a, b, i + std::min(r, rows - 1), p));
        const Acc* __restrict brow = bp + p * n + j0;
        Acc* __restrict c0 = acc[0];
        Acc* __restrict c1 = acc[1];
        Acc* __restrict c2 = acc[2];
        Acc* __restrict c3 = acc[3];
        for (int64_t j = 0; j < nb; ++j) {
          const Acc bv = brow[j];
          c0[j] += a[0] * bv;
          c1[j] += a[1] * bv;
          c2[j] += a[2] * bv;
          c3[j] += a[3] * bv;
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < nb; ++j) {
          T* c = elem<T>(g.c, b, i + r, j0 + j);
          Acc v = alpha * acc[r][j];
          if (read_c) v += beta * to_acc<T>(*c);
          *c = from_acc<T>(v);
        }
      }
    }
  }
}

template <class T>
void reference_typed(const GemmArgs& g) {
  using Acc = gemm_acc_t<T>;
  const int64_t k = g.k, n = g.n;
  auto pack_b = [&](int64_t b, std::vector<Acc>& buf) {
    buf.resize(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) buf[p * n + j] = to_acc<T>(*elem<T>(g.b, b, p, j));
  };
  const int64_t row_grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * k));
  if (g.batch >= get_num_threads() && g.batch > 1) {
    // Many matrices: one task per range of whole matrices.
    parallel_for(g.batch, std::max<int64_t>(1, row_grain / g.m), [&](int64_t b0, int64_t b1) {
      std::vector<Acc> buf;
      for (int64_t b = b0; b < b1; ++b) {
        pack_b(b, buf);
        reference_rows<T>(g, b, buf.data(), 0, g.m);
      }
    });
    return;
  }
  std::vector<Acc> buf;
  for (int64_t b = 0; b < g.batch; ++b) {
    pack_b(b, buf);
    parallel_for(g.m, row_grain, [&](int64_t i0, int64_t i1) { reference_rows<T>(g, b, buf.data(), i0, i1); });
  }
}

}  // namespace

void gemm_reference(const GemmArgs& g) {
  dispatch_dtypes<kAllAndComplex>(g.dtype, "gemm", [&]<class T>() { reference_typed<T>(g); });
}

void gemm(const GemmArgs& g) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  bool product_zero = false;  // k = 0, or alpha 0 once converted as the kernels convert it
  dispatch_dtypes<kAllAndComplex>(g.dtype, "gemm", [&]<class T>() {
    product_zero = g.k == 0 || scalar_acc<T>(g.alpha) == gemm_acc_t<T>(0);
    if (product_zero) scale_c<T>(g);
  });
  if (product_zero || gemm_providers().run(g)) return;
  gemm_reference(g);
}

}  // namespace ember::cpu
