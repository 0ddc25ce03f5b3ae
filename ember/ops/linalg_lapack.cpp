// The linear algebra written with the LAPACK-backed ops (ops_linalg.yaml, "LAPACK"; kernels in
// ember/kernels/cpu/linalg.cpp): the checked forms (linalg_solve, linalg_inv, linalg_cholesky, ...), PyTorch's
// legacy names (det, inverse, svd with V, triangular_solve, ...), and the norms, ranks, pseudo-inverses,
// powers and exponentials built on the decompositions. Each follows PyTorch 1.13's composite of the same name
// (aten/src/ATen/native/BatchLinearAlgebra.cpp, LinearAlgebra.cpp), so its errors and edge cases match, and its
// derivative comes from the decompositions' (ember/autograd/FunctionsLinalg.h).
#include <cmath>
#include <limits>
#include <numeric>

#include "ember/core/TypePromotion.h"
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"

namespace ember {

namespace linalg {

void check_lapack_input(std::string_view op, const Tensor& A, bool square, std::string_view name) {
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor {} must have at least 2 dimensions.", op, name);
  const DType d = A.dtype();
  EMBER_CHECK(d != kFloat16 && d != kBFloat16, "{}: Low precision dtypes not supported. Got {}", op,
              scalar_type_name(d));
  EMBER_CHECK(d == kFloat32 || d == kFloat64, "{}: Expected a floating point or complex tensor as input. Got {}", op,
              scalar_type_name(d));
  if (square) {
    EMBER_CHECK(A.size(-1) == A.size(-2), "{}: {} must be batches of square matrices, but they are {} by {} matrices",
                op, name, A.size(-2), A.size(-1));
  }
}

void check_lapack_info(std::string_view api, const Tensor& info) {
  if (info.numel() == 0) return;
  const Tensor c = info.contiguous();
  const int32_t* d = c.data_ptr<int32_t>();
  for (int64_t b = 0; b < c.numel(); ++b) {
    const int32_t i = d[b];
    if (i == 0) continue;
    const std::string batch = info.dim() > 0 ? fmt::format(": (Batch element {})", b) : std::string();
    const auto has = [&](std::string_view s) { return api.find(s) != std::string_view::npos; };
    EMBER_CHECK(i > 0, "{}{}: Argument {} has illegal value. Most certainly there is a bug in the implementation "
                "calling the backend library.", api, batch, -i);
    // PyTorch's _linalg_check_errors: the message by the routine the name contains.
    if (has("inv")) {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The diagonal element {} is zero, the inversion could not be "
                      "completed because the input matrix is singular.", api, batch, i);
    } else if (has("solve")) {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The solver failed because the input matrix is singular.", api,
                      batch);
    } else if (has("cholesky")) {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The factorization could not be completed because the input is not "
                      "positive-definite (the leading minor of order {} is not positive-definite).", api, batch, i);
    } else if (has("svd")) {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The algorithm failed to converge because the input matrix is "
                      "ill-conditioned or has too many repeated singular values (error code: {}).", api, batch, i);
    } else if (has("eig")) {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: The algorithm failed to converge because the input matrix is "
                      "ill-conditioned or has too many repeated eigenvalues (error code: {}).", api, batch, i);
    } else if (has("lu_factor")) {
      EMBER_FAIL("{}{}: U[{},{}] is zero and using it on lu_solve would result in a division by zero. If you still "
                 "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                 "linalg.lu_factor_ex(A, pivot)", api, batch, i, i);
    } else {
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "{}{}: Unknown error code: {}.", api, batch, i);
    }
  }
}

}  // namespace linalg

