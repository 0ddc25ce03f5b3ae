#include "ember/core/TypePromotion.h"

namespace ember {

namespace {
int category(DType t) { return t == kBool ? 0 : is_complex(t) ? 3 : is_floating_point(t) ? 2 : 1; }
void promote_into(int8_t& slot, DType t) {
  slot = static_cast<int8_t>(slot < 0 ? t : promote_types(static_cast<DType>(slot), t));
}
// Combines a higher-priority group's dtype with a lower group's (Note [promotion]).
int8_t combine(int8_t higher, int8_t lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  DType h = static_cast<DType>(higher), l = static_cast<DType>(lower);
  // A complex lower group keeps a floating higher group's precision (float32 tensor with a complex128 0-dim
  // tensor is complex64), as PyTorch's combine_categories.
  if (is_complex(l) && is_floating_point(h)) return static_cast<int8_t>(to_complex_dtype(h));
  if (category(l) > category(h)) return static_cast<int8_t>(promote_types(h, l));
  return higher;
}
}  // namespace

void ResultTypeState::add(const Tensor& t) {
  if (!t.defined()) return;
  if (t.impl()->is_wrapped_number()) {
    // A wrapped Python float counts as the default dtype, a wrapped complex as the default complex dtype, a
    // wrapped int as int64 (PyTorch's rule).
    DType d = t.dtype();
    promote_into(wrapped_, is_floating_point(d) ? default_dtype() : is_complex(d) ? default_complex_dtype() : d);
  } else if (t.dim() == 0) {
    promote_into(zero_, t.dtype());
  } else {
    promote_into(dim_, t.dtype());
  }
}

void ResultTypeState::add(const Scalar& s) {
  DType d = s.dtype();
  promote_into(wrapped_, is_floating_point(d) ? default_dtype() : is_complex(d) ? default_complex_dtype() : d);
}

DType ResultTypeState::result() const {
  int8_t r = combine(dim_, combine(zero_, wrapped_));
  return r < 0 ? default_dtype() : static_cast<DType>(r);
}

DType result_type(TensorList tensors) {
  ResultTypeState s;
  for (const Tensor& t : tensors) s.add(t);
  return s.result();
}
DType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState s;
  s.add(a);
  s.add(b);
  return s.result();
}
DType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  s.add(a);
  s.add(b);
  return s.result();
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector r(n);
  // From the trailing dim, as PyTorch's infer_size, so an error names the same dimension PyTorch does.
  for (size_t i = n; i-- > 0;) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1,
                "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}", da,
                db, i);
    r[i] = da == 1 ? db : da;
  }
  return r;
}

}  // namespace ember
