// Indexing kernels: index_select, gather, scatter (src / value / add / reduce), index_add, advanced indexing
// (index, index_put_), masked_fill, masked_select and nonzero. Checks and error types follow PyTorch 1.13's
// ATen (TensorAdvancedIndexing.cpp, ScatterGatherChecks.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

// Note [advanced indexing]
// x[i0, :, i2] with index tensors follows NumPy's rules as PyTorch implements them (make_info in ATen):
// bool (and uint8) masks become the columns of their nonzero() — one int64 index per mask dim; the index
// tensors broadcast to one index shape; and the indexed dims are replaced in the result by that shape, in
// place when the indexed dims are adjacent, else moved to the front (x[i0, :, i2] has the shape
// (index shape..., x.size(1))). The kernels then see two views with the result's shape: `src`, self with
// stride 0 along the index dims, and `offset`, the element offset of each index position (the sum of
// index_k * stride_k, bounds-checked once, negative values wrapped), with stride 0 along the other dims.
// Reading is out[p] = src[p + offset[p]] (a TensorIterator loop, parallel); writing is
// self[p + offset[p]] = values[p] (serial, so the last of duplicate writes wins and accumulated sums are
// deterministic, as PyTorch's CPU kernel). One code path serves any number of index tensors; index_select
// is the same gather with one offset per position of its dim.

namespace {

// ---- small helpers -------------------------------------------------------------------------------------

// Strides in bytes.
DimVector byte_strides(const Tensor& t) {
  DimVector s(t.strides());
  for (int64_t& x : s) x *= t.element_size();
  return s;
}

// PyTorch's ensure_nonempty_*: a 0-dim tensor counts as one dim of size 1.
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
int64_t nonempty_stride(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.stride(d); }
DimVector nonempty_sizes(const Tensor& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes()); }
DimVector nonempty_byte_strides(const Tensor& t) { return t.dim() == 0 ? DimVector{0} : byte_strides(t); }

void check_writable(const char* name, const Tensor& t) {
  EMBER_CHECK(t.impl()->storage()->writable(), "{}: the destination tensor is read-only", name);
}

bool is_mask_dtype(DType d) { return d == kBool || d == kUInt8; }

// A Python-style number converted to self's dtype with PyTorch's overflow check (the check of fill_, which
// raises "value cannot be converted to type ... without overflow").
template <class T>
T converted(const Scalar& value, DType dtype) {
  Tensor t = ember::full(IntArrayRef(), value, dtype);
  return *static_cast<const T*>(t.data_ptr());
}

// Reads index element `i` (int64 or int32) at a byte address.
int64_t read_index(const char* p, DType dt) {
  return dt == kInt64 ? load<int64_t>(p) : static_cast<int64_t>(load<int32_t>(p));
}

// Visits every position of `sizes` in row-major order and calls f(offsets), where offsets[k] is the byte
// offset of operand k (the sum of position * strides[k][d]). Serial on purpose: the writing kernels rely on
// index order for duplicates (see Note [advanced indexing]).
template <size_t N, class F>
void for_each_offset(IntArrayRef sizes, const std::array<DimVector, N>& strides, F&& f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  for (int64_t s : sizes)
    if (s == 0) return;
  std::array<int64_t, N> off{};
  if (nd == 0) {
    f(off);
    return;
  }
  const int64_t inner = sizes[nd - 1];
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][nd - 1];
  DimVector idx(static_cast<size_t>(nd), 0);
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t i = 0; i < inner; ++i) {
      f(o);
      for (size_t k = 0; k < N; ++k) o[k] += inner_stride[k];
    }
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++idx[d] < sizes[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= idx[d] * strides[k][d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// out= handling for kernels that compute into a fresh tensor: out must have dtype `dtype`; it is resized to
// the result's shape and the result copied in.
Tensor write_out(const char* name, const Tensor& result, const Tensor& out) {
  EMBER_CHECK(out.dtype() == result.dtype(), "{}: Expected out tensor to have dtype {}, but got {} instead", name,
              result.dtype(), out.dtype());
  if (!out.sizes().equals(result.sizes())) out.impl()->resize(result.sizes());
  if (result.numel() == 0) return out;
  return out.copy_(result);
}

// Note [memory overlap] decides which inputs of a write may share its memory; inputs it cannot decide (views that
// are not dense) are copied first by the kernels below when they share the storage, so they are read before any
// write.
bool same_storage(const Tensor& a, const Tensor& b) {
  return a.numel() > 0 && b.numel() > 0 && a.impl()->storage().get() == b.impl()->storage().get();
}

// out[p] = src[p + offset[p]] over the result-shaped views of Note [advanced indexing]; `out` may be an out=
// tensor (same dtype as src, resized) or undefined.
Tensor take_offsets(const char* name, const Tensor& src, const Tensor& offset, const Tensor& out) {
  IterConfig cfg;
  cfg.name = name;
  cfg.promote_inputs = false;
  cfg.check_cast = false;
  cfg.same_dtype_out = true;
  cfg.compute_dtype = src.dtype();
  cfg.output_dtype = src.dtype();
  TensorIterator it(cfg, out, {src, offset});
  dispatch_element_size(src.element_size(), [&]<class U>() {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = load<int64_t>(d[2] + i * s[2]);
        std::memcpy(d[0] + i * s[0], d[1] + i * s[1] + off * static_cast<int64_t>(sizeof(U)), sizeof(U));
      }
    });
  });
  return it.finish();
}

