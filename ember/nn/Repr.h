#pragma once
// How modules print their settings in extra_repr(): Python's str() of the same values, so a C++ module prints
// as the Python module of the same layer does ("Dropout(p=0.5, inplace=False)").
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "ember/base/ArrayRef.h"

namespace ember::nn::repr {

/// Python's str(float): the shortest round-trip digits, always with a '.' or an exponent ("1.0", "0.1",
/// "1e-05", "inf", "nan").
inline std::string py(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // fmt's shortest form is Python's repr (exponent below 1e-4 and from 1e16 on, two-digit exponents) except
  // that Python adds ".0" to integral values.
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}
/// Python's str(bool): "True" / "False".
inline std::string py(bool v) { return v ? "True" : "False"; }
/// Python's str(int).
inline std::string py(int64_t v) { return std::to_string(v); }
inline std::string py(int v) { return std::to_string(v); }
/// Python's str() of an optional int: the number or "None".
inline std::string py(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "None"; }
/// Python's str(tuple of ints): "(2, 3)", "(4,)", "()".
inline std::string py_tuple(IntArrayRef v) {
  if (v.size() == 1) return fmt::format("({},)", v[0]);
  return fmt::format("({})", fmt::join(v, ", "));
}

/// Python's str() of a size an option holds as D entries but a user may give as one number: the number when
/// every entry is the same ("2", "0.5"), else the tuple ("(2, 3)").
template <typename T, size_t D>
std::string py_size(const std::array<T, D>& v) {
  bool same = true;
  for (size_t i = 1; i < D; ++i) same = same && v[i] == v[0];
  if (same) return py(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < D; ++i) s += (i ? ", " : "") + py(v[i]);
  return s + (D == 1 ? ",)" : ")");
}

}  // namespace ember::nn::repr
