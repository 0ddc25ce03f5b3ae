// OpenBLAS's kernels for the GEMM provider slot (see OpenBLAS.h, Note [gemm], Note [providers]).
#include "ember/backends/openblas/OpenBLAS.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <vector>

#include "ember/kernels/cpu/Gemm.h"
#include "ember/kernels/cpu/GemmOperands.h"
#include "ember/kernels/cpu/Parallel.h"

namespace ember::backends::blas {

namespace {

using cpu::GemmArgs;
using cpu::MatrixRef;

cpu::Provider& the_provider() {
  static cpu::Provider& p = cpu::provider("blas");
  return p;
}

// The typed BLAS entry points.
template <class T>
struct Blas;
template <>
struct Blas<float> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha, const float* a,
                   blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, blasint m, blasint n, float alpha, const float* a, blasint lda, const float* x,
                   blasint incx, float beta, float* y, blasint incy) {
    cblas_sgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static float dot(blasint n, const float* x, blasint incx, const float* y, blasint incy) {
    return cblas_sdot(n, x, incx, y, incy);
  }
};
template <>
struct Blas<double> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha,
                   const double* a, blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, blasint m, blasint n, double alpha, const double* a, blasint lda,
                   const double* x, blasint incx, double beta, double* y, blasint incy) {
    cblas_dgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static double dot(blasint n, const double* x, blasint incx, const double* y, blasint incy) {
    return cblas_ddot(n, x, incx, y, incy);
  }
};

// complex64 and complex128: cgemm/zgemm, cgemv/zgemv and the unconjugated dotu (mm, mv and dot do not
// conjugate; vdot conjugates its first argument before it gets here).
template <class V>
struct ComplexBlas {
  using C = std::complex<V>;
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, C alpha, const C* a,
                   blasint lda, const C* b, blasint ldb, C beta, C* c, blasint ldc) {
    if constexpr (std::is_same_v<V, float>)
      cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
    else
      cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, blasint m, blasint n, C alpha, const C* a, blasint lda, const C* x,
                   blasint incx, C beta, C* y, blasint incy) {
    if constexpr (std::is_same_v<V, float>)
      cblas_cgemv(CblasRowMajor, t, m, n, &alpha, a, lda, x, incx, &beta, y, incy);
    else
      cblas_zgemv(CblasRowMajor, t, m, n, &alpha, a, lda, x, incx, &beta, y, incy);
  }
  static C dot(blasint n, const C* x, blasint incx, const C* y, blasint incy) {
    C r;
    if constexpr (std::is_same_v<V, float>) cblas_cdotu_sub(n, x, incx, y, incy, &r);
    else cblas_zdotu_sub(n, x, incx, y, incy, &r);
    return r;
  }
};
template <>
struct Blas<std::complex<float>> : ComplexBlas<float> {};
template <>
struct Blas<std::complex<double>> : ComplexBlas<double> {};

constexpr int64_t kBlasMax = INT_MAX;  // blasint is int in Debian's (LP64) OpenBLAS

// BLAS's trans flag for a BlasLayout (GemmOperands.h).
CBLAS_TRANSPOSE trans_of(const cpu::BlasLayout& l) { return l.trans ? CblasTrans : CblasNoTrans; }
CBLAS_TRANSPOSE flip(const cpu::BlasLayout& l) { return l.trans ? CblasNoTrans : CblasTrans; }

bool fits(int64_t v) { return v >= -kBlasMax && v <= kBlasMax; }

bool supports(const GemmArgs& g) {
  if (g.dtype != kFloat32 && g.dtype != kFloat64 && !is_complex(g.dtype)) return false;
  for (int64_t v : {g.m, g.n, g.k, g.a.row_stride, g.a.col_stride, g.b.row_stride, g.b.col_stride, g.c.row_stride,
                    g.c.col_stride})
    if (!fits(v)) return false;
  // C is written in place, so it needs a BLAS layout (the op kernels guarantee one, see Note [gemm]); A and B
  // are packed when they have none.
  return cpu::blas_layout(g.c.rows, g.c.cols, g.c.row_stride, g.c.col_stride).has_value();
}

// The increment BLAS steps a vector with: its stride, or 1 for a single element. A stride of 0 (a broadcast)
// has no BLAS meaning and is packed.
template <class T>
struct Vector {
  const T* data;
  int64_t inc;
  std::vector<T> packed;

  Vector(const T* p, int64_t n, int64_t stride) : data(p), inc(n <= 1 ? 1 : stride) {
    if (inc >= 1) return;
    packed.assign(static_cast<size_t>(n), *p);  // stride 0: n copies of one value
    data = packed.data();
    inc = 1;
  }
};