namespace composite {

namespace {

using linalg::check_lapack_info;
using linalg::check_lapack_input;

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

// The default tolerances of matrix_rank and pinv (PyTorch's get_atol_rtol): atol 0 when absent; rtol
// max(m, n) * eps of the dtype when absent, unless atol is given and positive (then 0).
std::tuple<Tensor, Tensor> atol_rtol(const Tensor& A, const std::optional<Tensor>& atol,
                                     const std::optional<Tensor>& rtol) {
  const DType dt = A.dtype();
  const Tensor at = atol.has_value() ? *atol : ember::zeros({}, dt);
  if (rtol.has_value()) return {at, *rtol};
  const double eps = dt == kFloat64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  const Tensor def = ember::full({}, eps * static_cast<double>(std::max(A.size(-1), A.size(-2))), dt);
  if (!atol.has_value()) return {at, def};
  return {at, ember::where(ember::gt(*atol, ember::zeros({}, dt)), ember::zeros({}, dt), def)};
}

std::tuple<std::optional<Tensor>, std::optional<Tensor>> float_tols(const Tensor& A, std::optional<double> atol,
                                                                    std::optional<double> rtol) {
  std::optional<Tensor> a, r;
  if (atol.has_value()) a = ember::full({}, *atol, kFloat64);
  if (rtol.has_value()) r = ember::full({}, *rtol, kFloat64);
  (void)A;
  return {a, r};
}

// The singular values of the two dims `dim` of A (moved last), for the 2-norm and nuclear norm.
Tensor svdvals_over(const Tensor& A, int64_t d0, int64_t d1) {
  return ember::linalg_svdvals(ember::movedim(A, IntArrayRef{d0, d1}, IntArrayRef{-2, -1}));
}

// Re-inserts the reduced dims d0 < d1 (sorted) as size 1.
Tensor keep_dims(Tensor r, int64_t d0, int64_t d1) {
  const int64_t lo = std::min(d0, d1), hi = std::max(d0, d1);
  return r.unsqueeze(lo).unsqueeze(hi);
}

// dims of a matrix norm: two distinct dims of A, wrapped.
std::pair<int64_t, int64_t> norm_dims(std::string_view op, const Tensor& A, IntArrayRef dim) {
  EMBER_CHECK(dim.size() == 2, "{}: dim must be a 2-tuple. Got {}", op, fmt::join(dim, " "));
  const int64_t nd = A.dim();
  auto wrap = [&](int64_t d) {
    EMBER_CHECK_INDEX(d >= -nd && d < nd, "Dimension out of range (expected to be in range of [{}, {}], but got {})",
                      -nd, nd - 1, d);
    return d < 0 ? d + nd : d;
  };
  const int64_t d0 = wrap(dim[0]), d1 = wrap(dim[1]);
  EMBER_CHECK(d0 != d1, "{}: dims must be different. Got ({}, {})", op, dim[0], dim[1]);
  return {d0, d1};
}

// A Scalar as PyTorch prints it in a message: 3, 2.5, inf.
std::string scalar_str(const Scalar& s) {
  return s.is_integral() ? fmt::format("{}", s.to<int64_t>()) : fmt::format("{}", s.to_double());
}

Tensor cast_opt(const Tensor& A, std::optional<DType> dtype) { return dtype.has_value() ? A.to(*dtype) : A; }

}  // namespace

// ---------------------------------------------------------------------------------------------------- LU

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = ember::linalg_lu_factor_ex(A, pivot, false);
  check_lapack_info("torch.linalg.lu_factor", info);
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  check_lapack_input("linalg.lu", A, false);
  EMBER_CHECK(pivot, "linalg.lu: LU without pivoting is not implemented on the CPU");
  auto [LU, pivots, info] = ember::linalg_lu_factor_ex(A, pivot, false);
  return ember::lu_unpack(LU, pivots, true, true);
}

Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  EMBER_CHECK(self.dim() >= 2, "lu_solve: b should have at least 2 dimensions, but has {} dimensions instead",
              self.dim());
  EMBER_CHECK(LU_data.dim() >= 2, "lu_solve: LU_data should have at least 2 dimensions, but has {} dimensions instead",
              LU_data.dim());
  return ember::linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

// ---------------------------------------------------------------------------------------------------- Cholesky

Tensor linalg_cholesky(const Tensor& self, bool upper) {
  auto [L, info] = ember::linalg_cholesky_ex(self, upper, false);
  check_lapack_info("linalg.cholesky", info);
  return L;
}

