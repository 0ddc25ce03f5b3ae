// Indexing ops written with other ops (ops_index.yaml): the numpy-style forms of nonzero; take and
// take_along_dim (index_select and gather of flattened or broadcast operands).
#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"
#include "ember/ops/shape.h"

namespace ember::composite {

std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  // A 0-dim tensor counts as one element of a 1-D tensor, as NumPy (and PyTorch) do.
  Tensor nz = self.dim() == 0 ? self.unsqueeze(0).nonzero() : self.nonzero();
  std::vector<Tensor> columns;
  columns.reserve(static_cast<size_t>(nz.size(1)));
  for (int64_t j = 0; j < nz.size(1); ++j) columns.push_back(nz.select(1, j));
  return columns;
}

Tensor argwhere(const Tensor& self) { return self.nonzero(); }

std::vector<Tensor> where_condition(const Tensor& condition) { return condition.nonzero_numpy(); }

namespace {

// The int64 indices into a flattened tensor of n elements, checked and wrapped (negative ones count from the end),
// as a 1-D int64 tensor (take, put).
Tensor wrap_flat_indices(const Tensor& index, int64_t n) {
  Tensor idx = index.reshape({-1}).contiguous();
  Tensor wrapped = ember::empty({idx.numel()}, kInt64);
  const int64_t* in = idx.data_ptr<int64_t>();
  int64_t* w = wrapped.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    EMBER_CHECK_INDEX(in[i] >= -n && in[i] < n, "out of range: tried to access index {} on a tensor of {} elements.",
                      in[i], n);
    w[i] = in[i] < 0 ? in[i] + n : in[i];
  }
  return wrapped;
}

}  // namespace

// The indices are checked and wrapped (negative ones count from the end) on the host, then index_select of the
// flattened self takes the elements (its backward accumulates repeated indices).
Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, "take(): Expected a long tensor for index, but got {}",
              linalg::scalar_type_name(index.dtype()));
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(n > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  return self.reshape({-1}).index_select(0, wrap_flat_indices(index, n)).view(index.sizes());
}
Tensor take_out(const Tensor& self, const Tensor& index, const Tensor& out) {
  return write_out("take", out, composite::take(self, index));
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "torch.take_along_dim(): dtype of indices should be Long but got {}",
              linalg::scalar_type_name(indices.dtype()));
  if (!dim) return self.view({-1}).gather(0, indices.view({-1}));
  EMBER_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got {} dimensions for input, and {} dimensions for indices", self.dim(), indices.dim());
  const int64_t d = checked_dim("take_along_dim", *dim, self.dim());
  // Every dim but d broadcast between the two; along d, indices keeps its size and self its own.
  DimVector self_sizes(self.sizes().begin(), self.sizes().end()), index_sizes(indices.sizes().begin(),
                                                                             indices.sizes().end());
  if (self.dim() > 0) {
    self_sizes[d] = indices.size(d);
    index_sizes[d] = self.size(d);
  }
  Tensor idx = indices.expand(broadcast_shapes(self_sizes, indices.sizes()));
  return self.expand(broadcast_shapes(index_sizes, self.sizes())).gather(d, idx);
}
Tensor take_along_dim_out(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim, const Tensor& out) {
  return write_out("take_along_dim", out, composite::take_along_dim(self, indices, dim));
}

}  // namespace ember::composite

