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

}  // namespace ember::cpu
