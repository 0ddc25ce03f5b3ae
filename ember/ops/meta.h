#pragma once
// Note [shape rules]
// Each op of the database names a shape/dtype rule (`shape:`, ember/ops/README.md) or says why it has none
// (`no_shape:`). infer_meta() applies the rule to a call's boxed arguments and returns the result's sizes and
// dtype without computing anything, so graph passes can propagate shapes and tests can check every kernel
// against its rule. The rules:
//   unary        self's sizes and dtype
//   unary_float  self's sizes; integral and bool dtypes become the default floating dtype
//   unary_bool   self's sizes; bool
//   square       self's sizes; bool becomes int64 (square is pow(x, 2))
//   binary       the broadcast of every tensor argument; result_type of every tensor and number argument
//   binary_float binary, then integral and bool become the default floating dtype
//   compare      the broadcast of the tensor arguments; bool
//   where        binary over self and other, broadcast with condition too
//   view         the view op itself (views are computed from geometry only)
//   factory      `size` (or self's sizes for *_like) and the dtype argument (or the op's default)
// In-place variants give self's meta; out= variants give the rule's sizes with out's dtype.
#include <optional>

#include "ember/dispatch/Dispatcher.h"

namespace ember {

/// The sizes and dtype of a tensor result.
struct TensorMeta {
  DimVector sizes;
  DType dtype = kFloat32;
};

/// The meta of op's (first) result for a full boxed argument list (defaults filled), or nullopt when the op
/// has no rule. Errors: the shape errors the op itself raises (e.g. shapes that do not broadcast).
std::optional<TensorMeta> infer_meta(const OperatorHandle& op, const Stack& args);

}  // namespace ember