// index_copy, index_fill, masked_scatter, put and the *_scatter ops (ops_index.yaml): written with index_put,
// masked_fill and copy_ into a view, whose derivatives are PyTorch's for these ops.
namespace ember::composite {

namespace {

// index as a 1-D int64 vector, checked as PyTorch's index_copy_ (fill = false: no negative indices; IndexError
// for a 2-D index, RuntimeError for another dtype) and index_fill_ (the other way round; negative indices wrap).
Tensor index_vector(const char* name, const Tensor& self, int64_t d, const Tensor& index, bool fill) {
  if (fill) {
    EMBER_CHECK(index.dim() <= 1, "{}(): Index has to be a vector/scalar (got a {}-D index)", name, index.dim());
    EMBER_CHECK_INDEX(index.dtype() == kInt64, "{}(): Expected dtype int64 for index (got {}).", name,
                      linalg::scalar_type_name(index.dtype()));
  } else {
    EMBER_CHECK_INDEX(index.dim() <= 1, "{}(): Index is supposed to be a vector, but got a {}-D index", name,
                      index.dim());
    EMBER_CHECK(index.dtype() == kInt64, "{}(): Expected a long tensor for index, but got {}", name,
                linalg::scalar_type_name(index.dtype()));
  }
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  Tensor idx = index.reshape({-1}).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    EMBER_CHECK_INDEX(p[i] >= (fill ? -n : 0) && p[i] < n, "{}(): index {} is out of bounds for dimension {} with "
                      "size {}", name, p[i], d, n);
  return idx;
}

// The index list selecting index along dim d (None before it).
std::vector<std::optional<Tensor>> along(int64_t d, const Tensor& index) {
  std::vector<std::optional<Tensor>> indices(static_cast<size_t>(d));
  indices.push_back(index);
  return indices;
}

// A bool mask with self's rank, True at the positions of index along d (size 1 in the other dims).
Tensor index_mask(const Tensor& self, int64_t d, const Tensor& idx) {
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  Tensor mask = ember::zeros({n}, kBool).index_put({idx}, ember::scalar_tensor(Scalar(true), kBool));
  DimVector shape(static_cast<size_t>(self.dim()), 1);
  if (self.dim() > 0) shape[d] = n;
  return mask.view(shape);
}

void check_index_copy(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& source) {
  EMBER_CHECK(self.dtype() == source.dtype(), "index_copy_(): self and source expected to have the same dtype, but "
              "got (self) {} and (source) {}", self.dtype(), source.dtype());
  EMBER_CHECK(self.dim() == source.dim() || source.dim() == 0 || self.dim() == 0,
              "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
              "dimensionality ({}), destination dimensionality ({})", source.dim(), self.dim());
  const int64_t along_source = source.dim() == 0 ? 1 : source.size(d);
  EMBER_CHECK_INDEX(idx.numel() == along_source, "index_copy_(): Number of indices ({}) should be equal to "
                    "source.size(dim) ({})", idx.numel(), along_source);
  for (int64_t i = 0; i < self.dim() && source.dim() > 0; ++i)
    EMBER_CHECK(i == d || self.size(i) == source.size(i), "index_copy_(): Source/destination tensor must have same "
                "slice shapes. Destination slice shape: {} at dimension {} and source slice shape: {} at dimension "
                "0.", self.sizes(), d, source.sizes());
}

}  // namespace

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = checked_dim("index_copy", dim, self.dim());
  const Tensor idx = index_vector("index_copy_", self, d, index, false);
  check_index_copy(self, d, idx, source);
  if (self.dim() == 0) return source.reshape({}).clone();
  return self.index_put(along(d, idx), source);
}
Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = checked_dim("index_copy_", dim, self.dim());
  const Tensor idx = index_vector("index_copy_", self, d, index, false);
  check_index_copy(self, d, idx, source);
  if (self.dim() == 0) return self.copy_(source.reshape({}));
  return self.index_put_(along(d, idx), source);
}
Tensor index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Tensor& out) {
  return write_out_same_dtype("index_copy", out, composite::index_copy(self, dim, index, source));
}

Tensor index_fill_int_tensor(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} "
              "dimension(s).", value.dim());
  const int64_t d = checked_dim("index_fill", dim, self.dim());
  const Tensor idx = index_vector("index_fill_", self, d, index, true);
  return ember::where(index_mask(self, d, idx), value.to(self.dtype()), self);
}
Tensor index_fill_int_tensor_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} "
              "dimension(s).", value.dim());
  const int64_t d = checked_dim("index_fill_", dim, self.dim());
  const Tensor idx = index_vector("index_fill_", self, d, index, true);
  return self.masked_fill_(index_mask(self, d, idx), value);
}
Tensor index_fill_int_scalar(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = checked_dim("index_fill", dim, self.dim());
  const Tensor idx = index_vector("index_fill_", self, d, index, true);
  return self.masked_fill(index_mask(self, d, idx), value);
}
Tensor index_fill_int_scalar_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = checked_dim("index_fill_", dim, self.dim());
  const Tensor idx = index_vector("index_fill_", self, d, index, true);
  return self.masked_fill_(index_mask(self, d, idx), value);
}

namespace {

// The first count(mask) elements of source, checked (PyTorch's masked_scatter messages).
Tensor masked_source(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8,
              "masked_scatter_ only supports boolean masks, but got mask with dtype {}", mask.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got "
              "{} and {}", self.dtype(), source.dtype());
  const int64_t n = ember::count_nonzero(mask.expand(broadcast_shapes(self.sizes(), mask.sizes()))).item<int64_t>();
  EMBER_CHECK(source.numel() >= n, "masked_scatter: expected source to have at least {} elements (the True elements "
              "of mask), but got {}", n, source.numel());
  return source.reshape({-1}).narrow(0, 0, n);
}

}  // namespace

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  const Tensor values = masked_source(self, mask, source);
  if (shape.empty())  // 0-dim: as one element (index_put takes no mask of a 0-dim tensor)
    return self.reshape({1}).index_put({mask.reshape({1}).to(kBool)}, values).reshape({});
  return self.expand(shape).index_put({mask.expand(shape).to(kBool)}, values);
}
Tensor masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const Tensor values = masked_source(self, mask, source);
  if (self.dim() == 0) {
    self.view({1}).index_put_({mask.reshape({1}).to(kBool)}, values);
    return self;
  }
  return self.index_put_({mask.expand(self.sizes()).to(kBool)}, values);
}

