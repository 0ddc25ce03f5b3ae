// Compiled once per instruction-set level; see Note [instruction-set builds]. EMBER_ISA names the level
// (default, avx2, avx512) and is also the namespace, so the three builds link side by side.
#include <cstring>
#include <immintrin.h>
#include <sleef.h>

#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/isa/VecLoops.h"

#if !defined(EMBER_ISA)
#error "EMBER_ISA must name the instruction-set level"
#endif

namespace ember::cpu::EMBER_ISA {

#if defined(__AVX512F__)
constexpr int kBytes = 64;
#define EMBER_SLEEF_F(fn, u) Sleef_##fn##f16_##u##avx512f
#define EMBER_SLEEF_D(fn, u) Sleef_##fn##d8_##u##avx512f
using nf = __m512;
using nd = __m512d;
#elif defined(__AVX2__)
constexpr int kBytes = 32;
#define EMBER_SLEEF_F(fn, u) Sleef_##fn##f8_##u##avx2
#define EMBER_SLEEF_D(fn, u) Sleef_##fn##d4_##u##avx2
using nf = __m256;
using nd = __m256d;
#else
constexpr int kBytes = 16;
#define EMBER_SLEEF_F(fn, u) Sleef_##fn##f4_##u##sse2
#define EMBER_SLEEF_D(fn, u) Sleef_##fn##d2_##u##sse2
using nf = __m128;
using nd = __m128d;
#endif

typedef float vfloat __attribute__((vector_size(kBytes)));
typedef double vdouble __attribute__((vector_size(kBytes)));
template <class T>
using vec_t = std::conditional_t<std::is_same_v<T, float>, vfloat, vdouble>;
template <class T>
constexpr int kLanes = kBytes / sizeof(T);

// SLEEF call for a GCC vector of T.
#define EMBER_SLEEF(fn, u)                                                                       \
  template <class T>                                                                             \
  inline vec_t<T> s_##fn(vec_t<T> x) {                                                           \
    if constexpr (std::is_same_v<T, float>) return (vec_t<T>)EMBER_SLEEF_F(fn, u)((nf)x);        \
    else return (vec_t<T>)EMBER_SLEEF_D(fn, u)((nd)x);                                           \
  }
EMBER_SLEEF(exp, u10)
EMBER_SLEEF(exp2, u10)
EMBER_SLEEF(expm1, u10)
EMBER_SLEEF(log, u10)
EMBER_SLEEF(log2, u10)
EMBER_SLEEF(log10, u10)
EMBER_SLEEF(log1p, u10)
EMBER_SLEEF(sqrt, u05)
EMBER_SLEEF(sin, u10)
EMBER_SLEEF(cos, u10)
EMBER_SLEEF(tan, u10)
EMBER_SLEEF(asin, u10)
EMBER_SLEEF(acos, u10)
EMBER_SLEEF(atan, u10)
EMBER_SLEEF(sinh, u10)
EMBER_SLEEF(cosh, u10)
EMBER_SLEEF(tanh, u10)
EMBER_SLEEF(erf, u10)
EMBER_SLEEF(erfc, u15)
#undef EMBER_SLEEF

// SLEEF's sinh and cosh are specified for |x| <= 88.5 (float) and 709 (double) only and give inf beyond,
// where the result is still finite up to about 89.4 and 710.5: lanes past the limit take the scalar functor
// (std::sinh, as PyTorch computes them).
template <class T, class F>
inline vec_t<T> with_large_lanes(vec_t<T> r, vec_t<T> x) {
  constexpr T limit = std::is_same_v<T, float> ? T(88) : T(709);
  for (int i = 0; i < kLanes<T>; ++i)
    if (!(x[i] <= limit && x[i] >= -limit) && x[i] == x[i]) r[i] = F::f(x[i]);
  return r;
}

// Note [streaming stores]
// An elementwise op over a large output is bound by memory traffic. A plain store first reads the output's
// cache line (read-for-ownership), then writes it back: three streams for a unary op, four for a binary one.
// Non-temporal (streaming) stores write whole lines without reading them, a third less traffic for a unary
// op. They bypass the caches, so they pay only when the output cannot stay cached for its next reader anyway:
// a call writing at least kStreamBytes (beyond this machine's L3 share; smaller outputs keep plain stores).
// The values are the same either way; only the way they reach memory changes.
constexpr int64_t kStreamBytes = int64_t(24) << 20;