Tensor cholesky(const Tensor& self, bool upper) {
  check_lapack_input("cholesky", self, true);
  auto [L, info] = ember::linalg_cholesky_ex(self, upper, false);
  check_lapack_info("cholesky", info);
  return L;
}

Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  EMBER_CHECK(self.dim() >= 2, "cholesky_solve: Expected b to have at least 2 dimensions, but it has {} dimensions "
              "instead", self.dim());
  EMBER_CHECK(input2.dim() >= 2, "cholesky_solve: Expected u to have at least 2 dimensions, but it has {} dimensions "
              "instead", input2.dim());
  EMBER_CHECK(self.dtype() == input2.dtype(), "cholesky_solve: Expected b and A to have the same dtype, but found b "
              "of type {} and A of type {} instead", linalg::scalar_type_name(self.dtype()),
              linalg::scalar_type_name(input2.dtype()));
  check_lapack_input("cholesky_solve", input2, true);
  // A = L L^H: X = L^{-H} (L^{-1} B); A = U^H U: X = U^{-1} (U^{-H} B).
  const Tensor F = upper ? mT(input2) : input2;  // the lower factor
  const Tensor Y = ember::linalg_solve_triangular(F, self, false, true, false);
  return ember::linalg_solve_triangular(mT(F), Y, true, true, false);
}

Tensor cholesky_inverse(const Tensor& self, bool upper) {
  check_lapack_input("cholesky_inverse", self, true);
  const Tensor I = ember::eye(self.size(-1), self.dtype()).expand(self.sizes());
  return composite::cholesky_solve(I, self, upper);
}

// ---------------------------------------------------------------------------------------------------- eigh, SVD, QR

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& self, std::string_view UPLO) {
  return ember::_linalg_eigh(self, UPLO, true);
}

Tensor linalg_eigvalsh(const Tensor& self, std::string_view UPLO) {
  // The eigenvectors are needed only for the derivative (as PyTorch's _may_require_fw_or_bw_grad).
  return std::get<0>(ember::_linalg_eigh(self, UPLO, self.requires_grad()));
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  return ember::_linalg_svd(A, full_matrices, true, driver);
}

Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(ember::_linalg_svd(A, false, A.requires_grad(), driver));
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  EMBER_CHECK(self.dim() >= 2, "linalg.svd: input should have at least 2 dimensions, but has {} dimensions instead",
              self.dim());
  if (compute_uv) {
    auto [U, S, Vh] = ember::linalg_svd(self, !some, std::nullopt);
    return {U, S, mT(Vh)};
  }
  // compute_uv=False: zero-filled U (*, m, m) and V (*, n, n), as PyTorch.
  const Tensor S = ember::linalg_svdvals(self, std::nullopt);
  DimVector us = batch_of(self), vs = batch_of(self);
  us.push_back(self.size(-2));
  us.push_back(self.size(-2));
  vs.push_back(self.size(-1));
  vs.push_back(self.size(-1));
  return {ember::zeros(us, self.dtype()), S, ember::zeros(vs, self.dtype())};
}

std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) {
  return ember::linalg_qr(self, some ? "reduced" : "complete");
}

std::tuple<Tensor, Tensor> linalg_ldl_factor(const Tensor& self, bool hermitian) {
  auto [LD, pivots, info] = ember::linalg_ldl_factor_ex(self, hermitian, false);
  check_lapack_info("torch.linalg.ldl_factor", info);
  return {LD, pivots};
}

// ---------------------------------------------------------------------------------------------------- solves

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  EMBER_CHECK(self.dim() >= 2, "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {} "
              "dimensions instead", self.dim());
  EMBER_CHECK(A.dim() >= 2, "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {} "
              "dimensions instead", A.dim());
  const Tensor Aop = transpose ? mT(A) : A;
  const Tensor X = ember::linalg_solve_triangular(Aop, self, upper != transpose, true, unitriangular);
  DimVector bs = broadcast_shapes(batch_of(self), batch_of(A));
  bs.push_back(A.size(-2));
  bs.push_back(A.size(-1));
  return {X, A.expand(bs).clone()};
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  auto [X, LU, pivots, info] = ember::_linalg_solve_ex(A, B, left, check_errors);
  return {X, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  auto [X, info] = ember::linalg_solve_ex(A, B, left, false);
  check_lapack_info("torch.linalg.solve", info);
  return X;
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  check_lapack_input("linalg.inv", A, true);
  const Tensor I = ember::eye(A.size(-1), A.dtype()).expand(A.sizes());
  auto [X, info] = ember::linalg_solve_ex(A, I, true, false);
  if (check_errors) check_lapack_info("linalg.inv_ex", info);
  return {X, info};
}

Tensor linalg_inv(const Tensor& A) {
  auto [X, info] = ember::linalg_inv_ex(A, false);
  check_lapack_info("linalg.inv", info);
  return X;
}

Tensor inverse(const Tensor& self) { return ember::linalg_inv(self); }

