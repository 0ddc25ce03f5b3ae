// Backward formulas of the LAPACK-backed ops; see FunctionsLinalg.h for each formula and its source.
#include "ember/autograd/FunctionsLinalg.h"

#include <algorithm>

#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::autograd::detail {

namespace {

// The conjugate transpose of the last two dims (the transpose: real dtypes only).
Tensor mH(const Tensor& t) { return t.transpose(-2, -1); }

// Whether a gradient is zeros that cannot carry a second-order derivative: what an output nothing flowed into
// receives (Note [gradients of multi-output ops]). Formulas skip its terms, which would otherwise divide 0 by
// the zero gaps of repeated eigen- or singular values (NaN), as PyTorch skips its undefined gradients.
bool is_absent(const Tensor& g) {
  if (g.requires_grad()) return false;
  return g.numel() == 0 || g.abs().sum().item<double>() == 0.0;
}

// The identity of size n, broadcast to the batch of t (*, n, n).
Tensor eye_like(const Tensor& t) { return ember::eye(t.size(-1), t.dtype()).expand(t.sizes()); }

// The gradient of prod(x, -1) for x (*, n) that may hold zeros: grad times the product of the other elements
// (exclusive prefix times exclusive suffix products, PyTorch's prod_safe_zeros_backward).
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& x) {
  const int64_t n = x.size(-1);
  if (n == 0) return ember::zeros_like(x);
  DimVector one(x.sizes().begin(), x.sizes().end());
  one.back() = 1;
  const Tensor ones = ember::ones(one, x.dtype());
  const Tensor prefix = ember::cumprod(ember::cat({ones, x.narrow(-1, 0, n - 1)}, -1), -1);
  const Tensor xr = ember::flip(x, IntArrayRef{-1});
  const Tensor suffix = ember::flip(ember::cumprod(ember::cat({ones, xr.narrow(-1, 0, n - 1)}, -1), -1),
                                    IntArrayRef{-1});
  return grad.unsqueeze(-1) * prefix * suffix;
}

// A^{-H} for the gradient of det and slogdet: through linalg_inv when grad mode is on (double backward needs
// its derivative in A), otherwise from the saved LU factorisation, which is A^T's when A is contiguous (Note [LU
// of the transpose], kernels/cpu/linalg.cpp).
Tensor inverse_adjoint(const Tensor& A, const Tensor& LU, const Tensor& pivots) {
  if (GradMode::is_enabled()) return mH(ember::linalg_inv(A));
  return ember::linalg_lu_solve(LU, pivots, eye_like(A), true, !A.is_contiguous());
}

}  // namespace

Tensor linalg_lu_backward(const Tensor& gL_, const Tensor& gU_, const Tensor& P, const Tensor& L, const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1), k = std::min(m, n);
  // Only L's strictly lower and U's upper elements are free (L's unit diagonal is fixed).
  const Tensor gL = ember::tril(gL_, -1), gU = ember::triu(gU_);
  if (m == n) {
    // gA = P L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}
    const Tensor phi = ember::tril(ember::matmul(mH(L), gL), -1) + ember::triu(ember::matmul(gU, mH(U)));
    Tensor gA = ember::linalg_solve_triangular(mH(U), phi, false, false, false);
    gA = ember::linalg_solve_triangular(mH(L), gA, true, true, true);
    return ember::matmul(P, gA);
  }
  if (m < n) {
    // Wide: U = [U1 U2]. gA = P L^{-H} [tril(L^H gL - gU U^H, -1) U1^{-H} + gU1, gU2]
    const Tensor U1 = U.narrow(-1, 0, k);
    Tensor phi = ember::tril(ember::matmul(mH(L), gL) - ember::matmul(gU, mH(U)), -1);
    phi = ember::linalg_solve_triangular(mH(U1), phi, false, false, false);
    Tensor gA = ember::cat({phi + gU.narrow(-1, 0, k), gU.narrow(-1, k, n - k)}, -1);
    gA = ember::linalg_solve_triangular(mH(L), gA, true, true, true);
    return ember::matmul(P, gA);
  }
  // Tall: L = [L1; L2]. gA = P [L1^{-H} triu(gU U^H - L^H gL) + gL1; gL2] U^{-H}
  const Tensor L1 = L.narrow(-2, 0, k);
  Tensor phi = ember::triu(ember::matmul(gU, mH(U)) - ember::matmul(mH(L), gL));
  phi = ember::linalg_solve_triangular(mH(L1), phi, true, true, true);
  Tensor gA = ember::cat({phi + gL.narrow(-2, 0, k), gL.narrow(-2, k, m - k)}, -2);
  gA = ember::linalg_solve_triangular(mH(U), gA, false, false, false);
  return ember::matmul(P, gA);
}

Tensor linalg_lu_factor_ex_backward(const Tensor& gLU, const Tensor& LU, const Tensor& pivots) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  auto [P, L, U] = ember::lu_unpack(LU, pivots, true, true);
  return linalg_lu_backward(gLU.narrow(-1, 0, k), gLU.narrow(-2, 0, k), P, L, U);
}