template <class T>
inline void stream_store(T* p, vec_t<T> v) {  // p is kBytes-aligned
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) _mm512_stream_ps(p, (nf)v);
  else _mm512_stream_pd(p, (nd)v);
#elif defined(__AVX__)
  if constexpr (std::is_same_v<T, float>) _mm256_stream_ps(p, (nf)v);
  else _mm256_stream_pd(p, (nd)v);
#else
  if constexpr (std::is_same_v<T, float>) _mm_stream_ps(p, (nf)v);
  else _mm_stream_pd(p, (nd)v);
#endif
}

// o[i] for i in [0, n): whole vectors from vec_at(i) (lanes i .. i + kLanes), the rest one element at a time
// from one_at(i). Large outputs are written with streaming stores (Note [streaming stores]); their unaligned
// head also comes from one_at.
template <class T, class V, class S>
inline void write_contiguous(T* __restrict o, int64_t n, const V& vec_at, const S& one_at) {
  constexpr int L = kLanes<T>;
  int64_t i = 0;
  if (n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes) {
    for (; i < n && reinterpret_cast<uintptr_t>(o + i) % kBytes != 0; ++i) o[i] = one_at(i);
    for (; i + L <= n; i += L) stream_store(o + i, vec_at(i));
    _mm_sfence();  // order the streaming stores before whatever reads the output next
  } else {
    for (; i + L <= n; i += L) {
      const vec_t<T> r = vec_at(i);
      std::memcpy(o + i, &r, sizeof(r));
    }
  }
  for (; i < n; ++i) o[i] = one_at(i);
}

template <class T>
inline vec_t<T> load(const T* p) {
  vec_t<T> x;
  std::memcpy(&x, p, sizeof(x));
  return x;
}

// Vector bodies: a functor with v(x) over vec_t<T>, plus the scalar functor for the tail and strided rows.
#define EMBER_VBODY(Name, Scalar, expr)                        \
  struct Name {                                                \
    using S = ops::Scalar;                                     \
    template <class T>                                         \
    static vec_t<T> v(vec_t<T> x) {                            \
      const vec_t<T> one = vec_t<T>{} + T(1);                  \
      (void)one;                                               \
      return expr;                                             \
    }                                                          \
  };
EMBER_VBODY(VExp, Exp, s_exp<T>(x))
EMBER_VBODY(VExp2, Exp2, s_exp2<T>(x))
EMBER_VBODY(VExpm1, Expm1, s_expm1<T>(x))
EMBER_VBODY(VLog, Log, s_log<T>(x))
EMBER_VBODY(VLog2, Log2, s_log2<T>(x))
EMBER_VBODY(VLog10, Log10, s_log10<T>(x))
EMBER_VBODY(VLog1p, Log1p, s_log1p<T>(x))
EMBER_VBODY(VSqrt, Sqrt, s_sqrt<T>(x))
EMBER_VBODY(VRsqrt, Rsqrt, one / s_sqrt<T>(x))
EMBER_VBODY(VSin, Sin, s_sin<T>(x))
EMBER_VBODY(VCos, Cos, s_cos<T>(x))
EMBER_VBODY(VTan, Tan, s_tan<T>(x))
EMBER_VBODY(VAsin, Asin, s_asin<T>(x))
EMBER_VBODY(VAcos, Acos, s_acos<T>(x))
EMBER_VBODY(VAtan, Atan, s_atan<T>(x))
EMBER_VBODY(VSinh, Sinh, (with_large_lanes<T, ops::Sinh>(s_sinh<T>(x), x)))
EMBER_VBODY(VCosh, Cosh, (with_large_lanes<T, ops::Cosh>(s_cosh<T>(x), x)))
EMBER_VBODY(VTanh, Tanh, s_tanh<T>(x))
EMBER_VBODY(VSigmoid, Sigmoid, one / (one + s_exp<T>(-x)))
EMBER_VBODY(VErf, Erf, s_erf<T>(x))
EMBER_VBODY(VErfc, Erfc, s_erfc<T>(x))
EMBER_VBODY(VGelu, Gelu, T(0.5) * x * (one + s_erf<T>(x * T(M_SQRT1_2))))
EMBER_VBODY(VGeluTanh, GeluTanh,
            T(0.5) * x * (one + s_tanh<T>(T(M_SQRT2 * M_2_SQRTPI * 0.5) * (x + T(0.044715) * x * x * x))))
