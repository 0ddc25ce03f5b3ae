#pragma once
// Note [instruction-set builds]
// The hot float32/float64 loops are compiled three times (isa/vec_loops.cpp with baseline x86-64, AVX2+FMA
// and AVX-512 flags) and the build for this CPU is chosen once at start-up, so one binary runs on any
// x86-64 and uses the widest vectors where they exist. EMBER_CPU_CAPABILITY=default|avx2|avx512 in the
// environment forces a lower level (tests use it to check every build against the others).
// Transcendental functions use SLEEF's vector functions (1.0-ulp variants); simple arithmetic is left to the
// compiler's vectorizer, which the per-build flags aim at the right instruction set.
#include <cstdint>

#include "ember/core/DType.h"

namespace ember::cpu {

enum class VecOp : uint8_t {
  Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt, Reciprocal, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh,
  Tanh, Sigmoid, Erf, Erfc, Relu, Gelu, GeluTanh, Silu, Abs, Neg, Floor, Ceil, Round, Trunc, Square,  // unary
  Add, Sub, Mul, Div, Maximum, Minimum,                                                              // binary
  Addcmul, Addcdiv,                                                                                  // ternary
  kCount
};

/// A row loop: unary ops read data[1], binary ops data[1] and data[2], ternary ops data[1..3]; out is data[0].
/// alpha is used by Add/Sub (out = a +- alpha * b) and is the value of Addcmul/Addcdiv
/// (out = a + value * b * c, a + value * b / c, unfused, as the scalar kernel computes them).
using VecLoopFn = void (*)(char** data, const int64_t* strides, int64_t n, double alpha);

/// The loop for op and dtype (float32 or float64) built for this CPU, or null for other dtypes.
VecLoopFn vec_loop(VecOp op, DType dtype);

// Note [vectorized sums]
// Floating sums accumulate in double (Note [reductions]). A single double accumulator makes the sum a chain of
// dependent additions (one element per add latency); these kernels keep 32 independent double accumulators
// (lane k takes the elements at positions = k mod 32 up to the last whole group of 32, then the 32 are added
// pairwise, then the tail in order), written with 4-lane generic vectors so every instruction-set build
// performs exactly the same additions in the same order: results are identical whichever build runs, and do not
// depend on timing.

/// Sum of x[0..n) in the order of Note [vectorized sums].
double sum_contiguous(const float* x, int64_t n);
double sum_contiguous(const double* x, int64_t n);
/// acc[j] += x[r * stride + j] for r in [0, rows) in order, j in [0, w): column sums of a row-major block.
void sum_columns(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc);
void sum_columns(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc);

// Note [normalization loops]
// The per-element passes of batch_norm and its backward (kernels/cpu/norm.cpp), built per instruction set like
// the loops above. The sums keep Note [vectorized sums]'s 32 double lanes and order, and every product is
// rounded before it is added (never contracted into an FMA), so all builds give identical results:
//   sum_squared_deviations  sum over [0, n) of (x[i] - mean)^2
//   sum_grad_deviations     sums[0] += sum of g[i]; sums[1] += sum of g[i] * (x[i] - mean)
//   scale_shift             out[i] = x[i] * a + b
//   scale_shift2            out[i] = (g[i] * a + x[i] * b) + d
template <class T>
struct NormLoops {
  double (*sum_squared_deviations)(const T* x, int64_t n, double mean);
  void (*sum_grad_deviations)(const T* g, const T* x, int64_t n, double mean, double* sums);
  void (*scale_shift)(const T* x, T* out, int64_t n, T a, T b);
  void (*scale_shift2)(const T* g, const T* x, T* out, int64_t n, T a, T b, T d);
};
/// The loops of Note [normalization loops] for this CPU (T is float or double).
template <class T>
const NormLoops<T>& norm_loops();

/// The instruction-set level in use: "default", "avx2" or "avx512".
const char* cpu_capability();

}  // namespace ember::cpu
