#include "ember/core/Scalar.h"

#include <cmath>
#include <limits>

namespace ember {

std::string Scalar::str() const {
  switch (tag_) {
    case Tag::Bool:
      return v_.i ? "True" : "False";
    case Tag::Int:
      return std::to_string(v_.i);
    case Tag::Double:
      return fmt::format("{}", v_.d);
  }
  return "";
}

namespace {
template <class T>
bool overflows_as(const Scalar& v) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_floating_point()) {
      int64_t x = v.to_long();
      if constexpr (std::is_unsigned_v<T>) {
        return (x > 0 && static_cast<uint64_t>(x) > L::max()) ||
               (x < 0 && static_cast<uint64_t>(0) - static_cast<uint64_t>(x) > L::max());
      } else {
        return x < static_cast<int64_t>(L::lowest()) || x > static_cast<int64_t>(L::max());
      }
    }
    // int64's max is no double: 2^63 is the first double above the range.
    double x = v.to_double();
    double hi = static_cast<double>(L::max());
    return !(x >= static_cast<double>(L::lowest()) && (sizeof(T) == 8 ? x < hi : x <= hi));  // NaN too
  } else {
    double x = v.to_double();
    if (!std::isfinite(x)) return false;
    return x < static_cast<double>(static_cast<float>(L::lowest())) ||
           x > static_cast<double>(static_cast<float>(L::max()));
  }
}
}  // namespace

bool overflows(const Scalar& v, DType to) {
  switch (to) {
#define EMBER_OVERFLOWS_CASE(T, name, id, py) \
  case DType::name:                           \
    return overflows_as<T>(v);
    EMBER_FORALL_DTYPES(EMBER_OVERFLOWS_CASE)
#undef EMBER_OVERFLOWS_CASE
  }
  return false;
}

}  // namespace ember