EMBER_VBODY(VSilu, Silu, x / (one + s_exp<T>(-x)))
EMBER_VBODY(VRelu, Relu, ((x > T(0)) | (x != x)) ? x : vec_t<T>{})  // NaN passes, as ops::Relu
#undef EMBER_VBODY

template <class V, class T>
void unary_vec(char** data, const int64_t* s, int64_t n, double) {
  if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
    T* o = reinterpret_cast<T*>(data[0]);
    const T* a = reinterpret_cast<const T*>(data[1]);
    // Single elements (tail, streaming head) go through a padded vector, so every element gets the same
    // (vector) formula.
    write_contiguous(o, n, [a](int64_t i) { return V::template v<T>(load(a + i)); },
                     [a](int64_t i) {
                       vec_t<T> x{};
                       x[0] = a[i];
                       return V::template v<T>(x)[0];
                     });
    return;
  }
  unary_loop<T, T>(data, s, n, [](T x) { return V::S::f(x); });
}

template <class F, class T>
void unary_scalar(char** data, const int64_t* s, int64_t n, double) {
  unary_loop<T, T>(data, s, n, [](T x) { return F::f(x); });
}

// The larger (maximum) or smaller (minimum) of a and b lane by lane; NaN lanes are left to the caller.
template <VecOp op, class X>
inline X extreme(X a, X b) {
  return op == VecOp::Maximum ? (a > b ? a : b) : (a < b ? a : b);
}

// One binary op on vectors or on elements (the same values: NaN in either operand of maximum/minimum gives
// NaN, as ops::Maximum).
template <VecOp op, class X>
inline X binary_value(X a, X b, X alpha) {
  if constexpr (op == VecOp::Add) return a + alpha * b;
  else if constexpr (op == VecOp::Sub) return a - alpha * b;
  else if constexpr (op == VecOp::Mul) return a * b;
  else if constexpr (op == VecOp::Div) return a / b;
  else if constexpr (std::is_arithmetic_v<X>) {
    if constexpr (op == VecOp::Maximum) return ops::Maximum::f(a, b);
    else return ops::Minimum::f(a, b);
  } else {
    using T = std::remove_reference_t<decltype(a[0])>;
    return ((a != a) | (b != b)) ? X{} + std::numeric_limits<T>::quiet_NaN() : extreme<op>(a, b);
  }
}

// The contiguous and tensor-op-number rows with explicit vectors (so large outputs can stream); add/sub with
// alpha == 1 skip the multiplication, which the compiler may not drop by itself (1 * b keeps NaN payloads).
template <class T, VecOp op, bool kAlpha>
void binary_arith_t(char** data, const int64_t* s, int64_t n, T alpha) {
  constexpr int64_t e = sizeof(T);
  auto f = [=]<class X>(X a, X b) {
    if constexpr (!kAlpha && op == VecOp::Add) return a + b;
    else if constexpr (!kAlpha && op == VecOp::Sub) return a - b;
    else if constexpr (std::is_arithmetic_v<X>) return binary_value<op>(a, b, alpha);
    else return binary_value<op>(a, b, X{} + alpha);
  };
  T* o = reinterpret_cast<T*>(data[0]);
  const T* a = reinterpret_cast<const T*>(data[1]);
  const T* b = reinterpret_cast<const T*>(data[2]);
  if (s[0] == e && s[1] == e && s[2] == e) {
    write_contiguous(o, n, [&](int64_t i) { return f(load(a + i), load(b + i)); },
                     [&](int64_t i) { return f(a[i], b[i]); });
  } else if (s[0] == e && s[1] == e && s[2] == 0) {  // tensor op number (relu as clamp_min(x, 0), x + 1, ...)
    const T bv = *b;
    const vec_t<T> bb = vec_t<T>{} + bv;
    if constexpr (op == VecOp::Maximum || op == VecOp::Minimum) {
      if (bv == bv) {  // a number bound (clamp_min(x, 0)): only x can be NaN, one test fewer per vector
        const vec_t<T> qnan = vec_t<T>{} + std::numeric_limits<T>::quiet_NaN();
        write_contiguous(
            o, n,
            [&](int64_t i) {
              const vec_t<T> x = load(a + i);
              return x != x ? qnan : extreme<op>(x, bb);
            },
            [&](int64_t i) { return f(a[i], bv); });
        return;
      }
    }
    write_contiguous(o, n, [&](int64_t i) { return f(load(a + i), bb); }, [&](int64_t i) { return f(a[i], bv); });
  } else {
    binary_loop<T, T>(data, s, n, [&](T x, T y) { return f(x, y); });
  }
}

