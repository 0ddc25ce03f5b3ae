#pragma once
// LibTorch's spellings that a program renamed torch -> ember still uses, gathered in one place (part of
// <ember/ember.h>, as LibTorch's <torch/torch.h> gives them):
//   - the standard headers <torch/torch.h> brings in (a LibTorch program may use std::cout, std::ifstream,
//     std::setprecision, std::thread, ... after including only it);
//   - ATen's and c10's names in namespace ember: ScalarType, kF32 / kI64 / ..., toString(ScalarType),
//     optional / nullopt, irange, Reduction::Mean / Sum, autograd::tensor_list;
//   - the namespaces at:: and c10:: as aliases of ember:: (at::Tensor, c10::optional, c10::Error, c10::IntArrayRef,
//     at::Reduction::Sum, c10::str, ...). Define EMBER_NO_AT_NAMESPACES before including <ember/ember.h> when
//     the program also includes real ATen or c10 headers, whose namespaces the aliases would collide with.
// LibTorch's macros come from ember/base/Error.h under the renamed spelling a program has after torch -> ember
// (TORCH_CHECK is EMBER_CHECK, TORCH_WARN EMBER_WARN, TORCH_INTERNAL_ASSERT EMBER_INTERNAL_ASSERT) and under
// their own names for AT_ASSERT, AT_ASSERTM and AT_ERROR; LibTorch's variadic messages work (Note [check messages]).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/autograd/Node.h"
#include "ember/core/DType.h"
#include "ember/ops/Functions.h"
#include "ember/ops/linalg.h"

namespace ember {

/// c10::ScalarType: Ember's DType is the one dtype type (kFloat, kLong, ... are its values).
using ScalarType = DType;

// ATen's short dtype names (torch::kF32, ...).
inline constexpr DType kU8 = kUInt8, kI8 = kInt8, kI16 = kInt16, kI32 = kInt32, kI64 = kInt64, kF16 = kFloat16,
                       kF32 = kFloat32, kF64 = kFloat64, kBF16 = kBFloat16;

/// c10::toString(ScalarType): the ScalarType's name, "Float", "Long", "Bool", ...
inline std::string_view toString(DType t) { return linalg::scalar_type_name(t); }

// c10::optional and friends (std::optional, as c10's is since PyTorch 2.x).
template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;

/// c10::irange(end) and irange(begin, end): the integers of [begin, end), for range-for loops.
template <class T>
class IntegerRange {
 public:
  class iterator {
   public:
    explicit iterator(T v) : v_(v) {}
    T operator*() const { return v_; }
    iterator& operator++() {
      ++v_;
      return *this;
    }
    bool operator==(const iterator& o) const { return v_ == o.v_; }

   private:
    T v_;
  };
  IntegerRange(T begin, T end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  T begin_, end_;
};
template <class T>
  requires std::is_integral_v<T>
IntegerRange<T> irange(T end) {
  return IntegerRange<T>(T(0), end);
}
template <class T, class U>
  requires std::is_integral_v<T> && std::is_integral_v<U>
IntegerRange<std::common_type_t<T, U>> irange(T begin, U end) {
  return IntegerRange<std::common_type_t<T, U>>(begin, end);
}

/// ember::tensor of the values an ArrayRef views (LibTorch's torch::tensor(at::ArrayRef<T>)), copied; dtype as
/// ember::tensor's for a std::vector of the same values.
template <class T>
  requires std::is_arithmetic_v<T>
Tensor tensor(ArrayRef<T> values, std::optional<DType> dtype = std::nullopt) {
  return tensor(std::vector<T>(values.begin(), values.end()), dtype);
}
template <class T>
  requires std::is_arithmetic_v<T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options) {
  return tensor(std::vector<T>(values.begin(), values.end()), options);
}

// TensorOptions forms of factories that LibTorch programs call with options (the dtype/device forms are the
// generated ones of ember/ops/Functions.h; these forward to them, then apply requires_grad).
namespace detail {
inline Tensor apply_requires_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace detail
/// Uniform random integers in [low, high) (LibTorch's torch::randint(low, high, size, options)); the dtype
/// defaults to int64 as the dtype form's.
inline Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options) {
  return detail::apply_requires_grad(
      randint(low, high, size, options.has_dtype() ? options.dtype() : kInt64, options.device_opt()), options);
}
inline Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint(0, high, size, options);
}
/// steps values evenly spaced over [start, end] (LibTorch's torch::linspace(start, end, steps, options)).
inline Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  return detail::apply_requires_grad(linspace(start, end, steps, options.dtype_opt(), options.device_opt()),
                                     options);
}
/// A random permutation of 0..n-1 (LibTorch's torch::randperm(n, options)); int64 by default.
inline Tensor randperm(int64_t n, const TensorOptions& options) {
  return randperm(n, options.has_dtype() ? options.dtype() : kInt64, options.device_opt());
}

/// at::Reduction: the integer reductions of the loss functions of the functional API
/// (`ember::nll_loss(x, y, {}, ember::Reduction::Sum)`); ember::kSum and friends are the options structs' form.
namespace Reduction {
enum Reduction { None, Mean, Sum, END };
}  // namespace Reduction

namespace autograd {
/// LibTorch's other name of variable_list (torch::autograd::tensor_list).
using tensor_list = std::vector<Tensor>;
}  // namespace autograd

}  // namespace ember

#ifndef EMBER_NO_AT_NAMESPACES
namespace at = ::ember;
namespace c10 = ::ember;
#endif
