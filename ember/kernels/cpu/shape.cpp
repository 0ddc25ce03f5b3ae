// Shape kernels that move elements without arithmetic: cat, flip, tril/triu and the reflection and
// replication pads. They work on raw element bytes, so one instantiation per element size serves every dtype
// (bool and the 16-bit floats included, where PyTorch 1.13 lacks some of these kernels).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/core/TypePromotion.h"
#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/shape.h"

namespace ember::cpu {

namespace {

// Checks an out= tensor of an op whose result has self's dtype (PyTorch's structured kernels without
// promotion), and gives it `sizes`.
void check_out_same_dtype(const char* op, const Tensor& out, DType dtype, IntArrayRef sizes) {
  EMBER_CHECK(out.dtype() == dtype, "{}: Expected out tensor to have dtype {}, but got {} instead", op, dtype,
              out.dtype());
  if (!out.sizes().equals(sizes)) out.impl()->resize(sizes);
}

// ------------------------------------------------------------------------------------------------ cat
// A 1-D tensor of size 0 is skipped by cat: before zero-size dims existed it was the only empty tensor, and
// PyTorch keeps accepting it next to tensors of any shape.
bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

Tensor cat_impl(TensorList tensors, int64_t dim, const Tensor& out) {
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].dim() > 0, "cat: zero-dimensional tensor (at position {}) cannot be concatenated", i);
  // The dim wraps against the first tensor that is not skipped (PyTorch's legacy_cat_wrap_dim).
  for (const Tensor& t : tensors) {
    if (!cat_skips(t)) {
      dim = checked_dim("cat", dim, t.dim());
      break;
    }
  }
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  DType dtype = result_type(tensors);
  if (out.defined()) {
    EMBER_CHECK(can_cast(dtype, out.dtype()), "torch.cat(): input types can't be cast to the desired output type {}",
                out.dtype());
    dtype = out.dtype();
  }
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (!cat_skips(t)) {
      first = &t;
      break;
    }
  }
  DimVector sizes{0};
  if (first) {
    int64_t total = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (cat_skips(t)) continue;
      EMBER_CHECK(t.dim() == first->dim(), "cat: Tensors must have same number of dimensions: got {} and {}",
                  first->dim(), t.dim());
      for (int64_t d = 0; d < t.dim(); ++d) {
        EMBER_CHECK(d == dim || t.sizes()[d] == first->sizes()[d],
                    "cat: Sizes of tensors must match except in dimension {}. Expected size {} but got size {} for "
                    "tensor number {} in the list.",
                    dim, first->sizes()[d], t.sizes()[d], i);
      }
      total += t.sizes()[dim];
    }
    sizes = DimVector(first->sizes());
    sizes[dim] = total;
  } else {
    dim = 0;
  }
  Tensor result = out;
  if (out.defined()) {
    for (const Tensor& t : tensors) {
      EMBER_CHECK(!may_overlap(out, t),
                  "cat: unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                  "a single memory location. Please clone() the tensor before performing the operation.");
    }
    if (!out.sizes().equals(sizes)) out.impl()->resize(sizes);
  } else {
    result = make_empty(sizes, dtype);
  }
  if (result.numel() == 0) return result;

  // Fast path: every input contiguous and of the output's dtype, the output contiguous: each input is one
  // block of bytes per position of the dims before `dim`.
  bool fast = result.is_contiguous();
  for (const Tensor& t : tensors) fast = fast && (cat_skips(t) || (t.is_contiguous() && t.dtype() == dtype));
  if (!fast) {
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (cat_skips(t)) continue;
      result.narrow(dim, offset, t.sizes()[dim]).copy_(t);
      offset += t.sizes()[dim];
    }
    return result;
  }
  int64_t outer = 1, inner = result.element_size();
  for (int64_t d = 0; d < dim; ++d) outer *= sizes[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(sizes.size()); ++d) inner *= sizes[d];
  const int64_t row = sizes[dim] * inner;  // bytes of one output row
  char* dst = static_cast<char*>(result.data_ptr());
  parallel_for(outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row, 1)), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      char* d = dst + o * row;
      for (const Tensor& t : tensors) {
        if (cat_skips(t) || t.numel() == 0) continue;
        const int64_t n = t.sizes()[dim] * inner;
        std::memcpy(d, static_cast<const char*>(t.data_ptr()) + o * n, static_cast<size_t>(n));
        d += n;
      }
    }
  });
  return result;
}

