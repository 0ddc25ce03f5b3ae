// Sorting ops written with sort and searchsorted (ember/kernels/cpu/sort.cpp): argsort, msort, bucketize, isin.
#include "ember/core/TypePromotion.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"

namespace ember::composite {

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, dim, descending));
}

Tensor argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(ember::sort(self, stable, dim, descending));
}

}  // namespace ember::composite

// The ops searching sorted values (ops_sort.yaml), written with searchsorted and sort.
namespace ember::composite {

Tensor msort(const Tensor& self) { return std::get<0>(ember::sort(self, 0, false)); }
Tensor msort_out(const Tensor& self, const Tensor& out) {
  EMBER_CHECK(out.dtype() == self.dtype(), "msort: Expected out tensor to have dtype {}, but got {} instead",
              linalg::type_meta_name(self.dtype()), linalg::type_meta_name(out.dtype()));
  return write_out("msort", out, composite::msort(self));
}

Tensor searchsorted_scalar(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                           std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
              "tensor dimension is 1, but we got boundaries tensor dim({}) and input value's dim(0) numel(1)",
              sorted_sequence.dim());
  // The number as PyTorch's wrapped number: of the dtype it promotes to with sorted_sequence (never truncated).
  return ember::searchsorted(sorted_sequence, ember::scalar_tensor(self, result_type(sorted_sequence, self)), out_int32,
                             right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  return ember::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}
Tensor bucketize_out(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, const Tensor& out) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  return ember::searchsorted_out(out, boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}
Tensor bucketize_scalar(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return composite::bucketize(ember::scalar_tensor(self, result_type(boundaries, self)), boundaries, out_int32, right);
}

// isin: test_elements sorted once, each element found by binary search (O((n + m) log m)); both operands in
// their common dtype, as PyTorch.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // an optimisation hint only
  const DType common = promote_types(elements.dtype(), test_elements.dtype());
  EMBER_CHECK(common != kBool && common != kBFloat16, "\"isin_default_cpu\" not implemented for '{}'",
              linalg::scalar_type_name(common));
  const Tensor e = elements.to(common);
  if (test_elements.numel() == 0) return ember::full(elements.sizes(), Scalar(invert), kBool);
  Tensor sorted = std::get<0>(ember::sort(test_elements.to(common).reshape({-1}), 0, false));
  // NaN (sorted last) equals nothing: searching among the other values only
  sorted = sorted.narrow(0, 0, ember::eq(sorted, sorted).sum().item<int64_t>());
  const int64_t m = sorted.numel();
  if (m == 0) return ember::full(elements.sizes(), Scalar(invert), kBool);
  const Tensor pos = ember::searchsorted(sorted, e.contiguous(), false, false, std::nullopt, std::nullopt)
                         .clamp_max(Scalar(m - 1));
  const Tensor found = ember::eq(sorted.index_select(0, pos.reshape({-1})).view(e.sizes()), e);
  return invert ? ember::logical_not(found) : found;
}
Tensor isin_out(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert,
                const Tensor& out) {
  return write_out_same_dtype("isin", out, composite::isin(elements, test_elements, assume_unique, invert));
}
Tensor isin_tensor_scalar(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  (void)assume_unique;
  return invert ? ember::ne(elements, test_element) : ember::eq(elements, test_element);
}
Tensor isin_tensor_scalar_out(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert,
                              const Tensor& out) {
  return write_out_same_dtype("isin", out, isin_tensor_scalar(elements, test_element, assume_unique, invert));
}
Tensor isin_scalar_tensor(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return composite::isin(ember::scalar_tensor(element, result_type(test_elements, element)), test_elements,
                         assume_unique, invert);
}
Tensor isin_scalar_tensor_out(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert,
                              const Tensor& out) {
  return write_out_same_dtype("isin", out, isin_scalar_tensor(element, test_elements, assume_unique, invert));
}

}  // namespace ember::composite
