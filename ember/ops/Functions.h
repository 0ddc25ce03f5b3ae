#pragma once
// The public functional API: ember::add(a, b), ember::zeros({2, 3}), ... One function per op of the database
// (generated, ember/ops/generated/Functions.inc), plus the few helpers below that are not ops.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/Tensor.h"
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

}  // namespace ember
