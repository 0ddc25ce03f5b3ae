#include "ember/core/Tensor.h"

#include <atomic>

#include "ember/core/VariableHooks.h"

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
  return make_view(base, base.dtype(), sizes, strides, storage_offset);
}

Tensor make_view(const Tensor& base, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = make_intrusive<TensorImpl>(base.impl()->storage(), dtype, sizes, strides, storage_offset,
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

namespace ember {

// Tensor's autograd methods: forwarded to the autograd layer (Note [variable hooks]).

namespace {
std::atomic<const VariableHooksInterface*> g_variable_hooks{nullptr};
}  // namespace

void set_variable_hooks(const VariableHooksInterface* hooks) { g_variable_hooks.store(hooks); }

const VariableHooksInterface& variable_hooks() {
  const VariableHooksInterface* h = g_variable_hooks.load(std::memory_order_acquire);
  EMBER_CHECK(h, "autograd is not available: the autograd layer has not registered its variable hooks (Note "
                 "[variable hooks]); link libember.so, which includes it");
  return *h;
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  variable_hooks().set_requires_grad(*this, requires_grad);
  return *this;
}
const Tensor& Tensor::grad() const { return variable_hooks().grad(*this); }
Tensor& Tensor::mutable_grad() const { return variable_hooks().mutable_grad(*this); }
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      OptionalArrayRef<Tensor> inputs) const {
  variable_hooks().backward(*this, gradient, retain_graph, create_graph, inputs);
}
bool Tensor::is_leaf() const { return variable_hooks().is_leaf(*this); }
std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return variable_hooks().grad_fn(*this); }
void Tensor::retain_grad() const { variable_hooks().retain_grad(*this); }
bool Tensor::retains_grad() const { return variable_hooks().retains_grad(*this); }
const Tensor& Tensor::detach_() const {
  variable_hooks().detach_(*this);
  return *this;
}

}  // namespace ember