namespace {

Tensor put_index(const char* name, const Tensor& self, const Tensor& index, const Tensor& source) {
  EMBER_CHECK(index.dtype() == kInt64, "{}(): Expected a long tensor for index, but got {}", name,
              linalg::scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(),
              "{}(): self and source expected to have the same dtype, but got self.dtype "
              "= {} and source.dtype = {}", name, self.dtype(), source.dtype());
  EMBER_CHECK_INDEX(index.numel() == source.numel(), "{}(): Expected source and index to have the same number of "
                    "elements, but got source.numel() = {}, index.numel() = {}", name, source.numel(), index.numel());
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(n > 0 || index.numel() == 0, "{}(): Tried to put elements into an empty tensor", name);
  return wrap_flat_indices(index, n);
}

}  // namespace

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  const Tensor idx = put_index("put", self, index, source);
  return self.reshape({-1}).index_put({idx}, source.reshape({-1}), accumulate).view(self.sizes());
}
Tensor put_(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  const Tensor idx = put_index("put_", self, index, source);
  if (self.is_contiguous()) {
    self.view({-1}).index_put_({idx}, source.reshape({-1}), accumulate);
    return self;
  }
  return self.copy_(self.reshape({-1}).index_put({idx}, source.reshape({-1}), accumulate).view(self.sizes()));
}

namespace {

// A copy of self with src written into view_of(copy); src must have the view's shape.
template <class View>
Tensor scatter_into(const char* name, const Tensor& self, const Tensor& src, View view_of) {
  Tensor out = self.clone();
  Tensor view = view_of(out);
  EMBER_CHECK(view.sizes().equals(src.sizes()),
              "{}: expected src to have a size equal to the slice of self. src size = {}, "
              "slice size = {}", name, src.sizes(), view.sizes());
  view.copy_(src);
  return out;
}

}  // namespace

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return scatter_into("slice_scatter", self, src, [&](const Tensor& t) { return t.slice(dim, start, end, step); });
}
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return scatter_into("select_scatter", self, src, [&](const Tensor& t) { return t.select(dim, index); });
}
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return scatter_into("diagonal_scatter", self, src,
                      [&](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  return scatter_into("as_strided_scatter", self, src,
                      [&](const Tensor& t) { return t.as_strided(size, stride, storage_offset); });
}

}  // namespace ember::composite

// index_reduce (ops_index.yaml): scatter_reduce with index spread over source's shape along dim, so its
// derivative is scatter_reduce's (the same formulas as PyTorch's index_reduce_backward).
namespace ember::composite {

namespace {

Tensor index_reduce_impl(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source, std::string_view reduce, bool include_self, bool in_place) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "{}(): Expected reduce to be one of prod, mean, amax or amin but got {}.", name, reduce);
  const int64_t d = checked_dim(name, dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "{}(): Index is supposed to be a vector", name);
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, "{}(): Expected a long or int tensor for index, but "
              "got {}", name, linalg::scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "{}(): self ({}) and source ({}) must have the same scalar type", name,
              self.dtype(), source.dtype());
  const Tensor self_nd = self.dim() == 0 ? self.view({1}) : self;
  const Tensor source_nd = source.dim() == 0 ? source.view({1}) : source;
  EMBER_CHECK(self_nd.dim() == source_nd.dim(), "{}(): Source/destination tensor must have the same number of "
              "dimensions ({} and {})", name, source.dim(), self.dim());
  const int64_t k = index.numel();
  EMBER_CHECK(k == source_nd.size(d), "{}(): Number of indices ({}) should be equal to source.size(dim) ({})", name,
              k, source_nd.size(d));
  for (int64_t i = 0; i < self_nd.dim(); ++i)
    EMBER_CHECK(i == d || self_nd.size(i) == source_nd.size(i), "{}(): self and source must have the same size at "
                "every dimension but dim {} (got {} and {})", name, d, self.sizes(), source.sizes());
  const Tensor idx = index.to(kInt64).reshape({-1}).contiguous();
  const int64_t n = self_nd.size(d);
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < k; ++i)
    EMBER_CHECK_INDEX(p[i] >= 0 && p[i] < n, "{}(): index {} is out of bounds for dimension {} with size {}", name,
                      p[i], d, n);
  DimVector shape(static_cast<size_t>(self_nd.dim()), 1);
  shape[d] = k;
  const Tensor spread = idx.view(shape).expand(source_nd.sizes());
  if (in_place) {
    self_nd.scatter_reduce_(d, spread, source_nd, reduce, include_self);
    return self;
  }
  return self_nd.scatter_reduce(d, spread, source_nd, reduce, include_self).view(self.sizes());
}

}  // namespace

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  return index_reduce_impl("index_reduce", self, dim, index, source, reduce, include_self, false);
}
Tensor index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                     std::string_view reduce, bool include_self) {
  return index_reduce_impl("index_reduce_", self, dim, index, source, reduce, include_self, true);
}
Tensor index_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                        std::string_view reduce, bool include_self, const Tensor& out) {
  return write_out_same_dtype("index_reduce", out,
                              composite::index_reduce(self, dim, index, source, reduce, include_self));
}

}  // namespace ember::composite
