#pragma once
// Internal helpers of the optimizers' update code (not part of the public API: not in optim.h).
#include "ember/core/Tensor.h"
#include "ember/ops/Functions.h"

namespace ember::optim::detail {

/// x as the operand Python's `t.mul_(x)` / `t.add_(x)` passes for a Python number: a wrapped 0-dim tensor
/// (Note [promotion]), so the C++ update runs the same op with the same operand as Python's ember.optim.
inline Tensor number(double x) { return wrapped_scalar_tensor(x); }

/// Note [optimizer options Ember lacks] (python/ember/optim/optimizer.py): capturable needs CUDA graphs and
/// differentiable gradients through the update; asking for either is an error rather than a silently
/// different step. Errors: capturable (RuntimeError), differentiable (NotImplementedError), Python's messages.
void reject_unsupported(bool capturable, bool differentiable);

}  // namespace ember::optim::detail
