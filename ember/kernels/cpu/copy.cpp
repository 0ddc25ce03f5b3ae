// Copies and dtype conversion: copy_ (broadcasting src into self, converting dtype), clone, _to_copy.
#include <algorithm>

#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// Converts one value between any two dtypes as PyTorch's static_cast does: through float for the 16-bit
// floats, bool is x != 0.
// A complex value converts to a real type by its real part (Note [complex to real]); a real
// value to a complex type with imaginary part 0.
template <class To, class From>
inline To convert(From x) {
  if constexpr (is_complex_v<From> && is_complex_v<To>) return To(x);
  else if constexpr (is_complex_v<From>) {
    if constexpr (std::is_same_v<To, bool>) return x != From(0);
    else return convert<To>(x.real());
  } else if constexpr (is_complex_v<To>) {
    return To(static_cast<typename To::value_type>(static_cast<opmath_t<From>>(x)));
  } else if constexpr (std::is_same_v<To, bool>) return static_cast<opmath_t<From>>(x) != opmath_t<From>(0);
  else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(x));
  else return static_cast<To>(static_cast<opmath_t<From>>(x));
}

// Note [transposed copy]
// Copying between two layouts whose unit-stride dims differ (a.t().contiguous(), dst.copy_(a.t()), a permuted
// batch) through the generic loop walks one side with a large stride, touching a new cache line (and often a
// new page) per element. Instead the two unit-stride dims are cut into square tiles of kTile x kTile elements (at most
// 32 KiB of buffer on the stack): each tile is read row by row into a small buffer and written row by row from it, so
// every cache line of either side is touched once. Same dtype only, dispatched by element size (a copy moves bytes),
// tiles in parallel; any other dims (a batch) are walked around the tiles.
constexpr int64_t kTile = 64;

template <class E>
void copy_tiles(char* dst_base, const char* src_base, const DimVector& sizes, const DimVector& dst_st,
                const DimVector& src_st, int a, int b) {
  // a: the destination's unit-stride dim; b: the source's. Strides in elements.
  const int64_t na = sizes[a], nb = sizes[b];
  const int64_t ta = (na + kTile - 1) / kTile, tb = (nb + kTile - 1) / kTile;
  const int64_t dst_b = dst_st[b], src_a = src_st[a];
  DimVector batch;  // the other dims, outermost first
  for (int d = 0; d < static_cast<int>(sizes.size()); ++d)
    if (d != a && d != b) batch.push_back(d);
  int64_t nbatch = 1;
  for (int d : batch) nbatch *= sizes[d];
  E* dst = reinterpret_cast<E*>(dst_base);
  const E* src = reinterpret_cast<const E*>(src_base);
  const int64_t tiles = nbatch * ta * tb;
  parallel_for(tiles, std::max<int64_t>(1, kGrainSize / (kTile * kTile)), [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      int64_t rest = t / (ta * tb), in_batch = t % (ta * tb);
      int64_t doff = 0, soff = 0;
      for (size_t k = batch.size(); k-- > 0;) {
        int d = static_cast<int>(batch[k]);
        int64_t i = rest % sizes[d];
        rest /= sizes[d];
        doff += i * dst_st[d];
        soff += i * src_st[d];
      }
      const int64_t b0 = (in_batch / ta) * kTile, a0 = (in_batch % ta) * kTile;
      const int64_t b1 = std::min(nb, b0 + kTile), a1 = std::min(na, a0 + kTile);
      E* __restrict d0 = dst + doff;
      const E* __restrict s0 = src + soff;
      // Through a small buffer: both sides then move whole rows, and the buffer's own stride (kTile elements)
      // avoids the cache-set conflicts of walking a column whose stride is a power of two (4 KiB rows).
      E buf[kTile * kTile];
      const int64_t wa = a1 - a0, wb = b1 - b0;
      for (int64_t i = 0; i < wa; ++i) {
        const E* __restrict srow = s0 + (a0 + i) * src_a + b0;
        for (int64_t j = 0; j < wb; ++j) buf[i * kTile + j] = srow[j];
      }
      for (int64_t j = 0; j < wb; ++j) {
        E* __restrict drow = d0 + (b0 + j) * dst_b + a0;
        for (int64_t i = 0; i < wa; ++i) drow[i] = buf[i * kTile + j];
      }
    }
  });
}

