#pragma once
// A non-owning view of contiguous elements (pointer + length), constructible from a braced list, a vector,
// a SmallVector or a single element, so `zeros({2, 3})` and `x.sum(dims)` read as in LibTorch. Like any
// view it must not outlive what it views (a braced list lives until the end of the full expression).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
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
#if !defined(__clang__)  // GCC's warning; Clang has no such group
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
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
  /// Element-wise equality, as LibTorch's `t.sizes() == other.sizes()` or `sizes == IntArrayRef({2, 3})`.
  friend bool operator==(ArrayRef a, ArrayRef b) { return a.equals(b); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;
// Note [optional array refs]
// `std::optional<IntArrayRef>` would dangle for `x.sum(1)`: optional's converting constructor receives the int,
// makes the int64_t that ArrayRef views *inside* the constructor, and destroys it on return. OptionalArrayRef
// takes each source by reference in its own constructor, so the caller's temporary (an int converted to int64_t
// at the call site, or a braced list) lives until the end of the full expression, as with a plain ArrayRef.

/// An optional ArrayRef (a schema's `int[]?`): std::nullopt, or a view of one element, a braced list, a vector,
/// a SmallVector or an ArrayRef. The std::optional-like accessors (has_value, *, ->, value) read the view.
template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  constexpr OptionalArrayRef(std::nullopt_t) {}
  constexpr OptionalArrayRef(ArrayRef<T> r) : ref_(r) {}
  constexpr OptionalArrayRef(const T& one) : ref_(ArrayRef<T>(one)) {}
#pragma GCC diagnostic push
#if !defined(__clang__)  // GCC's warning; Clang has no such group
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr OptionalArrayRef(std::initializer_list<T> l) : ref_(ArrayRef<T>(l)) {}
#pragma GCC diagnostic pop
  OptionalArrayRef(const std::vector<T>& v) : ref_(ArrayRef<T>(v)) {}
  template <int N>
  OptionalArrayRef(const SmallVector<T, N>& v) : ref_(ArrayRef<T>(v)) {}
  constexpr OptionalArrayRef(const std::optional<ArrayRef<T>>& o) : ref_(o) {}

  constexpr bool has_value() const { return ref_.has_value(); }
  constexpr explicit operator bool() const { return ref_.has_value(); }
  constexpr const ArrayRef<T>& operator*() const { return *ref_; }
  constexpr const ArrayRef<T>* operator->() const { return &*ref_; }
  constexpr const ArrayRef<T>& value() const { return ref_.value(); }
  constexpr ArrayRef<T> value_or(ArrayRef<T> d) const { return ref_.value_or(d); }
  constexpr operator std::optional<ArrayRef<T>>() const { return ref_; }
  friend constexpr bool operator==(const OptionalArrayRef& a, std::nullopt_t) { return !a.ref_; }

 private:
  std::optional<ArrayRef<T>> ref_;
};

/// An optional list of ints (a schema's `int[]?`) that views the list without copying; see
/// Note [optional array refs].
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;
/// Sizes and strides of one tensor: inline up to rank 6.
using DimVector = SmallVector<int64_t, 6>;

/// Prints "[2, 3]" (LibTorch's `std::cout << t.sizes()`).
template <class T>
std::ostream& operator<<(std::ostream& out, ArrayRef<T> a) {
  out << '[';
  for (size_t i = 0; i < a.size(); ++i) out << (i ? ", " : "") << a[i];
  return out << ']';
}

}  // namespace ember
// fmt formats an ArrayRef as a range ("[1, 2]") through fmt/ranges.h.
