// Linear-algebra kernels on LAPACK (ops_linalg.yaml, "LAPACK"): LU, Cholesky, symmetric eigen-decomposition,
// SVD, QR and Householder products, LDL^T, triangular and general solves, determinants.
//
// Note [linalg on LAPACK]
// LAPACK is the reference here (DESIGN.md: no home-made factorisations): each kernel copies its matrices into a
// fresh batch of column-major matrices (colmajor_copy: strides (..., 1, m), one matrix after another), calls the
// routine of Lapack.h on each, and returns those buffers as the results, which are therefore column-major as
// PyTorch's are. Batch dims of two operands broadcast (solves). Matrices of a batch are independent: small ones
// are spread over threads with parallel_for (OpenBLAS then runs single-threaded inside each), a single large one
// is left to OpenBLAS's own threads. Sizes must fit LAPACK's 32-bit integers. Only float32 and float64 exist
// (Ember has no complex dtypes yet); the argument checks and messages are PyTorch 1.13's (ember/ops/linalg.h).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/TypePromotion.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Lapack.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/Functions.h"
#include "ember/ops/linalg.h"

namespace ember::cpu {

namespace {

using linalg::check_lapack_info;
using linalg::check_lapack_input;
using linalg::scalar_type_name;

// Sizes with the last two swapped.
DimVector swap_last(IntArrayRef sizes) {
  DimVector s(sizes.begin(), sizes.end());
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

// A copy of src (*, m, n) as a batch of column-major matrices (Note [linalg on LAPACK]); always a new buffer,
// since LAPACK overwrites it (contiguous() would hand back an input that is column-major already).
Tensor colmajor_copy(const Tensor& src) {
  return src.transpose(-2, -1).clone(MemoryFormat::Contiguous).transpose(-2, -1);
}
// An uninitialised batch of column-major matrices of sizes (*, m, n).
Tensor colmajor_empty(IntArrayRef sizes, DType dtype) {
  return make_empty(swap_last(sizes), dtype).transpose(-2, -1);
}

// The product of the batch dims (all but the last `matrix_dims`).
int64_t batch_of(IntArrayRef sizes, int64_t matrix_dims = 2) {
  int64_t b = 1;
  for (size_t i = 0; i + matrix_dims < sizes.size(); ++i) b *= sizes[i];
  return b;
}
DimVector batch_shape(IntArrayRef sizes, int64_t matrix_dims = 2) {
  return DimVector(sizes.begin(), sizes.end() - matrix_dims);
}
DimVector with_tail(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector s(batch.begin(), batch.end());
  for (int64_t t : tail) s.push_back(t);
  return s;
}
bool same_shape(IntArrayRef a, IntArrayRef b) { return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_lapack_size(std::string_view op, int64_t v) {
  EMBER_CHECK(v <= INT_MAX, "{}: a matrix dimension of {} exceeds LAPACK's 32-bit limit", op, v);
}

// Runs f(b) for every matrix b < batch; in parallel when the matrices are small (each costs about n^3).
template <class F>
void for_each_matrix(int64_t batch, int64_t n, F&& f) {
  const int64_t cost = std::max<int64_t>(1, n * n * n);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / cost);
  if (batch <= 1 || n > 128) {
    for (int64_t b = 0; b < batch; ++b) f(b);
    return;
  }
  parallel_for(batch, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) f(b);
  });
}

// Calls f.template operator()<T>() with T float or double for dtype (checked before by check_lapack_input).
template <class F>
void dispatch_lapack(DType dtype, F&& f) {
  if (dtype == kFloat64) {
    f.template operator()<double>();
  } else {
    f.template operator()<float>();
  }
}

// The workspace size a LAPACK query (lwork = -1) returned in work[0].
template <class T>
int workspace_size(T w) {
  return std::max(1, static_cast<int>(w));
}

// A and B of a solve must have the same dtype.
void check_same_dtype(std::string_view op, const Tensor& A, const Tensor& B) {
  EMBER_CHECK(A.dtype() == B.dtype(),
              "{}: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead", op,
              scalar_type_name(A.dtype()), scalar_type_name(B.dtype()));
}

// Checks pivots (int32, batch shape + (k)) and that each lies in [1, m] (they index rows; from the user).
void check_pivots(std::string_view op, const Tensor& pivots, IntArrayRef batch, int64_t k, int64_t m) {
  EMBER_CHECK(pivots.dtype() == kInt32, "{}: Expected pivots to be of type Int, but got {}", op,
              scalar_type_name(pivots.dtype()));
  EMBER_CHECK(pivots.dim() >= 1 && pivots.size(-1) == k, "{}: Expected pivots of size {} in the last dim, got {}",
              op, k, fmt::join(pivots.sizes(), "x"));
  (void)batch;
  const Tensor p = pivots.contiguous();
  const int32_t* d = p.data_ptr<int32_t>();
  for (int64_t i = 0; i < p.numel(); ++i) {
    EMBER_CHECK(d[i] >= 1 && d[i] <= m, "{}: pivot {} is out of range [1, {}]", op, d[i], m);
  }
}

// Broadcasts the batch dims of A (*, a1, a2) and B (*, b1, b2) (PyTorch's _linalg_broadcast_batch_dims).
DimVector broadcast_batch(const Tensor& A, const Tensor& B) {
  return broadcast_shapes(batch_shape(A.sizes()), batch_shape(B.sizes()));
}

// Solves op(A) X = B in place of B for the LU factorisation (LU, pivots) of each batch matrix with getrs.
template <class T>
void lu_solve_batch(const Tensor& LU, const Tensor& pivots, const Tensor& X, char trans) {
  const int64_t n = LU.size(-1), nrhs = X.size(-1), batch = batch_of(X.sizes());
  if (n == 0 || nrhs == 0) return;
  const T* lu = LU.data_ptr<T>();
  const int32_t* piv = pivots.data_ptr<int32_t>();
  T* x = X.data_ptr<T>();
  for_each_matrix(batch, n, [&](int64_t b) {
    int info = 0;
    lapack::getrs<T>(trans, static_cast<int>(n), static_cast<int>(nrhs), lu + b * n * n, static_cast<int>(n),
                     piv + b * n, x + b * n * nrhs, static_cast<int>(n), &info);
  });
}

// LU factorisation (getrf) of every matrix of the column-major batch LU (*, m, n), in place.
template <class T>
void lu_factor_batch(const Tensor& LU, const Tensor& pivots, const Tensor& info) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n), batch = batch_of(LU.sizes());
  T* a = LU.data_ptr<T>();
  int32_t* piv = pivots.data_ptr<int32_t>();
  int32_t* inf = info.data_ptr<int32_t>();
  for_each_matrix(batch, std::max(m, n), [&](int64_t b) {
    int i = 0;
    if (k > 0) {
      const int lda = static_cast<int>(std::max<int64_t>(1, m));
      lapack::getrf<T>(static_cast<int>(m), static_cast<int>(n), a + b * m * n, lda, piv + b * k, &i);
    }
    inf[b] = i;
  });
}