// ---- advanced indexing ---------------------------------------------------------------------------------

struct AdvancedIndex {
  Tensor src;       // result-shaped view of self (stride 0 along the index dims)
  Tensor offset;    // result-shaped view of int64 element offsets (stride 0 along the other dims)
  DimVector shape;  // the result's shape
  bool empty = false;  // no index tensor at all (only masks of 0 dims): the result is self itself
};

[[noreturn]] void invalid_mask(const Tensor& self, int64_t self_dim, const Tensor& mask, int64_t mask_dim) {
  EMBER_FAIL_KIND(ErrorKind::Index,
                  "The shape of the mask [{}] at index {} does not match the shape of the indexed tensor [{}] at index "
                  "{}",
                  fmt::join(mask.sizes(), ", "), mask_dim, fmt::join(self.sizes(), ", "), self_dim);
}

void check_index_count(const Tensor& self, size_t n) {
  EMBER_CHECK_INDEX(static_cast<int64_t>(n) <= self.dim(), "too many indices for tensor of dimension {} (got {})",
                    self.dim(), n);
}

// See Note [advanced indexing].
AdvancedIndex make_advanced_index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  check_index_count(self, indices.size());
  // 1. Index dtypes; masks become their nonzero columns.
  std::vector<Tensor> idx;
  for (const std::optional<Tensor>& o : indices) {
    if (!o || !o->defined()) {
      idx.emplace_back();
      continue;
    }
    const Tensor& t = *o;
    EMBER_CHECK_INDEX(t.dtype() == kInt64 || is_mask_dtype(t.dtype()),
                      "tensors used as indices must be long, byte or bool tensors");
    if (!is_mask_dtype(t.dtype())) {
      idx.push_back(t);
      continue;
    }
    for (int64_t j = 0; j < t.dim(); ++j) {
      int64_t src_dim = static_cast<int64_t>(idx.size()) + j;
      if (src_dim >= self.dim() || t.size(j) != self.size(src_dim)) invalid_mask(self, src_dim, t, j);
    }
    Tensor nz = ember::nonzero(t);
    for (int64_t j = 0; j < t.dim(); ++j) idx.push_back(nz.select(1, j));
  }
  check_index_count(self, idx.size());
  // 2. Broadcast the index tensors together.
  DimVector ishape;
  bool any = false;
  for (const Tensor& t : idx) {
    if (!t.defined()) continue;
    if (!any) {
      ishape = DimVector(t.sizes());
      any = true;
      continue;
    }
    try {
      ishape = broadcast_shapes(ishape, t.sizes());
    } catch (const Error&) {
      std::string shapes;
      for (const Tensor& u : idx)
        if (u.defined()) shapes += fmt::format("{}[{}]", shapes.empty() ? "" : ", ", fmt::join(u.sizes(), ", "));
      EMBER_FAIL_KIND(ErrorKind::Index,
                      "shape mismatch: indexing tensors could not be broadcast together with shapes {}", shapes);
    }
  }
  AdvancedIndex ai;
  if (!any) {
    ai.empty = true;
    ai.shape = DimVector(self.sizes());
    return ai;
  }
  while (static_cast<int64_t>(idx.size()) < self.dim()) idx.emplace_back();
  // 3. Non-adjacent index dims move to the front (with their indices), the others keep their order.
  std::vector<int64_t> order;  // order[i]: the dim of self at position i of src
  for (int64_t d = 0; d < self.dim(); ++d)
    if (idx[d].defined()) order.push_back(d);
  const int64_t num_indexed = static_cast<int64_t>(order.size());
  const bool adjacent = order.back() - order.front() + 1 == num_indexed;
  int64_t before = adjacent ? order.front() : 0;
  if (adjacent) {
    order.clear();
    for (int64_t d = 0; d < self.dim(); ++d) order.push_back(d);
  } else {
    for (int64_t d = 0; d < self.dim(); ++d)
      if (!idx[d].defined()) order.push_back(d);
  }
  const int64_t after = self.dim() - before - num_indexed;
  // 4. A size-0 indexed dim admits no index value.
  int64_t inumel = 1;
  for (int64_t s : ishape) inumel *= s;
  for (int64_t i = before; i < before + num_indexed; ++i) {
    EMBER_CHECK_INDEX(!(self.size(order[i]) == 0 && inumel != 0), "index is out of bounds for dimension with size 0");
  }
  // 5. Element offsets of the index positions (bounds-checked, negative values wrapped).
  Tensor offset = ember::zeros(ishape, kInt64);
  int64_t* off = offset.data_ptr<int64_t>();
  DimVector off_strides = byte_strides(offset);
  for (int64_t i = before; i < before + num_indexed; ++i) {
    const int64_t d = order[i];
    const int64_t size = self.size(d), stride = self.stride(d);
    Tensor t = idx[d].expand(ishape);
    // (no index values: an empty index may be a view at an offset into no memory, whose data_ptr is not defined)
    const char* base = inumel == 0 ? nullptr : static_cast<const char*>(t.data_ptr());
    for_each_offset<2>(ishape, {off_strides, byte_strides(t)}, [&](const std::array<int64_t, 2>& o) {
      int64_t v = load<int64_t>(base + o[1]);
      EMBER_CHECK_INDEX(v >= -size && v < size, "index {} is out of bounds for dimension {} with size {}", v, d, size);
      if (v < 0) v += size;
      *reinterpret_cast<int64_t*>(reinterpret_cast<char*>(off) + o[0]) += v * stride;
    });
  }
  // 6. The result-shaped views.
  DimVector shape, src_strides, offset_strides;
  auto add_dim = [&](int64_t size, int64_t src_stride, int64_t offset_stride) {
    shape.push_back(size);
    src_strides.push_back(src_stride);
    offset_strides.push_back(offset_stride);
  };
  for (int64_t i = 0; i < before; ++i) add_dim(self.size(order[i]), self.stride(order[i]), 0);
  for (size_t i = 0; i < ishape.size(); ++i) add_dim(ishape[i], 0, offset.stride(static_cast<int64_t>(i)));
  for (int64_t i = before + num_indexed; i < before + num_indexed + after; ++i)
    add_dim(self.size(order[i]), self.stride(order[i]), 0);
  ai.src = make_view(self, shape, src_strides, self.storage_offset());
  ai.offset = make_view(offset, shape, offset_strides, 0);
  ai.shape = shape;
  return ai;
}

