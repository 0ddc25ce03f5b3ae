#pragma once
// Note [complex numbers]
// complex64 and complex128 hold std::complex<float> / std::complex<double> (PyTorch's ComplexFloat and
// ComplexDouble, ids 9 and 10). PyTorch's complex32 (ComplexHalf, id 8) is not among Ember's dtypes: where
// PyTorch makes a complex32 (a float16 tensor with a Python complex) Ember makes complex64. Kernels take
// complex only where their dispatch mask lists kComplexTypes (ember/kernels/cpu/Dispatch.h); everywhere else
// complex operands raise the "not implemented for 'complex64'" error. is_floating_point() is false for them.
//
// Note [dtype list]
// One list of dtypes. The numeric ids are stable (they are written into archives) and equal PyTorch's
// ScalarType numbers, so PyTorch checkpoints and TorchScript files can later map onto them. New dtypes are
// only ever appended. Everything per-dtype (name, size, C++ type, category) comes from this list.
#include <complex>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "ember/base/Error.h"
#include "ember/base/Half.h"

namespace ember {

// X(C++ type, enum name, stable id, Python name)
#define EMBER_FORALL_DTYPES(X)          \
  X(uint8_t, UInt8, 0, uint8)           \
  X(int8_t, Int8, 1, int8)              \
  X(int16_t, Int16, 2, int16)           \
  X(int32_t, Int32, 3, int32)           \
  X(int64_t, Int64, 4, int64)           \
  X(ember::Half, Float16, 5, float16)   \
  X(float, Float32, 6, float32)         \
  X(double, Float64, 7, float64)        \
  X(std::complex<float>, ComplexFloat, 9, complex64)   \
  X(std::complex<double>, ComplexDouble, 10, complex128) \
  X(bool, Bool, 11, bool)               \
  X(ember::BFloat16, BFloat16, 15, bfloat16)

/// Element type of a tensor. The value is the stable id of Note [dtype list].
enum class DType : int8_t {
#define EMBER_DTYPE_ENUM(T, name, id, py) name = id,
  EMBER_FORALL_DTYPES(EMBER_DTYPE_ENUM)
#undef EMBER_DTYPE_ENUM
};
inline constexpr int kNumDTypeIds = 16;  // ids are below this

inline constexpr DType kUInt8 = DType::UInt8, kInt8 = DType::Int8, kInt16 = DType::Int16, kInt32 = DType::Int32,
                       kInt64 = DType::Int64, kFloat16 = DType::Float16, kFloat32 = DType::Float32,
                       kFloat64 = DType::Float64, kBool = DType::Bool, kBFloat16 = DType::BFloat16,
                       kComplexFloat = DType::ComplexFloat, kComplexDouble = DType::ComplexDouble;
// PyTorch's C++ aliases, so LibTorch code ports by renaming.
inline constexpr DType kByte = kUInt8, kChar = kInt8, kShort = kInt16, kInt = kInt32, kLong = kInt64,
                       kHalf = kFloat16, kFloat = kFloat32, kDouble = kFloat64, kComplex64 = kComplexFloat,
                       kComplex128 = kComplexDouble;

/// Size of one element in bytes.
constexpr int64_t element_size(DType t) {
  switch (t) {
#define EMBER_DTYPE_SIZE(T, name, id, py) \
  case DType::name:                       \
    return sizeof(T);
    EMBER_FORALL_DTYPES(EMBER_DTYPE_SIZE)
#undef EMBER_DTYPE_SIZE
  }
  return 0;
}

/// PyTorch's name without the "torch." prefix: "float32", "int64", ...
std::string_view dtype_name(DType t);
/// True when id names a dtype of the list.
bool is_valid_dtype_id(int64_t id);

constexpr bool is_floating_point(DType t) {
  return t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64;
}
/// complex64 and complex128 (Note [complex numbers]).
constexpr bool is_complex(DType t) { return t == kComplexFloat || t == kComplexDouble; }
/// The real dtype of a complex dtype's parts (complex64 -> float32); other dtypes map to themselves.
constexpr DType to_real_dtype(DType t) {
  return t == kComplexFloat ? kFloat32 : t == kComplexDouble ? kFloat64 : t;
}
/// The complex dtype whose parts have floating dtype t, as PyTorch's toComplexType: float64 -> complex128,
/// float32 -> complex64; float16 and bfloat16 -> complex64 (Ember has no complex32, Note [complex numbers]);
/// complex dtypes map to themselves.
constexpr DType to_complex_dtype(DType t) {
  return t == kFloat64 || t == kComplexDouble ? kComplexDouble : kComplexFloat;
}
/// Integral types; bool counts only when include_bool.
constexpr bool is_integral(DType t, bool include_bool) {
  return t == kUInt8 || t == kInt8 || t == kInt16 || t == kInt32 || t == kInt64 || (include_bool && t == kBool);
}
constexpr bool is_signed(DType t) { return t != kUInt8 && t != kBool; }

/// The C++ type stored for a dtype: cpp_type<kFloat32> is float.
template <DType D>
struct dtype_to_cpp;
#define EMBER_DTYPE_TRAIT(T, name, id, py) \
  template <>                              \
  struct dtype_to_cpp<DType::name> {       \
    using type = T;                        \
  };
EMBER_FORALL_DTYPES(EMBER_DTYPE_TRAIT)
#undef EMBER_DTYPE_TRAIT
template <DType D>
using cpp_type = typename dtype_to_cpp<D>::type;

/// The dtype of a C++ element type: dtype_of<float> is kFloat32.
template <class T>
constexpr DType dtype_of();
#define EMBER_CPP_TRAIT(T, name, id, py) \
  template <>                            \
  constexpr DType dtype_of<T>() {        \
    return DType::name;                  \
  }
EMBER_FORALL_DTYPES(EMBER_CPP_TRAIT)
#undef EMBER_CPP_TRAIT

// ---- promotion (PyTorch's documented rules for torch.promote_types / result_type) -------------------------

/// The smallest dtype both a and b convert to without losing their category (bool < integral < floating <
/// complex; a complex dtype with a floating one keeps the wider part: complex64 with float64 is complex128):
/// uint8 with a signed type gives the next signed type that holds both; float16 with bfloat16 gives float32.
DType promote_types(DType a, DType b);

/// Whether a value of dtype `from` may be written into a tensor of dtype `to` by an in-place op or out=:
/// no floating -> integral and no non-bool -> bool (PyTorch's canCast).
bool can_cast(DType from, DType to);

/// Default dtype for Python floats and for factories without dtype (float32 unless changed).
DType default_dtype();
/// Default dtype for Python complex numbers: complex128 when the default dtype is float64, else complex64.
DType default_complex_dtype();
/// Sets the default floating dtype. Errors: `dtype` not floating (TypeError, as PyTorch).
void set_default_dtype(DType dtype);

/// Prints the dtype's name ("float32"), as dtype_name.
inline std::ostream& operator<<(std::ostream& out, DType t) { return out << dtype_name(t); }

}  // namespace ember

template <>
struct fmt::formatter<ember::DType> : fmt::formatter<std::string_view> {
  auto format(ember::DType t, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(ember::dtype_name(t), ctx);
  }
};