// (LU, pivots, info) of A (*, m, n): Note [linalg on LAPACK].
std::tuple<Tensor, Tensor, Tensor> lu_factor(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const DimVector batch = batch_shape(A.sizes());
  Tensor LU = colmajor_copy(A);
  Tensor pivots = make_empty(with_tail(batch, {std::min(m, n)}), kInt32);
  Tensor info = make_empty(batch, kInt32);
  dispatch_lapack(A.dtype(), [&]<class T>() { lu_factor_batch<T>(LU, pivots, info); });
  return {LU, pivots, info};
}

// Note [non-finite input to LAPACK]
// The scaling inside gesdd and syevd reports a NaN or inf input through LAPACK's xerbla, which, when NumPy is
// loaded in the process, resolves to NumPy's own xerbla_ and leaves a Python exception set behind Ember's back.
// So those kernels check first and raise as PyTorch's svd does (LinAlgError naming the batch element).
template <class T>
void check_finite(std::string_view op, const Tensor& a) {
  const int64_t per = a.size(-1) * a.size(-2), batch = batch_of(a.sizes());
  const T* d = a.data_ptr<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < per; ++i) {
      if (!std::isfinite(d[b * per + i])) {
        const std::string where = a.dim() > 2 ? fmt::format(": (Batch element {})", b) : std::string();
        EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The algorithm failed to converge because the input matrix "
                        "contained non-finite values.", op, where);
      }
    }
  }
}

// B as the right-hand side of a solve with A (Note [linalg on LAPACK]): PyTorch treats B as a vector when it is
// 1-D, or when B's shape is A's without the last dim (linalg_solve_is_vector_rhs).
bool solve_is_vector(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  return std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin(), A.sizes().end() - 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- LU

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  check_lapack_input("torch.linalg.lu_factor_ex", A, false);
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  check_lapack_size("torch.linalg.lu_factor_ex", std::max(A.size(-1), A.size(-2)));
  auto r = lu_factor(A);
  if (check_errors) check_lapack_info("torch.linalg.lu_factor_ex", std::get<2>(r));
  return r;
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  EMBER_CHECK(LU_data.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [{}] instead",
              fmt::join(LU_data.sizes(), ", "));
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(LU_data.sizes());
  Tensor L = make_empty({0}, LU_data.dtype()), U = make_empty({0}, LU_data.dtype());
  Tensor P = make_empty({0}, LU_data.dtype());
  if (unpack_data) {
    L = LU_data.narrow(-1, 0, k).tril(-1);
    L.diagonal(0, -2, -1).fill_(1);
    U = LU_data.narrow(-2, 0, k).triu();
  }
  if (unpack_pivots) {
    EMBER_CHECK(LU_pivots.dtype() == kInt32,
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this "
                "function is intended to be used with the output produced by torch.linalg.lu_factor");
    EMBER_CHECK(LU_pivots.dim() == LU_data.dim() - 1 && LU_pivots.size(-1) == k &&
                    same_shape(batch_shape(LU_pivots.sizes(), 1), batch),
                "torch.lu_unpack: LU_pivots of shape [{}] do not match LU_data of shape [{}] (expected [{}])",
                fmt::join(LU_pivots.sizes(), ", "), fmt::join(LU_data.sizes(), ", "),
                fmt::join(with_tail(batch, {k}), ", "));
    check_pivots("torch.lu_unpack", LU_pivots, batch, k, m);
    P = ember::zeros(with_tail(batch, {m, m}), LU_data.dtype());
    const Tensor piv = LU_pivots.contiguous();
    const int32_t* pv = piv.data_ptr<int32_t>();
    const int64_t nb = batch_of(LU_data.sizes());
    dispatch_lapack(LU_data.dtype(), [&]<class T>() {
      T* p = P.data_ptr<T>();
      std::vector<int64_t> perm(m);
      for (int64_t b = 0; b < nb; ++b) {
        // Row i of P^T A is row perm[i] of A: apply LAPACK's interchanges in order.
        for (int64_t i = 0; i < m; ++i) perm[i] = i;
        for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[pv[b * k + i] - 1]);
        for (int64_t i = 0; i < m; ++i) p[b * m * m + perm[i] * m + i] = T(1);  // P[perm[i], i] = 1
      }
    });
  }
  return {P, L, U};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_lapack_input(op, LU, true, "LU");
  EMBER_CHECK(B.dim() >= 2, "{}: The input tensor B must have at least 2 dimensions.", op);
  const int64_t n = LU.size(-1);
  EMBER_CHECK(B.size(left ? -2 : -1) == n,
              "{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", op,
              left ? "AX = B" : "XA = B", n, n, B.size(-2), B.size(-1));
  EMBER_CHECK(LU.dtype() == B.dtype(),
              "{}: Expected LU and B to have the same dtype, but found LU of type {} and B of type {} instead", op,
              scalar_type_name(LU.dtype()), scalar_type_name(B.dtype()));
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && same_shape(batch_shape(pivots.sizes(), 1), batch_shape(LU.sizes())),
              "{}: Expected pivots of shape [{}], got [{}]", op,
              fmt::join(with_tail(batch_shape(LU.sizes()), {n}), ", "), fmt::join(pivots.sizes(), ", "));
  check_pivots(op, pivots, batch_shape(LU.sizes()), n, n);
  check_lapack_size(op, std::max(n, B.size(left ? -1 : -2)));
  const DimVector batch = broadcast_batch(LU, B);
  // X A = B is A^T X^T = B^T: solve with the other transposition on B^T (Note [linalg on LAPACK]).
  const Tensor Bl = left ? B : B.transpose(-2, -1);
  const int64_t r = Bl.size(-1);
  Tensor X = colmajor_copy(Bl.expand(with_tail(batch, {n, r})));
  if (X.numel() == 0) return left ? X : X.transpose(-2, -1);
  const Tensor LUb = colmajor_copy(LU.expand(with_tail(batch, {n, n})));
  const Tensor pivb = pivots.expand(with_tail(batch, {n})).contiguous();
  const char trans = (adjoint != !left) ? 'T' : 'N';
  dispatch_lapack(LU.dtype(), [&]<class T>() { lu_solve_batch<T>(LUb, pivb, X, trans); });
  return left ? X : X.transpose(-2, -1);
}

