#pragma once
// What the generated ADInplaceOrView-key kernels (generated/ADInplaceOrView.cpp) are made of: see
// Note [version counter] (ember/dispatch/Dispatcher.h) and Note [view base] (ember/core/TensorImpl.h).
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"
#include "ember/ops/Functions.h"

namespace ember::autograd::inplace_or_view {

/// Records that `view` was made from `base` by a view op: its base is base's own base when base is a view
/// (Note [view base]). An op that returned its input itself (no new TensorImpl) records nothing.
inline void record_view_base(const Tensor& view, const Tensor& base) {
  if (view.is_same(base)) return;
  const intrusive_ptr<TensorImpl>& root = base.impl()->view_base();
  view.impl()->set_view_base(root ? root : base.impl_ptr());
}

}  // namespace ember::autograd::inplace_or_view
