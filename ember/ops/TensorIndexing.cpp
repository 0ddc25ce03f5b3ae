#include "ember/ops/TensorIndexing.h"

#include <string_view>

#include "ember/ops/Functions.h"

namespace ember::indexing {

// Note [tensor indexing]
// x[index] and x[index] = v follow PyTorch 1.13 (its get_item/set_item) step by step, so result shapes, views
// versus copies and errors match it. C++ callers pass TensorIndex items; the Python binding
// (python/csrc/indexing.cpp, Note [python indexing]) turns its index objects into the same items first.
//  1. One integer, slice, None or Ellipsis is basic indexing: a view (select, slice, unsqueeze, alias).
//  2. Otherwise the items are applied left to right: integers select (a 0-dim integer tensor too), slices
//     slice, None unsqueezes, Ellipsis skips the dims no item names; tensors and bools are recorded as
//     advanced indices at the current dim. A bool or a 0-dim bool tensor adds a dim of size 1 that is
//     indexed by [0] (true) or [] (false). A mask counts for its number of dims when checking "too many
//     indices" (a list from Python counts as one: TensorIndex::from_sequence) but, as in PyTorch, advances
//     the position by one.
//  3. With no advanced index the result is the view; else aten::index (Note [advanced indexing] in
//     ember/kernels/cpu/index.cpp) makes a copy, and assignment is index_put_ on the view.
// Assignment drops the leading size-1 dims of the value and broadcasts it to the target (a 0-dim value fills).

Slice::Slice(std::optional<int64_t> start, std::optional<int64_t> stop, std::optional<int64_t> step)
    : start_(start), stop_(stop), step_(step.value_or(1)) {
  check_step(step_);
}

void Slice::check_step(int64_t step) {
  EMBER_CHECK_VALUE(step != 0, "slice step cannot be zero");
  EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
}

TensorIndex::TensorIndex(const char* str) : type_(Type::Ellipsis) {
  EMBER_CHECK_VALUE(str && std::string_view(str) == "...",
                    "Expected \"...\" to represent an ellipsis index, but got \"{}\"", str ? str : "");
}

namespace {

using Indices = std::vector<std::optional<Tensor>>;

bool is_mask(DType d) { return d == kBool || d == kUInt8; }

Tensor apply_slice(const Tensor& t, int64_t dim, const Slice& s) {
  EMBER_CHECK_INDEX(t.dim() > 0, "too many indices for tensor of dimension 0");
  return t.slice(dim, s.start(), s.stop(), s.step());
}

// t.select(dim, index) with PyTorch's messages; real_dim is the position of the item in the index.
Tensor apply_select(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK_INDEX(!(index == 0 && dim == 0 && t.dim() == 0),
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                    "convert a 0-dim tensor to a number");
  EMBER_CHECK_INDEX(dim < t.dim(), "too many indices for tensor of dimension {}", t.dim());
  int64_t size = t.size(dim);
  EMBER_CHECK_INDEX(size >= -index && size > index, "index {} is out of bounds for dimension {} with size {}", index,
                    real_dim, size);
  return t.select(dim, index);
}

// A bool as the index of a new size-1 dim: [0] keeps it, [] empties it.
Tensor bool_index(bool value) { return value ? ember::zeros({1}, kInt64) : ember::empty({0}, kInt64); }

// The dims the items name (step 2 of Note [tensor indexing]).
int64_t count_specified_dims(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_tensor()) {
      count += is_mask(i.tensor().dtype()) && !i.is_from_sequence() ? i.tensor().dim() : 1;
    } else if (i.is_integer() || i.is_slice()) {
      ++count;
    }
  }
  return count;
}

