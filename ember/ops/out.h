#pragma once
// out= of the composite ops whose result comes from several ops (roll, rot90, diff, diag_embed, kron, ...):
// computed, then written into out as PyTorch's out= wrappers do.
#include "ember/ops/Functions.h"
#include "ember/ops/linalg.h"

namespace ember::composite {

/// Writes result into out (resized to result's shape when it differs) and returns out. Errors: a result dtype
/// that cannot be cast to out's (PyTorch's can_cast: no floating into integral, no numbers into bool; "<op>:
/// result type float32 can't be cast to the desired output type int64", RuntimeError). (PyTorch's out= of most
/// of these ops requires the result's dtype exactly: test_ops_generic.py's KNOWN lists them.)
inline Tensor write_out(const char* op, const Tensor& out, const Tensor& result) {
  EMBER_CHECK(can_cast(result.dtype(), out.dtype()), "{}: result type {} can't be cast to the desired output type {}",
              op, result.dtype(), out.dtype());
  linalg::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

/// write_out for the ops whose out= must have the result's own dtype in PyTorch ("Expected out tensor to have
/// dtype float, but got long int instead", RuntimeError).
inline Tensor write_out_same_dtype(const char* op, const Tensor& out, const Tensor& result) {
  EMBER_CHECK(out.dtype() == result.dtype(), "{}: Expected out tensor to have dtype {}, but got {} instead", op,
              linalg::type_meta_name(result.dtype()), linalg::type_meta_name(out.dtype()));
  return write_out(op, out, result);
}

}  // namespace ember::composite