// ---------------------------------------------------------------------------------------------------- solve, det

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_solve_ex(const Tensor& A, const Tensor& B, bool left,
                                                            bool check_errors) {
  const char* op = "linalg.solve";
  check_lapack_input(op, A, true);
  EMBER_CHECK(B.dim() >= 1, "{}: The input tensor B must have at least 1 dimensions.", op);
  check_same_dtype(op, A, B);
  const int64_t n = A.size(-1);
  const bool vector = solve_is_vector(A, B);
  const Tensor B2 = vector ? B.unsqueeze(left ? -1 : -2) : B;
  EMBER_CHECK(B2.size(left ? -2 : -1) == n, "{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
              op, left ? "AX = B" : "XA = B", n, n, B2.size(-2), B2.size(-1));
  check_lapack_size(op, std::max(n, B2.size(left ? -1 : -2)));
  // Note [LU of the transpose]: as PyTorch, a row-major (contiguous) A is factored as A^T, whose column-major
  // copy is A's own memory order; the solve then uses the other transposition. The LU and info returned are
  // A^T's then, as PyTorch's are (so are the "diagonal element i" of its messages), and the derivatives
  // (FunctionsLinalg.cpp) undo the choice by A's contiguity.
  const bool use_A_T = A.is_contiguous();
  auto [LU, pivots, info] = lu_factor(use_A_T ? A.transpose(-2, -1) : A);
  const DimVector batch = broadcast_batch(A, B2);
  const Tensor Bl = left ? B2 : B2.transpose(-2, -1);
  Tensor X = colmajor_copy(Bl.expand(with_tail(batch, {n, Bl.size(-1)})));
  if (X.numel() > 0) {
    const Tensor LUb = colmajor_copy(LU.expand(with_tail(batch, {n, n})));
    const Tensor pivb = pivots.expand(with_tail(batch, {n})).contiguous();
    dispatch_lapack(A.dtype(), [&]<class T>() { lu_solve_batch<T>(LUb, pivb, X, left != use_A_T ? 'N' : 'T'); });
  }
  if (!left) X = X.transpose(-2, -1);
  if (vector) X = X.squeeze(left ? -1 : -2);
  if (check_errors) check_lapack_info("torch.linalg.solve_ex", info);
  return {X, LU, pivots, info};
}

