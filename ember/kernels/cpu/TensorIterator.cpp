#include "ember/kernels/cpu/TensorIterator.h"

#include <algorithm>

#include "ember/core/TypePromotion.h"
#include "ember/kernels/cpu/MemoryOverlap.h"
#include "ember/ops/Functions.h"

namespace ember::cpu {

void not_implemented_for(const char* op, DType dtype) {
  EMBER_FAIL("\"{}\" not implemented for '{}'", op, dtype);
}

void TensorIterator::check_mem_overlap() const {  // See Note [memory overlap]
  assert_no_internal_overlap(config_.name, user_out_);
  for (int i = 1; i < num_operands_; ++i) assert_no_partial_overlap(config_.name, user_out_, operands_[i]);
}

namespace {
// Note [output layout]
// An output the iterator allocates takes the dim order of its inputs, as PyTorch's TensorIterator: a
// channels-last or transposed input gives a result of the same layout (so channels_last propagates through
// elementwise ops), and when inputs disagree the first one that has an opinion decides. The order is an
// insertion sort of the dims, innermost first, in which a dim moves inwards past another when the first input
// whose strides for the two differ (neither broadcast) has it smaller; equal strides leave the smaller dim
// inside. The output is dense in that order. Inputs that are all contiguous with the full shape skip this.
Tensor allocate_output(const DimVector& shape, DType dtype,
                       std::initializer_list<std::reference_wrapper<const Tensor>> inputs) {
  const size_t nd = shape.size();
  bool all_contiguous = true;
  for (const Tensor& t : inputs) all_contiguous = all_contiguous && t.is_contiguous() && t.sizes().equals(shape);
  if (all_contiguous || nd < 2) return make_empty(shape, dtype);
  // Stride of input t along broadcast dim d (0 where t is broadcast there).
  auto stride = [&](const Tensor& t, size_t d) -> int64_t {
    size_t off = nd - static_cast<size_t>(t.dim());
    if (d < off) return 0;
    return t.sizes()[d - off] == 1 && shape[d] != 1 ? 0 : t.strides()[d - off];
  };
  auto should_swap = [&](size_t inner, size_t outer) {  // 1: swap, -1: keep, 0: no opinion
    for (const Tensor& t : inputs) {
      int64_t a = stride(t, inner), b = stride(t, outer);
      if (a == 0 || b == 0) continue;
      if (a != b) return a < b ? -1 : 1;
      if (shape[inner] > shape[outer]) return 1;
    }
    return 0;
  };
  SmallVector<size_t, 6> perm(nd);  // innermost first
  for (size_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  bool row_major = true;
  for (size_t i = 1; i < nd; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
        row_major = false;
      } else if (c < 0) {
        break;
      }
    }
  }
  if (row_major) return make_empty(shape, dtype);
  DimVector strides(nd);
  int64_t s = 1;
  for (size_t i = 0; i < nd; ++i) {
    strides[perm[i]] = s;
    s *= shape[perm[i]];
  }
  return ember::empty_strided(shape, strides, dtype);
}
}  // namespace

