// Sorting kernels: sort (stable or not, ascending or descending) and topk; the selections kthvalue, median,
// nanmedian and mode (Note [selection]); unique values (Note [unique]); searchsorted (Note [searchsorted]);
// histc and bincount.
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
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/ReducePlan.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/ops/Functions.h"
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

// Note [selection]
// kthvalue, median, nanmedian and mode pick one element per slice along dim; which element of equal values
// they return (the index) is PyTorch 1.13's, so each runs PyTorch's CPU algorithm:
//  - kthvalue: the Numerical Recipes quickselect of PyTorch's SortingUtils.h (median-of-three pivot, NaN the
//    largest) on a copy of the slice, swapping values and indices together; the index is where the k-th
//    value lands.
//  - median / nanmedian: std::nth_element over the indices ordered by (value, index), a total order on the
//    values that are not NaN, so the result is the ((n - 1) / 2)-th element of the slice sorted stably.
//    median returns the first NaN of a slice holding one; nanmedian orders NaN last and counts only the
//    others (a slice of only NaNs gives the NaN nth_element leaves first, as PyTorch's).
//  - mode: std::sort of (value, index) pairs by value (not stable: with the same standard library the same
//    order of ties as PyTorch's), then the longest run, the first (smallest value) of equally long ones,
//    reporting the index of the run's last pair.
namespace {

// values and indices with size 1 at d (keepdim's shape), pick(in, stride, n, value_out, index_out) run on
// every slice along d; squeezed unless keepdim. A 0-dim self is one slice of one element.
template <uint32_t Mask, class F>
std::tuple<Tensor, Tensor> select_along(const char* name, const Tensor& self, int64_t dim, bool keepdim, F&& pick) {
  const int64_t d = checked_dim(name, dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  DimVector sizes(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) sizes[d] = 1;
  Tensor values = make_empty(sizes, self.dtype());
  Tensor indices = make_empty(sizes, kInt64);
  dispatch_dtypes<Mask>(self.dtype(), name, [&]<class T>() {
    EMBER_CHECK_INDEX(n > 0, "{}(): Expected reduction dim {} to have non-zero size.", name, d);
    if (values.numel() == 0) return;
    const T* in = static_cast<const T*>(self.data_ptr());
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    if (self.dim() == 0) {
      pick(in, int64_t{1}, int64_t{1}, vo, io);
      return;
    }
    const int64_t stride = self.strides()[d];
    for_each_slice(self, values, d, n * 8,
                   [&](int64_t ioff, int64_t ooff) { pick(in + ioff, stride, n, vo + ooff, io + ooff); });
  });
  if (!keepdim && self.dim() > 0) return {values.squeeze(d), indices.squeeze(d)};
  return {values, indices};
}

constexpr uint32_t kSelectTypes = kNumericTypes;

template <class T>
bool nan_value(T v) {
  return is_nan<opmath_t<T>>(static_cast<opmath_t<T>>(v));
}

// PyTorch's quick_select_template: arr[k] ends up the k-th smallest under gt (NaN largest).
template <class T, class Gt, class Swap>
void quick_select(std::vector<T>& arr, int64_t k, Gt gt, Swap swap) {
  int64_t L = 0, R = static_cast<int64_t>(arr.size()) - 1;
  while (true) {
    if (R <= L) return;
    if (R == L + 1) {
      if (gt(arr[L], arr[R])) swap(L, R);
      return;
    }
    const int64_t P = L + (R - L) / 2;
    swap(P, L + 1);
    if (gt(arr[L + 1], arr[R])) swap(L + 1, R);
    if (gt(arr[L], arr[R])) swap(L, R);
    if (gt(arr[L + 1], arr[L])) swap(L + 1, L);
    int64_t i = L + 1, j = R;
    const T piv = arr[L];
    while (true) {
      do ++i;
      while (gt(piv, arr[i]));
      do --j;
      while (gt(arr[j], piv));
      if (j < i) break;
      swap(i, j);
    }
    swap(L, j);
    if (j <= k) L = i;
    if (j >= k) R = j - 1;
  }
}

std::tuple<Tensor, Tensor> median_impl(const char* name, const Tensor& self, int64_t dim, bool keepdim,
                                       bool ignore_nan) {
  return select_along<kSelectTypes>(name, self, dim, keepdim, [&](auto* in, int64_t s, int64_t n, auto* vo,
                                                                   int64_t* io) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
    using M = opmath_t<T>;
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::iota(idx.begin(), idx.end(), 0);
    auto first = idx.begin(), last = idx.end();
    auto nan_at = [&](int64_t i) { return nan_value(in[i * s]); };
    int64_t count = n;  // the values taking part: all, or those not NaN for nanmedian
    if (!ignore_nan) {
      auto nan = std::find_if(first, last, nan_at);
      if (nan != last) {
        *vo = in[*nan * s];
        *io = *nan;
        return;
      }
    } else {
      count = n - std::count_if(first, last, nan_at);
    }
    // (count - 1) / 2 truncates to 0 for a slice of only NaNs, which then returns whichever NaN nth_element leaves
    // first, as PyTorch's (the same algorithm on the same all-equivalent NaNs).
    auto nth = first + (count - 1) / 2;
    std::nth_element(first, nth, last, [&](int64_t i, int64_t j) {
      const M a = static_cast<M>(in[i * s]), b = static_cast<M>(in[j * s]);
      const bool a_nan = is_nan(a), b_nan = is_nan(b);
      if (a_nan || b_nan) return !a_nan && b_nan;  // NaN is the largest; NaNs are all equivalent
      return a < b || (a == b && i < j);
    });
    *vo = in[*nth * s];
    *io = *nth;
  });
}

// median of all elements: the value of median_impl over the flattened self; for an empty self NaN converted to
// self's dtype, as PyTorch (an integer dtype gets what the conversion of NaN gives, INT64_MIN for int64).
Tensor median_all(const char* name, const Tensor& self, bool ignore_nan) {
  if (self.numel() == 0) {
    dispatch_dtypes<kSelectTypes>(self.dtype(), name, [&]<class T>() {});
    return ember::full({}, Scalar(std::nan("")), kFloat32).to(self.dtype());
  }
  return std::get<0>(median_impl(name, self.reshape({-1}), 0, false, ignore_nan));
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = checked_dim("kthvalue", dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK_INDEX(n > 0, "kthvalue(): Expected reduction dim {} to have non-zero size.", d);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension {} (k = {}, size {})", d, k,
              n);
  return select_along<kSelectTypes>("kthvalue", self, dim, keepdim, [&](auto* in, int64_t s, int64_t len, auto* vo,
                                                                        int64_t* io) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
    using M = opmath_t<T>;
    std::vector<T> vals(static_cast<size_t>(len));
    std::vector<int64_t> idx(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) {
      vals[i] = in[i * s];
      idx[i] = i;
    }
    quick_select(
        vals, k - 1,
        [](T x, T y) {
          const M a = static_cast<M>(x), b = static_cast<M>(y);
          return (is_nan(a) && !is_nan(b)) || a > b;
        },
        [&](int64_t i, int64_t j) {
          std::swap(vals[i], vals[j]);
          std::swap(idx[i], idx[j]);
        });
    *vo = vals[k - 1];
    *io = idx[k - 1];
  });
}