// ------------------------------------------------------------------------------------------------ flip
// Copies the elements of an n-d array at src (strides in elements, possibly negative) into contiguous dst.
template <class U>
void gather(U* dst, const U* src, IntArrayRef sizes, const DimVector& strides) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  if (nd == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = sizes[nd - 1], inner_stride = strides[nd - 1];
  const int64_t rows = numel / inner;
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
    DimVector idx(static_cast<size_t>(nd), 0);
    int64_t off = 0, rem = b;
    for (int64_t d = nd - 2; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
      off += idx[d] * strides[d];
    }
    for (int64_t r = b; r < e; ++r) {
      U* out = dst + r * inner;
      const U* in = src + off;
      for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
      for (int64_t d = nd - 2; d >= 0; --d) {
        off += strides[d];
        if (++idx[d] < sizes[d]) break;
        off -= idx[d] * strides[d];
        idx[d] = 0;
      }
    }
  });
}

// ------------------------------------------------------------------------------------------------ tril/triu
// Zeroes, in place, the elements of the matrices in t's last two dims outside the triangle: for tril those
// with col - row > k, for triu those with col - row < k. Zero is the all-zero bit pattern in every dtype.
template <bool Upper>
void zero_outside_triangle(const Tensor& t, int64_t k) {
  if (t.numel() == 0) return;
  const int64_t nd = t.dim();
  const int64_t rows = t.sizes()[nd - 2], cols = t.sizes()[nd - 1];
  const int64_t rs = t.strides()[nd - 2], cs = t.strides()[nd - 1];
  const int64_t batch = t.numel() / (rows * cols);
  dispatch_element_size(t.element_size(), [&]<class U>() {
    U* base = static_cast<U*>(t.data_ptr());
    parallel_for(batch, std::max<int64_t>(1, kGrainSize / (rows * cols)), [&](int64_t b, int64_t e) {
      for (int64_t m = b; m < e; ++m) {
        int64_t off = 0, rem = m;  // offset of matrix m (batch dims row-major)
        for (int64_t d = nd - 3; d >= 0; --d) {
          off += (rem % t.sizes()[d]) * t.strides()[d];
          rem /= t.sizes()[d];
        }
        U* mat = base + off;
        for (int64_t i = 0; i < rows; ++i) {
          // The zeroed columns of row i: [j0, j1).
          int64_t j0 = Upper ? 0 : std::clamp<int64_t>(i + k + 1, 0, cols);
          int64_t j1 = Upper ? std::clamp<int64_t>(i + k, 0, cols) : cols;
          U* r = mat + i * rs;
          for (int64_t j = j0; j < j1; ++j) r[j * cs] = U(0);
        }
      }
    });
  });
}

void check_triangle(const char* op, const Tensor& self) {
  // PyTorch reads size(-2) only for a non-empty input (an IndexError for fewer than 2 dims).
  EMBER_CHECK_INDEX(self.numel() == 0 || self.dim() >= 2,
                    "{}: Dimension out of range (expected to be in range of [{}, {}], but got -2): the input must have "
                    "at least 2 dims, but has {}",
                    op, -std::max<int64_t>(self.dim(), 1), std::max<int64_t>(self.dim(), 1) - 1, self.dim());
}

template <bool Upper>
Tensor triangle(const char* op, const Tensor& self, int64_t k) {
  check_triangle(op, self);
  Tensor r = self.clone(MemoryFormat::Contiguous);
  zero_outside_triangle<Upper>(r, k);
  return r;
}

template <bool Upper>
Tensor triangle_(const char* op, const Tensor& self, int64_t k) {
  check_triangle(op, self);
  zero_outside_triangle<Upper>(self, k);
  return self;
}

template <bool Upper>
Tensor triangle_out(const char* op, const Tensor& self, int64_t k, const Tensor& out) {
  check_triangle(op, self);
  check_out_same_dtype(op, out, self.dtype(), self.sizes());
  if (!out.is_same(self)) out.copy_(self);
  zero_outside_triangle<Upper>(out, k);
  return out;
}

// ------------------------------------------------------------------------------------------------ pads
// Note [reflection and replication pads]
// The input is (C, *spatial) or (N, C, *spatial) with 1, 2 or 3 spatial dims, padded by (left, right) for
// the last dim, then (top, bottom), then (front, back) (Note [pad layout] in ember/ops/padding.cpp). Output
// position o of a spatial dim of size S padded by (l, r) reads input position i = o - l, mapped into [0, S):
//   reflect:   -i below 0, 2(S-1) - i above S-1 (the edge element itself is not repeated)
//   replicate: clamp(i, 0, S-1)
// Negative pads crop. Both are index maps per dim, computed once; the copy is a gather over planes.
enum class PadMode { Reflect, Replicate };

