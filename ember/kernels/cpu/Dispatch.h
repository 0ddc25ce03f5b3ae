#pragma once
// Dispatch on dtype once per kernel call: dispatch_dtypes<kMask>(dtype, "op", [&]<class T>() { ... }) runs the
// lambda instantiated for the C++ type of dtype, for the dtypes in the mask only (others raise PyTorch's
// "not implemented for" error), so each kernel instantiates exactly the types it supports.
#include <cstdint>

#include "ember/core/DType.h"
#include "ember/kernels/cpu/TensorIterator.h"

namespace ember::cpu {

constexpr uint32_t dtype_bit(DType d) { return 1u << static_cast<int>(d); }
inline constexpr uint32_t kFloatingTypes =
    dtype_bit(kFloat32) | dtype_bit(kFloat64) | dtype_bit(kFloat16) | dtype_bit(kBFloat16);
inline constexpr uint32_t kIntegralTypes =
    dtype_bit(kUInt8) | dtype_bit(kInt8) | dtype_bit(kInt16) | dtype_bit(kInt32) | dtype_bit(kInt64);
inline constexpr uint32_t kIntegralAndBool = kIntegralTypes | dtype_bit(kBool);
inline constexpr uint32_t kNumericTypes = kFloatingTypes | kIntegralTypes;
inline constexpr uint32_t kAllTypes = kNumericTypes | dtype_bit(kBool);
/// complex64 and complex128: kernels list them explicitly (Note [complex numbers] in ember/core/DType.h).
inline constexpr uint32_t kComplexTypes = dtype_bit(kComplexFloat) | dtype_bit(kComplexDouble);
inline constexpr uint32_t kFloatingAndComplex = kFloatingTypes | kComplexTypes;
inline constexpr uint32_t kAllAndComplex = kAllTypes | kComplexTypes;

/// Whether T is std::complex<float> or std::complex<double>.
template <class T>
inline constexpr bool is_complex_v = false;
template <class V>
inline constexpr bool is_complex_v<std::complex<V>> = true;

template <uint32_t Mask, class F>
inline void dispatch_dtypes(DType d, const char* op, F&& f) {
  switch (d) {
#define EMBER_DISPATCH_CASE(T, name, id, py)     \
  case DType::name:                              \
    if constexpr ((Mask >> id) & 1u) {           \
      f.template operator()<T>();                \
      return;                                    \
    }                                            \
    break;
    EMBER_FORALL_DTYPES(EMBER_DISPATCH_CASE)
#undef EMBER_DISPATCH_CASE
  }
  not_implemented_for(op, d);
}

/// 16 bytes moved as one element (complex128), for dispatch_element_size.
struct Bytes16 {
  uint64_t lo, hi;
  Bytes16() = default;
  explicit constexpr Bytes16(int zero) : lo(static_cast<uint64_t>(zero)), hi(0) {}  // T(0): zero bytes
  bool operator==(const Bytes16&) const = default;
};

/// Calls f.template operator()<U>() with the unsigned integer type U of element size es (1, 2, 4 or 8; Bytes16
/// for 16, complex128): for kernels that only move elements (copies, triangles, flips), one instantiation per
/// size, not per dtype. Errors: any other size.
template <class F>
void dispatch_element_size(int64_t es, F&& f) {
  switch (es) {
    case 1: f.template operator()<uint8_t>(); return;
    case 2: f.template operator()<uint16_t>(); return;
    case 4: f.template operator()<uint32_t>(); return;
    case 8: f.template operator()<uint64_t>(); return;
    case 16: f.template operator()<Bytes16>(); return;
  }
  EMBER_FAIL("element size {} is not supported", es);
}

}  // namespace ember::cpu