std::tuple<Tensor, Tensor, Tensor> _linalg_det(const Tensor& A) {
  check_lapack_input("linalg.det", A, true);
  check_lapack_size("linalg.det", A.size(-1));
  // det(A) = det(A^T): Note [LU of the transpose].
  // (not a structured binding: the lambda below captures them, which clang before 16 refuses)
  Tensor LU, pivots, info;
  std::tie(LU, pivots, info) = lu_factor(A.is_contiguous() ? A.transpose(-2, -1) : A);
  const int64_t n = A.size(-1), batch = batch_of(A.sizes());
  Tensor det = make_empty(batch_shape(A.sizes()), A.dtype());
  dispatch_lapack(A.dtype(), [&]<class T>() {
    const T* lu = LU.data_ptr<T>();
    const int32_t* piv = pivots.data_ptr<int32_t>();
    T* d = det.data_ptr<T>();
    for (int64_t b = 0; b < batch; ++b) {
      T prod = T(1);
      for (int64_t i = 0; i < n; ++i) {
        prod *= lu[b * n * n + i * n + i];
        if (piv[b * n + i] != i + 1) prod = -prod;
      }
      d[b] = prod;
    }
  });
  return {det, LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet(const Tensor& A) {
  check_lapack_input("linalg.slogdet", A, true);
  check_lapack_size("linalg.slogdet", A.size(-1));
  // Note [LU of the transpose].
  // (not a structured binding: the lambda below captures them, which clang before 16 refuses)
  Tensor LU, pivots, info;
  std::tie(LU, pivots, info) = lu_factor(A.is_contiguous() ? A.transpose(-2, -1) : A);
  const int64_t n = A.size(-1), batch = batch_of(A.sizes());
  Tensor sign = make_empty(batch_shape(A.sizes()), A.dtype());
  Tensor logabsdet = make_empty(batch_shape(A.sizes()), A.dtype());
  dispatch_lapack(A.dtype(), [&]<class T>() {
    const T* lu = LU.data_ptr<T>();
    const int32_t* piv = pivots.data_ptr<int32_t>();
    T* s = sign.data_ptr<T>();
    T* l = logabsdet.data_ptr<T>();
    for (int64_t b = 0; b < batch; ++b) {
      T sg = T(1), lg = T(0);
      for (int64_t i = 0; i < n; ++i) {
        const T u = lu[b * n * n + i * n + i];
        if (u < T(0)) sg = -sg;
        if (u == T(0)) sg = T(0);
        if (piv[b * n + i] != i + 1) sg = -sg;
        lg += std::log(std::abs(u));
      }
      s[b] = sg;
      l[b] = lg;
    }
  });
  return {sign, logabsdet, LU, pivots};
}

// ---------------------------------------------------------------------------------------------------- Cholesky

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool upper, bool check_errors) {
  check_lapack_input("linalg.cholesky", self, true);
  check_lapack_size("linalg.cholesky", self.size(-1));
  const int64_t n = self.size(-1), batch = batch_of(self.sizes());
  Tensor L = colmajor_copy(self);
  Tensor info = make_empty(batch_shape(self.sizes()), kInt32);
  const char uplo = upper ? 'U' : 'L';
  dispatch_lapack(self.dtype(), [&]<class T>() {
    T* a = L.data_ptr<T>();
    int32_t* inf = info.data_ptr<int32_t>();
    for_each_matrix(batch, n, [&](int64_t b) {
      int i = 0;
      if (n > 0) lapack::potrf<T>(uplo, static_cast<int>(n), a + b * n * n, static_cast<int>(n), &i);
      inf[b] = i;
    });
  });
  // potrf leaves the other triangle as it was: zero it.
  L = upper ? L.triu_() : L.tril_();
  if (check_errors) check_lapack_info("linalg.cholesky_ex", info);
  return {L, info};
}

// ---------------------------------------------------------------------------------------------------- eigh, SVD

// Note [linalg.eig]
// LAPACK's geev on column-major copies, one matrix at a time. A real matrix gives its eigenvalues as (wr, wi),
// complex-conjugate pairs adjacent with the positive imaginary part first, and the pair's eigenvectors as two
// real columns (re, im): v_j = re + i im, v_{j+1} = re - i im. Results are complex (complex64 for float32
// input, complex128 for float64), eigenvectors normalised as LAPACK leaves them (norm 1, largest component
// real), which is what PyTorch returns.
namespace {
std::tuple<Tensor, Tensor> eig_impl(const char* op, const Tensor& A, bool compute_v) {
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  const DType dt = A.dtype();
  EMBER_CHECK(dt == kFloat32 || dt == kFloat64 || is_complex(dt),
              "{}: Expected a floating point or complex tensor as input. Got {}", op, scalar_type_name(dt));
  EMBER_CHECK(A.size(-1) == A.size(-2), "{}: A must be batches of square matrices, but they are {} by {} matrices",
              op, A.size(-2), A.size(-1));
  check_lapack_size(op, A.size(-1));
  const int64_t n = A.size(-1), batch = batch_of(A.sizes());
  const DType cdt = to_complex_dtype(dt);
  Tensor a = colmajor_copy(A);
  Tensor w = make_empty(with_tail(batch_shape(A.sizes()), {n}), cdt);
  Tensor V = compute_v ? make_empty(A.sizes(), cdt) : make_empty({0}, cdt);  // row-major (*, n, n)
  Tensor info = make_empty(batch_shape(A.sizes()), kInt32);
  int32_t* inf = info.data_ptr<int32_t>();
  std::fill(inf, inf + batch, 0);
  if (n == 0) return {w, V};
  const int ni = static_cast<int>(n);
  const char jobvr = compute_v ? 'V' : 'N';
  auto run = [&]<class T, class C>() {
    T* ad = static_cast<T*>(a.data_ptr());
    C* wd = static_cast<C*>(w.data_ptr());
    C* vd = compute_v ? static_cast<C*>(V.data_ptr()) : nullptr;
    std::vector<T> vr(compute_v ? static_cast<size_t>(n * n) : 1);
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      std::vector<R> rwork(static_cast<size_t>(2 * n));
      T wq{};
      int qi = 0;
      lapack::geev_complex<R>(jobvr, ni, ad, ni, wd, vr.data(), ni, &wq, -1, rwork.data(), &qi);
      std::vector<T> work(static_cast<size_t>(workspace_size(wq.real())));
      for (int64_t b = 0; b < batch; ++b) {
        int i = 0;
        lapack::geev_complex<R>(jobvr, ni, ad + b * n * n, ni, wd + b * n, vr.data(), ni, work.data(),
                                static_cast<int>(work.size()), rwork.data(), &i);
        inf[b] = i;
        if (!compute_v) continue;
        for (int64_t r = 0; r < n; ++r)
          for (int64_t c = 0; c < n; ++c) vd[b * n * n + r * n + c] = vr[c * n + r];
      }
    } else {
      std::vector<T> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
      T wq{};
      int qi = 0;
      lapack::geev_real<T>(jobvr, ni, ad, ni, wr.data(), wi.data(), vr.data(), ni, &wq, -1, &qi);
      std::vector<T> work(static_cast<size_t>(workspace_size(wq)));
      for (int64_t b = 0; b < batch; ++b) {
        int i = 0;
        lapack::geev_real<T>(jobvr, ni, ad + b * n * n, ni, wr.data(), wi.data(), vr.data(), ni, work.data(),
                             static_cast<int>(work.size()), &i);
        inf[b] = i;
        for (int64_t j = 0; j < n; ++j) wd[b * n + j] = C(wr[j], wi[j]);
        if (!compute_v) continue;
        C* out = vd + b * n * n;
        for (int64_t j = 0; j < n; ++j) {
          if (wi[j] != 0 && j + 1 < n) {  // a conjugate pair: columns j (re) and j + 1 (im)
            for (int64_t r = 0; r < n; ++r) {
              out[r * n + j] = C(vr[j * n + r], vr[(j + 1) * n + r]);
              out[r * n + j + 1] = C(vr[j * n + r], -vr[(j + 1) * n + r]);
            }
            ++j;
          } else {
            for (int64_t r = 0; r < n; ++r) out[r * n + j] = C(vr[j * n + r], 0);
          }
        }
      }
    }
  };
  switch (dt) {
    case kFloat32: run.template operator()<float, std::complex<float>>(); break;
    case kFloat64: run.template operator()<double, std::complex<double>>(); break;
    case kComplexFloat: run.template operator()<std::complex<float>, std::complex<float>>(); break;
    default: run.template operator()<std::complex<double>, std::complex<double>>(); break;
  }
  check_lapack_info("eig", info);
  return {w, V};
}
}  // namespace

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& self) { return eig_impl("linalg.eig", self, true); }
Tensor linalg_eigvals(const Tensor& self) { return std::get<0>(eig_impl("linalg.eigvals", self, false)); }

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got {}", UPLO);
  check_lapack_input("linalg.eigh", A, true);
  check_lapack_size("linalg.eigh", A.size(-1));
  const int64_t n = A.size(-1), batch = batch_of(A.sizes());
  Tensor V = colmajor_copy(A);
  Tensor w = make_empty(with_tail(batch_shape(A.sizes()), {n}), A.dtype());
  Tensor info = make_empty(batch_shape(A.sizes()), kInt32);
  const char uplo = (UPLO == "U" || UPLO == "u") ? 'U' : 'L';
  const char jobz = compute_v ? 'V' : 'N';
  dispatch_lapack(A.dtype(), [&]<class T>() {
    T* a = V.data_ptr<T>();
    T* wd = w.data_ptr<T>();
    int32_t* inf = info.data_ptr<int32_t>();
    if (n == 0) {
      std::fill(inf, inf + batch, 0);
      return;
    }
    check_finite<T>("linalg.eigh", V);  // Note [non-finite input to LAPACK]
    const int ni = static_cast<int>(n);
    // Workspace sizes: one query, the same for every matrix.
    T wq{};
    int iwq = 0, qi = 0;
    lapack::syevd<T>(jobz, uplo, ni, a, ni, wd, &wq, -1, &iwq, -1, &qi);
    const int lwork = workspace_size(wq), liwork = std::max(1, iwq);
    parallel_for(batch, std::max<int64_t>(1, (int64_t{1} << 16) / (n * n * n)), [&](int64_t b0, int64_t b1) {
      std::vector<T> work(lwork);
      std::vector<int> iwork(liwork);
      for (int64_t b = b0; b < b1; ++b) {
        int i = 0;
        lapack::syevd<T>(jobz, uplo, ni, a + b * n * n, ni, wd + b * n, work.data(), lwork, iwork.data(), liwork,
                         &i);
        inf[b] = i;
      }
    });
  });
  check_lapack_info("linalg.eigh", info);
  if (!compute_v) V = make_empty({0}, A.dtype());
  return {w, V};
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> driver) {
  EMBER_CHECK(!driver.has_value(),
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  check_lapack_input("linalg.svd", A, false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batch = batch_of(A.sizes());
  check_lapack_size("linalg.svd", std::max(m, n));
  const DimVector bs = batch_shape(A.sizes());
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  Tensor S = make_empty(with_tail(bs, {k}), A.dtype());
  Tensor U = compute_uv ? colmajor_empty(with_tail(bs, {m, ucols}), A.dtype()) : make_empty({0}, A.dtype());
  Tensor Vh = compute_uv ? colmajor_empty(with_tail(bs, {vrows, n}), A.dtype()) : make_empty({0}, A.dtype());
  if (k == 0) {
    // No singular values; the full bases of an empty matrix are identities (as PyTorch).
    if (compute_uv) {
      U.copy_(ember::eye(m, ucols, A.dtype()).expand(U.sizes()));
      Vh.copy_(ember::eye(vrows, n, A.dtype()).expand(Vh.sizes()));
    }
    return {U, S, Vh};
  }
  Tensor a = colmajor_copy(A);
  Tensor info = make_empty(bs, kInt32);
  const char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  dispatch_lapack(A.dtype(), [&]<class T>() {
    T* ad = a.data_ptr<T>();
    T* sd = S.data_ptr<T>();
    T* ud = compute_uv ? U.data_ptr<T>() : nullptr;
    T* vd = compute_uv ? Vh.data_ptr<T>() : nullptr;
    int32_t* inf = info.data_ptr<int32_t>();
    check_finite<T>("linalg.svd", a);  // Note [non-finite input to LAPACK]
    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
    const int ldu = std::max(1, mi), ldvt = std::max<int>(1, static_cast<int>(vrows));
    std::vector<int> iwq(8 * k);
    T wq{};
    T udummy{}, vdummy{};
    int qi = 0;
    lapack::gesdd<T>(jobz, mi, ni, ad, mi, sd, ud ? ud : &udummy, ldu, vd ? vd : &vdummy, ldvt, &wq, -1, iwq.data(),
                     &qi);
    const int lwork = workspace_size(wq);
    const int64_t cost = m * n * k;
    parallel_for(batch, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, cost)),
                 [&](int64_t b0, int64_t b1) {
                   std::vector<T> work(lwork);
                   std::vector<int> iwork(8 * k);
                   for (int64_t b = b0; b < b1; ++b) {
                     int i = 0;
                     lapack::gesdd<T>(jobz, mi, ni, ad + b * m * n, mi, sd + b * k,
                                      ud ? ud + b * m * ucols : &udummy, ldu, vd ? vd + b * vrows * n : &vdummy,
                                      ldvt, work.data(), lwork, iwork.data(), &i);
                     inf[b] = i;
                   }
                 });
  });
  check_lapack_info("linalg.svd", info);
  return {U, S, Vh};
}