std::string sizes_str(IntArrayRef s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

Tensor pad_nd(const char* op, const Tensor& self, IntArrayRef padding, int nsp, PadMode mode) {
  const int64_t nd = self.dim();
  const int64_t batch_dims = nd - nsp;  // 1 (C) or 2 (N, C)
  DimVector out_sizes(self.sizes());
  // Spatial dim s (0 = first spatial dim) is padded by the pair nsp - 1 - s.
  std::vector<std::vector<int64_t>> maps;
  for (int s = 0; s < nsp; ++s) {
    const int64_t d = batch_dims + s;
    const int64_t size = self.sizes()[d];
    const int64_t l = padding[2 * (nsp - 1 - s)], r = padding[2 * (nsp - 1 - s) + 1];
    if (mode == PadMode::Reflect) {
      EMBER_CHECK(l < size && r < size,
                  "{}: Argument #{}: Padding size should be less than the corresponding input dimension, but got: "
                  "padding ({}, {}) at dimension {} of input {}",
                  op, 4 + 2 * (nsp - 1 - s), l, r, d, sizes_str(self.sizes()));
    }
    out_sizes[d] = size + l + r;
  }
  // An output size below 1: 1-D pads need W >= 1; 2-D and 3-D pads only some spatial size >= 1 (as PyTorch).
  bool some_positive = false;
  for (int s = 0; s < nsp; ++s) some_positive = some_positive || out_sizes[batch_dims + s] >= 1;
  EMBER_CHECK(some_positive, "{}: input {} is too small. Calculated output size: {}", op, sizes_str(self.sizes()),
              sizes_str(out_sizes));
  for (int s = 0; s < nsp; ++s)
    EMBER_CHECK(out_sizes[batch_dims + s] >= 0, "{}: input {} is too small. Calculated output size: {}", op,
                sizes_str(self.sizes()), sizes_str(out_sizes));
  Tensor out = make_empty(out_sizes, self.dtype());
  if (out.numel() == 0) return out;
  for (int s = 0; s < nsp; ++s) {
    const int64_t d = batch_dims + s;
    const int64_t size = self.sizes()[d];
    const int64_t l = padding[2 * (nsp - 1 - s)];
    std::vector<int64_t> m(static_cast<size_t>(out_sizes[d]));
    for (int64_t o = 0; o < out_sizes[d]; ++o) {
      int64_t i = o - l;
      if (mode == PadMode::Replicate) i = std::clamp<int64_t>(i, 0, size - 1);
      else if (i < 0) i = -i;
      else if (i >= size) i = 2 * (size - 1) - i;
      EMBER_CHECK(i >= 0 && i < size, "{}: padding out of range for input {}", op, sizes_str(self.sizes()));
      m[static_cast<size_t>(o)] = i;
    }
    maps.push_back(std::move(m));
  }
  while (maps.size() < 3) maps.insert(maps.begin(), std::vector<int64_t>{0});  // missing dims: size 1
  Tensor x = self.contiguous();
  int64_t planes = 1;
  for (int64_t d = 0; d < batch_dims; ++d) planes *= self.sizes()[d];
  int64_t in_plane = 1;
  for (int64_t d = batch_dims; d < nd; ++d) in_plane *= self.sizes()[d];
  const int64_t in_h = nsp >= 2 ? self.sizes()[nd - 2] : 1, in_w = self.sizes()[nd - 1];
  const auto &md = maps[0], &mh = maps[1], &mw = maps[2];
  const int64_t od = static_cast<int64_t>(md.size()), oh = static_cast<int64_t>(mh.size()),
                ow = static_cast<int64_t>(mw.size());
  dispatch_element_size(self.element_size(), [&]<class U>() {
    const U* src = static_cast<const U*>(x.data_ptr());
    U* dst = static_cast<U*>(out.data_ptr());
    // One task per output row (plane, depth, height).
    parallel_for(planes * od * oh, std::max<int64_t>(1, kGrainSize / ow), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const int64_t p = row / (od * oh), z = (row / oh) % od, y = row % oh;
        const U* in = src + p * in_plane + (md[z] * in_h + mh[y]) * in_w;
        U* o = dst + row * ow;
        for (int64_t xw = 0; xw < ow; ++xw) o[xw] = in[mw[xw]];
      }
    });
  });
  return out;
}

}  // namespace

