#pragma once
// The engine of the reduction kernels (ember/kernels/cpu/reduce.cpp): ReducePlan, how the dims of an input
// split into kept and reduced ones, and run_reduce, the driver that folds the input along a plan.
//
// Note [reductions]
// A reduction folds the elements of some dims of the input into one value per remaining position. The plan
// (make_reduce_plan) splits the input's dims into kept dims (the output's, row-major) and reduced dims, each
// group coalesced where memory allows. The driver (run_reduce) then picks one of three strategies:
//  - full: one output; the reduced range is cut into one contiguous chunk per thread, folded separately and
//    merged in chunk order (deterministic for a given thread count);
//  - inner: each output folds its own reduced elements (outputs split across threads);
//  - outer: when the innermost kept dim is contiguous in the input and the reduction runs across it (sum over
//    dim 0 of a row-major matrix), a block of neighbouring outputs is folded together, element by element,
//    so the innermost loop runs over contiguous memory and vectorizes.
// A reduction is a struct with acc_t, init(), fold(acc, value, index), merge(earlier, later) and
// project(acc); `index` is the position along the reduced range (the dim index for a one-dim reduction).
// An op may also offer whole-run folds, which the driver uses when the single reduced dim is contiguous
// (fold_contiguous(acc, p, n)) or for the outer strategy over a single reduced dim (fold_columns(acc, p,
// stride, rows, w), acc[j] folding p[r * stride + j]); sums use them to vectorize (Note [vectorized sums]).
#include <algorithm>
#include <concepts>
#include <optional>
#include <type_traits>

#include "ember/core/Tensor.h"
#include "ember/dispatch/Boxing.h"
#include "ember/kernels/cpu/Parallel.h"