// The tiled path of Note [transposed copy] when it applies: same dtype, same sizes, no overlap, a destination
// that writes each element once, and unit-stride dims that differ and are both long enough to tile.
bool try_copy_transposed(const Tensor& self, const Tensor& src) {
  if (self.dtype() != src.dtype() || self.dim() < 2 || self.numel() < kTile * kTile) return false;
  const int nd = static_cast<int>(self.dim());
  DimVector sizes(self.sizes().begin(), self.sizes().end());
  DimVector dst_st(self.strides().begin(), self.strides().end());
  DimVector src_st(src.strides().begin(), src.strides().end());
  int a = -1, b = -1;
  for (int d = nd - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (dst_st[d] == 0) return false;  // an expanded destination: leave the repeated writes to the generic loop
    if (dst_st[d] == 1 && a < 0) a = d;
    if (src_st[d] == 1 && b < 0) b = d;
  }
  if (a < 0 || b < 0 || a == b || sizes[a] < kTile / 2 || sizes[b] < kTile / 2) return false;
  char* d = static_cast<char*>(self.data_ptr());
  const char* s = static_cast<const char*>(src.data_ptr());
  dispatch_element_size(self.element_size(), [&]<class U>() { copy_tiles<U>(d, s, sizes, dst_st, src_st, a, b); });
  return true;
}

}  // namespace

Tensor copy_(const Tensor& self, const Tensor& src, bool) {
  EMBER_CHECK(self.impl()->storage()->writable(), "copy_: the destination tensor is read-only");
  if (self.is_same(src) || self.numel() == 0) return self;
  Tensor s = src;
  if (may_overlap(self, src)) {
    // Note [memory overlap]: a partial overlap of dense views raises, as PyTorch's copy_ (x[1:] = x[:-1]); the
    // same elements with the same geometry need no copy; overlaps too hard to decide read everything first.
    assert_no_partial_overlap("copy_", self, src);
    bool identical = self.storage_offset() == src.storage_offset() && self.sizes().equals(src.sizes()) &&
                     self.strides().equals(src.strides()) && self.dtype() == src.dtype();
    if (identical) return self;
    s = src.clone(MemoryFormat::Contiguous);  // read everything before writing anything
  }
  s = s.expand(self.sizes());
  if (try_copy_transposed(self, s)) return self;  // See Note [transposed copy]
  IterConfig cfg;
  cfg.name = "copy_";
  cfg.promote_inputs = false;
  cfg.check_cast = false;
  cfg.is_inplace = true;
  cfg.compute_dtype = s.dtype();
  cfg.output_dtype = self.dtype();
  TensorIterator it(cfg, self, {s});
  DType from = s.dtype(), to = self.dtype();
  // Note [complex to real]
  // Copying complex values into a real tensor keeps the real parts, as PyTorch's copy_ (which also warns
  // "Casting complex values to real discards the imaginary part"; Ember has no C++ warning channel yet).
  dispatch_dtypes<kAllAndComplex>(to, "copy_", [&]<class To>() {
    dispatch_dtypes<kAllAndComplex>(from, "copy_", [&]<class From>() {
      it.for_each([](char** d, const int64_t* st, int64_t n) {
        if constexpr (std::is_same_v<To, From>) {
          if (st[0] == sizeof(To) && st[1] == sizeof(From)) {
            std::memcpy(d[0], d[1], static_cast<size_t>(n) * sizeof(To));
            return;
          }
        }
        unary_loop<To, From>(d, st, n, [](From x) { return convert<To>(x); });
      });
    });
  });
  return it.finish();
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  // The layout rule is empty_like's (Note [preserve_format] in ember/ops/factories.cpp).
  return ember::empty_like(self, std::nullopt, std::nullopt, memory_format).copy_(self);
}

Tensor to_copy(const Tensor& self, std::optional<DType> dtype, std::optional<Device> device, bool,
               std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!device || device->is_cpu(), "to: device '{}' is not available; this build supports only cpu",
              device ? device->str() : "");
  return ember::empty_like(self, dtype, std::nullopt, memory_format).copy_(self);
}

Scalar local_scalar_dense(const Tensor& self) { return self.item(); }

bool equal(const Tensor& self, const Tensor& other) {
  if (!self.sizes().equals(other.sizes())) return false;
  Tensor e = ember::eq(self, other).contiguous();
  const bool* p = e.data_ptr<bool>();
  return std::all_of(p, p + e.numel(), [](bool b) { return b; });
}

}  // namespace ember::cpu