TensorIterator::TensorIterator(const IterConfig& config, const Tensor& out,
                               std::initializer_list<std::reference_wrapper<const Tensor>> inputs)
    : config_(config) {
  EMBER_CHECK(static_cast<int>(inputs.size()) < kMaxOperands, "{}: too many operands", config.name);
  // 1. Shape: broadcast of the inputs.
  DimVector shape(out.defined() && inputs.size() == 0 ? DimVector(out.sizes()) : DimVector());
  bool first = true;
  for (const Tensor& t : inputs) {
    shape = first ? DimVector(t.sizes()) : broadcast_shapes(shape, t.sizes());
    first = false;
  }
  // 2. Dtypes.
  ResultTypeState rt;
  for (const Tensor& t : inputs) rt.add(t);
  common_ = config.compute_dtype ? *config.compute_dtype : inputs.size() == 0 ? out.dtype() : rt.result();
  if (config.int_to_float && !is_floating_point(common_) && !is_complex(common_)) common_ = default_dtype();
  DType out_dtype = config.output_dtype ? *config.output_dtype : common_;

  // 3. Output.
  Tensor result = out;
  if (out.defined()) {
    EMBER_CHECK(!config.same_dtype_out || out.dtype() == common_, "{}: Found dtype {} but expected {}", config.name,
                out.dtype(), common_);
    EMBER_CHECK(!config.check_cast || can_cast(out_dtype, out.dtype()),
                "{}: result type {} can't be cast to the desired output type {}", config.name, out_dtype, out.dtype());
    // Note [out= that is an input]
    // An out= tensor that is also one of the inputs (add(x, y, out=x)) is read while it is written, so, as in
    // PyTorch's TensorIterator ("read-write" operands), it must already have the broadcast shape: resizing it
    // would change the input under the computation (its new elements are uninitialised).
    bool read_write = config.is_inplace;
    for (const Tensor& t : inputs) read_write = read_write || t.is_same(out);
    if (read_write) {
      EMBER_CHECK(out.sizes().equals(shape), "{}: output with shape [{}] doesn't match the broadcast shape [{}]",
                  config.name, fmt::join(out.sizes(), ", "), fmt::join(shape, ", "));
    } else if (!out.sizes().equals(shape)) {
      out.impl()->resize(shape);
    }
    user_out_ = out;
    wrote_existing_ = true;
    if (out.dtype() != out_dtype) result = make_empty(shape, out_dtype);  // computed here, copied in finish()
  } else {
    result = allocate_output(shape, out_dtype, inputs);  // Note [output layout]
    user_out_ = result;
  }
  numel_ = result.numel();
  operands_[num_operands_++] = std::move(result);
  for (const Tensor& t : inputs) {
    // Assigned in two branches (not with ?:) so the common case copies the handle once.
    if (config.promote_inputs && t.dtype() != common_) operands_[num_operands_++] = ember::_to_copy(t, common_);
    else operands_[num_operands_++] = t;
  }
  shape_ = shape;
  if (wrote_existing_ && config_.check_mem_overlap) check_mem_overlap();  // See Note [memory overlap]
  compute_geometry();
}

