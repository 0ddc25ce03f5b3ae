#pragma once
// A non-owning view of contiguous elements (pointer + length), constructible from a braced list, a vector,
// a SmallVector or a single element, so `zeros({2, 3})` and `x.sum(dims)` read as in LibTorch. Like any
// view it must not outlive what it views (a braced list lives until the end of the full expression).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "ember/base/Error.h"
#include "ember/base/SmallVector.h"

namespace ember {

template <class T>
class ArrayRef {
 public:
  using value_type = T;
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  // Views a braced list for the duration of the full expression, as LibTorch's IntArrayRef does.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  template <int N>
  ArrayRef(const SmallVector<T, N>& v) : data_(v.data()), size_(v.size()) {}
  constexpr ArrayRef(std::span<const T> s) : data_(s.data()), size_(s.size()) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return {begin(), end()}; }
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == o.data_[i])) return false;
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;
/// An optional list of ints (a schema's `int[]?`) that views the list without copying.
using OptionalIntArrayRef = std::optional<IntArrayRef>;
/// Sizes and strides of one tensor: inline up to rank 6.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace ember
// fmt formats an ArrayRef as a range ("[1, 2]") through fmt/ranges.h.
