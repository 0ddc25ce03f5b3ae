#pragma once
// ExpandingArray<D>: D integers given either as one value (repeated D times) or as D values, as LibTorch's
// torch::ExpandingArray: kernel sizes, strides and paddings of the options structs, so that
// Conv2dOptions(3, 8, 3) and Conv2dOptions(3, 8, {3, 5}) both work.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/base/Error.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /// D values. Errors: a count other than D.
  /*implicit*/ ExpandingArray(std::initializer_list<T> list) : ExpandingArray(ArrayRef<T>(list)) {}
  /*implicit*/ ExpandingArray(const std::vector<T>& values) : ExpandingArray(ArrayRef<T>(values)) {}
  /*implicit*/ ExpandingArray(ArrayRef<T> values) {
    EMBER_CHECK_VALUE(values.size() == D, "Expected {} values, but instead got {}", D, values.size());
    std::copy(values.begin(), values.end(), values_.begin());
  }
  /// One value for every one of the D entries (anything convertible to T: an int for
  /// ExpandingArray<2, std::optional<int64_t>> too).
  template <std::convertible_to<T> U>
  /*implicit*/ ExpandingArray(U single) {
    values_.fill(T(single));
  }
  /*implicit*/ ExpandingArray(const std::array<T, D>& values) : values_(values) {}

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  T operator[](size_t i) const { return values_[i]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }
  static constexpr size_t size() { return D; }
  bool operator==(const ExpandingArray&) const = default;

 private:
  std::array<T, D> values_;
};

}  // namespace ember