// ---------------------------------------------------------------------------------------------------- determinants

Tensor linalg_det(const Tensor& A) { return std::get<0>(ember::_linalg_det(A)); }

Tensor det(const Tensor& self) { return ember::linalg_det(self); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  auto [sign, logabsdet, LU, pivots] = ember::_linalg_slogdet(A);
  return {sign, logabsdet};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return ember::linalg_slogdet(self); }

Tensor logdet(const Tensor& self) {
  check_lapack_input("logdet", self, true);
  auto [sign, logabsdet] = ember::linalg_slogdet(self);
  return ember::where(ember::eq(sign, ember::full({}, -1.0, sign.dtype())),
                      ember::full({}, std::numeric_limits<double>::quiet_NaN(), logabsdet.dtype()), logabsdet);
}

// ---------------------------------------------------------------------------------------------------- pinv, rank

Tensor linalg_pinv(const Tensor& self, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                   bool hermitian) {
  EMBER_CHECK(self.dim() >= 2 && (self.dtype() == kFloat32 || self.dtype() == kFloat64),
              "linalg.pinv({}{{[{}]}}): expected a tensor with 2 or more dimensions of float, double, cfloat or "
              "cdouble types", linalg::scalar_type_name(self.dtype()), fmt::join(self.sizes(), ", "));
  if (self.numel() == 0) {
    DimVector s = batch_of(self);
    s.push_back(self.size(-1));
    s.push_back(self.size(-2));
    return ember::zeros(s, self.dtype());
  }
  auto [at, rt] = atol_rtol(self, atol, rtol);
  const Tensor zero = ember::zeros({}, self.dtype());
  if (!hermitian) {
    auto [U, S, Vh] = ember::linalg_svd(self, false, std::nullopt);
    const Tensor tol = ember::maximum(at.unsqueeze(-1), rt.unsqueeze(-1) * S.narrow(-1, 0, 1)).to(self.dtype());
    const Tensor Sinv = ember::where(ember::gt(S, tol), S.reciprocal(), zero);
    return ember::matmul(mT(Vh) * Sinv.unsqueeze(-2), mT(U));
  }
  auto [L, V] = ember::linalg_eigh(self, "L");
  const Tensor absL = L.abs();
  const Tensor tol = ember::maximum(at.unsqueeze(-1), rt.unsqueeze(-1) * absL.amax(IntArrayRef{-1}, true))
                         .to(self.dtype());
  const Tensor Linv = ember::where(ember::gt(absL, tol), L.reciprocal(), zero);
  return ember::matmul(V * Linv.unsqueeze(-2), mT(V));
}

Tensor linalg_pinv_float(const Tensor& self, std::optional<double> atol, std::optional<double> rtol,
                         bool hermitian) {
  auto [a, r] = float_tols(self, atol, rtol);
  return composite::linalg_pinv(self, a, r, hermitian);
}

Tensor linalg_pinv_rcond(const Tensor& self, double rcond, bool hermitian) {
  return composite::linalg_pinv(self, ember::zeros({}, kFloat64), ember::full({}, rcond, kFloat64), hermitian);
}

Tensor linalg_pinv_rcond_tensor(const Tensor& self, const Tensor& rcond, bool hermitian) {
  return composite::linalg_pinv(self, ember::zeros({}, kFloat64), rcond, hermitian);
}

Tensor pinverse(const Tensor& self, double rcond) { return linalg_pinv_rcond(self, rcond, false); }

Tensor linalg_matrix_rank(const Tensor& input, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                          bool hermitian) {
  check_lapack_input("linalg.matrix_rank", input, hermitian);
  auto [at, rt] = atol_rtol(input, atol, rtol);
  const Tensor S = hermitian ? ember::linalg_eigvalsh(input, "L").abs() : ember::linalg_svdvals(input, std::nullopt);
  if (S.size(-1) == 0) return ember::zeros(batch_of(input), kInt64);
  const Tensor tol = ember::maximum(at.unsqueeze(-1), rt.unsqueeze(-1) * S.amax(IntArrayRef{-1}, true));
  return ember::gt(S, tol).sum(IntArrayRef{-1}, false, kInt64);
}

Tensor linalg_matrix_rank_float(const Tensor& self, std::optional<double> atol, std::optional<double> rtol,
                                bool hermitian) {
  auto [a, r] = float_tols(self, atol, rtol);
  return composite::linalg_matrix_rank(self, a, r, hermitian);
}

