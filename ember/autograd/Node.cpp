#include "ember/autograd/Node.h"

#include <atomic>

#include "ember/autograd/AnomalyMode.h"
#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"

namespace ember::autograd {

uint64_t next_sequence_nr() {
  static std::atomic<uint64_t> n{0};
  return n.fetch_add(1, std::memory_order_relaxed);
}

AutogradMeta* materialize_meta(const Tensor& t) {
  if (auto* m = get_meta(t)) return m;
  auto m = std::make_unique<AutogradMeta>();
  AutogradMeta* p = m.get();
  t.impl()->set_autograd_meta(std::move(m));
  return p;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = get_meta(t);
  if ((!m || m->is_view) && t.defined() && t.impl()->view_base()) [[unlikely]] m = refresh_view_grad_fn(t);
  if (!m || !m->requires_grad()) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  // Note [concurrent backward]: graphs built at once by several threads on one leaf share one AccumulateGrad.
  std::lock_guard<std::mutex> lock(m->mutex);
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    acc->sequence_nr = UINT64_MAX;  // sinks run as soon as they are ready
    acc->input_meta.push_back({DimVector(t.sizes().begin(), t.sizes().end()), t.dtype()});
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (AnomalyMode::is_enabled() && node->anomaly_trace.empty()) AnomalyMode::record(*node);
  AutogradMeta* m = materialize_meta(out);
  m->grad_fn = node;
  m->output_nr = output_nr;
  m->grad_accumulator.reset();
}

// Note [tensor hooks]
// Tensor.register_hook on a non-leaf adds a TensorPreHook to the tensor's grad_fn, for its output number;
// on a leaf it adds one to the leaf's AutogradMeta, which its AccumulateGrad runs. Either way a hook runs
// once per backward on the gradient summed over every use of the tensor, before the node consumes it (so
// a leaf's hook sees the gradient before it is accumulated into .grad), and its result replaces the
// gradient. retain_grad() is such a hook too (it stores the gradient and returns nothing), so hooks and
// retain_grad see each other's effect in registration order, as PyTorch 1.13's. The hooks stay with the
// node, not the tensor: they run even when the tensor itself is gone. autograd::grad() captures the
// gradient of its inputs before their hooks run (the hooks still run when the node runs for another
// input); backward(inputs=...) runs them first. Both match PyTorch 1.13.
void call_tensor_pre_hooks(const TensorPreHookList& hooks, variable_list& grads) {
  for (size_t i = 0; i < hooks.size(); ++i) {
    const TensorPreHook& h = *hooks[i];
    if (!h.fn || h.output_nr >= grads.size() || !grads[h.output_nr].defined()) continue;
    GradHook fn = h.fn;  // a copy: the hook may remove itself (or register others) while it runs
    Tensor r = fn(grads[h.output_nr]);
    if (!r.defined()) continue;
    const Tensor& g = grads[h.output_nr];
    EMBER_CHECK(same_sizes(r.sizes(), g.sizes()), "hook '{}' has changed the size of value", h.name);
    EMBER_CHECK(r.dtype() == g.dtype(), "hook '{}' has changed the type of value (was {} got {})", h.name,
                g.dtype(), r.dtype());
    grads[h.output_nr] = std::move(r);
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  AutogradMeta* m = materialize_meta(variable);
  if (!m->hooks.empty()) call_tensor_pre_hooks(m->hooks, grads);
  Tensor& g = grads[0];
  if (!g.defined()) return {};
  if (GradMode::is_enabled()) {
    // create_graph: the accumulated gradient keeps its own history (out of place).
    m->grad = m->grad.defined() ? ember::add(m->grad, g) : g;
    return {};
  }
  if (!m->grad.defined()) {
    // Note [gradient layout]
    // .grad takes the parameter's layout when the parameter is dense (a channels-last weight gets a
    // channels-last gradient), else row-major: PyTorch's layout contract for AccumulateGrad. The incoming
    // gradient may be a broadcast view or the user's own tensor, so it is copied into that layout — unless
    // (Note [stealing gradients]) it already has it and nothing else refers to it (this node holds the only
    // reference to the tensor and to its storage, which it fills exactly): then it becomes .grad itself, as
    // PyTorch's AccumulateGrad steals it, with no copy when zero_grad() set .grad to None.
    const Tensor& v = variable;
    const bool dense_param = is_non_overlapping_and_dense(v.sizes(), v.strides());
    bool obeys = dense_param || g.is_contiguous();
    for (int64_t d = 0; dense_param && obeys && d < g.dim(); ++d)
      obeys = g.sizes()[d] == 1 || g.strides()[d] == v.strides()[d];
    const bool sole = obeys && g.use_count() == 1 && g.impl()->storage().use_count() == 1 &&
                      g.impl()->storage_offset() == 0 &&
                      g.impl()->storage()->nbytes() == static_cast<size_t>(g.numel()) * element_size(g.dtype());
    if (sole) m->grad = std::move(g);
    else if (dense_param && !v.is_contiguous())
      m->grad = ember::empty_strided(v.sizes(), v.strides(), g.dtype()).copy_(g);
    else m->grad = ember::clone(g, MemoryFormat::Contiguous);
  } else {
    m->grad.add_(g);
  }
  return {};
}

// ---------------------------------------------------------------------------------------- SavedVariable
// Note [saved variable versions]
// A tensor saved for backward records the value of its (storage-shared) version counter. Every in-place op
// bumps that counter, also through views and detach() aliases, so unpacking compares the two and raises
// PyTorch's error when the saved value was overwritten. After a backward without retain_graph the node
// drops its saved tensors and unpacking raises the "backward through the graph a second time" error.

namespace {
const char* legacy_type_name(DType d) {
  switch (d) {
    case DType::Float32: return "FloatTensor";
    case DType::Float64: return "DoubleTensor";
    case DType::Float16: return "HalfTensor";
    case DType::BFloat16: return "BFloat16Tensor";
    case DType::Int64: return "LongTensor";
    case DType::Int32: return "IntTensor";
    case DType::Int16: return "ShortTensor";
    case DType::Int8: return "CharTensor";
    case DType::UInt8: return "ByteTensor";
    case DType::Bool: return "BoolTensor";
    case DType::ComplexFloat: return "ComplexFloatTensor";
    case DType::ComplexDouble: return "ComplexDoubleTensor";
    default: return "Tensor";
  }
}
std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.is_inference(),
              "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
              "tensor and use it in autograd.");
  was_defined_ = true;
  saved_version_ = t._version();
  is_output_ = is_output;
  AutogradMeta* m = get_meta(t);
  requires_grad_ = m && m->requires_grad();
  is_leaf_ = !m || !m->grad_fn;
  if (m && m->grad_fn) grad_fn_name_ = m->grad_fn->name();
  if (is_output) {
    output_nr_ = m ? m->output_nr : 0;
    if (m) grad_fn_weak_ = m->grad_fn;
    data_ = make_view(t, t.sizes(), t.strides(), t.storage_offset());  // no meta: Note [autograd graph ownership]
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() { data_ = Tensor(); }

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(data_.defined(),
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  if (data_._version() != saved_version_) {
    std::string what = std::string("[ember.") + legacy_type_name(data_.dtype()) + " " + sizes_str(data_.sizes()) +
                       "]";
    if (!is_leaf_) what += ", which is output " + std::to_string(output_nr_) + " of " + grad_fn_name_ + ",";
    EMBER_FAIL(
        "one of the variables needed for gradient computation has been modified by an inplace operation: {} is "
        "at version {}; expected version {} instead. Hint: the backtrace further above shows the operation "
        "that failed to compute its gradient. The variable in question was changed in there or anywhere later. "
        "Good luck!",
        what, data_._version(), saved_version_);
  }
  if (!is_output_) return data_;
  // An output: give the alias its node back so that create_graph differentiates through it.
  std::shared_ptr<Node> fn = grad_fn_weak_.lock();
  if (!fn) fn = owner;
  if (!fn || !requires_grad_ || !GradMode::is_enabled()) return data_;
  Tensor r = make_view(data_, data_.sizes(), data_.strides(), data_.storage_offset());
  set_history(r, fn, output_nr_);
  return r;
}

}  // namespace ember::autograd