// ---------------------------------------------------------------------------------------------------- QR

namespace {

// geqrf of every matrix of the column-major batch a (*, m, n) in place; tau (*, min(m, n)).
template <class T>
void geqrf_batch(const Tensor& a, const Tensor& tau) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n), batch = batch_of(a.sizes());
  if (k == 0) return;
  T* ad = a.data_ptr<T>();
  T* td = tau.data_ptr<T>();
  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
  T wq{};
  int qi = 0;
  lapack::geqrf<T>(mi, ni, ad, mi, td, &wq, -1, &qi);
  const int lwork = workspace_size(wq);
  parallel_for(batch, std::max<int64_t>(1, (int64_t{1} << 16) / (m * n * k)), [&](int64_t b0, int64_t b1) {
    std::vector<T> work(lwork);
    for (int64_t b = b0; b < b1; ++b) {
      int i = 0;
      lapack::geqrf<T>(mi, ni, ad + b * m * n, mi, td + b * k, work.data(), lwork, &i);
    }
  });
}

// orgqr: the first n columns of the product of the k reflectors of each column-major q (*, m, n), in place.
template <class T>
void orgqr_batch(const Tensor& q, const Tensor& tau) {
  const int64_t m = q.size(-2), n = q.size(-1), k = tau.size(-1), batch = batch_of(q.sizes());
  if (m == 0 || n == 0) return;
  T* qd = q.data_ptr<T>();
  const T* td = tau.data_ptr<T>();
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  T wq{};
  int qi = 0;
  lapack::orgqr<T>(mi, ni, ki, qd, mi, td, &wq, -1, &qi);
  const int lwork = workspace_size(wq);
  parallel_for(batch, std::max<int64_t>(1, (int64_t{1} << 16) / (m * n * std::max<int64_t>(1, k))),
               [&](int64_t b0, int64_t b1) {
                 std::vector<T> work(lwork);
                 for (int64_t b = b0; b < b1; ++b) {
                   int i = 0;
                   lapack::orgqr<T>(mi, ni, ki, qd + b * m * n, mi, td + b * k, work.data(), lwork, &i);
                 }
               });
}