// Step 2 of Note [tensor indexing]: the view after the basic items, with the advanced ones in `out`.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, Indices& out) {
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension {}", self.dim());
  Tensor result = self;
  int64_t dim = 0;
  auto record = [&](Tensor t) {
    out.resize(static_cast<size_t>(dim + 1));
    out[static_cast<size_t>(dim)] = std::move(t);
    ++dim;
  };
  for (size_t pos = 0; pos < indices.size(); ++pos) {
    const TensorIndex& i = indices[pos];
    const auto real_dim = static_cast<int64_t>(pos);
    switch (i.type()) {
      case TensorIndex::Type::Integer:
        result = apply_select(result, dim, i.integer(), real_dim);
        break;
      case TensorIndex::Type::Slice:
        result = apply_slice(result, dim++, i.slice());
        break;
      case TensorIndex::Type::Ellipsis:
        dim += self.dim() - specified;
        break;
      case TensorIndex::Type::None:
        result = result.unsqueeze(dim++);
        break;
      case TensorIndex::Type::Boolean:
        result = result.unsqueeze(dim);
        record(bool_index(i.boolean()));
        break;
      case TensorIndex::Type::Tensor: {
        const Tensor& t = i.tensor();
        EMBER_CHECK(t.defined(), "index: an index tensor is undefined");
        if (t.dim() == 0 && is_integral(t.dtype(), true)) {
          if (!is_mask(t.dtype())) {
            result = apply_select(result, dim, t.item().to_long(), real_dim);
          } else {
            result = result.unsqueeze(dim);
            record(bool_index(t.item().to_bool()));
          }
        } else {
          record(t);
        }
        break;
      }
    }
  }
  return result;
}

// dst = src as PyTorch's copy_to: equal shapes copy, a 0-dim src fills, else src without its leading size-1
// dims is broadcast to dst.
void copy_to(const Tensor& dst, const Tensor& src) {
  if (dst.sizes().equals(src.sizes())) {
    dst.copy_(src);
    return;
  }
  if (src.dim() == 0) {
    dst.fill_(src.item());
    return;
  }
  IntArrayRef s = src.sizes();
  size_t first = 0;
  while (first < s.size() && s[first] == 1) ++first;
  Tensor v = src.view(IntArrayRef(s.data() + first, s.size() - first));
  dst.copy_(v.expand(dst.sizes()));
}

}  // namespace

Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices) {
  EMBER_CHECK(self.defined(), "index: called on an undefined tensor");
  // Step 1 of Note [tensor indexing]: the basic single items.
  if (indices.size() == 1) {
    const TensorIndex& i = indices[0];
    if (i.is_none()) return self.unsqueeze(0);
    if (i.is_ellipsis()) return ember::alias(self);
    if (i.is_integer()) return apply_select(self, 0, i.integer(), 0);
    if (i.is_slice()) return apply_slice(self, 0, i.slice());
  }
  Indices advanced;
  Tensor sliced = apply_slicing(self, indices, advanced);
  if (advanced.empty()) return sliced.is_same(self) ? ember::alias(self) : sliced;
  return ember::index(sliced, advanced);
}

void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value) {
  EMBER_CHECK(self.defined() && value.defined(), "index_put_: called with an undefined tensor");
  if (indices.size() == 1) {
    const TensorIndex& i = indices[0];
    if (i.is_boolean() && !i.boolean()) return;  // an empty selection (PyTorch does not check the value's size)
    if (i.is_ellipsis()) return copy_to(self, value);
    if (i.is_none() || i.is_boolean()) return copy_to(self.unsqueeze(0), value);
    if (i.is_integer()) return copy_to(apply_select(self, 0, i.integer(), 0), value);
    if (i.is_slice()) return copy_to(apply_slice(self, 0, i.slice()), value);
  }
  Indices advanced;
  Tensor sliced = apply_slicing(self, indices, advanced);
  if (advanced.empty()) return copy_to(sliced, value);
  IntArrayRef s = value.sizes();
  size_t first = 0;
  while (first < s.size() && s[first] == 1) ++first;
  Tensor v = first == 0 ? value : value.view(IntArrayRef(s.data() + first, s.size() - first));
  ember::index_put_(sliced, advanced, v, false);
}

Tensor value_to_tensor(const Tensor& self, const Scalar& v) { return ember::full(IntArrayRef(), v, self.dtype()); }

}  // namespace ember::indexing

namespace ember {

Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const { return indexing::get_item(*this, indices); }

Tensor Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& value) const {
  indexing::set_item(*this, indices, value);
  return *this;
}

Tensor Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value) const {
  indexing::set_item(*this, indices, indexing::value_to_tensor(*this, value));
  return *this;
}

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return indexing::get_item(*this, ArrayRef<indexing::TensorIndex>(indices));
}

Tensor Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), value);
}

Tensor Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), value);
}

}  // namespace ember