Tensor linalg_matrix_rank_tol(const Tensor& self, double tol, bool hermitian) {
  return composite::linalg_matrix_rank(self, ember::full({}, tol, kFloat64), ember::zeros({}, kFloat64), hermitian);
}

Tensor linalg_matrix_rank_tol_tensor(const Tensor& input, const Tensor& tol, bool hermitian) {
  return composite::linalg_matrix_rank(input, tol, ember::zeros({}, kFloat64), hermitian);
}

// ---------------------------------------------------------------------------------------------------- norms

Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<DType> dtype) {
  const char* op = "linalg.matrix_norm";
  EMBER_CHECK(self.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  const double o = ord.to_double();
  const double a = std::fabs(o);
  EMBER_CHECK(a == 2.0 || a == 1.0 || std::isinf(a), "{}: Order {} not supported.", op, scalar_str(ord));
  check_lapack_input(op, self, false);
  auto [d0, d1] = norm_dims(op, self, dim);
  const Tensor A = cast_opt(self, dtype);
  if (a == 2.0) {
    const Tensor S = svdvals_over(A, d0, d1);
    Tensor r = o > 0 ? S.amax(IntArrayRef{-1}) : S.amin(IntArrayRef{-1});
    return keepdim ? keep_dims(r, d0, d1) : r;
  }
  // 1: the largest column sum of |A| (sum over d0, then the extreme over d1); inf: the rows'.
  if (std::isinf(a)) std::swap(d0, d1);
  const int64_t d1r = (!keepdim && d0 < d1) ? d1 - 1 : d1;
  const Tensor sums = ember::linalg_vector_norm(A, 1.0, IntArrayRef{d0}, keepdim, std::nullopt);
  return o > 0 ? sums.amax(IntArrayRef{d1r}, keepdim) : sums.amin(IntArrayRef{d1r}, keepdim);
}

Tensor linalg_matrix_norm_str(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                              std::optional<DType> dtype) {
  const char* op = "linalg.matrix_norm";
  EMBER_CHECK(self.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK(ord == "fro" || ord == "nuc", "{}: Order {} not supported.", op, ord);
  check_lapack_input(op, self, false);
  auto [d0, d1] = norm_dims(op, self, dim);
  if (ord == "fro") return ember::linalg_vector_norm(self, 2.0, IntArrayRef{d0, d1}, keepdim, dtype);
  const Tensor S = svdvals_over(cast_opt(self, dtype), d0, d1);
  Tensor r = S.sum(IntArrayRef{-1});
  return keepdim ? keep_dims(r, d0, d1) : r;
}

namespace {
void check_norm_dims(const Tensor& self, OptionalIntArrayRef dim, bool has_ord) {
  if (dim.has_value()) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2,
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{}]", fmt::join(*dim, ", "));
  } else if (has_ord) {
    EMBER_CHECK(self.dim() == 1 || self.dim() == 2,
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.", self.dim());
  }
}
}  // namespace

Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<DType> dtype) {
  check_norm_dims(self, dim, ord.has_value());
  if (ord.has_value() && ((dim.has_value() && dim->size() == 2) || (!dim.has_value() && self.dim() == 2))) {
    const DimVector d = dim.has_value() ? DimVector(dim->begin(), dim->end()) : DimVector{0, 1};
    return composite::linalg_matrix_norm(self, *ord, d, keepdim, dtype);
  }
  return ember::linalg_vector_norm(self, ord.value_or(Scalar(2.0)), dim, keepdim, dtype);
}

Tensor linalg_norm_str(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim, bool keepdim,
                       std::optional<DType> dtype) {
  check_norm_dims(self, dim, true);
  const DimVector d = dim.has_value() ? DimVector(dim->begin(), dim->end()) : DimVector{0, 1};
  return linalg_matrix_norm_str(self, ord, d, keepdim, dtype);
}

Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  EMBER_CHECK(self.dim() == 2, "nuclear_norm: Expected a 2D tensor, but got a {}D tensor instead", self.dim());
  return linalg_matrix_norm_str(self, "nuc", DimVector{0, 1}, keepdim, std::nullopt);
}

Tensor nuclear_norm_dim(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return linalg_matrix_norm_str(self, "nuc", dim, keepdim, std::nullopt);
}

