#pragma once
// Note [LAPACK from OpenBLAS]
// The LAPACK routines the linear-algebra kernels call (kernels/cpu/linalg.cpp). Debian's OpenBLAS, which Ember
// links for BLAS (CMakeLists.txt, EMBER_OPENBLAS_LIBRARY), also exports LAPACK's Fortran symbols (sgetrf_,
// dgesdd_, ...), but Debian ships no LAPACKE header for it; so the prototypes are declared here, in the
// gfortran calling convention: every argument by pointer, 32-bit integers (the LP64 build), and one hidden
// size_t length after the arguments for each CHARACTER argument. Matrices are column-major (Fortran order):
// the kernels hand LAPACK column-major copies and return column-major results, as PyTorch does.
//
// The templates lapack::getrf<T> and friends pick the s (float) or d (double) routine.
#include <complex>
#include <cstddef>

extern "C" {
// LU with partial pivoting; solve from it.
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, std::size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t);
// Cholesky.
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
// Symmetric eigen-decomposition (divide and conquer).
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
// SVD (divide and conquer).
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t);
// QR: Householder factorisation, forming Q, applying Q.
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info,
             std::size_t, std::size_t);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork,
             int* info, std::size_t, std::size_t);
// Symmetric indefinite (Bunch-Kaufman) factorisation and solve.
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, std::size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, std::size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, std::size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t);
// General eigen-decomposition (eigenvalues and right eigenvectors), real and complex.
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info,
            std::size_t, std::size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            std::size_t, std::size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, void* a, const int* lda, void* w, void* vl,
            const int* ldvl, void* vr, const int* ldvr, void* work, const int* lwork, float* rwork, int* info,
            std::size_t, std::size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, void* a, const int* lda, void* w, void* vl,
            const int* ldvl, void* vr, const int* ldvr, void* work, const int* lwork, double* rwork, int* info,
            std::size_t, std::size_t);
// BLAS level 3: triangular solve with several right-hand sides.
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, std::size_t, std::size_t,
            std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, std::size_t,
            std::size_t, std::size_t, std::size_t);
}

namespace ember::cpu::lapack {

#define EMBER_LAPACK_PICK(T, name, ...) \
  if constexpr (sizeof(T) == 4) s##name##_(__VA_ARGS__); else d##name##_(__VA_ARGS__)

template <class T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  EMBER_LAPACK_PICK(T, getrf, &m, &n, a, &lda, ipiv, info);
}
template <class T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  EMBER_LAPACK_PICK(T, getrs, &trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
template <class T>
void potrf(char uplo, int n, T* a, int lda, int* info) {
  EMBER_LAPACK_PICK(T, potrf, &uplo, &n, a, &lda, info, 1);
}
template <class T>
void syevd(char jobz, char uplo, int n, T* a, int lda, T* w, T* work, int lwork, int* iwork, int liwork,
           int* info) {
  EMBER_LAPACK_PICK(T, syevd, &jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
template <class T>
void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork,
           int* iwork, int* info) {
  EMBER_LAPACK_PICK(T, gesdd, &jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
template <class T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {
  EMBER_LAPACK_PICK(T, geqrf, &m, &n, a, &lda, tau, work, &lwork, info);
}
template <class T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {
  EMBER_LAPACK_PICK(T, orgqr, &m, &n, &k, a, &lda, tau, work, &lwork, info);
}
template <class T>
void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc, T* work,
           int lwork, int* info) {
  EMBER_LAPACK_PICK(T, ormqr, &side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info, 1, 1);
}
template <class T>
void sytrf(char uplo, int n, T* a, int lda, int* ipiv, T* work, int lwork, int* info) {
  EMBER_LAPACK_PICK(T, sytrf, &uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
}
template <class T>
void sytrs(char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  EMBER_LAPACK_PICK(T, sytrs, &uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
template <class T>
void trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb) {
  EMBER_LAPACK_PICK(T, trsm, &side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

/// geev for float/double (wr, wi: the eigenvalues' parts) and for complex<float>/complex<double> (w), with
/// jobvl 'N'; lwork -1 queries the workspace size into work[0].
template <class T>
void geev_real(char jobvr, int n, T* a, int lda, T* wr, T* wi, T* vr, int ldvr, T* work, int lwork, int* info) {
  const char jobvl = 'N';
  const int one = 1;
  EMBER_LAPACK_PICK(T, geev, &jobvl, &jobvr, &n, a, &lda, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, info, 1,
                    1);
}
template <class V>
void geev_complex(char jobvr, int n, std::complex<V>* a, int lda, std::complex<V>* w, std::complex<V>* vr, int ldvr,
                  std::complex<V>* work, int lwork, V* rwork, int* info) {
  const char jobvl = 'N';
  const int one = 1;
  if constexpr (sizeof(V) == 4)
    cgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
  else
    zgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
}

#undef EMBER_LAPACK_PICK

}  // namespace ember::cpu::lapack
