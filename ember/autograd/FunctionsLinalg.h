#pragma once
// Backward formulas of the LAPACK-backed ops (ember/ops/ops_linalg.yaml, "LAPACK"). Each follows PyTorch 1.13's
// derivatives.yaml / FunctionsManual.cpp for real inputs and is written with Ember ops, so it is differentiable
// again (gradgradcheck). A gradient that did not flow to an output arrives as zeros (Note [gradients of
// multi-output ops]), so the formulas need no "undefined" cases. Sources of the formulas are given beside each.
#include <array>
#include <string_view>
#include <tuple>

#include "ember/core/Tensor.h"

namespace ember::autograd::detail {

/// A = P L U (linalg_lu_factor_ex, lu_unpack): the gradient of A from those of L and U, for square, wide and
/// tall A (the LU factorisation's pullback, as PyTorch's linalg_lu_backward).
Tensor linalg_lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U);
/// linalg_lu_factor_ex: gLU is split into L's strictly lower and U's upper part, then linalg_lu_backward.
Tensor linalg_lu_factor_ex_backward(const Tensor& gLU, const Tensor& LU, const Tensor& pivots);
/// lu_unpack: LU_data (*, m, n) receives tril(gL, -1) and triu(gU) at their places.
Tensor lu_unpack_backward(const Tensor& gL, const Tensor& gU, int64_t m, int64_t n);
/// linalg_lu_solve(LU, pivots, B, left, adjoint) with result X: gB solves the adjoint system; gA (of
/// A = P L U) is -gB X^H (or its transposed/right-hand forms), mapped onto L's and U's parts of LU.
std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& LU,
                                                    const Tensor& pivots, bool left, bool adjoint,
                                                    const std::array<bool, 2>& mask);
/// A = L L^H: gA = L^{-H} Φ(L^H gL) L^{-1} symmetrised, Φ taking the lower triangle with half the diagonal
/// (Murray 2016, Differentiation of the Cholesky decomposition, eq. 10). upper: L is U^H.
Tensor cholesky_backward(const Tensor& gL, bool upper, const Tensor& L);
/// A = V diag(w) V^H: gA = V (diag(gw) + skew(V^H gV) / E) V^H with E_ij = w_j - w_i, skew(X) = (X - X^H) / 2
/// (Giles 2008, An extended collection of matrix derivative results for forward and reverse mode AD, 3.1).
Tensor linalg_eigh_backward(const Tensor& gw, const Tensor& gV, const Tensor& w, const Tensor& V, bool compute_v);
/// A = U diag(S) Vh (Townsend 2016, Differentiating the singular value decomposition; PyTorch's svd_backward):
/// gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] Vh + (I - U U^H) gU S^{-1} Vh
///      + U S^{-1} gV^H (I - V V^H), E_ij = S_j^2 - S_i^2, skew(X) = X - X^H; full_matrices narrows to k.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh, bool full_matrices);
/// A = Q R, m >= n: gA = (gQ + Q copyltu(M)) R^{-H}, M = R gR^H - gQ^H Q, copyltu(M) = tril(M) + tril(M, -1)^H
/// (Liao, Liu, Wang & Xiang 2019, Differentiable programming tensor networks, eq. 13); m < n splits
/// A = Q [R1 R2] (Y = Q R2 adds Y gR2^H to gQ). Errors as PyTorch: mode 'r'; 'complete' with m > n.
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                          std::string_view mode);
/// X = A^{-1} B (left) or B A^{-1} for triangular A: gB solves with A^H; gA = -gB X^H (or -X^H gB) restricted
/// to A's triangle (without the diagonal when unitriangular).
std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X,
                                                            bool upper, bool left, bool unitriangular,
                                                            const std::array<bool, 2>& mask);
/// X = A^{-1} B (left) or B A^{-1}: gB = A^{-H} g (or g A^{-H}), gA = -gB X^H (or -X^H gB). When grad mode is on
/// (double backward) the solve goes through linalg_solve so that it is differentiable in A; otherwise it
/// reuses A's LU factorisation.
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& X, const Tensor& A,
                                                 const Tensor& LU, const Tensor& pivots, bool left,
                                                 const std::array<bool, 2>& mask);
/// d det(A) = det(A) tr(A^{-1} dA): gA = g det A^{-H} for invertible A; when some matrix of the batch is
/// singular, the SVD form gA = U diag(g det(U) det(Vh) prod_{j != i} S_j) Vh, exact there too.
Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A, const Tensor& LU,
                           const Tensor& pivots);
/// d log|det A| = tr(A^{-1} dA): gA = g A^{-H}.
Tensor slogdet_backward(const Tensor& grad, const Tensor& A, const Tensor& LU, const Tensor& pivots);

}  // namespace ember::autograd::detail