void TensorIterator::compute_geometry() {
  const int n = num_operands_;
  // Fast path: every operand contiguous with the full shape (no broadcasting) is one 1-D row, whatever the
  // rank — what the general reorder-and-coalesce below would find, without its work on every small op.
  bool flat = true;
  for (int op = 0; op < n && flat; ++op)
    flat = operands_[op].is_contiguous() && operands_[op].sizes().equals(shape_);
  if (flat) {
    shape_.assign(1, numel_);
    strides_.clear();
    for (int op = 0; op < n; ++op) strides_.push_back(operands_[op].element_size());
    return;
  }
  const int nd = static_cast<int>(shape_.size());
  // Byte strides per operand for the broadcast shape (0 where broadcast).
  strides_.assign(static_cast<size_t>(nd * n), 0);
  for (int op = 0; op < n; ++op) {
    const Tensor& t = operands_[op];
    int off = nd - static_cast<int>(t.dim());
    int64_t es = t.element_size();
    for (int d = 0; d < t.dim(); ++d)
      strides_[(d + off) * n + op] = t.sizes()[d] == 1 && shape_[d + off] != 1 ? 0 : t.strides()[d] * es;
  }
  // Reorder dims so the one with the smallest output stride is innermost (stable for ties; only matters for
  // permuted outputs, e.g. in-place ops on a transposed tensor). An insertion sort: stable, and unlike
  // std::stable_sort it allocates no buffer on the heap (this runs on every elementwise op).
  SmallVector<int, 8> perm(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) perm[d] = d;
  auto outer = [&](int a, int b) {  // dim a goes before (outside) dim b
    for (int op = 0; op < n; ++op) {
      int64_t sa = strides_[a * n + op], sb = strides_[b * n + op];
      if (sa == 0 || sb == 0 || shape_[a] == 1 || shape_[b] == 1) continue;
      if (sa != sb) return sa > sb;  // larger stride = outer
      return false;
    }
    return false;
  };
  for (int i = 1; i < nd; ++i) {
    int d = perm[i], j = i;
    for (; j > 0 && outer(d, perm[j - 1]); --j) perm[j] = perm[j - 1];
    perm[j] = d;
  }
  DimVector shape(nd);
  SmallVector<int64_t, 6 * kMaxOperands> strides(static_cast<size_t>(nd * n));
  for (int d = 0; d < nd; ++d) {
    shape[d] = shape_[perm[d]];
    for (int op = 0; op < n; ++op) strides[d * n + op] = strides_[perm[d] * n + op];
  }
  // Coalesce from the innermost dim outwards: merge dim d-1 into d when every operand continues contiguously.
  DimVector cshape;
  SmallVector<int64_t, 6 * kMaxOperands> cstrides;
  for (int d = nd - 1; d >= 0; --d) {
    if (shape[d] == 1 && nd > 1) continue;  // size-1 dims carry no iteration
    if (!cshape.empty()) {
      size_t last = cshape.size() - 1;
      bool ok = true;
      for (int op = 0; op < n && ok; ++op) ok = strides[d * n + op] == cstrides[last * n + op] * cshape[last];
      if (ok) {  // the merged dim keeps the inner dim's strides
        cshape[last] *= shape[d];
        continue;
      }
    }
    cshape.push_back(shape[d]);
    for (int op = 0; op < n; ++op) cstrides.push_back(strides[d * n + op]);
  }
  if (cshape.empty()) {  // 0-dim, or all dims of size 1
    cshape.push_back(1);
    for (int op = 0; op < n; ++op) cstrides.push_back(0);
  }
  // cshape is innermost-first now.
  shape_ = cshape;
  strides_ = cstrides;
}

void TensorIterator::for_each(Loop loop, int64_t grain) {
  if (numel_ == 0) return;
  const int n = num_operands_;
  const int nd = static_cast<int>(shape_.size());
  char* base[kMaxOperands];
  for (int op = 0; op < n; ++op) base[op] = static_cast<char*>(operands_[op].data_ptr());
  const int64_t inner = shape_[0];
  const int64_t* inner_strides = strides_.data();  // dim 0 (innermost) strides of every operand
  if (nd == 1 && numel_ < 2 * grain) {  // one row, too small to split (parallel_for would run it serially)
    loop(base, inner_strides, numel_);
    return;
  }
  parallel_for(numel_, grain, [&](int64_t begin, int64_t end) {
    // Multi-index of `begin` (innermost first).
    DimVector idx(static_cast<size_t>(nd), 0);
    int64_t rem = begin;
    for (int d = 0; d < nd; ++d) {
      idx[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    char* ptrs[kMaxOperands];
    for (int op = 0; op < n; ++op) {
      int64_t off = 0;
      for (int d = 0; d < nd; ++d) off += idx[d] * strides_[d * n + op];
      ptrs[op] = base[op] + off;
    }
    int64_t pos = begin;
    while (pos < end) {
      int64_t count = std::min(inner - idx[0], end - pos);
      loop(ptrs, inner_strides, count);
      pos += count;
      if (pos >= end) break;
      // Advance to the start of the next row.
      for (int op = 0; op < n; ++op) ptrs[op] += count * inner_strides[op];
      idx[0] += count;
      for (int d = 0; d < nd - 1 && idx[d] == shape_[d]; ++d) {
        idx[d] = 0;
        ++idx[d + 1];
        for (int op = 0; op < n; ++op)
          ptrs[op] += strides_[(d + 1) * n + op] - shape_[d] * strides_[d * n + op];
      }
    }
  });
}

Tensor TensorIterator::finish() {
  // Versions move at the op boundary, not here (Note [version counter]).
  if (!user_out_.is_same(operands_[0])) user_out_.copy_(operands_[0]);
  return user_out_;
}

}  // namespace ember::cpu