template <class T, VecOp op>
void binary_arith(char** data, const int64_t* s, int64_t n, double alpha_d) {
  const T alpha = static_cast<T>(alpha_d);
  if (alpha == T(1)) binary_arith_t<T, op, false>(data, s, n, alpha);
  else binary_arith_t<T, op, true>(data, s, n, alpha);
}

// x as computed, hidden from the optimizer: an addition of it is never contracted into an FMA. The -mfma builds
// would otherwise fuse a + (value * b) * c, which rounds differently from the baseline build and the scalar
// kernels (every build must give the same results).
template <class V>
inline V unfused(V x) {
  asm("" : "+x"(x));
  return x;
}

// addcmul / addcdiv: a + value * b * c and a + value * b / c, evaluated as ((value * b) op c) + a like the
// scalar kernel in binary.cpp (and PyTorch).
template <class T, VecOp op>
inline T addc_scalar(T a, T b, T c, T v) {
  if constexpr (op == VecOp::Addcmul) return a + unfused(v * b * c);
  else return a + unfused(v * b / c);
}

template <class T, VecOp op>
void ternary_addc(char** data, const int64_t* s, int64_t n, double value_d) {
  const T v = static_cast<T>(value_d);
  constexpr int64_t e = sizeof(T);
  if (s[0] == e && s[1] == e && s[2] == e && s[3] == e) {
    T* o = reinterpret_cast<T*>(data[0]);
    const T* a = reinterpret_cast<const T*>(data[1]);
    const T* b = reinterpret_cast<const T*>(data[2]);
    const T* c = reinterpret_cast<const T*>(data[3]);
    const vec_t<T> vv = vec_t<T>{} + v;
    write_contiguous(
        o, n,
        [&](int64_t i) {
          const vec_t<T> x = load(a + i), y = load(b + i), z = load(c + i);
          if constexpr (op == VecOp::Addcmul) return x + unfused(vv * y * z);
          else return x + unfused(vv * y / z);
        },
        [&](int64_t i) { return addc_scalar<T, op>(a[i], b[i], c[i], v); });
    return;
  }
  ternary_loop<T, T, T, T>(data, s, n, [v](T a, T b, T c) { return addc_scalar<T, op>(a, b, c, v); });
}

