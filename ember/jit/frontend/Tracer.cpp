// The tracing state and the Tracer key's boxed fallback (Note [tracing] in Tracer.h).
#include "ember/jit/frontend/Tracer.h"

#include <unordered_set>

#include "ember/base/Error.h"
#include "ember/dispatch/Library.h"
#include "ember/ops/Functions.h"

namespace ember::jit::tracer {

namespace {
thread_local std::shared_ptr<TracingState> tls_state;

// "block.0.weight" -> {"block.0", "weight"}; "weight" -> {"", "weight"}.
std::pair<std::string, std::string> split_path(const std::string& path) {
  size_t dot = path.rfind('.');
  if (dot == std::string::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}
}  // namespace

TracingState::TracingState() : graph_(std::make_shared<Graph>()) {}

Value* TracingState::add_input(const Tensor& t, const std::string& name) {
  EMBER_CHECK(t.defined(), "jit.trace: an input tensor is undefined");
  Value* v = graph_->add_input(name, TensorType::from_tensor(t));
  if (!find_value(t)) set_value(t, v);  // a tensor passed twice reads its first input
  return v;
}

Value* TracingState::add_self(std::shared_ptr<ClassType> cls, const std::string& name) {
  EMBER_CHECK(!self_, "jit.trace: add_self called twice");
  EMBER_CHECK(cls, "jit.trace: add_self: null class type");
  // self is the graph's first input, as in TorchScript, even when tensors were added before.
  self_ = graph_->block()->insert_input(0, name, cls);
  classes_[""] = std::move(cls);
  attr_values_[""] = self_;
  return self_;
}

void TracingState::register_submodule(const std::string& path, std::shared_ptr<ClassType> cls) {
  EMBER_CHECK(self_, "jit.trace: register_submodule('{}') before add_self", path);
  auto [parent, name] = split_path(path);
  auto it = classes_.find(parent);
  EMBER_CHECK(it != classes_.end(), "jit.trace: register_submodule('{}'): the parent '{}' is not declared", path,
              parent);
  it->second->add_attribute(name, cls);
  classes_[path] = std::move(cls);
}

void TracingState::register_attribute(const Tensor& t, const std::string& path) {
  EMBER_CHECK(self_, "jit.trace: register_attribute('{}') before add_self", path);
  EMBER_CHECK(t.defined(), "jit.trace: register_attribute('{}'): undefined tensor", path);
  auto [owner, name] = split_path(path);
  auto it = classes_.find(owner);
  EMBER_CHECK(it != classes_.end(), "jit.trace: register_attribute('{}'): the module '{}' is not declared", path,
              owner);
  it->second->add_attribute(name, Type::tensor_type());
  // A tensor shared by two attributes (tied weights) reads the first.
  attributes_.emplace(t.impl(), std::make_pair(t, path));
}

Value* TracingState::attr_chain(const std::string& path) {
  if (auto it = attr_values_.find(path); it != attr_values_.end()) return it->second;
  auto [owner, name] = split_path(path);
  Value* obj = attr_chain(owner);
  Value* v = graph_->insert_get_attr(obj, name);
  attr_values_[path] = v;
  return v;
}

Value* TracingState::find_value(const Tensor& t) const {
  auto it = values_.find(t.impl());
  return it == values_.end() ? nullptr : it->second.value;
}

Value* TracingState::add_constant(const Tensor& t) {
  Value* v = graph_->insert_constant(IValue(t));
  set_value(t, v);
  return v;
}

void TracingState::set_value(const Tensor& t, Value* v) { values_[t.impl()] = Entry{t, v}; }

void TracingState::warn(const std::string& message) {
  if (warn_) warn_(message);
  else warnings_.push_back(message);
}

Value* TracingState::value_of(const Tensor& t) {
  EMBER_CHECK(t.defined(), "jit.trace: an undefined tensor cannot be traced");
  if (Value* v = find_value(t)) return v;
  if (auto it = attributes_.find(t.impl()); it != attributes_.end()) {
    Value* v = attr_chain(it->second.second);
    set_value(t, v);
    return v;
  }
  // As PyTorch: a constant would silently cut the gradient path of a tensor that requires grad.
  const AutogradMetaInterface* meta = t.impl()->autograd_meta();
  EMBER_CHECK(!(meta && meta->requires_grad()),
              "Cannot insert a Tensor that requires grad as a constant. Consider making it a parameter or input, "
              "or detaching the gradient (a tensor of type {})",
              TensorType::from_tensor(t)->str());
  if (!t.impl()->is_wrapped_number())
    warn(fmt::format("a tensor of sizes {} that is neither an input of the trace, a parameter or buffer of the "
                     "module, nor computed from them is recorded as a constant: the trace will not follow "
                     "changes to it (pass it as an input or register it as a buffer)",
                     TensorType::from_tensor(t)->str()));
  Value* v = graph_->insert_constant(IValue(t));
  set_value(t, v);
  return v;
}

Tensor TracingState::size_of(const Tensor& x, int64_t dim) {
  const int64_t n = x.size(wrap_dim(dim, x.dim()));
  Value* xv = value_of(x);
  Node* size = graph_->insert_op("aten::size.int", {xv, graph_->insert_constant(IValue(dim))});
  Node* num = graph_->insert_op("aten::scalar_tensor", {size->output(), graph_->insert_constant(IValue(kLong)),
                                                        graph_->insert_constant(IValue())});
  Tensor t;
  {
    ExcludeDispatchKeyGuard no_trace(DispatchKey::Tracer);
    t = ember::scalar_tensor(Scalar(n), kLong);
  }
  num->output()->set_type(TensorType::from_tensor(t));
  set_value(t, num->output());
  return t;
}

void TracingState::note_int_argument(const FunctionSchema& op, size_t arg, int64_t elem, const Tensor& t) {
  Value* v = find_value(t);
  if (!v) return;
  Node* n = graph_->insert_op("aten::Int.Tensor", {v});
  int_args_.push_back(IntArgument{&op, arg, elem, n->output()});
}

Value* TracingState::int_argument(const FunctionSchema& op, size_t arg, int64_t elem) const {
  for (const IntArgument& a : int_args_)
    if (a.op == &op && a.arg == arg && a.elem == elem) return a.value;
  return nullptr;
}

void TracingState::finish() {
  for (Node *n = graph_->return_node()->prev(), *prev = nullptr; n != graph_->param_node(); n = prev) {
    prev = n->prev();  // read before n may be destroyed
    bool used = false;
    for (const Value* o : n->outputs()) used = used || o->has_uses();
    if (used) continue;
    if (n->is_op() && n->schema().is_mutable()) continue;  // writes a tensor: its effect is the point
    for (const Value* o : n->outputs()) {  // forget the mapping, so a later use would not see a dead value
      std::erase_if(values_, [&](const auto& kv) { return kv.second.value == o; });
      std::erase_if(attr_values_, [&](const auto& kv) { return kv.second == o; });
    }
    n->destroy();
  }
  verify(*graph_);
}

void TracingState::roll_back_to(Node* last) {
  std::unordered_set<const Value*> gone;
  while (graph_->return_node()->prev() != last) {
    Node* n = graph_->return_node()->prev();
    for (const Value* o : n->outputs()) gone.insert(o);
    n->destroy();
  }
  std::erase_if(values_, [&](const auto& kv) { return gone.count(kv.second.value) != 0; });
  std::erase_if(attr_values_, [&](const auto& kv) { return gone.count(kv.second) != 0; });
}

TracingState* current_state() { return tls_state.get(); }
bool is_tracing() { return tls_state != nullptr; }

TracingGuard::TracingGuard(std::shared_ptr<TracingState> state)
    : saved_(std::move(tls_state)), saved_included_(tls_local_keys().included.has(DispatchKey::Tracer)) {
  tls_state = std::move(state);
  LocalDispatchKeySet& local = tls_local_keys();
  local.included = tls_state ? local.included | DispatchKeySet(DispatchKey::Tracer)
                             : local.included.remove(DispatchKey::Tracer);
}

TracingGuard::~TracingGuard() {
  tls_state = std::move(saved_);
  LocalDispatchKeySet& local = tls_local_keys();
  local.included = saved_included_ ? local.included | DispatchKeySet(DispatchKey::Tracer)
                                   : local.included.remove(DispatchKey::Tracer);
}

std::shared_ptr<Graph> trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                             const std::vector<Tensor>& inputs, const std::vector<std::string>& input_names) {
  auto state = std::make_shared<TracingState>();
  for (size_t i = 0; i < inputs.size(); ++i) state->add_input(inputs[i], i < input_names.size() ? input_names[i] : "");
  std::vector<Tensor> outputs;
  {
    TracingGuard guard(state);
    outputs = fn(inputs);
    for (const Tensor& t : outputs) state->graph().register_output(state->value_of(t));
  }
  state->finish();
  return state->graph_ptr();
}

// ---- the fallback

namespace {

// The Value of argument i of op (Note [tracing], step 1); ints from traced sizes: Note [traced sizes].
Value* argument_value(TracingState& s, const IValue& v, const FunctionSchema& schema, size_t i) {
  Graph& g = s.graph();
  const SchemaType& type = schema.arguments[i].type;
  const std::string op = schema.full_name();
  if (v.is_tensor()) return s.value_of(v.to_tensor());
  if (v.is_int()) {
    if (Value* traced = s.int_argument(schema, i, -1)) return traced;
  }
  if (v.is_int_list()) {
    IntArrayRef l = v.to_int_list();
    std::vector<Value*> elems(l.size(), nullptr);
    bool any = false;
    for (size_t k = 0; k < l.size(); ++k)
      any |= (elems[k] = s.int_argument(schema, i, static_cast<int64_t>(k))) != nullptr;
    if (any) {
      for (size_t k = 0; k < l.size(); ++k)
        if (!elems[k]) elems[k] = g.insert_constant(IValue(l[k]));
      return g.insert_list(Type::int_type(), elems);
    }
  }
  if (v.is_tensor_list()) {
    std::vector<Value*> elems;
    for (const Tensor& t : v.to_tensor_list()) elems.push_back(s.value_of(t));
    return g.insert_list(Type::tensor_type(), elems);
  }
  if (v.is_list()) {
    bool has_tensor = false;
    for (const IValue& e : v.to_list()) has_tensor = has_tensor || e.is_tensor();
    if (has_tensor) {  // Tensor?[] (index): None elements are constants
      TypePtr elem = type_from_schema(type.kind == SchemaType::Kind::Optional && type.elem ? *type.elem : type);
      const auto* lt = elem->cast<ListType>();
      TypePtr et = lt ? lt->elem() : OptionalType::create(Type::tensor_type());
      std::vector<Value*> elems;
      for (const IValue& e : v.to_list())
        elems.push_back(e.is_tensor() ? s.value_of(e.to_tensor()) : g.insert_constant(e));
      return g.insert_list(et, elems);
    }
  }
  EMBER_CHECK(v.tag() != IValue::Tag::Generator,
              "jit.trace: {} was called with an explicit generator, which a trace cannot record; use the "
              "default generator (ember.manual_seed) instead",
              op);
  return g.insert_constant(v);
}

void tracer_fallback(const OperatorHandle& op, Stack* stack) {
  const FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  TracingState* s = current_state();
  DispatchKeySet below = compute_keys_boxed(*stack, n).remove(DispatchKey::Tracer);
  if (!s) {  // the key was turned on by hand without a state: nothing to record
    ExcludeDispatchKeyGuard guard(DispatchKey::Tracer);
    op.redispatch_boxed(below, stack);
    return;
  }
  Graph& g = s->graph();
  const size_t base = stack->size() - n;
  std::vector<Value*> inputs;
  try {
    for (size_t i = 0; i < n; ++i) inputs.push_back(argument_value(*s, (*stack)[base + i], schema, i));
  } catch (...) {
    s->clear_int_arguments();
    throw;
  }
  s->clear_int_arguments();  // read by this call only (Note [traced sizes])
  Node* node = g.insert_op(op, inputs);
  {
    ExcludeDispatchKeyGuard guard(DispatchKey::Tracer);
    op.redispatch_boxed(below, stack);
  }
  // Note [tracing], step 4.
  const size_t r = schema.returns.size();
  EMBER_CHECK(node->num_outputs() == r, "jit.trace: {} returned {} values but its node has {} outputs",
              schema.full_name(), r, node->num_outputs());
  for (size_t i = 0; i < r; ++i) {
    const IValue& v = (*stack)[stack->size() - r + i];
    Value* out = node->output(i);
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      if (!t.defined()) continue;
      out->set_type(TensorType::from_tensor(t));
      s->set_value(t, out);
    } else if (v.is_tensor_list()) {
      TensorList l = v.to_tensor_list();
      Node* unpack = g.insert_list_unpack(out, l.size());
      // The elements stay typed Tensor, like the list's (the verifier wants ListUnpack's types to agree).
      for (size_t k = 0; k < l.size(); ++k) s->set_value(l[k], unpack->output(k));
    }
  }
}

// Wraps tracer_fallback so that a failure leaves the graph as before the call (Note [tracing]).
void tracer_fallback_checked(const OperatorHandle& op, Stack* stack) {
  TracingState* s = current_state();
  if (!s) return tracer_fallback(op, stack);
  Node* last = s->graph().return_node()->prev();
  try {
    tracer_fallback(op, stack);
  } catch (...) {
    s->roll_back_to(last);
    throw;
  }
}

}  // namespace

void register_tracer_fallback(Library& m) { m.fallback(KernelFunction::from_boxed(&tracer_fallback_checked)); }

}  // namespace ember::jit::tracer