Tensor cat(TensorList tensors, int64_t dim) { return cat_impl(tensors, dim, Tensor()); }
Tensor cat_out(TensorList tensors, int64_t dim, const Tensor& out) { return cat_impl(tensors, dim, out); }

Tensor flip(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  std::vector<char> flipped(static_cast<size_t>(std::max<int64_t>(nd, 1)), 0);
  for (int64_t d : dims) {
    int64_t w = checked_dim("flip", d, nd);
    EMBER_CHECK(!flipped[w], "flip: dim {} appears multiple times in the list of dims", w);
    flipped[w] = 1;
  }
  Tensor out = make_empty(self.sizes(), self.dtype());
  if (self.numel() == 0) return out;
  // The input seen backwards along the flipped dims: start at their last element, negate their strides.
  DimVector strides(self.strides());
  int64_t start = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (!flipped[d]) continue;
    start += (self.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  dispatch_element_size(self.element_size(), [&]<class U>() {
    gather(static_cast<U*>(out.data_ptr()), static_cast<const U*>(self.data_ptr()) + start, self.sizes(), strides);
  });
  return out;
}

Tensor tril(const Tensor& self, int64_t diagonal) { return triangle<false>("tril", self, diagonal); }
Tensor tril_(const Tensor& self, int64_t diagonal) { return triangle_<false>("tril_", self, diagonal); }
Tensor tril_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  return triangle_out<false>("tril", self, diagonal, out);
}
Tensor triu(const Tensor& self, int64_t diagonal) { return triangle<true>("triu", self, diagonal); }
Tensor triu_(const Tensor& self, int64_t diagonal) { return triangle_<true>("triu_", self, diagonal); }
Tensor triu_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  return triangle_out<true>("triu", self, diagonal, out);
}

// The accepted ranks and zero sizes are PyTorch 1.13's, which differ between the ops.
Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  EMBER_CHECK(
      (self.dim() == 2 && self.sizes()[1] != 0) || (self.dim() == 3 && self.sizes()[1] != 0 && self.sizes()[2] != 0),
      "reflection_pad1d: 2D or 3D (batch mode) tensor expected for input, but got: {}", sizes_str(self.sizes()));
  return pad_nd("reflection_pad1d", self, padding, 1, PadMode::Reflect);
}
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  const bool valid = self.dim() >= 3 && self.sizes()[1] != 0 && self.sizes()[2] != 0;
  EMBER_CHECK((self.dim() == 3 && valid) || (self.dim() == 4 && valid && self.sizes()[3] != 0),
              "reflection_pad2d: 3D or 4D (batch mode) tensor expected for input, but got: {}",
              sizes_str(self.sizes()));
  return pad_nd("reflection_pad2d", self, padding, 2, PadMode::Reflect);
}
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  const bool valid = self.dim() >= 4 && self.sizes()[1] != 0 && self.sizes()[2] != 0 && self.sizes()[3] != 0;
  EMBER_CHECK((self.dim() == 4 && valid) || (self.dim() == 5 && valid && self.sizes()[4] != 0),
              "reflection_pad3d: Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: {}",
              sizes_str(self.sizes()));
  return pad_nd("reflection_pad3d", self, padding, 3, PadMode::Reflect);
}
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) {
  EMBER_CHECK((self.dim() == 2 && self.sizes()[0] != 0 && self.sizes()[1] != 0) ||
                  (self.dim() == 3 && self.sizes()[1] != 0 && self.sizes()[2] != 0),
              "replication_pad1d: Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: {}",
              sizes_str(self.sizes()));
  return pad_nd("replication_pad1d", self, padding, 1, PadMode::Replicate);
}
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) {
  const bool valid = self.dim() >= 3 && self.sizes()[1] != 0 && self.sizes()[2] != 0;
  EMBER_CHECK((self.dim() == 3 && self.sizes()[0] != 0 && valid) || (self.dim() == 4 && valid && self.sizes()[3] != 0),
              "replication_pad2d: Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: {}",
              sizes_str(self.sizes()));
  return pad_nd("replication_pad2d", self, padding, 2, PadMode::Replicate);
}
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  const bool valid = self.dim() >= 4 && self.sizes()[1] != 0 && self.sizes()[2] != 0 && self.sizes()[3] != 0;
  EMBER_CHECK((self.dim() == 4 && self.sizes()[0] != 0 && valid) || (self.dim() == 5 && valid && self.sizes()[4] != 0),
              "replication_pad3d: Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: {}",
              sizes_str(self.sizes()));
  return pad_nd("replication_pad3d", self, padding, 3, PadMode::Replicate);
}

}  // namespace ember::cpu
