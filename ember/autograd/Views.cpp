// In-place ops on views: CopySlices and AsStridedBackward0 (Note [views and in-place]).
#include "ember/autograd/Views.h"

#include <algorithm>

#include "ember/ops/Functions.h"

namespace ember::autograd {

namespace {

// Storage elements from a tensor's first element to its last, plus one (0 when it is empty).
int64_t span(const TensorGeometry& g) {
  int64_t e = 1;
  for (size_t i = 0; i < g.sizes.size(); ++i) {
    if (g.sizes[i] == 0) return 0;
    e += (g.sizes[i] - 1) * g.strides[i];
  }
  return e;
}

// Where base and view start inside a zero-based gradient buffer covering both, and its length. The view's
// elements may start before the base's (as_strided can reach anywhere in the storage).
struct BufferLayout {
  int64_t base_offset, view_offset, extent;
};
BufferLayout buffer_layout(const TensorGeometry& base, const TensorGeometry& view) {
  const int64_t rel = view.storage_offset - base.storage_offset;
  const int64_t lo = std::min<int64_t>(0, rel);
  BufferLayout l{-lo, rel - lo, 0};
  l.extent = std::max(l.base_offset + span(base), l.view_offset + span(view));
  return l;
}

// Whether two elements of g may share a storage element (expanded or unfolded views): sorted by stride, each
// dim's stride must exceed the extent of the dims below it.
bool may_self_overlap(const TensorGeometry& g) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with more than one element
  for (size_t i = 0; i < g.sizes.size(); ++i)
    if (g.sizes[i] > 1) dims.emplace_back(g.strides[i], g.sizes[i]);
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;
  for (auto [stride, size] : dims) {
    if (stride <= extent) return true;
    extent += (size - 1) * stride;
  }
  return false;
}

// The buffer position of every element of g (row-major order), starting at `offset`: an int64 tensor.
Tensor positions(const TensorGeometry& g, int64_t offset) {
  const int64_t n = checked_numel(g.sizes);
  Tensor r = make_empty({n}, DType::Int64);
  int64_t* p = r.data_ptr<int64_t>();
  DimVector idx(g.sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = offset;
    for (size_t d = 0; d < idx.size(); ++d) pos += idx[d] * g.strides[d];
    p[i] = pos;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < g.sizes[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

InputMeta meta_of(const Tensor& t) { return {DimVector(t.sizes().begin(), t.sizes().end()), t.dtype()}; }

// Gives `view` a fresh AsStridedBackward0 from base's current history.
AutogradMeta* regenerate(const Tensor& view, const Tensor& base) {
  auto node = std::make_shared<AsStridedBackward0>(base, view);
  node->sequence_nr = next_sequence_nr();
  node->add_next_edge(gradient_edge(base));
  node->input_meta.push_back(meta_of(base));
  AutogradMeta* m = materialize_meta(view);
  m->grad_fn = std::move(node);
  m->output_nr = 0;
  m->grad_accumulator.reset();
  m->is_view = true;
  m->attr_version = view._version();
  return m;
}

}  // namespace

variable_list AsStridedBackward0::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  if (!grad.defined()) return {Tensor()};
  const BufferLayout l = buffer_layout(base, view);
  Tensor buffer = ember::zeros({l.extent}, grad.dtype());
  if (may_self_overlap(view))  // several view elements share a base element: their gradients add up
    buffer.index_add_(0, positions(view, l.view_offset), grad.reshape({-1}));
  else
    buffer.as_strided(view.sizes, view.strides, l.view_offset).copy_(grad);
  return {buffer.as_strided(base.sizes, base.strides, l.base_offset)};
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, int self_index)
    : base(base), view(view), fn(std::move(fn)), self_index(self_index) {}

variable_list CopySlices::apply(variable_list&& grads) {
  const Tensor& grad = grads[0];
  variable_list out(next_edges_.size());
  if (!grad.defined()) return out;
  const BufferLayout l = buffer_layout(base, view);
  Tensor buffer = ember::zeros({l.extent}, grad.dtype());
  Tensor result = buffer.as_strided(base.sizes, base.strides, l.base_offset);
  result.copy_(grad);
  Tensor slice = buffer.as_strided(view.sizes, view.strides, l.view_offset);
  variable_list res = fn->apply(variable_list{slice.clone()});
  // The view's old value reached the base's old history through this part of the base.
  if (self_index >= 0 && static_cast<size_t>(self_index) < res.size() && res[self_index].defined())
    slice.copy_(res[self_index]);
  else
    slice.zero_();
  out[0] = result;
  size_t j = 1;
  for (size_t i = 0; i < res.size() && j < out.size(); ++i)
    if (static_cast<int>(i) != self_index) out[j++] = std::move(res[i]);
  return out;
}

AutogradMeta* refresh_view_grad_fn(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  const intrusive_ptr<TensorImpl>& b = t.impl()->view_base();
  if (!b) return m;
  if (m) {
    if (m->creation == ViewCreation::NoGradMode) return m;
    if (m->is_view ? m->attr_version == t._version() : (m->grad_fn || m->requires_grad_)) return m;
  }
  Tensor base(b);
  if (!requires_grad(base)) return m;
  return regenerate(t, base);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, int self_index) {
  if (!fn) return;
  const intrusive_ptr<TensorImpl>& b = self.impl()->view_base();
  if (!b) {
    set_history(self, fn, 0);
    return;
  }
  Tensor base(b);
  auto cs = std::make_shared<CopySlices>(base, self, fn, self_index);
  cs->sequence_nr = next_sequence_nr();
  cs->add_next_edge(gradient_edge(base));
  cs->input_meta.push_back(meta_of(base));
  const std::vector<Edge>& edges = fn->next_edges();
  for (size_t i = 0; i < edges.size(); ++i) {
    if (static_cast<int>(i) == self_index) continue;
    cs->add_next_edge(edges[i]);
    cs->input_meta.push_back(i < fn->input_meta.size() ? fn->input_meta[i] : InputMeta{});
  }
  set_history(base, cs, 0);
  regenerate(self, base);
}

void check_inplace(const Tensor& self) {
  AutogradMeta* m = get_meta(self);
  if (const intrusive_ptr<TensorImpl>& b = self.impl()->view_base()) {
    EMBER_CHECK(!(m && m->creation == ViewCreation::NoGradMode),
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be tracked).");
    auto* bm = static_cast<AutogradMeta*>(b->autograd_meta());
    EMBER_CHECK(!(bm && bm->requires_grad_ && !bm->grad_fn),
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  EMBER_CHECK(!(m && m->requires_grad_ && !m->grad_fn),
              "a leaf Variable that requires grad is being used in an in-place operation.");
}

void mark_view(const Tensor& view) {
  AutogradMeta* m = get_meta(view);
  if (!m || !view.impl()->view_base()) return;
  m->is_view = true;
  m->attr_version = view._version();
}

void mark_no_grad_view(const Tensor& view) {
  if (view.impl()->view_base()) materialize_meta(view)->creation = ViewCreation::NoGradMode;
}

}  // namespace ember::autograd
