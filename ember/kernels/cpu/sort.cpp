// Sorting kernels: sort (stable or not, ascending or descending) and topk.
//
// Note [sorting]
// Each slice along dim is copied into a buffer of (value, index) pairs and ordered with the C++ library's
// algorithms under PyTorch 1.13's comparators, in which NaN is larger than every number:
//   ascending   a before b  iff  (a is not NaN and b is NaN) or a < b
//   descending  a before b  iff  (a is NaN and b is not NaN) or a > b
// sort uses std::stable_sort when stable, else std::sort; topk uses std::partial_sort when k * 64 <= n,
// else std::nth_element (then std::sort of the first k - 1 when sorted). These are exactly the calls PyTorch's
// CPU kernels make, so with the same standard library (libstdc++, as Debian's PyTorch) even the order of
// ties that the non-stable algorithms leave unspecified comes out as PyTorch's. Slices run in parallel.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/ReducePlan.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/shape.h"

namespace ember::cpu {

namespace {

template <class M>
bool is_nan(M v) {
  if constexpr (std::is_floating_point_v<M>) return std::isnan(v);
  else return false;
}

template <class M>
struct Ascending {
  template <class P>
  bool operator()(const P& a, const P& b) const {
    M x = static_cast<M>(a.first), y = static_cast<M>(b.first);
    return (!is_nan(x) && is_nan(y)) || x < y;
  }
};
template <class M>
struct Descending {
  template <class P>
  bool operator()(const P& a, const P& b) const {
    M x = static_cast<M>(a.first), y = static_cast<M>(b.first);
    return (is_nan(x) && !is_nan(y)) || x > y;
  }
};

// The slices of `t` along dim d: a plan whose kept dims are every dim but d (ReducePlan, Note [reductions]).
ReducePlan slices_of(const Tensor& t, int64_t d) { return make_reduce_plan(t, IntArrayRef(&d, 1)); }

// Runs f(slice, in_offset, out_offset) for every slice of self along d (elements, relative to element 0),
// the output offsets in `out` (same sizes as self except along d).
template <class F>
void for_each_slice(const Tensor& self, const Tensor& out, int64_t d, int64_t work_per_slice, F&& f) {
  ReducePlan in = slices_of(self, d), o = slices_of(out, d);
  parallel_for(in.num_outputs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work_per_slice, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t s = b; s < e; ++s) f(detail::kept_offset(in, s), detail::kept_offset(o, s));
               });
}

std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, bool stable, int64_t dim, bool descending) {
  const int64_t d = checked_dim("sort", dim, self.dim());
  Tensor values = make_empty(self.sizes(), self.dtype());
  Tensor indices = make_empty(self.sizes(), kInt64);
  if (self.numel() == 0) return {values, indices};
  if (self.dim() == 0) {
    values.copy_(self);
    indices.data_ptr<int64_t>()[0] = 0;
    return {values, indices};
  }
  const int64_t n = self.sizes()[d];
  const int64_t in_stride = self.strides()[d], out_stride = values.strides()[d];
  dispatch_dtypes<kAllTypes>(self.dtype(), "sort", [&]<class T>() {
    using M = opmath_t<T>;
    const T* in = static_cast<const T*>(self.data_ptr());
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    for_each_slice(self, values, d, n * 8, [&](int64_t ioff, int64_t ooff) {
      std::vector<std::pair<T, int64_t>> buf(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) buf[i] = {in[ioff + i * in_stride], i};
      if (descending) {
        if (stable) std::stable_sort(buf.begin(), buf.end(), Descending<M>{});
        else std::sort(buf.begin(), buf.end(), Descending<M>{});
      } else {
        if (stable) std::stable_sort(buf.begin(), buf.end(), Ascending<M>{});
        else std::sort(buf.begin(), buf.end(), Ascending<M>{});
      }
      for (int64_t i = 0; i < n; ++i) {
        vo[ooff + i * out_stride] = buf[i].first;
        io[ooff + i * out_stride] = buf[i].second;
      }
    });
  });
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sort_impl(self, false, dim, descending);
}

std::tuple<Tensor, Tensor> sort_stable(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  EMBER_CHECK(stable.has_value(), "sort: stable must be True or False when given, not None");
  return sort_impl(self, *stable, dim, descending);
}

// See Note [sorting]. The buffer holds PyTorch's accumulate type (double for float, int64 for integers),
// which changes no comparison.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t d = checked_dim("topk", dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = {} for a dim of size {})", k, n);
  DimVector sizes(self.sizes());
  if (self.dim() > 0) sizes[d] = k;
  Tensor values = make_empty(sizes, self.dtype());
  Tensor indices = make_empty(sizes, kInt64);
  if (self.dim() == 0) {  // k is 0 or 1: the element itself, as PyTorch
    values.copy_(self);
    indices.data_ptr<int64_t>()[0] = 0;
    return {values, indices};
  }
  if (values.numel() == 0) return {values, indices};
  const int64_t in_stride = self.strides()[d], out_stride = values.strides()[d];
  dispatch_dtypes<kAllTypes>(self.dtype(), "topk", [&]<class T>() {
    using M = opmath_t<T>;
    using Acc = std::conditional_t<std::is_floating_point_v<M>, std::conditional_t<std::is_same_v<T, float>, double, M>,
                                   std::conditional_t<std::is_same_v<T, bool>, bool, int64_t>>;
    using Elem = std::pair<Acc, int64_t>;
    const T* in = static_cast<const T*>(self.data_ptr());
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    const bool use_partial_sort = k * 64 <= n;
    for_each_slice(self, values, d, n * 4, [&](int64_t ioff, int64_t ooff) {
      std::vector<Elem> q(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) q[i] = {static_cast<Acc>(static_cast<M>(in[ioff + i * in_stride])), i};
      auto run = [&](auto comp) {
        if (use_partial_sort) {
          std::partial_sort(q.begin(), q.begin() + k, q.end(), comp);
        } else {
          std::nth_element(q.begin(), q.begin() + k - 1, q.end(), comp);
          if (sorted) std::sort(q.begin(), q.begin() + k - 1, comp);
        }
      };
      if (largest) run(Descending<Acc>{});
      else run(Ascending<Acc>{});
      for (int64_t j = 0; j < k; ++j) {
        vo[ooff + j * out_stride] = static_cast<T>(static_cast<M>(q[j].first));
        io[ooff + j * out_stride] = q[j].second;
      }
    });
  });
  return {values, indices};
}

}  // namespace ember::cpu