Tensor frobenius_norm(const Tensor& self) {
  return ember::linalg_vector_norm(self, 2.0, std::nullopt, false, std::nullopt);
}

Tensor frobenius_norm_dim(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(dim.size() <= 2, "Expected at most 2 dimensions, but got {} dimensions instead.", dim.size());
  return ember::linalg_vector_norm(self, 2.0, dim, keepdim, std::nullopt);
}

// ---------------------------------------------------------------------------------------------------- cond

namespace {
Tensor matrix_norm_of(const Tensor& A, const Scalar& p) {
  return composite::linalg_matrix_norm(A, p, DimVector{-2, -1}, false, std::nullopt);
}
Tensor matrix_norm_of(const Tensor& A, std::string_view p) {
  return linalg_matrix_norm_str(A, p, DimVector{-2, -1}, false, std::nullopt);
}
// norm(A, p) * norm(inv(A), p), inf where A is singular (PyTorch's _linalg_cond_helper).
template <class Ord>
Tensor cond_by_inverse(const Tensor& self, const Ord& p) {
  auto [inv, info] = ember::linalg_inv_ex(self, false);
  const Tensor singular = ember::gt(info, ember::zeros({}, kInt32)).unsqueeze(-1).unsqueeze(-1);
  const Tensor inv2 =
      ember::where(singular, ember::full({}, std::numeric_limits<double>::infinity(), self.dtype()), inv);
  return matrix_norm_of(self, p) * matrix_norm_of(inv2, p);
}
Tensor cond_of_empty(const Tensor& self) { return ember::zeros(batch_of(self), self.dtype()); }
}  // namespace