// PyTorch's canDispatchToMaskedFill: x[mask] = v with a one-element v and a single bool index is a masked_fill
// (which converts v to self's dtype). Returns the mask, unsqueezed to broadcast over the trailing dims.
std::optional<Tensor> mask_for_fill(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                                    const Tensor& values) {
  if (values.numel() != 1) return std::nullopt;
  int64_t num_ind = 0;
  Tensor mask;
  for (const std::optional<Tensor>& o : indices) {
    if (!o || !o->defined()) {
      ++num_ind;
      continue;
    }
    if (!is_mask_dtype(o->dtype()) || mask.defined()) return std::nullopt;
    mask = *o;
    for (int64_t j = 0; j < mask.dim(); ++j) {
      int64_t src_dim = num_ind + j;
      if (src_dim >= self.dim() || mask.size(j) != self.size(src_dim)) invalid_mask(self, src_dim, mask, j);
    }
    num_ind += mask.dim();
  }
  if (!mask.defined()) return std::nullopt;
  for (int64_t i = num_ind; i < self.dim(); ++i) mask = mask.unsqueeze(-1);
  return mask;
}

// ---- scatter / gather checks (ScatterGatherChecks.h) -----------------------------------------------------

void scatter_gather_dtype_check(const char* name, const Tensor& self, const Tensor& index, const Tensor* src) {
  if (index.numel() != 0)
    EMBER_CHECK(index.dtype() == kInt64, "{}(): Expected dtype int64 for index", name);
  if (src) EMBER_CHECK(self.dtype() == src->dtype(), "{}(): Expected self.dtype to be equal to src.dtype", name);
}

void gather_shape_check(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t nd = nonempty_dim(self);
  EMBER_CHECK(nd == nonempty_dim(index), "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t i = 0; i < nd; ++i) {
    if (i == dim) continue;
    EMBER_CHECK(nonempty_size(index, i) <= nonempty_size(self, i),
                "Size does not match at dimension {} expected index [{}] to be smaller than self [{}] apart from "
                "dimension {}",
                i, fmt::join(index.sizes(), ", "), fmt::join(self.sizes(), ", "), dim);
  }
}

void scatter_shape_check(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() == 0) return;
  const int64_t nd = nonempty_dim(self);
  EMBER_CHECK(nd == nonempty_dim(index), "Index tensor must have the same number of dimensions as self tensor");
  if (src)
    EMBER_CHECK(nonempty_dim(*src) == nonempty_dim(index),
                "Index tensor must have the same number of dimensions as src tensor");
  bool ok = true;
  for (int64_t d = 0; d < nd && ok; ++d) {
    int64_t n = nonempty_size(index, d);
    if (d != dim && n > nonempty_size(self, d)) ok = false;
    if (src && n > nonempty_size(*src, d)) ok = false;
  }
  if (src) {
    EMBER_CHECK(ok,
                "Expected index [{}] to be smaller than self [{}] apart from dimension {} and to be smaller size than "
                "src [{}]",
                fmt::join(index.sizes(), ", "), fmt::join(self.sizes(), ", "), dim, fmt::join(src->sizes(), ", "));
  } else {
    EMBER_CHECK(ok, "Expected index [{}] to be smaller than self [{}] apart from dimension {}",
                fmt::join(index.sizes(), ", "), fmt::join(self.sizes(), ", "), dim);
  }
}

enum class ScatterReduce { None, Add, Multiply, Max, Min };

ScatterReduce parse_reduce(std::string_view reduce) {
  if (reduce == "add") return ScatterReduce::Add;
  if (reduce == "multiply") return ScatterReduce::Multiply;
  EMBER_FAIL("reduce argument must be either add or multiply.");
}

template <class T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) return std::isnan(static_cast<opmath_t<T>>(v));
  else return false;
}

