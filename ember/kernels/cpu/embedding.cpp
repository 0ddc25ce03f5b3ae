// Embedding kernels: the lookup of rows of a (num_embeddings, D) table, and the in-place renormalization of
// the rows a lookup touches (F.embedding's max_norm). Checks and messages follow PyTorch 1.13's Embedding.cpp
// (its lookup is index_select(weight, 0, indices), whose out-of-range error is an IndexError).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

void check_indices(const char* op, const Tensor& indices) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
              "{}: Expected tensor for argument #1 'indices' to have one of the following dtypes: int64, int32; "
              "but got {} instead", op, indices.dtype());
}

// The indices as int64, contiguous, each checked against [0, rows).
std::vector<int64_t> read_indices(const char* op, const Tensor& indices, int64_t rows) {
  const Tensor idx = indices.to(kInt64).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  std::vector<int64_t> v(p, p + idx.numel());
  for (int64_t i : v)
    EMBER_CHECK_INDEX(i >= 0 && i < rows, "{}: index out of range in self (index {} for {} rows)", op, i, rows);
  return v;
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t, bool, bool) {
  const char* op = "embedding";
  EMBER_CHECK(weight.dim() == 2, "{}: 'weight' must be 2-D (got weight of size {})", op, weight.sizes());
  check_indices(op, indices);
  const int64_t rows = weight.size(0), D = weight.size(1);
  const std::vector<int64_t> idx = read_indices(op, indices, rows);
  DimVector sizes(indices.sizes().begin(), indices.sizes().end());
  sizes.push_back(D);
  Tensor out = make_empty(sizes, weight.dtype());
  const Tensor w = weight.contiguous();
  const int64_t n = static_cast<int64_t>(idx.size());
  if (n == 0 || D == 0) return out;
  const size_t row_bytes = static_cast<size_t>(D * weight.element_size());
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(n, std::max<int64_t>(1, kGrainSize / D), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, row_bytes);
  });
  return out;
}

// Rows named by indices (each once) whose norm_type-norm exceeds max_norm are scaled by
// max_norm / (norm + 1e-7), as PyTorch's embedding_renorm_.
Tensor embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  const char* op = "embedding_renorm_";
  EMBER_CHECK(self.dim() == 2, "{}: 'self' must be 2-D (got self of size {})", op, self.sizes());
  check_indices(op, indices);
  std::vector<int64_t> idx = read_indices(op, indices, self.size(0));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    const int64_t D = self.size(1), s0 = self.stride(0), s1 = self.stride(1);
    T* base = self.data_ptr<T>();
    for (int64_t r : idx) {
      T* row = base + r * s0;
      double norm = 0;
      for (int64_t j = 0; j < D; ++j) {
        const double v = std::abs(static_cast<double>(static_cast<M>(row[j * s1])));
        if (norm_type == 1) norm += v;
        else if (norm_type == 2) norm += v * v;
        else if (std::isinf(norm_type)) norm = norm_type > 0 ? std::max(norm, v) : (j ? std::min(norm, v) : v);
        else norm += std::pow(v, norm_type);
      }
      if (norm_type == 2) norm = std::sqrt(norm);
      else if (norm_type != 1 && !std::isinf(norm_type)) norm = std::pow(norm, 1.0 / norm_type);
      if (norm > max_norm) {
        const M scale = static_cast<M>(max_norm / (norm + 1e-7));
        for (int64_t j = 0; j < D; ++j) row[j * s1] = static_cast<T>(static_cast<M>(row[j * s1]) * scale);
      }
    }
  });
  return self;
}

// Row i of the result sums the grad_output rows whose index is i (times 1 / count(i) when scale_grad_by_freq), in
// index order; rows of padding_idx stay zero. The threads split the D columns, so no two write the same element.
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  check_indices(op, indices);
  EMBER_CHECK(num_weights >= 0, "{}: num_weights must be non-negative (got {})", op, num_weights);
  EMBER_CHECK(grad_output.dim() == indices.dim() + 1 &&
                  IntArrayRef(grad_output.sizes().data(), static_cast<size_t>(indices.dim())).equals(indices.sizes()),
              "{}: expected grad_output of size indices.shape + (D,) for indices of size {}, but got {}", op,
              indices.sizes(), grad_output.sizes());
  const std::vector<int64_t> idx = read_indices(op, indices, num_weights);
  const int64_t D = grad_output.size(-1), n = static_cast<int64_t>(idx.size());
  Tensor gw = make_empty({num_weights, D}, grad_output.dtype());
  const Tensor go = grad_output.contiguous();
  std::vector<double> scale(static_cast<size_t>(num_weights), 1.0);
  if (scale_grad_by_freq) {
    std::vector<int64_t> count(static_cast<size_t>(num_weights), 0);
    for (int64_t i : idx) ++count[static_cast<size_t>(i)];
    for (size_t r = 0; r < count.size(); ++r) scale[r] = count[r] ? 1.0 / static_cast<double>(count[r]) : 1.0;
  }
  dispatch_dtypes<kFloatingTypes>(grad_output.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    const T* src = go.data_ptr<T>();
    T* dst = gw.data_ptr<T>();
    std::fill(dst, dst + num_weights * D, T(0));
    parallel_for(D, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [&](int64_t jb, int64_t je) {
      for (int64_t k = 0; k < n; ++k) {
        const int64_t r = idx[static_cast<size_t>(k)];
        if (r == padding_idx) continue;
        const M s = static_cast<M>(scale[static_cast<size_t>(r)]);
        for (int64_t j = jb; j < je; ++j)
          dst[r * D + j] = static_cast<T>(static_cast<M>(dst[r * D + j]) + static_cast<M>(src[k * D + j]) * s);
      }
    });
  });
  return gw;
}

}  // namespace ember::cpu