Tensor median(const Tensor& self) { return median_all("median", self, false); }
std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return median_impl("median", self, dim, keepdim, false);
}
Tensor nanmedian(const Tensor& self) { return median_all("nanmedian", self, true); }
std::tuple<Tensor, Tensor> nanmedian_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return median_impl("nanmedian", self, dim, keepdim, true);
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  return select_along<kAllTypes>("mode", self, dim, keepdim, [&](auto* in, int64_t s, int64_t n, auto* vo,
                                                                 int64_t* io) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
    using M = opmath_t<T>;
    std::vector<std::pair<T, int64_t>> elements(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) elements[k] = {in[k * s], k};
    std::sort(elements.begin(), elements.end(),
              [](const auto& a, const auto& b) { return static_cast<M>(a.first) < static_cast<M>(b.first); });
    T mode_value{};
    int64_t mode_index = 0, run = 0, longest = 0;
    for (int64_t i = 0; i < n; ++i) {
      ++run;
      if (i == n - 1 || static_cast<M>(elements[i].first) != static_cast<M>(elements[i + 1].first)) {
        if (run > longest) {
          mode_value = elements[i].first;
          mode_index = elements[i].second;
          longest = run;
        }
        run = 0;
      }
    }
    *vo = mode_value;
    *io = mode_index;
  });
}