// Scatters src (or value) into `target` in place: target[... index[p] ...] (op)= src[p] along dim.
void scatter_into(const char* name, const Tensor& target, int64_t dim, const Tensor& index, const Tensor* src,
                  const Scalar* value, ScatterReduce reduce) {
  check_writable(name, target);
  const int64_t d = wrap_dim(dim, target.dim());
  scatter_gather_dtype_check(name, target, index, src);
  scatter_shape_check(target, d, index, src);
  assert_no_internal_overlap(name, target);  // Note [memory overlap]
  assert_no_overlap(name, target, index);
  if (src) assert_no_overlap(name, target, *src);
  if (index.numel() == 0) return;
  Tensor s;
  if (src) {
    s = *src;
    if (same_storage(target, s)) s = s.clone(MemoryFormat::Contiguous);  // read before any write
  }
  Tensor idx = same_storage(target, index) ? index.clone(MemoryFormat::Contiguous) : index;
  const int64_t size = nonempty_size(target, d);
  const int64_t dim_stride = nonempty_stride(target, d) * target.element_size();
  DimVector tstrides = nonempty_byte_strides(target);
  tstrides[d] = 0;
  DimVector sstrides = src ? nonempty_byte_strides(s) : DimVector(static_cast<size_t>(nonempty_dim(target)), 0);
  char* tbase = static_cast<char*>(target.data_ptr());
  const char* ibase = static_cast<const char*>(idx.data_ptr());
  const char* sbase = src ? static_cast<const char*>(s.data_ptr()) : nullptr;
  dispatch_dtypes<kAllTypes>(target.dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    const T v = value ? converted<T>(*value, target.dtype()) : T{};
    for_each_offset<3>(nonempty_sizes(idx), {tstrides, nonempty_byte_strides(idx), sstrides},
                       [&](const std::array<int64_t, 3>& o) {
                         const int64_t i = load<int64_t>(ibase + o[1]);
                         EMBER_CHECK(i >= 0 && i < size, "index {} is out of bounds for dimension {} with size {}", i,
                                     d, size);
                         T* p = reinterpret_cast<T*>(tbase + o[0] + i * dim_stride);
                         const T x = src ? load<T>(sbase + o[2]) : v;
                         switch (reduce) {
                           case ScatterReduce::None: *p = x; break;
                           case ScatterReduce::Add: *p = static_cast<T>(static_cast<M>(*p) + static_cast<M>(x)); break;
                           case ScatterReduce::Multiply:
                             *p = static_cast<T>(static_cast<M>(*p) * static_cast<M>(x));
                             break;
                           case ScatterReduce::Max:  // NaN propagates (PyTorch's ReduceMaximum)
                             if (is_nan_value(x) || static_cast<M>(x) > static_cast<M>(*p)) *p = x;
                             break;
                           case ScatterReduce::Min:
                             if (is_nan_value(x) || static_cast<M>(x) < static_cast<M>(*p)) *p = x;
                             break;
                         }
                       });
  });
}

// The three forms of every scatter op: functional (a copy of self), in place, out= (self copied into out).
Tensor scatter_functional(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          const Scalar* value, ScatterReduce reduce) {
  Tensor r = self.clone();
  scatter_into(name, r, dim, index, src, value, reduce);
  return r;
}
Tensor scatter_out(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                   const Scalar* value, ScatterReduce reduce, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "{}: Expected out tensor to have dtype {}, but got {} instead", name,
              self.dtype(), out.dtype());
  if (!out.is_same(self)) {
    if (!out.sizes().equals(self.sizes())) out.impl()->resize(self.sizes());
    out.copy_(self);
  }
  scatter_into(name, out, dim, index, src, value, reduce);
  return out;
}

// ---- index_add -------------------------------------------------------------------------------------------