template <class T>
VecLoopFn pick(VecOp op) {
  switch (op) {
    case VecOp::Exp: return &unary_vec<VExp, T>;
    case VecOp::Exp2: return &unary_vec<VExp2, T>;
    case VecOp::Expm1: return &unary_vec<VExpm1, T>;
    case VecOp::Log: return &unary_vec<VLog, T>;
    case VecOp::Log2: return &unary_vec<VLog2, T>;
    case VecOp::Log10: return &unary_vec<VLog10, T>;
    case VecOp::Log1p: return &unary_vec<VLog1p, T>;
    case VecOp::Sqrt: return &unary_vec<VSqrt, T>;
    case VecOp::Rsqrt: return &unary_vec<VRsqrt, T>;
    case VecOp::Reciprocal: return &unary_scalar<ops::Reciprocal, T>;
    case VecOp::Sin: return &unary_vec<VSin, T>;
    case VecOp::Cos: return &unary_vec<VCos, T>;
    case VecOp::Tan: return &unary_vec<VTan, T>;
    case VecOp::Asin: return &unary_vec<VAsin, T>;
    case VecOp::Acos: return &unary_vec<VAcos, T>;
    case VecOp::Atan: return &unary_vec<VAtan, T>;
    case VecOp::Sinh: return &unary_vec<VSinh, T>;
    case VecOp::Cosh: return &unary_vec<VCosh, T>;
    case VecOp::Tanh: return &unary_vec<VTanh, T>;
    case VecOp::Sigmoid: return &unary_vec<VSigmoid, T>;
    case VecOp::Erf: return &unary_vec<VErf, T>;
    case VecOp::Erfc: return &unary_vec<VErfc, T>;
    case VecOp::Gelu: return &unary_vec<VGelu, T>;
    case VecOp::GeluTanh: return &unary_vec<VGeluTanh, T>;
    case VecOp::Silu: return &unary_vec<VSilu, T>;
    case VecOp::Relu: return &unary_vec<VRelu, T>;
    case VecOp::Abs: return &unary_scalar<ops::Abs, T>;
    case VecOp::Neg: return &unary_scalar<ops::Neg, T>;
    case VecOp::Floor: return &unary_scalar<ops::Floor, T>;
    case VecOp::Ceil: return &unary_scalar<ops::Ceil, T>;
    case VecOp::Round: return &unary_scalar<ops::Round, T>;
    case VecOp::Trunc: return &unary_scalar<ops::Trunc, T>;
    case VecOp::Square: return &unary_scalar<ops::Square, T>;
    case VecOp::Add: return &binary_arith<T, VecOp::Add>;
    case VecOp::Sub: return &binary_arith<T, VecOp::Sub>;
    case VecOp::Mul: return &binary_arith<T, VecOp::Mul>;
    case VecOp::Div: return &binary_arith<T, VecOp::Div>;
    case VecOp::Maximum: return &binary_arith<T, VecOp::Maximum>;
    case VecOp::Minimum: return &binary_arith<T, VecOp::Minimum>;
    case VecOp::Addcmul: return &ternary_addc<T, VecOp::Addcmul>;
    case VecOp::Addcdiv: return &ternary_addc<T, VecOp::Addcdiv>;
    case VecOp::kCount: break;
  }
  return nullptr;
}

// ---- sums (Note [vectorized sums])
// The 32 lanes are held as kAcc accumulators of kW lanes (8 x 4, or 4 x 8 with AVX-512): lane l of
// accumulator k is lane kW * k + l of the Note's 32, so every build adds the same numbers in the same order.
// Named small vectors rather than one 32-lane vector: GCC keeps them in registers (a wide generic vector lives
// in memory).
#if defined(__AVX512F__)
constexpr int kW = 8;
#else
constexpr int kW = 4;
#endif
typedef double vsd __attribute__((vector_size(8 * kW)));
typedef float vsf __attribute__((vector_size(4 * kW)));

// (By reference: returning a 32-byte vector changes the ABI without AVX, which -Wpsabi flags.)
template <class T>
inline void add_lanes(vsd& acc, const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    vsf v;
    std::memcpy(&v, p, sizeof v);
    acc += __builtin_convertvector(v, vsd);
  } else {
    vsd v;
    std::memcpy(&v, p, sizeof v);
    acc += v;
  }
}

constexpr int kLanesSum = 32;  // enough independent additions to hide the add latency
constexpr int kAcc = kLanesSum / kW;

// The 32 lanes added pairwise (lane k + h onto lane k, h = 16, 8, ..., 1), then the tail.
inline double reduce_lanes(const vsd (&a)[kAcc], double tail) {
  double s[kLanesSum];
  std::memcpy(s, a, sizeof s);
  for (int h = kLanesSum / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) s[k] += s[k + h];
  return s[0] + tail;
}

template <class T>
double sum_contiguous_t(const T* x, int64_t n) {
  vsd a[kAcc] = {};
  int64_t i = 0;
  for (; i + kLanesSum <= n; i += kLanesSum)
    for (int k = 0; k < kAcc; ++k) add_lanes(a[k], x + i + kW * k);
  double tail = 0;
  for (; i < n; ++i) tail += static_cast<double>(x[i]);
  return reduce_lanes(a, tail);
}

template <class T>
void sum_columns_t(const T* __restrict x, int64_t stride, int64_t rows, int64_t w, double* __restrict acc) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* __restrict row = x + r * stride;
    for (int64_t j = 0; j < w; ++j) acc[j] += static_cast<double>(row[j]);
  }
}