Tensor linalg_cond(const Tensor& self, const std::optional<Scalar>& p) {
  EMBER_CHECK(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.");
  const Scalar ord = p.value_or(Scalar(2.0));
  const double o = ord.to_double();
  EMBER_CHECK(std::fabs(o) == 2.0 || std::fabs(o) == 1.0 || std::isinf(o), "linalg.cond got an invalid norm type: {}",
              scalar_str(ord));
  check_lapack_input("linalg.cond", self, false);
  if (self.numel() == 0) return cond_of_empty(self);
  if (std::fabs(o) == 2.0) {
    // The ratio of the extreme singular values (sorted descending).
    const Tensor S = ember::linalg_svdvals(self, std::nullopt);
    const Tensor smax = S.narrow(-1, 0, 1), smin = S.narrow(-1, S.size(-1) - 1, 1);
    return (o < 0 ? smin / smax : smax / smin).squeeze(-1);
  }
  check_lapack_input("linalg.cond", self, true);
  return cond_by_inverse(self, ord);
}

Tensor linalg_cond_str(const Tensor& self, std::string_view p) {
  EMBER_CHECK(self.dim() >= 2, "linalg.cond: The input tensor must have at least 2 dimensions.");
  EMBER_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: {}", p);
  check_lapack_input("linalg.cond", self, true);
  if (self.numel() == 0) return cond_of_empty(self);
  if (p == "nuc") {
    // ||A||_nuc ||A^-1||_nuc = sum(S) sum(1 / S), from the singular values (as PyTorch, no inverse formed).
    const Tensor S = ember::linalg_svdvals(self, std::nullopt);
    return S.sum(IntArrayRef{-1}) * S.reciprocal().sum(IntArrayRef{-1});
  }
  return cond_by_inverse(self, p);
}

// ---------------------------------------------------------------------------------------------------- powers, exp

Tensor linalg_matrix_power(const Tensor& self, int64_t n) {
  const char* op = "linalg.matrix_power";
  EMBER_CHECK(self.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK(self.size(-1) == self.size(-2),
              "{}: A must be batches of square matrices, but they are {} by {} matrices", op, self.size(-2),
              self.size(-1));
  // n = 0: the identity, written into a copy of self so that it stays in the graph (a zero gradient), as PyTorch.
  if (n == 0) return self.clone().copy_(ember::eye(self.size(-1), self.dtype()).expand(self.sizes()));
  Tensor base = self;
  if (n < 0) {
    base = ember::linalg_inv(self);
    n = -n;
  }
  // Repeated squaring: the product of base^(2^i) over the set bits of n.
  std::optional<Tensor> result;
  Tensor z = base;
  for (bool first = true; n > 0; n >>= 1, first = false) {
    if (!first) z = ember::matmul(z, z);
    if (n & 1) result = result.has_value() ? ember::matmul(*result, z) : z;
  }
  return result->is_same(self) ? self.clone() : *result;
}

Tensor matrix_power(const Tensor& self, int64_t n) { return ember::linalg_matrix_power(self, n); }

Tensor linalg_matrix_exp(const Tensor& self) {
  const char* op = "linalg.matrix_exp";
  check_lapack_input(op, self, true);
  const int64_t n = self.size(-1);
  if (self.numel() == 0) return self.clone();
  if (n == 1) return self.exp();
  // Note [matrix exponential]: scaling and squaring with the [13/13] Padé approximant r13 (Higham 2005, The
  // scaling and squaring method for the matrix exponential revisited, Algorithm 2.3): exp(A) = r13(A / 2^s)^(2^s)
  // with s the least making ||A / 2^s||_1 <= theta13 = 5.37. One s serves the whole batch (the largest norm's):
  // a smaller matrix is then scaled further than it needs, which costs squarings, not accuracy worth speaking of.
  constexpr double b[] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                          129060195264000.,   10559470521600.,    670442572800.,     33522128640.,
                          1323241920.,        40840800.,          960960.,           16380.,
                          182.,               1.};
  constexpr double theta13 = 5.371920351148152;
  const double norm1 = self.abs().sum(IntArrayRef{-2}).amax().item<double>();
  int64_t s = 0;
  if (std::isfinite(norm1) && norm1 > theta13) s = static_cast<int64_t>(std::ceil(std::log2(norm1 / theta13)));
  const Tensor A = s > 0 ? self * std::ldexp(1.0, static_cast<int>(-s)) : self;
  const Tensor I = ember::eye(n, self.dtype()).expand(self.sizes());
  const Tensor A2 = ember::matmul(A, A), A4 = ember::matmul(A2, A2), A6 = ember::matmul(A4, A2);
  const Tensor U = ember::matmul(
      A, ember::matmul(A6, A6 * b[13] + A4 * b[11] + A2 * b[9]) + A6 * b[7] + A4 * b[5] + A2 * b[3] + I * b[1]);
  const Tensor V = ember::matmul(A6, A6 * b[12] + A4 * b[10] + A2 * b[8]) + A6 * b[6] + A4 * b[4] + A2 * b[2] +
                   I * b[0];
  Tensor R = ember::linalg_solve(V - U, V + U, true);
  for (int64_t i = 0; i < s; ++i) R = ember::matmul(R, R);
  return R;
}

Tensor matrix_exp(const Tensor& self) { return ember::linalg_matrix_exp(self); }

// ---------------------------------------------------------------------------------------------------- products

Tensor linalg_multi_dot(TensorList tensors) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got {}", n);
  EMBER_CHECK(tensors[0].dim() == 1 || tensors[0].dim() == 2,
              "multi_dot(): the first tensor must be 1D or 2D but got {}D", tensors[0].dim());
  EMBER_CHECK(tensors[n - 1].dim() == 1 || tensors[n - 1].dim() == 2,
              "multi_dot(): the last tensor must be 1D or 2D but got {}D", tensors[n - 1].dim());
  for (size_t i = 1; i + 1 < n; ++i) {
    EMBER_CHECK(tensors[i].dim() == 2, "multi_dot(): tensor {} must be 2D but got {}D", i, tensors[i].dim());
  }
  for (size_t i = 1; i < n; ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(),
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is {} and tensor {} {}",
                linalg::scalar_type_name(tensors[0].dtype()), i, linalg::scalar_type_name(tensors[i].dtype()));
  }
  // As matrices: a 1-D first operand is a row, a 1-D last one a column (removed again at the end).
  std::vector<Tensor> m(tensors.begin(), tensors.end());
  if (m[0].dim() == 1) m[0] = m[0].unsqueeze(0);
  if (m[n - 1].dim() == 1) m[n - 1] = m[n - 1].unsqueeze(-1);
  for (size_t i = 1; i < n; ++i) {
    EMBER_CHECK(m[i - 1].size(1) == m[i].size(0),
                "multi_dot(): tensors {} and {} with shapes [{}] and [{}] cannot be multiplied", i - 1, i,
                fmt::join(tensors[i - 1].sizes(), ", "), fmt::join(tensors[i].sizes(), ", "));
  }
  // The cheapest order by dynamic programming over the chain (Cormen et al., Introduction to Algorithms, 15.2).
  std::vector<int64_t> p(n + 1);
  p[0] = m[0].size(0);
  for (size_t i = 0; i < n; ++i) p[i + 1] = m[i].size(1);
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0)), split(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  }
  const auto chain = [&](auto&& self_, size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    const size_t k = static_cast<size_t>(split[i][j]);
    return ember::mm(self_(self_, i, k), self_(self_, k + 1, j));
  };
  Tensor r = chain(chain, 0, n - 1);
  if (tensors[0].dim() == 1) r = r.squeeze(0);
  if (tensors[n - 1].dim() == 1) r = r.squeeze(-1);
  return r;
}