std::tuple<Tensor, Tensor> geqrf_impl(const Tensor& A) {
  Tensor a = colmajor_copy(A);
  Tensor tau = make_empty(with_tail(batch_shape(A.sizes()), {std::min(A.size(-2), A.size(-1))}), A.dtype());
  dispatch_lapack(A.dtype(), [&]<class T>() { geqrf_batch<T>(a, tau); });
  return {a, tau};
}

}  // namespace

std::tuple<Tensor, Tensor> geqrf(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  check_lapack_input("torch.geqrf", self, false);
  check_lapack_size("torch.geqrf", std::max(self.size(-1), self.size(-2)));
  return geqrf_impl(self);
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  EMBER_CHECK(mode == "reduced" || mode == "r" || mode == "complete",
              "qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
  check_lapack_input("linalg.qr", A, false);
  check_lapack_size("linalg.qr", std::max(A.size(-1), A.size(-2)));
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete";
  Tensor a, tau;  // captured by the lambda below: not a structured binding (clang before 16)
  std::tie(a, tau) = geqrf_impl(A);
  const Tensor R = a.narrow(-2, 0, complete ? m : k).triu();
  if (mode == "r") return {make_empty({0}, A.dtype()), R};
  const int64_t qcols = complete ? m : k;
  Tensor Q;
  if (qcols <= n) {
    Q = colmajor_copy(a.narrow(-1, 0, qcols));
  } else {
    Q = colmajor_empty(with_tail(batch_shape(A.sizes()), {m, qcols}), A.dtype());
    Q.zero_();
    Q.narrow(-1, 0, n).copy_(a);
  }
  dispatch_lapack(A.dtype(), [&]<class T>() { orgqr_batch<T>(Q, tau); });
  return {Q, R};
}

Tensor linalg_householder_product(const Tensor& input, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  EMBER_CHECK(input.dim() >= 2, "{}: input must have at least 2 dimensions.", op);
  EMBER_CHECK(input.size(-2) >= input.size(-1),
              "{}: input.shape[-2] must be greater than or equal to input.shape[-1]", op);
  EMBER_CHECK(input.size(-1) >= (tau.dim() > 0 ? tau.size(-1) : 0),
              "{}: input.shape[-1] must be greater than or equal to tau.shape[-1]", op);
  EMBER_CHECK(input.dim() - tau.dim() == 1,
              "{}: Expected tau to have one dimension less than input, but got tau.ndim equal to {} and input.ndim "
              "is equal to {}", op, tau.dim(), input.dim());
  EMBER_CHECK(same_shape(batch_shape(tau.sizes(), 1), batch_shape(input.sizes())),
              "{}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got [{}]", op,
              fmt::join(batch_shape(tau.sizes(), 1), ", "));
  EMBER_CHECK(input.dtype() == tau.dtype(),
              "{}: tau dtype {} does not match input dtype {}", op, scalar_type_name(tau.dtype()),
              scalar_type_name(input.dtype()));
  check_lapack_input(op, input, false, "input");
  check_lapack_size(op, input.size(-2));
  Tensor Q = colmajor_copy(input);
  const Tensor t = tau.contiguous();
  dispatch_lapack(input.dtype(), [&]<class T>() { orgqr_batch<T>(Q, t); });
  return Q;
}

Tensor ormqr(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left, bool transpose) {
  const char* op = "torch.ormqr";
  EMBER_CHECK(self.dim() >= 2, "{}: input must have at least 2 dimensions.", op);
  EMBER_CHECK(input3.dim() >= 2, "{}: other must have at least 2 dimensions.", op);
  EMBER_CHECK(input3.dim() == self.dim(),
              "{}: expected other and input to have the same number of dimensions, but got {} and {}", op, input3.dim(),
              self.dim());
  const int64_t mn = left ? input3.size(-2) : input3.size(-1);
  EMBER_CHECK(self.size(-2) == mn, "{}: other.shape[{}] must be equal to input.shape[-2]", op, left ? -2 : -1);
  EMBER_CHECK(input2.dim() == self.dim() - 1 && input2.size(-1) <= self.size(-1) && input2.size(-1) <= mn,
              "{}: tau.shape[-1] must be less than or equal to input.shape[-1] and to other.shape[{}]", op,
              left ? -2 : -1);
  EMBER_CHECK(same_shape(batch_shape(input2.sizes(), 1), batch_shape(self.sizes())) &&
                  same_shape(batch_shape(input3.sizes()), batch_shape(self.sizes())),
              "{}: Expected batch dimensions of tau and other to be equal to input.shape[:-2]", op);
  EMBER_CHECK(self.dtype() == input2.dtype() && self.dtype() == input3.dtype(),
              "{}: Expected input, tau and other to have the same dtype, but got {}, {} and {}", op,
              scalar_type_name(self.dtype()), scalar_type_name(input2.dtype()), scalar_type_name(input3.dtype()));
  check_lapack_input(op, self, false, "input");
  const int64_t m = input3.size(-2), n = input3.size(-1), k = input2.size(-1), batch = batch_of(input3.sizes());
  check_lapack_size(op, std::max({m, n, self.size(-1)}));
  Tensor C = colmajor_copy(input3);
  if (C.numel() == 0 || k == 0) return C;
  const Tensor a = colmajor_copy(self), tau = input2.contiguous();
  const int64_t lda = self.size(-2), acols = self.size(-1);
  dispatch_lapack(self.dtype(), [&]<class T>() {
    T* cd = C.data_ptr<T>();
    const T* ad = a.data_ptr<T>();
    const T* td = tau.data_ptr<T>();
    const char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const int ldai = static_cast<int>(std::max<int64_t>(1, lda));
    T wq{};
    int qi = 0;
    lapack::ormqr<T>(side, trans, mi, ni, ki, ad, ldai, td, cd, mi, &wq, -1, &qi);
    const int lwork = workspace_size(wq);
    std::vector<T> work(lwork);
    for (int64_t b = 0; b < batch; ++b) {
      int i = 0;
      lapack::ormqr<T>(side, trans, mi, ni, ki, ad + b * lda * acols, ldai, td + b * k, cd + b * m * n, mi,
                       work.data(), lwork, &i);
    }
  });
  return C;
}

// ---------------------------------------------------------------------------------------------------- LDL^T

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& self, bool hermitian, bool check_errors) {
  (void)hermitian;  // real matrices: symmetric and Hermitian are the same
  const char* op = "torch.linalg.ldl_factor_ex";
  check_lapack_input(op, self, true);
  check_lapack_size(op, self.size(-1));
  const int64_t n = self.size(-1), batch = batch_of(self.sizes());
  Tensor LD = colmajor_copy(self);
  Tensor pivots = make_empty(with_tail(batch_shape(self.sizes()), {n}), kInt32);
  Tensor info = make_empty(batch_shape(self.sizes()), kInt32);
  dispatch_lapack(self.dtype(), [&]<class T>() {
    T* a = LD.data_ptr<T>();
    int32_t* piv = pivots.data_ptr<int32_t>();
    int32_t* inf = info.data_ptr<int32_t>();
    if (n == 0) {
      std::fill(inf, inf + batch, 0);
      return;
    }
    const int ni = static_cast<int>(n);
    T wq{};
    int qi = 0;
    lapack::sytrf<T>('L', ni, a, ni, piv, &wq, -1, &qi);
    const int lwork = workspace_size(wq);
    std::vector<T> work(lwork);
    for (int64_t b = 0; b < batch; ++b) {
      int i = 0;
      lapack::sytrf<T>('L', ni, a + b * n * n, ni, piv + b * n, work.data(), lwork, &i);
      inf[b] = i;
    }
  });
  LD = LD.tril_();
  if (check_errors) check_lapack_info(op, info);
  return {LD, pivots, info};
}

Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  (void)hermitian;
  const char* op = "torch.linalg.ldl_solve";
  check_lapack_input(op, LD, true, "LD");
  EMBER_CHECK(B.dim() >= 2, "{}: The input tensor B must have at least 2 dimensions.", op);
  const int64_t n = LD.size(-1);
  EMBER_CHECK(B.size(-2) == n, "{}: Incompatible shapes of A and B for the equation AX = B ({}x{} and {}x{})", op, n,
              n, B.size(-2), B.size(-1));
  EMBER_CHECK(LD.dtype() == B.dtype(),
              "{}: Expected LD and B to have the same dtype, but found LD of type {} and B of type {} instead", op,
              scalar_type_name(LD.dtype()), scalar_type_name(B.dtype()));
  EMBER_CHECK(pivots.dtype() == kInt32, "{}: Expected pivots to be integers. Got {}", op,
              scalar_type_name(pivots.dtype()));
  EMBER_CHECK(pivots.dim() == LD.dim() - 1 && same_shape(batch_shape(pivots.sizes(), 1), batch_shape(LD.sizes())) &&
                  pivots.size(-1) == n,
              "{}: Expected pivots of shape [{}], got [{}]", op,
              fmt::join(with_tail(batch_shape(LD.sizes()), {n}), ", "), fmt::join(pivots.sizes(), ", "));
  {
    const Tensor p = pivots.contiguous();
    const int32_t* d = p.data_ptr<int32_t>();
    for (int64_t i = 0; i < p.numel(); ++i) {
      EMBER_CHECK(d[i] != 0 && d[i] >= -n && d[i] <= n, "{}: pivot {} is out of range", op, d[i]);
    }
  }
  const DimVector batch = broadcast_batch(LD, B);
  const int64_t r = B.size(-1);
  check_lapack_size(op, std::max(n, r));
  Tensor X = colmajor_copy(B.expand(with_tail(batch, {n, r})));
  if (X.numel() == 0) return X;
  const Tensor LDb = colmajor_copy(LD.expand(with_tail(batch, {n, n})));
  const Tensor pivb = pivots.expand(with_tail(batch, {n})).contiguous();
  const int64_t nb = batch_of(X.sizes());
  dispatch_lapack(LD.dtype(), [&]<class T>() {
    const T* a = LDb.data_ptr<T>();
    const int32_t* piv = pivb.data_ptr<int32_t>();
    T* x = X.data_ptr<T>();
    for_each_matrix(nb, n, [&](int64_t b) {
      int i = 0;
      lapack::sytrs<T>('L', static_cast<int>(n), static_cast<int>(r), a + b * n * n, static_cast<int>(n),
                       piv + b * n, x + b * n * r, static_cast<int>(n), &i);
    });
  });
  return X;
}