// ---- normalization loops (Note [normalization loops])
// Keeps a product of sum lanes from being contracted into the addition that follows (as unfused() does for
// whole vectors). Only the FMA builds can contract; the default build's 32-byte lanes fit no register there.
inline void keep_rounded(vsd& v) {
#if defined(__FMA__)
  asm("" : "+x"(v));
#else
  (void)v;
#endif
}

// kW lanes of x as doubles (by reference, as add_lanes).
template <class T>
inline void load_lanes(vsd& v, const T* p) {
  v = vsd{};
  add_lanes(v, p);
}

template <class T>
double sum_squared_deviations_t(const T* x, int64_t n, double mean) {
  vsd a[kAcc] = {};
  const vsd m = vsd{} + mean;
  int64_t i = 0;
  for (; i + kLanesSum <= n; i += kLanesSum)
    for (int k = 0; k < kAcc; ++k) {
      vsd d;
      load_lanes(d, x + i + kW * k);
      d -= m;
      vsd sq = d * d;
      keep_rounded(sq);
      a[k] += sq;
    }
  double tail = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    tail += unfused(d * d);
  }
  return reduce_lanes(a, tail);
}

template <class T>
void sum_grad_deviations_t(const T* g, const T* x, int64_t n, double mean, double* sums) {
  vsd s[kAcc] = {}, q[kAcc] = {};
  const vsd m = vsd{} + mean;
  int64_t i = 0;
  for (; i + kLanesSum <= n; i += kLanesSum)
    for (int k = 0; k < kAcc; ++k) {
      vsd gv, d;
      load_lanes(gv, g + i + kW * k);
      load_lanes(d, x + i + kW * k);
      d -= m;
      s[k] += gv;
      vsd p = gv * d;
      keep_rounded(p);
      q[k] += p;
    }
  double ts = 0, tq = 0;
  for (; i < n; ++i) {
    const double gv = static_cast<double>(g[i]);
    ts += gv;
    tq += unfused(gv * (static_cast<double>(x[i]) - mean));
  }
  sums[0] += reduce_lanes(s, ts);
  sums[1] += reduce_lanes(q, tq);
}

template <class T>
void scale_shift_t(const T* x, T* out, int64_t n, T a, T b) {
  const vec_t<T> av = vec_t<T>{} + a, bv = vec_t<T>{} + b;
  write_contiguous(out, n, [&](int64_t i) { return unfused(load(x + i) * av) + bv; },
                   [&](int64_t i) { return unfused(x[i] * a) + b; });
}

template <class T>
void scale_shift2_t(const T* g, const T* x, T* out, int64_t n, T a, T b, T d) {
  const vec_t<T> av = vec_t<T>{} + a, bv = vec_t<T>{} + b, dv = vec_t<T>{} + d;
  write_contiguous(out, n, [&](int64_t i) { return (unfused(load(g + i) * av) + unfused(load(x + i) * bv)) + dv; },
                   [&](int64_t i) { return (unfused(g[i] * a) + unfused(x[i] * b)) + d; });
}

template <class T>
NormLoops<T> norm_loops_t() {
  return {&sum_squared_deviations_t<T>, &sum_grad_deviations_t<T>, &scale_shift_t<T>, &scale_shift2_t<T>};
}
NormLoops<float> norm_loops_f() { return norm_loops_t<float>(); }
NormLoops<double> norm_loops_d() { return norm_loops_t<double>(); }

double sum_contiguous_f(const float* x, int64_t n) { return sum_contiguous_t(x, n); }
double sum_contiguous_d(const double* x, int64_t n) { return sum_contiguous_t(x, n); }
void sum_columns_f(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc) {
  sum_columns_t(x, stride, rows, w, acc);
}
void sum_columns_d(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc) {
  sum_columns_t(x, stride, rows, w, acc);
}

VecLoopFn vec_loop(VecOp op, DType dtype) {
  if (dtype == kFloat32) return pick<float>(op);
  if (dtype == kFloat64) return pick<double>(op);
  return nullptr;
}

}  // namespace ember::cpu::EMBER_ISA