// Matrix b of the batch: one BLAS call chosen by the shape.
template <class T>
void run_one(const GemmArgs& g, int64_t b, T alpha, T beta) {
  const int64_t m = g.m, n = g.n, k = g.k;
  T* c = static_cast<T*>(g.c.data) + b * g.c.batch_stride;
  const T* a0 = static_cast<const T*>(g.a.data) + b * g.a.batch_stride;
  const T* b0 = static_cast<const T*>(g.b.data) + b * g.b.batch_stride;
  if (m == 1 && n == 1) {  // dot: a row of A with a column of B
    Vector<T> x(a0, k, g.a.col_stride), y(b0, k, g.b.row_stride);
    T v = alpha * Blas<T>::dot(static_cast<blasint>(k), x.data, static_cast<blasint>(x.inc), y.data,
                               static_cast<blasint>(y.inc));
    *c = beta == T(0) ? v : v + beta * *c;
    return;
  }
  if (n == 1) {  // gemv: y (m) = A (m, k) x (k)
    cpu::BlasOperand<T> A(g.a, b);
    Vector<T> x(b0, k, g.b.row_stride);
    const int64_t incy = m <= 1 ? 1 : g.c.row_stride;
    if (!A.layout.trans)
      Blas<T>::gemv(CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(k), alpha, A.data,
                    static_cast<blasint>(A.layout.ld), x.data, static_cast<blasint>(x.inc), beta, c,
                    static_cast<blasint>(incy));
    else  // A is the transpose of a row-major (k, m) matrix
      Blas<T>::gemv(CblasTrans, static_cast<blasint>(k), static_cast<blasint>(m), alpha, A.data,
                    static_cast<blasint>(A.layout.ld), x.data, static_cast<blasint>(x.inc), beta, c,
                    static_cast<blasint>(incy));
    return;
  }
  if (m == 1) {  // gemv on B's transpose: y (n) = B^T (n, k) x (k)
    cpu::BlasOperand<T> B(g.b, b);
    Vector<T> x(a0, k, g.a.col_stride);
    const int64_t incy = g.c.col_stride;
    if (!B.layout.trans)  // B row-major (k, n): y = B^T x
      Blas<T>::gemv(CblasTrans, static_cast<blasint>(k), static_cast<blasint>(n), alpha, B.data,
                    static_cast<blasint>(B.layout.ld), x.data, static_cast<blasint>(x.inc), beta, c,
                    static_cast<blasint>(incy));
    else  // B^T is row-major (n, k)
      Blas<T>::gemv(CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(k), alpha, B.data,
                    static_cast<blasint>(B.layout.ld), x.data, static_cast<blasint>(x.inc), beta, c,
                    static_cast<blasint>(incy));
    return;
  }
  cpu::BlasOperand<T> A(g.a, b), B(g.b, b);
  const cpu::BlasLayout lc = *cpu::blas_layout(m, n, g.c.row_stride, g.c.col_stride);
  if (!lc.trans) {
    Blas<T>::gemm(trans_of(A.layout), trans_of(B.layout), static_cast<blasint>(m), static_cast<blasint>(n),
                  static_cast<blasint>(k), alpha, A.data, static_cast<blasint>(A.layout.ld), B.data,
                  static_cast<blasint>(B.layout.ld), beta, c, static_cast<blasint>(lc.ld));
  } else {  // C column-major: compute C^T (n, m) = B^T A^T
    Blas<T>::gemm(flip(B.layout), flip(A.layout), static_cast<blasint>(n), static_cast<blasint>(m),
                  static_cast<blasint>(k), alpha, B.data, static_cast<blasint>(B.layout.ld), A.data,
                  static_cast<blasint>(A.layout.ld), beta, c, static_cast<blasint>(lc.ld));
  }
}

template <class T>
void run_typed(const GemmArgs& g) {
  const T alpha = g.alpha.to<T>(), beta = g.beta.to<T>();
  cpu::for_each_matrix(g, [&](int64_t b) { run_one<T>(g, b, alpha, beta); });
}

void run(const GemmArgs& g) {
  switch (g.dtype) {
    case kFloat32: run_typed<float>(g); break;
    case kComplexFloat: run_typed<std::complex<float>>(g); break;
    case kComplexDouble: run_typed<std::complex<double>>(g); break;
    default: run_typed<double>(g); break;
  }
}

}  // namespace

void register_provider() {
  // Above the reference kernel, which is not a provider; future providers choose their priority relative to
  // this one.
  cpu::gemm_providers().add(the_provider(), 100, &supports, &run);
}

bool enabled() { return the_provider().enabled(); }
void set_enabled(bool on) { the_provider().set_enabled(on); }

std::string config() {
  std::string s = openblas_get_config();
  s += std::string(" (core ") + openblas_get_corename() + ")";
  // The file the loader actually mapped (libopenblas.so.0 may be a chain of alternatives symlinks).
  s += cpu::library_of(reinterpret_cast<const void*>(&cblas_sgemm));
  return s;
}

}  // namespace ember::backends::blas
