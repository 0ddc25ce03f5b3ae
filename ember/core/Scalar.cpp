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
    case Tag::Complex:
      return fmt::format("({}{}{}j)", v_.d, im_ < 0 || std::signbit(im_) ? "" : "+", im_);
  }
  return "";
}

namespace {
template <class T>
bool overflows_as(const Scalar& v) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    // Each part as the real type would (c10::overflows of a complex target checks the real part as float).
    using V = typename T::value_type;
    auto part = [](double x) {
      return std::isfinite(x) && (x < static_cast<double>(std::numeric_limits<V>::lowest()) ||
                                  x > static_cast<double>(std::numeric_limits<V>::max()));
    };
    return part(v.to_double()) || part(v.imag());
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
  // As c10::overflows of a complex value: into a real type it overflows when its imaginary part is nonzero,
  // else its real part decides.
  if (v.is_complex() && !is_complex(to)) return v.imag() != 0 || overflows(Scalar(v.to_double()), to);
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
