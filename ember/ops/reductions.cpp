// Reduction overloads written with other ops (PyTorch's older spellings: unbiased=, p=, ...).
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {
std::optional<int64_t> correction_of(bool unbiased) { return unbiased ? 1 : 0; }
}  // namespace

Tensor max_other(const Tensor& self, const Tensor& other) { return ember::maximum(self, other); }
Tensor min_other(const Tensor& self, const Tensor& other) { return ember::minimum(self, other); }
Tensor var_unbiased(const Tensor& self, bool unbiased) {
  return ember::var(self, std::nullopt, correction_of(unbiased), false);
}
Tensor var_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::var(self, dim, correction_of(unbiased), keepdim);
}
Tensor std_unbiased(const Tensor& self, bool unbiased) {
  return ember::std(self, std::nullopt, correction_of(unbiased), false);
}
Tensor std_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::std(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> var_mean_unbiased(const Tensor& self, bool unbiased) {
  return ember::var_mean(self, std::nullopt, correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::var_mean(self, dim, correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean_unbiased(const Tensor& self, bool unbiased) {
  return ember::std_mean(self, std::nullopt, correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return ember::std_mean(self, dim, correction_of(unbiased), keepdim);
}
// Note [norm of nothing]
// aten::norm (torch.norm) gives 0 for an empty input whatever p, where linalg.vector_norm raises for the orders
// without an identity (inf, negative): an empty input is normed with ord 2 instead, which gives those zeros
// (and keeps the dtype checks and result shape).
Tensor norm_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  const Scalar ord = self.numel() == 0 ? Scalar(2.0) : p.value_or(Scalar(2.0));
  return ember::linalg_vector_norm(self, ord, dim, keepdim, std::nullopt);
}
Tensor norm(const Tensor& self, const Scalar& p) {  // See Note [norm of nothing]
  return ember::linalg_vector_norm(self, self.numel() == 0 ? Scalar(2.0) : p, std::nullopt, false, std::nullopt);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return ember::count_nonzero(self, IntArrayRef(&*dim, 1));
  return ember::count_nonzero(self, IntArrayRef());
}

}  // namespace ember::composite