void index_add_into(const Tensor& target, int64_t dim, const Tensor& index, const Tensor& source,
                    const Scalar& alpha) {
  check_writable("index_add_", target);
  const int64_t d = wrap_dim(dim, target.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1,
                    "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: [{}]",
                    index.dim(), index.dtype(), fmt::join(index.sizes(), ", "));
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, "index_add_(): Expected dtype int32/int64 for index");
  EMBER_CHECK(target.dtype() == source.dtype(),
              "index_add_(): self ({}) and source ({}) must have the same scalar type", target.dtype(), source.dtype());
  EMBER_CHECK(d == 0 || d < source.dim(),
              "index_add_(): Indexing dim {} is out of bounds of the source tensor with dim {}", d, source.dim());
  assert_no_internal_overlap("index_add_", target);  // Note [memory overlap]
  assert_no_overlap("index_add_", target, index);
  assert_no_overlap("index_add_", target, source);
  const int64_t n = index.numel();
  EMBER_CHECK(n == (source.dim() == 0 ? 1 : source.size(d)),
              "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({}), for dim: {}", n,
              source.dim() == 0 ? 1 : source.size(d), d);
  // Each index adds a slice of source (the select along dim, broadcast as add_ would) to a slice of self.
  DimVector slice_sizes, tstrides;
  Tensor src_slice;
  if (target.dim() > 1) {
    for (int64_t i = 0; i < target.dim(); ++i) {
      if (i == d) continue;
      slice_sizes.push_back(target.size(i));
      tstrides.push_back(target.stride(i) * target.element_size());
    }
    if (n == 0) return;
    src_slice = source.select(d, 0);
    // Each slice of source must broadcast to a slice of self (as add_'s other): checked here to name the op and
    // both shapes, rather than leave it to expand().
    const int64_t k = static_cast<int64_t>(slice_sizes.size()), m = src_slice.dim();
    bool broadcasts = m <= k;
    for (int64_t i = 1; broadcasts && i <= m; ++i)
      broadcasts = src_slice.size(m - i) == 1 || src_slice.size(m - i) == slice_sizes[static_cast<size_t>(k - i)];
    EMBER_CHECK(broadcasts,
                "index_add_(): source slice of shape [{}] does not broadcast to self slice of shape [{}] (self [{}], "
                "source [{}], dim {})",
                fmt::join(src_slice.sizes(), ", "), fmt::join(slice_sizes, ", "), fmt::join(target.sizes(), ", "),
                fmt::join(source.sizes(), ", "), d);
    src_slice = src_slice.expand(slice_sizes);
  } else {
    EMBER_CHECK(source.dim() <= 1, "index_add_(): source.dim() ({}) must one or zero for given self.dim() ({})",
                source.dim(), target.dim());
    if (n == 0) return;
    src_slice = make_view(source, {}, {}, source.storage_offset());
  }
  Tensor src = source;
  if (same_storage(target, source)) {
    src = source.clone(MemoryFormat::Contiguous);
    src_slice = target.dim() > 1 ? src.select(d, 0).expand(slice_sizes) : make_view(src, {}, {}, 0);
  }
  Tensor idx = index.contiguous();
  const int64_t size = nonempty_size(target, d);
  const int64_t tstep = nonempty_stride(target, d) * target.element_size();
  const int64_t sstep = (src.dim() == 0 ? 0 : src.stride(d)) * src.element_size();
  DimVector sstrides = byte_strides(src_slice);
  char* tbase = static_cast<char*>(target.data_ptr());
  const char* sbase = static_cast<const char*>(src_slice.data_ptr());
  const char* ibase = static_cast<const char*>(idx.data_ptr());
  dispatch_dtypes<kAllTypes>(target.dtype(), "index_add_", [&]<class T>() {
    using M = opmath_t<T>;
    const M a = static_cast<M>(converted<T>(alpha, target.dtype()));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = read_index(ibase + i * idx.element_size(), idx.dtype());
      EMBER_CHECK_INDEX(j >= 0 && j < size, "index out of range in self");
      char* t = tbase + j * tstep;
      const char* s = sbase + i * sstep;
      for_each_offset<2>(slice_sizes, {tstrides, sstrides}, [&](const std::array<int64_t, 2>& o) {
        T* p = reinterpret_cast<T*>(t + o[0]);
        *p = static_cast<T>(static_cast<M>(*p) + a * static_cast<M>(load<T>(s + o[1])));
      });
    }
  });
}

// ---- index_select --------------------------------------------------------------------------------------

Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_select(): Expected dtype int32 or int64 for index");
  const int64_t n = index.numel();
  EMBER_CHECK(!(self.dim() > 0 && self.size(d) == 0 && n > 0),
              "index_select(): self indexing axis dim should be positive");
  const int64_t size = nonempty_size(self, d), stride = nonempty_stride(self, d);
  Tensor offset = ember::empty({n}, kInt64);
  int64_t* off = offset.data_ptr<int64_t>();
  const char* ibase = static_cast<const char*>(index.data_ptr());
  const int64_t istep = (index.dim() == 0 ? 0 : index.stride(0)) * index.element_size();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = read_index(ibase + i * istep, index.dtype());
    // PyTorch 1.13's CPU index_select checks dim 1 of a tensor of two or more dims in another kernel, which
    // raises RuntimeError; every other dim raises IndexError. Ember raises the same types.
    EMBER_CHECK((j >= 0 && j < size) || self.dim() < 2 || d != 1,
                "index_select(): INDICES element is out of DATA bounds, id={} axis_dim={}", j, size);
    EMBER_CHECK_INDEX(j >= 0 && j < size, "index out of range in self");
    off[i] = j * stride;
  }
  if (self.dim() == 0) {  // a 0-dim self stays 0-dim (every index is 0)
    EMBER_CHECK_INDEX(n > 0, "index_select(): an empty index selects nothing from a 0-dim tensor");
    return take_offsets("index_select", self, make_view(offset, {}, {}, 0), out);
  }
  DimVector shape(self.sizes()), src_strides(self.strides()), offset_strides(static_cast<size_t>(self.dim()), 0);
  shape[d] = n;
  src_strides[d] = 0;
  offset_strides[d] = 1;
  return take_offsets("index_select", make_view(self, shape, src_strides, self.storage_offset()),
                      make_view(offset, shape, offset_strides, 0), out);
}

// ---- gather --------------------------------------------------------------------------------------------