// Note [unique]
// _unique2 is PyTorch 1.13's CPU algorithm: the distinct values gathered in a std::unordered_set (its iteration
// order is the unsorted result; sorted=True sorts them), the inverse and counts looked up in
// std::unordered_maps. With the same standard library the unsorted order is PyTorch's too (bfloat16 values are
// hashed by their 16 bits, as c10's std::hash<BFloat16>; float16, which PyTorch lacks, is computed as float32).
// NaN never equals itself, so every NaN is its own value and the lookups of NaN find nothing: PyTorch's results
// there are artefacts of its hash maps, reproduced, not meaningful. unique_dim and unique_consecutive over dim
// sort the slices lexicographically (with std::sort, as PyTorch) and merge equal neighbours.
namespace {

// bfloat16 (and float16, which unique2 computes as float32 but the dispatch instantiates) hash their bits
struct NarrowHash {
  template <class T>
  size_t operator()(T v) const { return std::hash<uint16_t>()(v.x); }
};
template <class T>
using HashOf = std::conditional_t<std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>, NarrowHash, std::hash<T>>;

constexpr uint32_t kUniqueTypes = kAllTypes;

std::tuple<Tensor, Tensor, Tensor> unique_dim_impl(const char* name, const Tensor& self, int64_t dim,
                                                   bool consecutive, bool return_inverse, bool return_counts) {
  const int64_t d = checked_dim(name, dim, self.dim());
  (void)return_inverse;  // the inverse and counts are always computed and returned, as PyTorch's
  (void)return_counts;
  EMBER_CHECK_INDEX(self.dim() > 0, "{}: Dimension specified as {} but tensor has no dimensions", name, dim);
  int64_t zero_dims = 0;
  for (int64_t s : self.sizes()) zero_dims += s == 0;
  if (self.sizes()[d] == 0) {
    EMBER_CHECK(zero_dims == 1, "{}: Number of zero sized dimensions is more than one, so unique cannot be applied",
                name);
    dispatch_dtypes<kUniqueTypes>(self.dtype(), name, [&]<class T>() {});
    return {make_empty(self.sizes(), self.dtype()), make_empty({0}, kInt64), make_empty({0}, kInt64)};
  }
  EMBER_CHECK(zero_dims == 0, "{}: There are 0 sized dimensions, and they aren't selected, so unique cannot be "
              "applied", name);
  Tensor moved = self.movedim(d, 0);
  DimVector orig(moved.sizes().begin(), moved.sizes().end());
  const int64_t rows = orig[0];
  Tensor flat = moved.contiguous().view({rows, -1});
  const int64_t cols = flat.size(1);
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  Tensor inverse = make_empty({rows}, kInt64);
  std::vector<int64_t> counts;
  std::vector<int64_t> kept;  // the row of flat each output row comes from
  dispatch_dtypes<kUniqueTypes>(self.dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    const T* p = flat.data_ptr<T>();
    if (!consecutive) {
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        for (int64_t i = 0; i < cols; ++i) {
          const M l = static_cast<M>(p[a * cols + i]), r = static_cast<M>(p[b * cols + i]);
          if (l < r) return true;
          if (l > r) return false;
        }
        return false;
      });
    }
    auto equal_rows = [&](int64_t a, int64_t b) {
      for (int64_t i = 0; i < cols; ++i)
        if (!(static_cast<M>(p[a * cols + i]) == static_cast<M>(p[b * cols + i]))) return false;
      return true;
    };
    int64_t* inv = inverse.data_ptr<int64_t>();
    kept.push_back(order[0]);
    int64_t previous = 0;
    inv[order[0]] = 0;
    for (int64_t i = 1; i < rows; ++i) {
      if (!equal_rows(order[i], kept.back())) {
        kept.push_back(order[i]);
        counts.push_back(i - previous);
        previous = i;
      }
      inv[order[i]] = static_cast<int64_t>(kept.size()) - 1;
    }
    counts.push_back(rows - previous);
  });
  Tensor rows_index = ember::tensor(kept, kInt64);
  DimVector out_sizes = orig;
  out_sizes[0] = static_cast<int64_t>(kept.size());
  Tensor output = flat.index_select(0, rows_index).view(out_sizes).movedim(0, d).contiguous();
  Tensor count_tensor = ember::tensor(counts, kInt64);
  return {output, inverse, count_tensor};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  // float16 as float32 (PyTorch 1.13 has no float16 kernel); bfloat16 hashes its 16 bits, as c10's std::hash
  if (self.dtype() == kFloat16) {
    auto [o, i, c] = cpu::unique2(self.to(kFloat32), sorted, return_inverse, return_counts);
    return {o.to(self.dtype()), i, c};
  }
  Tensor output, inverse = make_empty({0}, kInt64), counts = make_empty({0}, kInt64);
  const Tensor input = self.contiguous();
  const int64_t numel = input.numel();
  dispatch_dtypes<kUniqueTypes>(self.dtype(), "unique", [&]<class T>() {
    const T* data = input.data_ptr<T>();
    if constexpr (std::is_same_v<T, bool>) {  // PyTorch's bool path: False then True, when present
      int64_t trues = 0;
      for (int64_t i = 0; i < numel; ++i) trues += data[i];
      std::vector<bool> present;
      if (numel - trues > 0) present.push_back(false);
      if (trues > 0) present.push_back(true);
      output = make_empty({static_cast<int64_t>(present.size())}, kBool);
      for (size_t i = 0; i < present.size(); ++i) output.data_ptr<bool>()[i] = present[i];
      if (return_inverse || return_counts) {
        inverse = make_empty(self.sizes(), kInt64);
        int64_t* inv = inverse.data_ptr<int64_t>();
        for (int64_t i = 0; i < numel; ++i) inv[i] = (data[i] && numel - trues > 0) ? 1 : 0;
        if (return_counts) {
          counts = make_empty({static_cast<int64_t>(present.size())}, kInt64);
          int64_t* c = counts.data_ptr<int64_t>();
          for (size_t i = 0; i < present.size(); ++i) c[i] = present[i] ? trues : numel - trues;
        }
      }
    } else {
      std::unordered_set<T, HashOf<T>> set(data, data + numel);
      output = make_empty({static_cast<int64_t>(set.size())}, self.dtype());
      T* out = output.data_ptr<T>();
      if (sorted) {
        std::vector<T> vec(set.begin(), set.end());
        std::sort(vec.begin(), vec.end());
        std::copy(vec.begin(), vec.end(), out);
      } else {
        std::copy(set.begin(), set.end(), out);
      }
      const int64_t n_out = output.numel();
      if (return_inverse || return_counts) {
        inverse = make_empty(self.sizes(), kInt64);
        int64_t* inv = inverse.data_ptr<int64_t>();
        std::unordered_map<T, int64_t, HashOf<T>> where;
        where.reserve(static_cast<size_t>(n_out));
        for (int64_t i = 0; i < n_out; ++i) where[out[i]] = i;
        for (int64_t i = 0; i < numel; ++i) inv[i] = where[data[i]];
        if (return_counts) {
          std::unordered_map<T, int64_t, HashOf<T>> count_of;
          count_of.reserve(static_cast<size_t>(n_out));
          for (int64_t i = 0; i < n_out; ++i) count_of[out[i]] = 0;
          for (int64_t i = 0; i < numel; ++i) count_of[data[i]] += 1;
          counts = make_empty({n_out}, kInt64);
          int64_t* c = counts.data_ptr<int64_t>();
          for (int64_t i = 0; i < n_out; ++i) c[i] = count_of[out[i]];
        }
      }
    }
  });
  return {output, inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  (void)sorted;  // always sorted, as PyTorch's CPU kernel
  return unique_dim_impl("unique_dim", self, dim, false, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim && self.dim() > 0)
    return unique_dim_impl("unique_consecutive", self, *dim, true, return_inverse, return_counts);
  const Tensor input = self.contiguous();
  const int64_t numel = input.numel();
  Tensor output = make_empty({numel}, self.dtype());
  Tensor inverse = make_empty(return_inverse ? self.sizes() : IntArrayRef({0}), kInt64);
  std::vector<int64_t> counts;
  int64_t n_out = 0;
  dispatch_dtypes<kUniqueTypes>(self.dtype(), "unique_consecutive", [&]<class T>() {
    using M = opmath_t<T>;
    if (numel == 0) return;
    const T* data = input.data_ptr<T>();
    T* out = output.data_ptr<T>();
    int64_t* inv = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
    out[0] = data[0];
    int64_t last = 0;
    if (inv) inv[0] = 0;
    for (int64_t i = 1; i < numel; ++i) {
      if (static_cast<M>(data[i]) != static_cast<M>(out[n_out])) {
        out[++n_out] = data[i];
        counts.push_back(i - last);
        last = i;
      }
      if (inv) inv[i] = n_out;
    }
    counts.push_back(numel - last);
    ++n_out;
  });
  Tensor count_tensor = return_counts ? ember::tensor(counts, kInt64) : make_empty({0}, kInt64);
  return {output.narrow(0, 0, n_out).clone(), inverse, count_tensor};
}

