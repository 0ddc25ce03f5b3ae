#pragma once
// The public functional API: ember::add(a, b), ember::zeros({2, 3}), ... One function per op of the database
// (generated, ember/ops/generated/Functions.inc), plus the few helpers below that are not ops.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/core/TensorOptions.h"
#include "ember/core/TypePromotion.h"
#include "ember/dispatch/Boxing.h"

namespace ember {

#include "ember/ops/generated/Functions.inc"

/// A 0-dim tensor holding s, marked as a wrapped number so it promotes like a Python number (Note
/// [promotion]): bool, int64 or float64 storage.
Tensor wrapped_scalar_tensor(const Scalar& s);

/// A tensor of the given sizes and dtype copied from `data` (size * element_size bytes, row-major).
Tensor tensor_from_buffer(const void* data, IntArrayRef sizes, DType dtype);

/// A tensor over memory the caller owns (not copied); deleter(ctx, data) runs when the last user goes.
/// strides default to contiguous. Errors: negative sizes or strides.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, DType dtype,
                 StorageImpl::Deleter deleter = nullptr, void* ctx = nullptr);
Tensor from_blob(void* data, IntArrayRef sizes, DType dtype);

// Factories with LibTorch's TensorOptions (ember/core/TensorOptions.h): the same as the dtype/device forms
// above, then requires_grad_ when the options ask for it. Errors: as those forms; requires_grad with an
// integer dtype ("only Tensors of floating point ... can require gradients").
Tensor empty(IntArrayRef size, const TensorOptions& options);
Tensor zeros(IntArrayRef size, const TensorOptions& options);
Tensor ones(IntArrayRef size, const TensorOptions& options);
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options);
Tensor rand(IntArrayRef size, const TensorOptions& options);
Tensor randn(IntArrayRef size, const TensorOptions& options);
Tensor arange(const Scalar& end, const TensorOptions& options);
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options);
Tensor eye(int64_t n, const TensorOptions& options);
Tensor empty_like(const Tensor& self, const TensorOptions& options);
Tensor zeros_like(const Tensor& self, const TensorOptions& options);
Tensor ones_like(const Tensor& self, const TensorOptions& options);
Tensor full_like(const Tensor& self, const Scalar& fill_value, const TensorOptions& options);
Tensor randn_like(const Tensor& self, const TensorOptions& options);
/// from_blob with LibTorch's TensorOptions (dtype, default float32; device, only the CPU; requires_grad).
/// Errors: a non-CPU device; as the dtype forms.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options);
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options);
/// A float32 tensor over data (LibTorch's torch::from_blob(ptr, sizes), whose default dtype is float32),
/// contiguous. The memory stays the caller's and must outlive the tensor.
Tensor from_blob(void* data, IntArrayRef sizes);

/// The values of ember::tensor (LibTorch's torch::tensor): a number, a braced list of numbers, nested braced
/// lists (one level per dim), or a std::vector of numbers.
class TensorData {
 public:
  template <class T>
    requires std::is_arithmetic_v<T>
  TensorData(T v) : sizes_(), values_{Scalar(v)} {}
  TensorData(std::initializer_list<TensorData> items);
  template <class T>
    requires std::is_arithmetic_v<T>
  TensorData(const std::vector<T>& v) : sizes_{static_cast<int64_t>(v.size())} {
    values_.reserve(v.size());
    for (const T& x : v) values_.emplace_back(x);
  }
  IntArrayRef sizes() const { return sizes_; }
  const std::vector<Scalar>& values() const { return values_; }

 private:
  std::vector<int64_t> sizes_;
  std::vector<Scalar> values_;  // row-major
};

/// A new tensor holding `data` (copied), as LibTorch's torch::tensor: ember::tensor({1.5, 2.0}),
/// ember::tensor({{1, 2}, {3, 4}}, ember::kInt32), ember::tensor(3.0). Without a dtype: float32 (the default
/// dtype) when a value is floating, else int64 when a value is an integer, else bool; a given dtype is a cast
/// (as .to(dtype)). Errors (RuntimeError): nested lists of uneven lengths (naming the expected and found sizes).
Tensor tensor(const TensorData& data, std::optional<DType> dtype = std::nullopt);
Tensor tensor(const TensorData& data, const TensorOptions& options);

}  // namespace ember