Tensor gather_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  const int64_t d = wrap_dim(dim, self.dim());
  scatter_gather_dtype_check("gather", self, index, nullptr);
  if (index.numel() != 0) gather_shape_check(self, d, index);
  const int64_t size = nonempty_size(self, d);
  if (self.numel() == 0 && index.numel() != 0) {
    // The shape check leaves dim as the only empty one, so every index is out of range; self has no storage
    // for the strided view below. PyTorch names the first index.
    const int64_t j = index.reshape({-1}).select(0, 0).item().to_long();
    EMBER_FAIL("gather(): index {} is out of bounds for dimension {} with size {}", j, d, size);
  }
  const int64_t dim_stride = nonempty_stride(self, d) * self.element_size();
  // self viewed with index's shape, stride 0 along dim (the index supplies the position there).
  DimVector strides(index.sizes().size(), 0);
  for (int64_t i = 0; i < std::min(index.dim(), self.dim()); ++i) strides[i] = i == d ? 0 : self.stride(i);
  Tensor src = make_view(self, index.sizes(), strides, self.storage_offset());
  IterConfig cfg;
  cfg.name = "gather";
  cfg.promote_inputs = false;
  cfg.check_cast = false;
  cfg.same_dtype_out = true;
  cfg.compute_dtype = self.dtype();
  cfg.output_dtype = self.dtype();
  TensorIterator it(cfg, out, {src, index});
  dispatch_element_size(self.element_size(), [&]<class U>() {
    it.for_each([&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = load<int64_t>(p[2] + i * s[2]);
        EMBER_CHECK(j >= 0 && j < size, "gather(): index {} is out of bounds for dimension {} with size {}", j, d,
                    size);
        std::memcpy(p[0] + i * s[0], p[1] + i * s[1] + j * dim_stride, sizeof(U));
      }
    });
  });
  return it.finish();
}

// ---- masked ops ----------------------------------------------------------------------------------------

void check_fill_mask(const Tensor& mask) {
  EMBER_CHECK(is_mask_dtype(mask.dtype()), "masked_fill_ only supports boolean masks, but got mask with dtype {}",
              mask.dtype());
}

Scalar fill_value(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
              value.dim());
  return value.item();
}

// The elements of self (broadcast with mask) where mask is set, in row-major order.
Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(is_mask_dtype(mask.dtype()), "masked_select: expected BoolTensor or ByteTensor for mask");
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor s = self.expand(shape), m = mask.expand(shape);
  std::array<DimVector, 2> strides{byte_strides(s), byte_strides(m)};
  const char* sbase = static_cast<const char*>(s.data_ptr());
  const char* mbase = static_cast<const char*>(m.data_ptr());
  int64_t count = 0;
  for_each_offset<2>(shape, strides,
                     [&](const std::array<int64_t, 2>& o) { count += load<uint8_t>(mbase + o[1]) != 0; });
  Tensor result = ember::empty({count}, self.dtype());
  char* out = static_cast<char*>(result.data_ptr());
  dispatch_element_size(self.element_size(), [&]<class U>() {
    for_each_offset<2>(shape, strides, [&](const std::array<int64_t, 2>& o) {
      if (load<uint8_t>(mbase + o[1]) == 0) return;
      std::memcpy(out, sbase + o[0], sizeof(U));
      out += sizeof(U);
    });
  });
  return result;
}

Tensor nonzero_impl(const Tensor& self) {
  const int64_t nd = self.dim();
  DimVector sizes(self.sizes());
  std::array<DimVector, 1> strides{byte_strides(self)};
  const char* base = static_cast<const char*>(self.data_ptr());
  Tensor result;
  dispatch_dtypes<kAllTypes>(self.dtype(), "nonzero", [&]<class T>() {
    using M = opmath_t<T>;
    auto is_set = [](T x) { return static_cast<M>(x) != M(0); };  // NaN counts as set, -0.0 not
    int64_t count = 0;
    for_each_offset<1>(sizes, strides, [&](const std::array<int64_t, 1>& o) { count += is_set(load<T>(base + o[0])); });
    result = ember::empty({count, nd}, kInt64);
    int64_t* out = result.data_ptr<int64_t>();
    DimVector pos(static_cast<size_t>(nd), 0);  // the row-major position of the element visited
    for_each_offset<1>(sizes, strides, [&](const std::array<int64_t, 1>& o) {
      if (is_set(load<T>(base + o[0])))
        for (int64_t d = 0; d < nd; ++d) *out++ = pos[d];
      for (int64_t d = nd - 1; d >= 0; --d) {
        if (++pos[d] < sizes[d]) break;
        pos[d] = 0;
      }
    });
  });
  return result;
}

}  // namespace