Tensor lu_unpack_backward(const Tensor& gL, const Tensor& gU, int64_t m, int64_t n) {
  const int64_t k = std::min(m, n);
  DimVector batch(gL.sizes().begin(), gL.sizes().end() - 2);
  const Tensor lower = ember::tril(gL, -1), upper = ember::triu(gU);
  if (m >= n) {
    DimVector z = batch;
    z.push_back(m - k);
    z.push_back(n);
    return lower + ember::cat({upper, ember::zeros(z, gU.dtype())}, -2);
  }
  DimVector z = batch;
  z.push_back(m);
  z.push_back(n - k);
  return ember::cat({lower, ember::zeros(z, gL.dtype())}, -1) + upper;
}

std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& LU,
                                                    const Tensor& pivots, bool left, bool adjoint,
                                                    const std::array<bool, 2>& mask) {
  const Tensor gB = ember::linalg_lu_solve(LU, pivots, grad, left, !adjoint);
  Tensor gLU;
  if (mask[0]) {
    // The gradient of A = P L U (see the cases in FunctionsLinalg.h), then onto L's and U's parts of LU.
    Tensor gA;
    if (left) {
      gA = adjoint ? -ember::matmul(X, mH(gB)) : -ember::matmul(gB, mH(X));
    } else {
      gA = adjoint ? -ember::matmul(mH(gB), X) : -ember::matmul(mH(X), gB);
    }
    auto [P, L, U] = ember::lu_unpack(LU, pivots, true, true);
    const Tensor PtgA = ember::matmul(mH(P), gA);
    gLU = ember::tril(ember::matmul(PtgA, mH(U)), -1) + ember::triu(ember::matmul(mH(L), PtgA));
  }
  return {gLU, mask[1] ? gB : Tensor()};
}

Tensor cholesky_backward(const Tensor& gL_, bool upper, const Tensor& L_) {
  const Tensor L = upper ? mH(L_) : L_;
  const Tensor gL = ember::tril(upper ? mH(gL_) : gL_);
  const Tensor LhgL = ember::matmul(mH(L), gL);
  const Tensor phi = ember::tril(LhgL) - 0.5 * ember::diag_embed(LhgL.diagonal(0, -2, -1), 0, -2, -1);
  // L^{-H} phi L^{-1}, then its symmetric part (A is symmetric).
  Tensor gA = ember::linalg_solve_triangular(mH(L), phi, true, true, false);
  gA = ember::linalg_solve_triangular(L, gA, false, false, false);
  return 0.5 * (gA + mH(gA));
}

Tensor linalg_eigh_backward(const Tensor& gw, const Tensor& gV, const Tensor& w, const Tensor& V, bool compute_v) {
  EMBER_CHECK(compute_v, "linalg_eigh_backward: the eigenvectors were not computed (compute_v=False), so the "
              "derivative of the eigenvalues cannot be formed; use linalg.eigh");
  Tensor inner = ember::diag_embed(gw, 0, -2, -1);
  if (!is_absent(gV)) {
    Tensor VhgV = ember::matmul(mH(V), gV);
    VhgV = 0.5 * (VhgV - mH(VhgV));
    // E_ij = w_j - w_i off the diagonal, 1 on it (where VhgV is 0).
    const Tensor E = w.unsqueeze(-2) - w.unsqueeze(-1) + eye_like(VhgV);
    inner = inner + VhgV / E;
  }
  return ember::matmul(V, ember::matmul(inner, mH(V)));
}