Tensor linalg_vander(const Tensor& x, std::optional<int64_t> N) {
  const DType t = x.dtype();
  EMBER_CHECK(t == kFloat32 || t == kFloat64 || (is_integral(t, false)),
              "linalg.vander supports floating point, complex, and integer tensors, but got {}",
              linalg::scalar_type_name(t));
  const Tensor x1 = x.dim() == 0 ? x.unsqueeze(-1) : x;
  const int64_t n = N.value_or(x1.size(-1));
  EMBER_CHECK(n > 1, "N must be greater than 1.");
  DimVector shape(x1.sizes().begin(), x1.sizes().end());
  shape.push_back(n - 1);
  const Tensor powers = ember::cumprod(x1.unsqueeze(-1).expand(shape), -1);
  shape.back() = 1;
  return ember::cat({ember::ones(shape, powers.dtype()), powers}, -1);
}

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  EMBER_CHECK(is_floating_point(x.dtype()), "linalg.vecdot: Expected a floating point or complex tensor as input. "
              "Got {}", linalg::scalar_type_name(x.dtype()));
  EMBER_CHECK(x.dtype() == y.dtype(),
              "linalg.vecdot: Expected x and y to have the same dtype, but found x of type {} and y of type {} "
              "instead", linalg::scalar_type_name(x.dtype()), linalg::scalar_type_name(y.dtype()));
  return (x * y).sum(IntArrayRef{dim});
}

Tensor linalg_diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return A.diagonal(offset, dim1, dim2);
}

Tensor linalg_tensorinv(const Tensor& self, int64_t ind) {
  EMBER_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got {}", ind);
  EMBER_CHECK(ind <= self.dim(), "Expected 'ind' to be at most the number of dims ({}), but got {}", self.dim(),
              ind);
  const IntArrayRef sizes = self.sizes();
  const int64_t rows = std::accumulate(sizes.begin(), sizes.begin() + ind, int64_t{1}, std::multiplies<>());
  const int64_t cols = std::accumulate(sizes.begin() + ind, sizes.end(), int64_t{1}, std::multiplies<>());
  EMBER_CHECK(rows == cols,
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
              "{} != {}", cols, rows);
  DimVector shape(sizes.begin() + ind, sizes.end());
  for (int64_t i = 0; i < ind; ++i) shape.push_back(sizes[i]);
  auto [inv, info] = ember::linalg_inv_ex(self.reshape({cols, cols}), false);
  check_lapack_info("inv", info);
  return inv.reshape(shape);
}

Tensor linalg_tensorsolve(const Tensor& self, const Tensor& other, OptionalIntArrayRef dims) {
  Tensor a = self;
  const int64_t nd = self.dim();
  if (dims.has_value()) {
    DimVector dest(dims->size());
    std::iota(dest.begin(), dest.end(), nd - static_cast<int64_t>(dims->size()));
    a = ember::movedim(a, *dims, dest);
  }
  EMBER_CHECK(other.dim() <= nd, "linalg.tensorsolve: other has more dims ({}) than self ({})", other.dim(), nd);
  const DimVector result_shape(a.sizes().begin() + other.dim(), a.sizes().end());
  const int64_t rp = std::accumulate(result_shape.begin(), result_shape.end(), int64_t{1}, std::multiplies<>());
  const int64_t op = other.numel();
  EMBER_CHECK(rp == op,
              "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
              "prod(self.shape[:other.ndim]), but got {} != {}", rp, op);
  return ember::linalg_solve(a.reshape({rp, rp}), other.flatten(), true).reshape(result_shape);
}

}  // namespace composite
}  // namespace ember