// ---- the kernels of ops_index.yaml -----------------------------------------------------------------------

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return index_select_impl(self, dim, index, Tensor());
}
Tensor index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  assert_no_internal_overlap("index_select", out);  // Note [memory overlap]
  assert_no_overlap("index_select", out, self);
  assert_no_overlap("index_select", out, index);
  return index_select_impl(self, dim, index, out);
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool) {
  return gather_impl(self, dim, index, Tensor());
}
Tensor gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool, const Tensor& out) {
  assert_no_internal_overlap("gather", out);  // Note [memory overlap]
  assert_no_overlap("gather", out, self);
  assert_no_partial_overlap("gather", out, index);
  return gather_impl(self, dim, index, out);
}

Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_functional("scatter", self, dim, index, &src, nullptr, ScatterReduce::None);
}
Tensor scatter_src_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_into("scatter_", self, dim, index, &src, nullptr, ScatterReduce::None);
  return self;
}
Tensor scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  return scatter_out("scatter", self, dim, index, &src, nullptr, ScatterReduce::None, out);
}
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_functional("scatter", self, dim, index, nullptr, &value, ScatterReduce::None);
}
Tensor scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  scatter_into("scatter_", self, dim, index, nullptr, &value, ScatterReduce::None);
  return self;
}
Tensor scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const Tensor& out) {
  return scatter_out("scatter", self, dim, index, nullptr, &value, ScatterReduce::None, out);
}
Tensor scatter_reduce_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce) {
  return scatter_functional("scatter", self, dim, index, &src, nullptr, parse_reduce(reduce));
}
Tensor scatter_reduce_src_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce) {
  scatter_into("scatter_", self, dim, index, &src, nullptr, parse_reduce(reduce));
  return self;
}
Tensor scatter_reduce_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, const Tensor& out) {
  return scatter_out("scatter", self, dim, index, &src, nullptr, parse_reduce(reduce), out);
}
Tensor scatter_reduce_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                            std::string_view reduce) {
  return scatter_functional("scatter", self, dim, index, nullptr, &value, parse_reduce(reduce));
}
Tensor scatter_reduce_value_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                             std::string_view reduce) {
  scatter_into("scatter_", self, dim, index, nullptr, &value, parse_reduce(reduce));
  return self;
}
Tensor scatter_reduce_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                std::string_view reduce, const Tensor& out) {
  return scatter_out("scatter", self, dim, index, nullptr, &value, parse_reduce(reduce), out);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_functional("scatter_add", self, dim, index, &src, nullptr, ScatterReduce::Add);
}
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_into("scatter_add_", self, dim, index, &src, nullptr, ScatterReduce::Add);
  return self;
}
Tensor scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  return scatter_out("scatter_add", self, dim, index, &src, nullptr, ScatterReduce::Add, out);
}

// scatter_reduce.two (PyTorch 1.13's scatter_reduce_two_cpu): without include_self the written positions first
// take the reduction's identity; mean sums, then divides by the number of values combined (self counting one
// when included; positions nothing was written to keep self), rounding down for integers.
namespace {

void scatter_reduce_into(const char* name, const Tensor& target, int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce, bool include_self) {
  ScatterReduce op = ScatterReduce::Add;
  if (reduce == "prod") op = ScatterReduce::Multiply;
  else if (reduce == "amax") op = ScatterReduce::Max;
  else if (reduce == "amin") op = ScatterReduce::Min;
  else EMBER_CHECK(reduce == "sum" || reduce == "mean", "reduce argument must be either sum, prod, mean, amax or amin, "
                   "got {}", reduce);
  if (!include_self) {
    Scalar init(0);
    dispatch_dtypes<kAllTypes>(target.dtype(), name, [&]<class T>() {
      using M = opmath_t<T>;
      if (op == ScatterReduce::Multiply) init = Scalar(1);
      if constexpr (std::is_same_v<T, bool>) {
        if (op == ScatterReduce::Max) init = Scalar(false);
        if (op == ScatterReduce::Min) init = Scalar(true);
      } else if constexpr (std::is_floating_point_v<M>) {
        if (op == ScatterReduce::Max) init = Scalar(-std::numeric_limits<double>::infinity());
        if (op == ScatterReduce::Min) init = Scalar(std::numeric_limits<double>::infinity());
      } else {
        if (op == ScatterReduce::Max) init = Scalar(static_cast<int64_t>(std::numeric_limits<T>::lowest()));
        if (op == ScatterReduce::Min) init = Scalar(static_cast<int64_t>(std::numeric_limits<T>::max()));
      }
    });
    scatter_into(name, target, dim, index, nullptr, &init, ScatterReduce::None);
  }
  scatter_into(name, target, dim, index, &src, nullptr, op);
  if (reduce == "mean") {
    Tensor count = include_self ? ember::ones_like(target) : ember::zeros_like(target);
    count.scatter_add_(dim, index, ember::ones_like(src));
    count.masked_fill_(ember::eq(count, Scalar(0)), Scalar(1));
    target.copy_(is_floating_point(target.dtype()) ? target.div(count) : target.div(count, "floor"));
  }
}

}  // namespace

Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self) {
  Tensor r = self.clone();
  scatter_reduce_into("scatter_reduce", r, dim, index, src, reduce, include_self);
  return r;
}
Tensor scatter_reduce_two_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  scatter_reduce_into("scatter_reduce_", self, dim, index, src, reduce, include_self);
  return self;
}
Tensor scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "scatter_reduce: Expected out tensor to have dtype {}, but got {} instead",
              self.dtype(), out.dtype());
  if (!out.is_same(self)) {
    if (!out.sizes().equals(self.sizes())) out.impl()->resize(self.sizes());
    out.copy_(self);
  }
  scatter_reduce_into("scatter_reduce", out, dim, index, src, reduce, include_self);
  return out;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor r = self.clone();
  index_add_into(r, dim, index, source, alpha);
  return r;
}
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  index_add_into(self, dim, index, source, alpha);
  return self;
}
Tensor index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                     const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "index_add: Expected out tensor to have dtype {}, but got {} instead",
              self.dtype(), out.dtype());
  if (!out.is_same(self)) {
    if (!out.sizes().equals(self.sizes())) out.impl()->resize(self.sizes());
    out.copy_(self);
  }
  index_add_into(out, dim, index, source, alpha);
  return out;
}

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return index_out(self, indices, Tensor());
}
Tensor index_out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& out) {
  AdvancedIndex ai = make_advanced_index(self, indices);
  if (ai.empty) return out.defined() ? write_out("index", self, out) : self.clone();
  return take_offsets("index", ai.src, ai.offset, out);
}

