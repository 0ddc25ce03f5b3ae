#include "ember/core/Tensor.h"

namespace ember {

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item: called on an undefined tensor");
  EMBER_CHECK(numel() == 1, "a Tensor with {} elements cannot be converted to Scalar", numel());
  const void* p = impl_->data();
  switch (dtype()) {
#define EMBER_ITEM(T, name, id, py) \
  case DType::name:                 \
    return Scalar(*static_cast<const T*>(p));
    EMBER_FORALL_DTYPES(EMBER_ITEM)
#undef EMBER_ITEM
  }
  return Scalar();
}

}  // namespace ember

namespace ember {

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = make_intrusive<TensorImpl>(base.impl()->storage(), base.dtype(), sizes, strides, storage_offset,
                                         base.impl()->version_counter());
  impl->set_inference(base.impl()->is_inference());  // a view has its base's kind: Note [inference tensors]
  return Tensor(std::move(impl));
}

Tensor make_empty(IntArrayRef sizes, DType dtype) {
  int64_t n = checked_numel(sizes);
  int64_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(n, element_size(dtype), &nbytes), "empty: {} elements of {} overflow",
              n, dtype);
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

}  // namespace ember
