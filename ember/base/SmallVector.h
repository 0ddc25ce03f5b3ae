#pragma once
// A vector of trivially copyable elements that keeps up to N of them inline (no heap allocation for the
// sizes and strides of tensors of rank <= N, which is nearly all of them).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <span>
#include <type_traits>

namespace ember {

template <class T, int N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { assign(n, v); }
  SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  SmallVector(std::span<const T> s) { assign(s.begin(), s.end()); }
  // Iterator overloads are constrained so SmallVector(3, 7) and assign(3, 7) mean "3 copies of 7", as in
  // std::vector, rather than an iterator range of ints.
  template <std::input_iterator It>
  SmallVector(It b, It e) {
    assign(b, e);
  }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept {
    if (o.heap()) {
      data_ = o.data_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.size_ = 0;
      o.cap_ = N;
    } else {
      assign(o.begin(), o.end());
    }
  }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this == &o) return *this;
    if (o.heap()) {
      if (heap()) std::free(data_);
      data_ = o.data_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.size_ = 0;
      o.cap_ = N;
    } else {
      assign(o.begin(), o.end());
    }
    return *this;
  }
  ~SmallVector() {
    if (heap()) std::free(data_);
  }

  template <std::input_iterator It>
  void assign(It b, It e) {
    size_t n = static_cast<size_t>(std::distance(b, e));
    reserve(n);
    std::copy(b, e, data_);
    size_ = n;
  }
  void assign(size_t n, T v) {
    reserve(n);
    std::fill_n(data_, n, v);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    T* p = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data_, size_ * sizeof(T));
    if (heap()) std::free(data_);
    data_ = p;
    cap_ = cap;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(const T* pos, T v) {
    size_t i = static_cast<size_t>(pos - data_);
    push_back(v);
    std::rotate(data_ + i, data_ + size_ - 1, data_ + size_);
  }
  void erase(const T* pos) {
    size_t i = static_cast<size_t>(pos - data_);
    std::copy(data_ + i + 1, data_ + size_, data_ + i);
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  operator std::span<const T>() const { return {data_, size_}; }
  bool operator==(const SmallVector& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  bool heap() const { return data_ != inline_; }
  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace ember
