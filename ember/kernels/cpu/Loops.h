#pragma once
// The inner 1-D loops of Note [elementwise loops]. Each takes the operand pointers and byte strides of one
// row and applies a scalar functor; the contiguous and broadcast-scalar cases are written as plain indexed
// loops so the compiler vectorizes them for the instruction set of the translation unit.
#include <cstdint>

#include "ember/kernels/cpu/isa/IsaNamespace.h"
#include <cstring>
#include <type_traits>

#include "ember/core/DType.h"

namespace ember::cpu {
// Note [ISA namespaces]: each instruction-set build of these inline templates gets its own namespace, so the
// linker never merges an AVX-512 instantiation into the baseline code (see isa/VecLoops.h).
inline namespace EMBER_ISA_NS {

/// The type arithmetic is done in: float for the 16-bit floats, else the type itself.
template <class T>
struct OpMathT {
  using type = T;
};
template <>
struct OpMathT<Half> {
  using type = float;
};
template <>
struct OpMathT<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMathT<T>::type;

template <class T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// out = f(a) over one row.
template <class Out, class In, class F>
inline void unary_loop(char** data, const int64_t* s, int64_t n, const F& f) {
  char* o = data[0];
  const char* a = data[1];
  if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
    Out* __restrict op = reinterpret_cast<Out*>(o);
    const In* __restrict ap = reinterpret_cast<const In*>(a);
    for (int64_t i = 0; i < n; ++i) op[i] = static_cast<Out>(f(ap[i]));
  } else if (s[0] == sizeof(Out) && s[1] == 0) {
    Out v = static_cast<Out>(f(*reinterpret_cast<const In*>(a)));
    Out* op = reinterpret_cast<Out*>(o);
    for (int64_t i = 0; i < n; ++i) op[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(o + i * s[0]) = static_cast<Out>(f(*reinterpret_cast<const In*>(a + i * s[1])));
  }
}

/// out = f(a, b) over one row, with fast paths for contiguous operands and a broadcast scalar on either side.
template <class Out, class In, class F>
inline void binary_loop(char** data, const int64_t* s, int64_t n, const F& f) {
  char* o = data[0];
  const char* a = data[1];
  const char* b = data[2];
  constexpr int64_t so = sizeof(Out), si = sizeof(In);
  if (s[0] == so && s[1] == si && s[2] == si) {
    Out* __restrict op = reinterpret_cast<Out*>(o);
    const In* __restrict ap = reinterpret_cast<const In*>(a);
    const In* __restrict bp = reinterpret_cast<const In*>(b);
    for (int64_t i = 0; i < n; ++i) op[i] = static_cast<Out>(f(ap[i], bp[i]));
  } else if (s[0] == so && s[1] == si && s[2] == 0) {
    Out* __restrict op = reinterpret_cast<Out*>(o);
    const In* __restrict ap = reinterpret_cast<const In*>(a);
    const In bv = *reinterpret_cast<const In*>(b);
    for (int64_t i = 0; i < n; ++i) op[i] = static_cast<Out>(f(ap[i], bv));
  } else if (s[0] == so && s[1] == 0 && s[2] == si) {
    Out* __restrict op = reinterpret_cast<Out*>(o);
    const In av = *reinterpret_cast<const In*>(a);
    const In* __restrict bp = reinterpret_cast<const In*>(b);
    for (int64_t i = 0; i < n; ++i) op[i] = static_cast<Out>(f(av, bp[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(o + i * s[0]) = static_cast<Out>(
          f(*reinterpret_cast<const In*>(a + i * s[1]), *reinterpret_cast<const In*>(b + i * s[2])));
  }
}

/// out = f(a, b, c) over one row (inputs may have different types A, B, C).
template <class Out, class A, class B, class C, class F>
inline void ternary_loop(char** data, const int64_t* s, int64_t n, const F& f) {
  if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B) && s[3] == sizeof(C)) {
    Out* __restrict op = reinterpret_cast<Out*>(data[0]);
    const A* __restrict ap = reinterpret_cast<const A*>(data[1]);
    const B* __restrict bp = reinterpret_cast<const B*>(data[2]);
    const C* __restrict cp = reinterpret_cast<const C*>(data[3]);
    for (int64_t i = 0; i < n; ++i) op[i] = static_cast<Out>(f(ap[i], bp[i], cp[i]));
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<Out*>(data[0] + i * s[0]) = static_cast<Out>(
        f(*reinterpret_cast<const A*>(data[1] + i * s[1]), *reinterpret_cast<const B*>(data[2] + i * s[2]),
          *reinterpret_cast<const C*>(data[3] + i * s[3])));
}

}  // namespace EMBER_ISA_NS
}  // namespace ember::cpu
