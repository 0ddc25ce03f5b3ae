// Copies and dtype conversion: copy_ (broadcasting src into self, converting dtype), clone, _to_copy.
#include <algorithm>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// Converts one value between any two dtypes as PyTorch's static_cast does: through float for the 16-bit
// floats, bool is x != 0.
template <class To, class From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, bool>) return static_cast<opmath_t<From>>(x) != opmath_t<From>(0);
  else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(x));
  else return static_cast<To>(static_cast<opmath_t<From>>(x));
}

// Whether the memory of a and b overlaps (same storage and intersecting byte ranges).
bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.impl()->storage().get() != b.impl()->storage().get() || a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = lo;
    for (int64_t d = 0; d < t.dim(); ++d) hi += (t.sizes()[d] - 1) * t.strides()[d];
    return std::pair<int64_t, int64_t>{lo * t.element_size(), (hi + 1) * t.element_size()};
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

}  // namespace

Tensor copy_(const Tensor& self, const Tensor& src, bool) {
  EMBER_CHECK(self.impl()->storage()->writable(), "copy_: the destination tensor is read-only");
  if (self.is_same(src) || self.numel() == 0) return self;
  Tensor s = src;
  if (may_overlap(self, src)) {
    bool identical = self.storage_offset() == src.storage_offset() && self.sizes().equals(src.sizes()) &&
                     self.strides().equals(src.strides()) && self.dtype() == src.dtype();
    if (identical) return self;
    s = src.clone(MemoryFormat::Contiguous);  // read everything before writing anything
  }
  s = s.expand(self.sizes());
  IterConfig cfg;
  cfg.name = "copy_";
  cfg.promote_inputs = false;
  cfg.check_cast = false;
  cfg.is_inplace = true;
  cfg.compute_dtype = s.dtype();
  cfg.output_dtype = self.dtype();
  TensorIterator it(cfg, self, {s});
  DType from = s.dtype(), to = self.dtype();
  dispatch_dtypes<kAllTypes>(to, "copy_", [&]<class To>() {
    dispatch_dtypes<kAllTypes>(from, "copy_", [&]<class From>() {
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
