// Padding written with other ops: constant_pad_nd (fill, then copy self into the middle), _pad_circular
// (copy, then copy the wrapped-around edges) and pad, the entry point of ember.nn.functional.pad, which picks
// the kernel by mode and rank as PyTorch 1.13's at::pad does. The reflection and replication pads are CPU
// kernels (ember/kernels/cpu/shape.cpp).
//
// Note [pad layout]
// `pad` lists (before, after) pairs starting from the LAST dim: (left, right) pads dim -1, the next pair
// dim -2, and so on. Negative entries crop instead of padding.
#include <algorithm>

#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

// See Note [pad layout].
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(pad.size() % 2 == 0, "constant_pad_nd: Length of pad must be even but instead it equals {}", pad.size());
  const int64_t ndim = self.dim();
  const int64_t npairs = static_cast<int64_t>(pad.size() / 2);
  EMBER_CHECK(npairs <= ndim,
              "constant_pad_nd: Length of pad should be no more than twice the number of dimensions of the input. "
              "Pad length is {} while the input has {} dimensions.",
              pad.size(), ndim);
  const int64_t first = ndim - npairs;  // the first padded dim
  // Crop by the negative pads first (narrow views of self).
  Tensor src = self;
  bool all_non_positive = true;
  for (int64_t d = first; d < ndim; ++d) {
    int64_t before = pad[2 * (ndim - d - 1)], after = pad[2 * (ndim - d - 1) + 1];
    if (before < 0) src = src.narrow(d, -before, src.sizes()[d] + before);
    else if (before != 0) all_non_positive = false;
    if (after < 0) src = src.narrow(d, 0, src.sizes()[d] + after);
    else if (after != 0) all_non_positive = false;
  }
  if (all_non_positive) return src.clone(MemoryFormat::Contiguous);
  DimVector shape(self.sizes().begin(), self.sizes().begin() + first);
  for (int64_t d = first; d < ndim; ++d) {
    int64_t before = pad[2 * (ndim - d - 1)], after = pad[2 * (ndim - d - 1) + 1];
    int64_t size = self.sizes()[d] + before + after;
    EMBER_CHECK(size > 0,
                "constant_pad_nd: The input size {}, plus negative padding {} and {} resulted in a negative output "
                "size, which is invalid. Check dimension {} of your input.",
                self.sizes()[d], before, after, d);
    shape.push_back(size);
  }
  Tensor out = ember::empty(shape, self.dtype());
  out.fill_(value);
  Tensor dst = out;
  for (int64_t d = first; d < ndim; ++d) {
    int64_t before = pad[2 * (ndim - d - 1)], after = pad[2 * (ndim - d - 1) + 1];
    if (before > 0) dst = dst.narrow(d, before, dst.sizes()[d] - before);
    if (after > 0) dst = dst.narrow(d, 0, dst.sizes()[d] - after);
  }
  dst.copy_(src);
  return out;
}

// self: (N, C, *spatial) with len(pad) / 2 spatial dims (Note [pad layout]). The middle is copied from self
// (cropped by negative pads), then each padded dim in turn gets its left pad from the right end of the
// middle and its right pad from the left end; corners are written by the later dims, as PyTorch does.
Tensor pad_circular(const Tensor& self, IntArrayRef pad) {
  const int64_t nspatial = self.dim() - 2;
  EMBER_CHECK(static_cast<int64_t>(pad.size()) + 4 == self.dim() * 2,
              "_pad_circular: Invalid padding size, expected {} but got {}", nspatial * 2, pad.size());
  DimVector shape(self.sizes());
  for (int64_t i = 0; i < nspatial; ++i) {
    int64_t d = 2 + i;
    int64_t left = pad[2 * (nspatial - i - 1)], right = pad[2 * (nspatial - i - 1) + 1];
    int64_t size = self.sizes()[d];
    EMBER_CHECK(left <= size && right <= size,
                "_pad_circular: Padding value causes wrapping around more than once (padding ({}, {}) of dim {} of "
                "size {}).",
                left, right, d, size);
    shape[d] = size + left + right;
    EMBER_CHECK(shape[d] >= 0, "_pad_circular: Negative padding value is resulting in an empty dimension");
  }
  Tensor out = ember::empty(shape, self.dtype());
  Tensor dst = out, src = self;
  for (int64_t i = 0; i < nspatial; ++i) {
    int64_t d = self.dim() - 1 - i;  // pair i pads dim -1 - i
    int64_t left = pad[2 * i], right = pad[2 * i + 1];
    dst = dst.slice(d, std::max<int64_t>(left, 0), shape[d] - std::max<int64_t>(right, 0));
    src = src.slice(d, std::max<int64_t>(-left, 0), self.sizes()[d] - std::max<int64_t>(-right, 0));
  }
  dst.copy_(src);
  for (int64_t i = 0; i < nspatial; ++i) {
    int64_t d = self.dim() - 1 - i;
    int64_t left = pad[2 * i], right = pad[2 * i + 1];
    if (left > 0) {
      out.slice(d, 0, left).copy_(out.slice(d, shape[d] - left - std::max<int64_t>(right, 0),
                                            shape[d] - std::max<int64_t>(right, 0)));
    }
    if (right > 0) {
      out.slice(d, shape[d] - right, shape[d]).copy_(out.slice(d, std::max<int64_t>(left, 0),
                                                                std::max<int64_t>(left, 0) + right));
    }
  }
  return out;
}

// PyTorch 1.13's at::pad / _pad_enum.
Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  enum class Mode { Constant, Reflect, Replicate, Circular };
  Mode m;
  if (mode == "constant") m = Mode::Constant;
  else if (mode == "reflect") m = Mode::Reflect;
  else if (mode == "replicate") m = Mode::Replicate;
  else if (mode == "circular") m = Mode::Circular;
  else EMBER_FAIL_KIND(ErrorKind::NotImplemented, "pad: Unrecognised padding mode {}", mode);
  const int64_t ndim = self.dim();
  EMBER_CHECK(pad.size() % 2 == 0, "pad: Padding length must be divisible by 2");
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= ndim * 2,
              "pad: Padding length too large (padding of length {} for an input of {} dims)", pad.size(), ndim);
  if (m == Mode::Constant) return ember::constant_pad_nd(self, pad, Scalar(value.value_or(0.0)));
  EMBER_CHECK(!value || *value == 0, "pad: Padding mode \"{}\" doesn't take in value argument", mode);
  const size_t n = pad.size();
  if ((n == 2 && (ndim == 2 || ndim == 3)) || (n == 4 && (ndim == 3 || ndim == 4)) ||
      (n == 6 && (ndim == 4 || ndim == 5))) {
    if (m == Mode::Circular) return ember::_pad_circular(self, pad);
    const bool reflect = m == Mode::Reflect;
    if (n == 2) return reflect ? ember::reflection_pad1d(self, pad) : ember::replication_pad1d(self, pad);
    if (n == 4) return reflect ? ember::reflection_pad2d(self, pad) : ember::replication_pad2d(self, pad);
    return reflect ? ember::reflection_pad3d(self, pad) : ember::replication_pad3d(self, pad);
  }
  EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                  "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (got mode '{}', "
                  "an input of {} dims and a padding of length {}: 1, 2 or 3 padded dims need 2-3, 3-4 or 4-5 input "
                  "dims)",
                  mode, ndim, n);
}

}  // namespace ember::composite