// ---------------------------------------------------------------------------------------------------- triangular

Tensor linalg_solve_triangular(const Tensor& A_, const Tensor& B_, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  // A and B are promoted to a common dtype (as PyTorch: float32 B with float64 A gives float64).
  const DType dt = promote_types(A_.dtype(), B_.dtype());
  const Tensor self = A_.to(dt), B = B_.to(dt);
  check_lapack_input(op, self, true);
  EMBER_CHECK(B.dim() >= 2, "{}: The input tensor B must have at least 2 dimensions.", op);
  const int64_t n = self.size(-1);
  EMBER_CHECK(B.size(left ? -2 : -1) == n,
              "{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", op,
              left ? "AX = B" : "XA = B", n, n, B.size(-2), B.size(-1));
  const DimVector batch = broadcast_batch(self, B);
  const int64_t m = B.size(-2), r = B.size(-1);
  check_lapack_size(op, std::max(m, r));
  Tensor X = colmajor_copy(B.expand(with_tail(batch, {m, r})));
  if (X.numel() == 0 || n == 0) return X;
  const Tensor Ab = colmajor_copy(self.expand(with_tail(batch, {n, n})));
  const int64_t nb = batch_of(X.sizes());
  dispatch_lapack(self.dtype(), [&]<class T>() {
    const T* a = Ab.data_ptr<T>();
    T* x = X.data_ptr<T>();
    for_each_matrix(nb, n, [&](int64_t b) {
      lapack::trsm<T>(left ? 'L' : 'R', upper ? 'U' : 'L', 'N', unitriangular ? 'U' : 'N', static_cast<int>(m),
                      static_cast<int>(r), T(1), a + b * n * n, static_cast<int>(n), x + b * m * r,
                      static_cast<int>(m));
    });
  });
  return X;
}

}  // namespace ember::cpu
