// The memory-overlap checks of Note [memory overlap].
#include "ember/kernels/cpu/MemoryOverlap.h"

#include <algorithm>

#include "ember/base/SmallVector.h"

namespace ember::cpu {

bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  // Some permutation of the dims is contiguous.
  const int64_t nd = t.dim();
  SmallVector<int64_t, 8> perm(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) perm[d] = d;
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.sizes()[a] < 2) return false;
    if (t.sizes()[b] < 2) return true;
    return t.strides()[a] < t.strides()[b];
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

MemOverlap has_internal_overlap(const Tensor& t) {
  if (non_overlapping_and_dense(t)) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return MemOverlap::Yes;
  return MemOverlap::TooHard;
}

MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return MemOverlapStatus::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlapStatus::No;
  if (a.impl()->storage().get() != b.impl()->storage().get()) return MemOverlapStatus::No;
  if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return MemOverlapStatus::TooHard;
  const char* a0 = static_cast<const char*>(a.data_ptr());
  const char* b0 = static_cast<const char*>(b.data_ptr());
  const char* a1 = a0 + a.numel() * a.element_size();
  const char* b1 = b0 + b.numel() * b.element_size();
  if (a0 == b0 && a1 == b1)
    return a.strides().equals(b.strides()) ? MemOverlapStatus::Full : MemOverlapStatus::Partial;
  return a0 < b1 && b0 < a1 ? MemOverlapStatus::Partial : MemOverlapStatus::No;
}

void assert_no_internal_overlap(const char* op, const Tensor& t) {
  EMBER_CHECK(has_internal_overlap(t) != MemOverlap::Yes,
              "{}: unsupported operation: more than one element of the written-to tensor refers to a single memory "
              "location. Please clone() the tensor before performing the operation.",
              op);
}

namespace {
[[noreturn]] void fail_overlap(const char* op) {
  EMBER_FAIL("{}: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
             "single memory location. Please clone() the tensor before performing the operation.",
             op);
}
}  // namespace

void assert_no_partial_overlap(const char* op, const Tensor& a, const Tensor& b) {
  if (get_overlap_status(a, b) == MemOverlapStatus::Partial) fail_overlap(op);
}

void assert_no_overlap(const char* op, const Tensor& a, const Tensor& b) {
  const MemOverlapStatus s = get_overlap_status(a, b);
  if (s == MemOverlapStatus::Partial || s == MemOverlapStatus::Full) fail_overlap(op);
}

}  // namespace ember::cpu
