#pragma once
// Indexing of tensors with PyTorch's rules, for C++ (LibTorch's at::indexing API) and Python (x[...] and
// x[...] = v in python/csrc/indexing.cpp, which converts its index objects to TensorIndex and calls
// get_item / set_item here): one implementation (Note [tensor indexing] in TensorIndexing.cpp).
//
//   using namespace ember::indexing;
//   Tensor y = x.index({Slice(0, 2), 1});          // x[0:2, 1]
//   x.index_put_({"...", None, Slice(None, None, 2)}, 0.5);  // x[..., None, ::2] = 0.5
//   Tensor z = x.index({mask});                    // x[mask], a copy (advanced indexing)
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "ember/core/Tensor.h"

namespace ember::indexing {

/// `None` in an index: a new dim of size 1 (Python's x[None]).
inline constexpr std::nullopt_t None = std::nullopt;

/// The type of `Ellipsis` (Python's `...`; the string "..." is accepted too).
struct EllipsisIndexType {
  constexpr EllipsisIndexType() = default;
};
/// `Ellipsis` in an index: as many full slices as the dims the other items leave unnamed.
inline constexpr EllipsisIndexType Ellipsis;

/// Python's start:stop:step. Absent bounds mean the whole dim; start and stop may be negative (counted from
/// the end) and are clamped to the dim as Python's slices are. Errors (ValueError): step 0 ("slice step
/// cannot be zero") or negative ("step must be greater than zero": tensors have no negative strides).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt);
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }
  /// The check the constructor makes on step, for callers that read step before the bounds (Python does).
  static void check_step(int64_t step);

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_ = 1;
};

/// One item of an index: None, Ellipsis (or "..."), an integer, a bool, a Slice or a Tensor (integer indices
/// or a bool/uint8 mask; a 0-dim integer tensor acts as an integer).
class TensorIndex {
 public:
  enum class Type : uint8_t { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : type_(Type::None) {}
  TensorIndex(EllipsisIndexType) : type_(Type::Ellipsis) {}
  /// "..." only. Errors (ValueError): any other string.
  TensorIndex(const char* str);
  /// Any integer type but bool (bools select through a new dim, as in Python).
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T integer) : integer_(checked_integer(integer)), type_(Type::Integer) {}
  template <class T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T boolean) : boolean_(boolean), type_(Type::Boolean) {}
  TensorIndex(Slice slice) : slice_(slice), type_(Type::Slice) {}
  TensorIndex(Tensor tensor) : tensor_(std::move(tensor)), type_(Type::Tensor) {}

  /// A tensor made from a Python list: it names one dim of the index even when it is a mask of several
  /// dims (how PyTorch 1.13's Python indexing counts a list before converting it).
  static TensorIndex from_sequence(Tensor tensor) {
    TensorIndex r(std::move(tensor));
    r.from_sequence_ = true;
    return r;
  }

  Type type() const { return type_; }
  bool is_none() const { return type_ == Type::None; }
  bool is_ellipsis() const { return type_ == Type::Ellipsis; }
  bool is_integer() const { return type_ == Type::Integer; }
  bool is_boolean() const { return type_ == Type::Boolean; }
  bool is_slice() const { return type_ == Type::Slice; }
  bool is_tensor() const { return type_ == Type::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }
  bool is_from_sequence() const { return from_sequence_; }

 private:
  template <class T>
  static int64_t checked_integer(T v) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      EMBER_CHECK_INDEX(v <= static_cast<T>(std::numeric_limits<int64_t>::max()), "index {} is out of range", v);
    }
    return static_cast<int64_t>(v);
  }

  int64_t integer_ = 0;
  bool boolean_ = false;
  bool from_sequence_ = false;
  Slice slice_;
  Tensor tensor_;
  Type type_;
};

/// self[indices] (PyTorch's x[...] and LibTorch's x.index(...)): items applied left to right; integers,
/// slices, None and Ellipsis make a view, and any tensor or bool item makes the result a copy through
/// aten::index (advanced indexing). A lone Ellipsis returns an alias.
/// Errors (IndexError): more items than dims ("too many indices for tensor of dimension 2"); an integer out of
/// range ("index 3 is out of bounds for dimension 1 with size 3"; the dim is the item's position); an integer
/// into a 0-dim tensor; an index tensor of a non-integer dtype; (ValueError) a bad slice step.
Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices);

/// self[indices] = value (LibTorch's x.index_put_(indices, value)): value, without its leading size-1 dims,
/// broadcast to the selected part and copied in; through aten::index_put_ when an item is a tensor or bool.
/// Errors: as get_item; a value that does not broadcast (RuntimeError naming both shapes).
void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value);

/// The value of self[...] = v for a number: a 0-dim tensor of self's dtype. Errors: v does not fit that dtype
/// (RuntimeError, as PyTorch's "value cannot be converted to type int8_t without overflow").
Tensor value_to_tensor(const Tensor& self, const Scalar& v);

}  // namespace ember::indexing