Tensor index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                  bool accumulate) {
  check_writable("index_put_", self);
  check_index_count(self, indices.size());
  if (!accumulate) {
    if (std::optional<Tensor> mask = mask_for_fill(self, indices, values))
      return self.masked_fill_(*mask, values.item());
  }
  EMBER_CHECK(values.dtype() == self.dtype(),
              "Index put requires the source and destination dtypes match, got {} for the destination and {} for the "
              "source.",
              self.dtype(), values.dtype());
  assert_no_overlap("index_put_", self, values);  // Note [memory overlap]
  for (const std::optional<Tensor>& o : indices)
    if (o && o->defined()) assert_no_overlap("index_put_", self, *o);
  AdvancedIndex ai = make_advanced_index(self, indices);
  const bool expandable = [&] {
    if (values.dim() > static_cast<int64_t>(ai.shape.size())) return false;
    for (int64_t i = 1; i <= values.dim(); ++i) {
      int64_t v = values.sizes()[values.dim() - i], s = ai.shape[ai.shape.size() - i];
      if (v != 1 && v != s) return false;
    }
    return true;
  }();
  EMBER_CHECK(expandable,
              "shape mismatch: value tensor of shape [{}] cannot be broadcast to indexing result of shape [{}]",
              fmt::join(values.sizes(), ", "), fmt::join(ai.shape, ", "));
  Tensor v = same_storage(self, values) ? values.clone(MemoryFormat::Contiguous) : values;  // read before writing
  v = v.expand(ai.shape);
  if (ai.empty) {
    if (accumulate) self.add_(v);
    else self.copy_(v);
    return self;
  }
  std::array<DimVector, 3> strides{byte_strides(ai.src), byte_strides(ai.offset), byte_strides(v)};
  char* dst = static_cast<char*>(ai.src.data_ptr());
  const char* off = static_cast<const char*>(ai.offset.data_ptr());
  const char* src = static_cast<const char*>(v.data_ptr());
  if (accumulate) {
    dispatch_dtypes<kAllTypes>(self.dtype(), "index_put_", [&]<class T>() {
      using M = opmath_t<T>;
      for_each_offset<3>(ai.shape, strides, [&](const std::array<int64_t, 3>& o) {
        T* p = reinterpret_cast<T*>(dst + o[0]) + load<int64_t>(off + o[1]);
        *p = static_cast<T>(static_cast<M>(*p) + static_cast<M>(load<T>(src + o[2])));
      });
    });
  } else {
    dispatch_element_size(self.element_size(), [&]<class U>() {
      for_each_offset<3>(ai.shape, strides, [&](const std::array<int64_t, 3>& o) {
        U* p = reinterpret_cast<U*>(dst + o[0]) + load<int64_t>(off + o[1]);
        std::memcpy(p, src + o[2], sizeof(U));
      });
    });
  }
  return self;
}
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return cpu::index_put_(self.clone(), indices, values, accumulate);
}

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_mask(mask);
  check_writable("masked_fill_", self);
  IterConfig cfg;
  cfg.name = "masked_fill_";
  cfg.promote_inputs = false;
  cfg.check_cast = false;
  cfg.is_inplace = true;
  cfg.check_mem_overlap = false;  // one value: an expanded self is allowed, as PyTorch's (Note [memory overlap])
  cfg.compute_dtype = self.dtype();
  cfg.output_dtype = self.dtype();
  TensorIterator it(cfg, self, {self, mask});
  dispatch_dtypes<kAllTypes>(self.dtype(), "masked_fill_", [&]<class T>() {
    const T v = converted<T>(value, self.dtype());
    it.for_each([v](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (load<uint8_t>(d[2] + i * s[2])) std::memcpy(d[0] + i * s[0], &v, sizeof(T));
    });
  });
  return it.finish();
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_fill_mask(mask);
  Tensor r = self.expand(broadcast_shapes(self.sizes(), mask.sizes())).clone(MemoryFormat::Contiguous);
  return cpu::masked_fill_(r, mask, value);
}
Tensor masked_fill_tensor_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return cpu::masked_fill_(self, mask, fill_value(value));
}
Tensor masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return cpu::masked_fill(self, mask, fill_value(value));
}

Tensor masked_select(const Tensor& self, const Tensor& mask) { return masked_select_impl(self, mask); }
Tensor masked_select_out(const Tensor& self, const Tensor& mask, const Tensor& out) {
  assert_no_internal_overlap("masked_select", out);  // Note [memory overlap]
  assert_no_overlap("masked_select", out, self);
  assert_no_overlap("masked_select", out, mask);
  return write_out("masked_select", masked_select_impl(self, mask), out);
}

Tensor nonzero(const Tensor& self) { return nonzero_impl(self); }
Tensor nonzero_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == kInt64, "nonzero: Expected out tensor to have scalar type Long but got scalar type {}",
              out.dtype());
  return write_out("nonzero", nonzero_impl(self), out);
}

}  // namespace ember::cpu