// Note [searchsorted]
// A binary search per value of self in its row of sorted_sequence (the innermost dim; one row for a 1-D
// sorted_sequence), through sorter when given, with PyTorch's comparisons: side 'left' finds the first position
// whose value is not < v (written !(x >= v) to advance, as PyTorch, so a NaN v goes to the end), 'right' the
// first whose value is > v. Both operands are first converted to their common dtype.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right",
                "torch.searchsorted(): side can only be 'left' or 'right' but got {}", *side);
    EMBER_CHECK(!(right && *side == "left"), "torch.searchsorted(): side and right can't be set to opposites, got "
                "side of left while right was True");
    right = *side == "right";
  }
  const Tensor& seq = sorted_sequence;
  EMBER_CHECK(seq.dim() >= 1, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  if (seq.dim() > 1) {
    bool same = self.dim() == seq.dim();
    for (int64_t i = 0; same && i + 1 < seq.dim(); ++i) same = self.size(i) == seq.size(i);
    EMBER_CHECK(same, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input "
                "value tensor {}", seq.sizes(), self.sizes());
  }
  if (sorter) {
    EMBER_CHECK(sorter->dtype() == kInt64, "torch.searchsorted(): sorter must be a tensor of long dtype but got {}",
                sorter->dtype());
    EMBER_CHECK(sorter->sizes().equals(seq.sizes()),
                "torch.searchsorted(): boundary and sorter must have the same size, "
                "but got boundary tensor {} and got sorter tensor {}", seq.sizes(), sorter->sizes());
  }
  EMBER_CHECK(self.dtype() != kBool && seq.dtype() != kBool, "\"searchsorted_cpu\" not implemented for 'Bool'");
  const DType common = promote_types(seq.dtype(), self.dtype());
  const Tensor bd = seq.to(common).contiguous(), vals = self.to(common).contiguous();
  Tensor srt;
  if (sorter) srt = sorter->contiguous();
  Tensor result = make_empty(self.sizes(), out_int32 ? kInt32 : kInt64);
  const int64_t n = bd.size(-1), numel = vals.numel();
  const int64_t row_len = self.dim() == 0 ? 1 : self.size(-1);
  const bool one_row = bd.dim() == 1;
  if (sorter && n > 0) {
    const int64_t* sp = srt.data_ptr<int64_t>();
    for (int64_t i = 0; i < srt.numel(); ++i)
      EMBER_CHECK(sp[i] >= 0 && sp[i] < n, "torch.searchsorted(): sorter index out of range: {} for a dim of size {}",
                  sp[i], n);
  }
  dispatch_dtypes<kNumericTypes>(common, "searchsorted", [&]<class T>() {
    using M = opmath_t<T>;
    const T* b = bd.data_ptr<T>();
    const T* v = vals.data_ptr<T>();
    const int64_t* sp = sorter ? srt.data_ptr<int64_t>() : nullptr;
    parallel_for(numel, std::max<int64_t>(1, kGrainSize / 16), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t row_start = one_row ? 0 : (i / row_len) * n;
        const M val = static_cast<M>(v[i]);
        int64_t start = 0, end = n;
        while (start < end) {
          const int64_t mid = start + ((end - start) >> 1);
          const M mid_val = static_cast<M>(sp ? b[sp[row_start + mid] + row_start] : b[row_start + mid]);
          const bool advance = right ? !(mid_val > val) : !(mid_val >= val);
          if (advance) start = mid + 1;
          else end = mid;
        }
        if (out_int32) result.data_ptr<int32_t>()[i] = static_cast<int32_t>(start);
        else result.data_ptr<int64_t>()[i] = start;
      }
    });
  });
  return result;
}