Tensor svd_backward(const Tensor& gU_, const Tensor& gS, const Tensor& gVh_, const Tensor& U_, const Tensor& S,
                    const Tensor& Vh_, bool full_matrices) {
  const int64_t k = S.size(-1);
  // With full_matrices only the first k singular vectors carry information (the rest are any basis).
  const Tensor U = full_matrices ? U_.narrow(-1, 0, k) : U_;
  const Tensor Vh = full_matrices ? Vh_.narrow(-2, 0, k) : Vh_;
  const Tensor gU = full_matrices ? gU_.narrow(-1, 0, k) : gU_;
  const Tensor gVh = full_matrices ? gVh_.narrow(-2, 0, k) : gVh_;
  const int64_t m = U.size(-2), n = Vh.size(-1);
  const bool has_u = !is_absent(gU), has_v = !is_absent(gVh);
  if (!has_u && !has_v) {
    // Only the singular values: gA = U diag(gS) Vh.
    return m >= n ? ember::matmul(U, gS.unsqueeze(-1) * Vh) : ember::matmul(U * gS.unsqueeze(-2), Vh);
  }
  const auto skew = [](const Tensor& X) { return X - mH(X); };
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + ember::eye(k, S.dtype());
  Tensor gA;
  if (has_u && has_v) {
    gA = (skew(ember::matmul(mH(U), gU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * skew(ember::matmul(Vh, mH(gVh)))) / E;
  } else if (has_u) {
    gA = (skew(ember::matmul(mH(U), gU)) / E) * S.unsqueeze(-2);
  } else {
    gA = S.unsqueeze(-1) * (skew(ember::matmul(Vh, mH(gVh))) / E);
  }
  gA = gA + ember::diag_embed(gS, 0, -2, -1);
  if (m > n && has_u) {
    // gA = [U gA + (I_m - U U^H) gU S^{-1}] Vh
    gA = ember::matmul(U, gA);
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = gA + gUSinv - ember::matmul(U, ember::matmul(mH(U), gUSinv));
    return ember::matmul(gA, Vh);
  }
  if (m < n && has_v) {
    // gA = U [gA Vh + S^{-1} gVh (I_n - V Vh)]
    gA = ember::matmul(gA, Vh);
    const Tensor SinvgVh = gVh / S.unsqueeze(-1);
    gA = gA + SinvgVh - ember::matmul(ember::matmul(SinvgVh, mH(Vh)), Vh);
    return ember::matmul(U, gA);
  }
  return m >= n ? ember::matmul(U, ember::matmul(gA, Vh)) : ember::matmul(ember::matmul(U, gA), Vh);
}

Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                          std::string_view mode) {
  EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
              "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(!(mode == "complete" && m > n),
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  // copyltu(M) = tril(M) + tril(M, -1)^H: the symmetric matrix with M's lower triangle.
  const auto square_case = [](const Tensor& gQ1, const Tensor& gR1, const Tensor& Q1, const Tensor& R1) {
    const Tensor M = ember::matmul(R1, mH(gR1)) - ember::matmul(mH(gQ1), Q1);
    const Tensor copyltu = ember::tril(M) + mH(ember::tril(M, -1));
    const Tensor b = gQ1 + ember::matmul(Q1, copyltu);
    return ember::linalg_solve_triangular(mH(R1), b, false, false, false);  // b R^{-H}
  };
  if (m >= n) return square_case(gQ, gR, Q, R);
  // Wide: A = Q [R1 R2]; Y = Q R2 adds Y gR2^H to Q's gradient and has gradient Q gR2.
  const Tensor R1 = R.narrow(-1, 0, m), R2 = R.narrow(-1, m, n - m);
  const Tensor gR1 = gR.narrow(-1, 0, m), gR2 = gR.narrow(-1, m, n - m);
  const Tensor Y = ember::matmul(Q, R2);
  const Tensor gX = square_case(gQ + ember::matmul(Y, mH(gR2)), gR1, Q, R1);
  return ember::cat({gX, ember::matmul(Q, gR2)}, -1);
}

std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X,
                                                            bool upper, bool left, bool unitriangular,
                                                            const std::array<bool, 2>& mask) {
  const Tensor gB = ember::linalg_solve_triangular(mH(A), grad, !upper, left, unitriangular);
  Tensor gA;
  if (mask[0]) {
    gA = left ? -ember::matmul(gB, mH(X)) : -ember::matmul(mH(X), gB);
    gA = upper ? ember::triu(gA, unitriangular ? 1 : 0) : ember::tril(gA, unitriangular ? -1 : 0);
  }
  return {gA, mask[1] ? gB : Tensor()};
}

std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A,
                                                 const Tensor& LU, const Tensor& pivots, bool left,
                                                 const std::array<bool, 2>& mask) {
  // A vector right-hand side (as _linalg_solve_ex decided) becomes a column.
  const bool vector = X.dim() == 1 || (X.dim() == A.dim() - 1 &&
                                       std::equal(X.sizes().begin(), X.sizes().end(), A.sizes().begin()));
  const int64_t vdim = left ? -1 : -2;
  const Tensor g = vector ? grad.unsqueeze(vdim) : grad;
  const Tensor X2 = vector ? X.unsqueeze(vdim) : X;
  const Tensor gB = GradMode::is_enabled() ? ember::linalg_solve(mH(A), g, left)
                                           : ember::linalg_lu_solve(LU, pivots, g, left, !A.is_contiguous());
  Tensor gA;
  if (mask[0]) gA = left ? -ember::matmul(gB, mH(X2)) : -ember::matmul(mH(X2), gB);
  return {gA, mask[1] ? (vector ? gB.squeeze(vdim) : gB) : Tensor()};
}

Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A, const Tensor& LU,
                           const Tensor& pivots) {
  if (A.size(-1) == 0 || A.numel() == 0) return ember::zeros_like(A);
  const bool singular = ember::eq(det, 0.0).any().item<bool>();
  if (!singular) return (grad * det).unsqueeze(-1).unsqueeze(-1) * inverse_adjoint(A, LU, pivots);
  // det A = det(U) det(Vh) prod(S): the derivative of the product is defined at zeros too.
  auto [U, S, Vh] = ember::linalg_svd(A, false, std::nullopt);
  const Tensor alpha = ember::linalg_det(U) * ember::linalg_det(Vh);
  const Tensor D = prod_safe_zeros_backward(grad * alpha, S);
  return ember::matmul(U * D.unsqueeze(-2), Vh);
}

Tensor slogdet_backward(const Tensor& grad, const Tensor& A, const Tensor& LU, const Tensor& pivots) {
  if (A.numel() == 0) return ember::zeros_like(A);
  return grad.unsqueeze(-1).unsqueeze(-1) * inverse_adjoint(A, LU, pivots);
}

}  // namespace ember::autograd::detail
