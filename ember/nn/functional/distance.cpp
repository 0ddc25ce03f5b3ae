// ember::nn::functional's distances, with Python's ember.nn.functional's operations (python/ember/_losses.py).
#include "ember/nn/functional/distance.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"
#include "ember/core/TypePromotion.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

namespace {
// Names both shapes when x1 and x2 do not broadcast (the ops' own message names only the sizes).
void check_broadcast(const char* op, const Tensor& x1, const Tensor& x2) {
  const int64_t n = std::max(x1.dim(), x2.dim());
  for (int64_t i = 1; i <= n; ++i) {
    const int64_t a = i <= x1.dim() ? x1.size(-i) : 1, b = i <= x2.dim() ? x2.size(-i) : 1;
    EMBER_CHECK(a == b || a == 1 || b == 1,
                "{}: x1 of shape [{}] and x2 of shape [{}] do not broadcast: the size of x1 ({}) must match the size "
                "of x2 ({}) at non-singleton dimension {}", op, fmt::join(x1.sizes(), ", "),
                fmt::join(x2.sizes(), ", "), a, b, n - i);
  }
}
}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  const DType dtype = ember::result_type(x1, x2);
  EMBER_CHECK(is_floating_point(dtype),
              "cosine_similarity: expected common dtype to be floating point, yet common dtype is {}", dtype);
  check_broadcast("cosine_similarity", x1, x2);
  const std::vector<Tensor> both = ember::broadcast_tensors({ember::to(x1, dtype), ember::to(x2, dtype)});
  const int64_t dim = options.dim();
  const double eps = options.eps();
  auto norm = [&](const Tensor& x) {
    Tensor squared = ember::sum(ember::pow(x, 2), IntArrayRef{dim}, /*keepdim=*/true);
    {
      autograd::NoGradGuard no_grad;  // the floor is not differentiated (see the doc)
      ember::clamp_min_(squared, eps * eps);
    }
    return ember::sqrt(squared);
  };
  return ember::sum((both[0] / norm(both[0])) * (both[1] / norm(both[1])), IntArrayRef{dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  check_broadcast("pairwise_distance", x1, x2);
  const int64_t dim = std::max(x1.dim(), x2.dim()) - 1;  // -1 for 0-dim inputs: the norm of the single value
  return ember::norm(x1 - x2 + options.eps(), options.p(), IntArrayRef{dim}, options.keepdim());
}

}  // namespace ember::nn::functional