namespace ember::cpu {

struct ReducePlan {
  DimVector kept_sizes, kept_strides;  // in elements, row-major (the last is innermost), coalesced
  DimVector red_sizes, red_strides;    // coalesced; the last is innermost
  int64_t num_outputs = 1;
  int64_t num_reduced = 1;
};

/// The sorted, unique, wrapped dims to reduce: all dims when `dims` is empty or absent. Errors: a dim out of
/// range (IndexError) or given twice ("dim 0 appears multiple times in the list of dims").
DimVector reduce_dims(const Tensor& self, OptionalIntArrayRef dims);
/// The plan for reducing `self` over `dims` (from reduce_dims).
ReducePlan make_reduce_plan(const Tensor& self, IntArrayRef dims);
/// The output sizes of reducing over dims: removed, or kept as 1 with keepdim.
DimVector reduced_sizes(IntArrayRef sizes, IntArrayRef dims, bool keepdim);

template <class Op, class In>
concept HasContiguousFold = requires(const Op& op, typename Op::acc_t a, const In* p) {
  { op.fold_contiguous(a, p, int64_t{}) } -> std::same_as<typename Op::acc_t>;
};
template <class Op, class In>
concept HasColumnFold = requires(const Op& op, typename Op::acc_t* a, const In* p) {
  op.fold_columns(a, p, int64_t{}, int64_t{}, int64_t{});
};

namespace detail {
// Calls f(offset, index) for the reduced elements [begin, end) of the reduced range (row-major order).
template <class F>
inline void for_reduced(const ReducePlan& p, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;  // also keeps the index arithmetic below away from zero-size dims
  const int nd = static_cast<int>(p.red_sizes.size());
  if (nd == 1) {
    const int64_t s = p.red_strides[0];
    for (int64_t i = begin; i < end; ++i) f(i * s, i);
    return;
  }
  DimVector idx(static_cast<size_t>(nd), 0);
  int64_t rem = begin, off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % p.red_sizes[d];
    rem /= p.red_sizes[d];
    off += idx[d] * p.red_strides[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    f(off, i);
    for (int d = nd - 1; d >= 0; --d) {
      off += p.red_strides[d];
      if (++idx[d] < p.red_sizes[d]) break;
      off -= idx[d] * p.red_strides[d];
      idx[d] = 0;
    }
  }
}
// Input offset of output element o.
inline int64_t kept_offset(const ReducePlan& p, int64_t o) {
  int64_t off = 0;
  for (size_t d = p.kept_sizes.size(); d-- > 0;) {
    off += (o % p.kept_sizes[d]) * p.kept_strides[d];
    o /= p.kept_sizes[d];
  }
  return off;
}
}  // namespace detail

/// Runs reduction `op` over plan p: in is the input's element 0, out the contiguous output (num_outputs).
template <class In, class Out, class Op>
void run_reduce(const ReducePlan& p, const In* in, Out* out, const Op& op) {
  using Acc = typename Op::acc_t;
  if (p.num_outputs == 0) return;
  const bool contiguous = p.red_sizes.size() == 1 && p.red_strides[0] == 1;
  if (p.num_outputs == 1) {
    const int64_t n = p.num_reduced;
    const int64_t chunks = std::clamp<int64_t>(n / kGrainSize, 1, get_num_threads());
    SmallVector<Acc, 8> partial(static_cast<size_t>(chunks), op.init());
    parallel_for(chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
        Acc acc = op.init();
        if constexpr (HasContiguousFold<Op, In>) {
          if (contiguous) {
            partial[c] = op.fold_contiguous(acc, in + b, e - b);
            continue;
          }
        }
        detail::for_reduced(p, b, e, [&](int64_t off, int64_t i) { acc = op.fold(acc, in[off], i); });
        partial[c] = acc;
      }
    });
    Acc acc = partial[0];
    for (int64_t c = 1; c < chunks; ++c) acc = op.merge(acc, partial[c]);
    out[0] = op.project(acc);
    return;
  }
  const bool outer = !p.kept_sizes.empty() && p.kept_strides.back() == 1 && p.kept_sizes.back() > 1 &&
                     !(p.red_sizes.size() == 1 && p.red_strides.back() == 1);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(p.num_reduced, 1));
  if (!outer) {
    parallel_for(p.num_outputs, grain, [&](int64_t ob, int64_t oe) {
      for (int64_t o = ob; o < oe; ++o) {
        const In* base = in + detail::kept_offset(p, o);
        Acc acc = op.init();
        if constexpr (HasContiguousFold<Op, In>) {
          if (contiguous) {
            out[o] = op.project(op.fold_contiguous(acc, base, p.num_reduced));
            continue;
          }
        }
        detail::for_reduced(p, 0, p.num_reduced, [&](int64_t off, int64_t i) { acc = op.fold(acc, base[off], i); });
        out[o] = op.project(acc);
      }
    });
    return;
  }
  // Outer: blocks of W neighbouring outputs along the innermost kept dim (contiguous in the input), each block's
  // accumulators folded over the reduced elements by fold_block(acc, first input element, width).
  auto for_output_blocks = [&]<int64_t W>(std::integral_constant<int64_t, W>, auto&& fold_block) {
    const int64_t inner = p.kept_sizes.back();
    const int64_t rows = p.num_outputs / inner;
    const int64_t blocks_per_row = (inner + W - 1) / W;
    parallel_for(rows * blocks_per_row, std::max<int64_t>(1, grain / W), [&](int64_t bb, int64_t be) {
      Acc acc[W];
      for (int64_t blk = bb; blk < be; ++blk) {
        int64_t row = blk / blocks_per_row, j0 = (blk % blocks_per_row) * W;
        int64_t w = std::min(W, inner - j0);
        int64_t o0 = row * inner + j0;
        for (int64_t j = 0; j < w; ++j) acc[j] = op.init();
        fold_block(acc, in + detail::kept_offset(p, o0), w);
        for (int64_t j = 0; j < w; ++j) out[o0 + j] = op.project(acc[j]);
      }
    });
  };
  if constexpr (HasColumnFold<Op, In>) {
    if (p.red_sizes.size() == 1) {
      // Wider blocks: each input row contributes 256 contiguous elements, which keeps the prefetcher busy.
      for_output_blocks(std::integral_constant<int64_t, 256>{}, [&](Acc* acc, const In* base, int64_t w) {
        op.fold_columns(acc, base, p.red_strides[0], p.num_reduced, w);
      });
      return;
    }
  }
  for_output_blocks(std::integral_constant<int64_t, 64>{}, [&](Acc* acc, const In* base, int64_t w) {
    detail::for_reduced(p, 0, p.num_reduced, [&](int64_t off, int64_t i) {
      const In* src = base + off;
      for (int64_t j = 0; j < w; ++j) acc[j] = op.fold(acc[j], src[j], i);
    });
  });
}

}  // namespace ember::cpu
