// Ops that change which memory a tensor uses or how much of it: resize_, resize_as_, the set_ family and
// is_set_to (PyTorch's Resize.cpp and set_ semantics on Ember's resizable storages, StorageImpl::resize).
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

// Grows the storage to hold elements [0, offset + extent) of dtype (PyTorch's maybe_resize_storage_cpu:
// nothing for extent 0, never shrinks).
void ensure_storage(const Storage& storage, DType dtype, int64_t offset, int64_t extent) {
  if (extent == 0) return;
  const size_t need = static_cast<size_t>((offset + extent) * static_cast<int64_t>(element_size(dtype)));
  if (need > storage->nbytes()) storage->resize(need);
}

// The number of elements a geometry reaches past its offset: 1 + sum (size - 1) * stride (0 when empty).
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides) {
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    extent += (sizes[d] - 1) * strides[d];
  }
  return extent;
}

// Gives self the storage of `storage_of` with the geometry (in self's elements: the storage holds bytes, so its
// other tensor may have another dtype), growing the storage when needed.
void set_geometry_over(const Tensor& self, const Tensor& storage_of, int64_t offset, IntArrayRef sizes,
                       IntArrayRef strides) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension {}: {}", s, sizes);
  EMBER_CHECK(offset >= 0, "Tensor: invalid storage offset {}", offset);
  ensure_storage(storage_of.impl()->storage(), self.dtype(), offset, storage_extent(sizes, strides));
  TensorImpl geometry(storage_of.impl()->storage(), self.dtype(), sizes, strides, offset);
  self.impl()->set_data(geometry);
}

void check_not_requiring_grad(const Tensor& self, const char* op) {
  EMBER_CHECK(!self.requires_grad(), "{}: cannot resize variables that require grad", op);
}

}  // namespace

Tensor resize_(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  check_not_requiring_grad(self, "resize_");
  EMBER_CHECK(memory_format != MemoryFormat::Preserve, "resize_: Unsupported memory format Preserve");
  for (int64_t s : size) EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension {}: {}", s, size);
  if (!self.sizes().equals(size) || memory_format) {
    // A memory format restrides to it (channels-last too, Note [memory formats]); none means row-major.
    const DimVector strides = strides_for_memory_format(size, memory_format.value_or(MemoryFormat::Contiguous));
    set_geometry_over(self, self, self.storage_offset(), size, strides);
  }
  return self;
}

Tensor resize_as_(const Tensor& self, const Tensor& the_template, std::optional<MemoryFormat> memory_format) {
  return composite::resize_(self, the_template.sizes(), memory_format);
}

Tensor set_source_Tensor(const Tensor& self, const Tensor& source) {
  EMBER_CHECK(self.dtype() == source.dtype(), "set_: expected source of dtype {} (self's), but got {}", self.dtype(),
              source.dtype());
  if (!self.is_same(source)) self.impl()->set_data(*source.impl());
  return self;
}

Tensor set_source_Tensor_storage_offset(const Tensor& self, const Tensor& source, int64_t storage_offset,
                                        IntArrayRef size, IntArrayRef stride) {
  EMBER_CHECK(stride.empty() || stride.size() == size.size(),
              "set_: got {} sizes but {} strides (stride may be empty: contiguous)", size.size(), stride.size());
  const DimVector strides = stride.empty() ? contiguous_strides(size) : DimVector(stride.begin(), stride.end());
  set_geometry_over(self, source, storage_offset, size, strides);
  return self;
}

Tensor set_(const Tensor& self) {
  TensorImpl empty(make_intrusive<StorageImpl>(0), self.dtype(), IntArrayRef{0}, IntArrayRef{1}, 0);
  self.impl()->set_data(empty);
  return self;
}

bool is_set_to(const Tensor& self, const Tensor& tensor) {
  return self.impl()->storage().get() == tensor.impl()->storage().get() &&
         self.storage_offset() == tensor.storage_offset() && self.sizes().equals(tensor.sizes()) &&
         self.strides().equals(tensor.strides());
}

}  // namespace ember::composite
