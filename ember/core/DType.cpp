#include "ember/core/DType.h"

#include <atomic>
#include <utility>

namespace ember {

std::string_view dtype_name(DType t) {
  switch (t) {
#define EMBER_DTYPE_NAME(T, name, id, py) \
  case DType::name:                       \
    return #py;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_NAME)
#undef EMBER_DTYPE_NAME
  }
  return "invalid";
}

bool is_valid_dtype_id(int64_t id) {
  switch (id) {
#define EMBER_DTYPE_ID(T, name, i, py) case i:
    EMBER_FORALL_DTYPES(EMBER_DTYPE_ID)
#undef EMBER_DTYPE_ID
    return true;
    default:
      return false;
  }
}

namespace {
// Rank of a floating type by precision for promotion; float16 and bfloat16 share a rank (their join is float32).
int float_rank(DType t) { return t == kFloat64 ? 3 : t == kFloat32 ? 2 : 1; }
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  if (is_complex(a) || is_complex(b)) {  // the wider part: complex64 with float64 is complex128
    if (!is_complex(a)) std::swap(a, b);  // a complex
    if (a == kComplexDouble || b == kComplexDouble || b == kFloat64) return kComplexDouble;
    return kComplexFloat;
  }
  bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return kFloat32;  // float16 with bfloat16
    return ra > rb ? a : b;
  }
  // Both integral and different.
  if (a == kUInt8 || b == kUInt8) {
    DType s = a == kUInt8 ? b : a;  // the signed one
    return element_size(s) > 1 ? s : kInt16;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {
std::atomic<DType> g_default_dtype{kFloat32};
}

DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

DType default_complex_dtype() { return default_dtype() == kFloat64 ? kComplexDouble : kComplexFloat; }

void set_default_dtype(DType dtype) {
  EMBER_CHECK_TYPE(is_floating_point(dtype),
                   "set_default_dtype: only floating-point types are supported as the default type, got {}", dtype);
  g_default_dtype.store(dtype, std::memory_order_relaxed);
}

}  // namespace ember