Tensor searchsorted_out(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                        std::optional<std::string_view> side, const std::optional<Tensor>& sorter, const Tensor& out) {
  Tensor result = cpu::searchsorted(sorted_sequence, self, out_int32, right, side, sorter);
  EMBER_CHECK(out.dtype() == result.dtype(), "torch.searchsorted(): output tensor's dtype is wrong, it can only be "
              "Int(int32) or Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
              "dtype {} and out_int32 flag is {}", out.dtype(), out_int32 ? "True" : "False");
  out.impl()->resize(result.sizes());
  return out.copy_(result);
}

// histc (PyTorch 1.13's linear-interpolation histogram): bin (x - left) / (right - left) * bins computed in
// self's dtype, where left and right are the outer values of linspace(min, max, bins + 1); x == right in the
// last bin, values outside [left, right] dropped, NaN counted in the first bin (as PyTorch 1.13 does).
Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got {} for dimension 0", bins);
  if (self.dtype() == kFloat16 || self.dtype() == kBFloat16)  // computed as float32, then rounded
    return cpu::histc(self.to(kFloat32), bins, min, max).to(self.dtype());
  double lo = min.to<double>(), hi = max.to<double>();
  Tensor result = ember::zeros({bins}, self.dtype());
  dispatch_dtypes<dtype_bit(kFloat32) | dtype_bit(kFloat64) | dtype_bit(kBFloat16)>(self.dtype(), "histogram_cpu",
                                                                                    [&]<class T>() {
    using M = opmath_t<T>;
    if (lo == hi && self.numel() > 0) {
      auto [mn, mx] = ember::aminmax(self);
      lo = mn.item<double>();
      hi = mx.item<double>();
    }
    if (lo == hi) {
      lo -= 1;
      hi += 1;
    }
    EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [{}, {}] is not finite", lo, hi);
    EMBER_CHECK(lo < hi, "torch.histc: max must be larger than min");
    const Tensor x = self.contiguous();
    const T* p = x.data_ptr<T>();
    // The outer edges are those of linspace(lo, hi, bins + 1) in self's dtype (its last value need not be hi).
    const Tensor edges = ember::linspace(Scalar(lo), Scalar(hi), bins + 1, self.dtype()).contiguous();
    const M left = static_cast<M>(edges.data_ptr<T>()[0]), rightmost = static_cast<M>(edges.data_ptr<T>()[bins]);
    std::vector<double> counts(static_cast<size_t>(bins), 0.0);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const M e = static_cast<M>(p[i]);
      if (e < left || e > rightmost) continue;
      if (is_nan(e)) {  // PyTorch 1.13 counts NaN in the first bin (its conversion of NaN to a bin index gives 0)
        counts[0] += 1;
        continue;
      }
      // (x - left) / (right - left) * bins, each step rounded to T as PyTorch's arithmetic in the input type
      const M offset = static_cast<M>(static_cast<T>(e - left));
      const M fraction = static_cast<M>(static_cast<T>(offset / static_cast<M>(static_cast<T>(rightmost - left))));
      int64_t pos = static_cast<int64_t>(static_cast<M>(static_cast<T>(fraction * static_cast<M>(bins))));
      if (pos == bins) pos -= 1;
      counts[pos] += 1;
    }
    T* o = result.data_ptr<T>();
    for (int64_t b = 0; b < bins; ++b) o[b] = static_cast<T>(counts[b]);
  });
  return result;
}
Tensor histc_out(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, const Tensor& out) {
  Tensor result = cpu::histc(self, bins, min, max);
  EMBER_CHECK(out.dtype() == self.dtype(), "torch.histogram: input tensor and hist tensor should have the same dtype, "
              "but got input {} and hist {}", self.dtype(), out.dtype());
  out.impl()->resize(result.sizes());
  return out.copy_(result);
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  Tensor result;
  dispatch_dtypes<kIntegralTypes>(self.dtype(), "bincount_cpu", [&]<class T>() {
    EMBER_CHECK(minlength >= 0, "bincount: minlength should be >= 0, but got {}", minlength);
    if (self.dim() == 1 && self.numel() == 0) {
      result = ember::zeros({minlength}, kInt64);
      return;
    }
    const Tensor x = self.contiguous();
    const T* p = x.data_ptr<T>();
    EMBER_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs (got {} dims).", self.dim());
    int64_t mx = -1;
    for (int64_t i = 0; i < x.numel(); ++i) {
      EMBER_CHECK(static_cast<int64_t>(p[i]) >= 0, "bincount only supports 1-d non-negative integral inputs (got {}).",
                  static_cast<int64_t>(p[i]));
      mx = std::max<int64_t>(mx, static_cast<int64_t>(p[i]));
    }
    const int64_t nbins = std::max(mx + 1, minlength);
    if (weights) {
      EMBER_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0),
                  "bincount: weights should be 1-d and have the same length as input (got {} and {})",
                  weights->sizes(), self.sizes());
      const DType wd = weights->dtype() == kFloat32 ? kFloat32 : kFloat64;
      const Tensor w = weights->to(wd).contiguous();
      result = ember::zeros({nbins}, wd);
      dispatch_dtypes<dtype_bit(kFloat32) | dtype_bit(kFloat64)>(wd, "bincount", [&]<class W>() {
        const W* wp = w.data_ptr<W>();
        W* o = result.data_ptr<W>();
        for (int64_t i = 0; i < x.numel(); ++i) o[static_cast<int64_t>(p[i])] += wp[i];
      });
    } else {
      result = ember::zeros({nbins}, kInt64);
      int64_t* o = result.data_ptr<int64_t>();
      for (int64_t i = 0; i < x.numel(); ++i) o[static_cast<int64_t>(p[i])] += 1;
    }
  });
  return result;
}

// histogram over given edges (PyTorch 1.13's binary-search histogramdd for one dim): x in [bins[0], bins[-1]]
// goes to the bin upper_bound(bins, x) - 1, the right edge itself and NaN into the last bin; the sums in self's
// dtype (float16 and bfloat16 computed as float32).
std::tuple<Tensor, Tensor> histogram_bins_tensor(const Tensor& self, const Tensor& bins,
                                                 const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK(self.dtype() == bins.dtype(), "torch.histogramdd: input tensor and bins tensors should have the same "
              "dtype, but got input {} and bins {}", self.dtype(), bins.dtype());
  EMBER_CHECK(bins.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got {} dimensions in "
              "the bins tensor for dimension 0", bins.dim());
  EMBER_CHECK(bins.numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
              "in the bins tensor for dimension 0");
  EMBER_CHECK(bins.numel() > 1, "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
  if (weight) {
    EMBER_CHECK(weight->dtype() == self.dtype(), "torch.histogramdd: if weight tensor is provided, it should have the "
                "same dtype as the input tensor");
    EMBER_CHECK(weight->sizes().equals(self.sizes()),
                "torch.histogramdd: if weight tensor is provided it should have the "
                "same shape as the input tensor excluding its innermost dimension, but got input with shape {} and "
                "weight with shape {}", self.sizes(), weight->sizes());
  }
  if (self.dtype() == kFloat16 || self.dtype() == kBFloat16) {  // computed as float32, then rounded
    std::optional<Tensor> w;
    if (weight) w = weight->to(kFloat32);
    auto [h, e] = cpu::histogram_bins_tensor(self.to(kFloat32), bins.to(kFloat32), w, density);
    return {h.to(self.dtype()), e.to(self.dtype())};
  }
  const int64_t n_edges = bins.numel();
  Tensor hist = ember::zeros({n_edges - 1}, self.dtype());
  const Tensor edges = bins.contiguous().clone();
  dispatch_dtypes<dtype_bit(kFloat32) | dtype_bit(kFloat64)>(self.dtype(), "histogram_cpu", [&]<class T>() {
    const Tensor x = self.contiguous();
    const Tensor w = weight ? weight->contiguous() : Tensor();
    const T* p = x.data_ptr<T>();
    const T* e = edges.data_ptr<T>();
    const T* wp = weight ? w.data_ptr<T>() : nullptr;
    T* h = hist.data_ptr<T>();
    const T left = e[0], right = e[n_edges - 1];
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T v = p[i];
      if (v < left || v > right) continue;  // NaN goes on: upper_bound puts it last, into the last bin (as PyTorch)
      int64_t pos = std::upper_bound(e, e + n_edges, v) - e - 1;
      if (pos == n_edges - 1) pos -= 1;
      if (pos < 0) continue;
      h[pos] += wp ? wp[i] : T(1);
    }
  });
  if (density && hist.numel() > 0) {
    hist = hist.div(hist.sum());
    hist = hist.div(ember::diff(edges));
  }
  return {hist, edges};
}

}  // namespace ember::cpu
