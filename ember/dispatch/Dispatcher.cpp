#include "ember/dispatch/Dispatcher.h"

#include <algorithm>

namespace ember {

std::string_view key_name(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::ADInplaceOrView: return "ADInplaceOrView";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::Tracer: return "Tracer";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
    default: return "Unknown";
  }
}

bool parse_key(std::string_view name, DispatchKey* out) {
  for (DispatchKey k :
       {DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::ADInplaceOrView, DispatchKey::Autograd, DispatchKey::Tracer,
        DispatchKey::CompositeImplicitAutograd, DispatchKey::CompositeExplicitAutograd}) {
    if (key_name(k) == name) {
      *out = k;
      return true;
    }
  }
  return false;
}

LocalDispatchKeySet& tls_local_keys() {
  static thread_local LocalDispatchKeySet local;
  return local;
}

namespace boxing {
std::vector<std::optional<Tensor>> to_optional_tensor_list(const IValue& v) {
  std::vector<std::optional<Tensor>> r;
  if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list()) r.emplace_back(t);
    return r;
  }
  for (const IValue& e : v.to_list()) r.push_back(e.is_none() ? std::nullopt : std::optional<Tensor>(e.to_tensor()));
  return r;
}
}  // namespace boxing

namespace {
void call_functor(void* ctx, const OperatorHandle& op, Stack* stack) { (*static_cast<BoxedFunctor*>(ctx))(op, stack); }
}  // namespace

KernelFunction KernelFunction::from_boxed(BoxedFunctor f) {
  KernelFunction k;
  k.boxed = &call_functor;
  k.ctx = new BoxedFunctor(std::move(f));  // owned by the table for the life of the process
  return k;
}

DispatchKeySet compute_keys_boxed(const Stack& stack, size_t n) {
  DispatchKeySet ks = DispatchKeySet(DispatchKey::CPU) | DispatchKeySet(DispatchKey::ADInplaceOrView);
  for (size_t i = stack.size() - std::min(n, stack.size()); i < stack.size(); ++i) {
    const IValue& v = stack[i];
    if (v.is_tensor()) ks = ks | tensor_keys(v.to_tensor().impl());
    else if (v.is_tensor_list())
      for (const Tensor& t : v.to_tensor_list()) ks = ks | tensor_keys(t.impl());
    else if (v.is_list())
      for (const IValue& e : v.to_list())
        if (e.is_tensor()) ks = ks | tensor_keys(e.to_tensor().impl());
  }
  const LocalDispatchKeySet& local = tls_local_keys();
  return (ks | local.included) - local.excluded;
}

bool OperatorEntry::has_kernel(DispatchKey k) const {
  const KernelFunction* f = table_[static_cast<int>(k)].load(std::memory_order_acquire);
  return f && !f->fallthrough;
}

void OperatorEntry::undefined_argument() const {
  EMBER_FAIL("{}: expected a defined Tensor for every Tensor argument, but got an undefined one (a "
             "default-constructed ember::Tensor); pass std::nullopt for an optional Tensor?",
             schema_.full_name());
}

void OperatorEntry::too_few_arguments(size_t on_stack) const {
  EMBER_FAIL("{}: a boxed call needs all {} arguments of the schema on the stack (defaults included), but the "
             "stack holds {}; schema: {}", schema_.full_name(), schema_.arguments.size(), on_stack, schema_.str());
}

void OperatorEntry::no_kernel(DispatchKeySet) const {
  EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                  "Could not run '{}' with the given arguments: the op has no kernel for the CPU backend "
                  "(registered: {})",
                  schema_.full_name(), [&] {
                    std::string s;
                    for (int i = 0; i < kNumDispatchKeys; ++i)
                      if (direct_[i]) s += std::string(s.empty() ? "" : ", ") + std::string(key_name(DispatchKey(i)));
                    return s.empty() ? std::string("nothing") : s;
                  }());
}

// Note [kernel precedence]
// A slot holds, in order of preference: the kernel registered for the key itself; for a backend key the
// CompositeExplicitAutograd, else the CompositeImplicitAutograd kernel; for Autograd the
// CompositeImplicitAutograd kernel; and last the key's boxed fallback (Dispatcher::fallback), so a fallback
// such as the tracer's covers every op without a kernel of its own, whenever the op or the fallback was
// registered. This is PyTorch's order (computeDispatchTableEntry).
void OperatorEntry::recompute(DispatchKey k, const KernelFunction* fallback) {
  int i = static_cast<int>(k);
  const KernelFunction* f = direct_[i];
  if (!f) {
    bool backend = k == DispatchKey::CPU || k == DispatchKey::CUDA;
    if (backend) f = composite_explicit_ ? composite_explicit_ : composite_implicit_;
    else if ((k == DispatchKey::Autograd || k == DispatchKey::ADInplaceOrView) && composite_implicit_ &&
             !composite_explicit_) {
      // Autograd and ADInplaceOrView see the ops inside a CompositeImplicitAutograd kernel, so that kernel
      // serves those keys too.
      f = composite_implicit_;
    }
  }
  if (k == DispatchKey::ADInplaceOrView) {
    // A functional op (it writes no argument and returns no alias of one) has nothing to do at this key: its
    // CompositeImplicitAutograd kernel is left to the backend slot, so that, like a backend kernel, it runs
    // with the key excluded and the in-place ops it runs on its own fresh tensors (zeros' fill_) bump
    // nothing. ADInplaceOrView's fallback bumps written arguments, so only ops that write one use it.
    bool aliases = false;
    for (const SchemaArgument& r : schema_.returns) aliases = aliases || r.alias.has_value();
    if (!schema_.is_mutable() && !aliases) {
      if (f == composite_implicit_ && !direct_[i]) f = nullptr;
      table_[i].store(f, std::memory_order_release);
      return;
    }
  }
  if (!f && (k != DispatchKey::ADInplaceOrView || schema_.is_mutable())) f = fallback;
  table_[i].store(f, std::memory_order_release);
}

Dispatcher& Dispatcher::singleton() {
  static Dispatcher* d = new Dispatcher();  // never destroyed: kernels may run during static destruction
  return *d;
}

namespace {
std::pair<std::string_view, std::string_view> split_overload(std::string_view name) {
  size_t ns = name.find("::");
  size_t dot = name.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  if (dot == std::string_view::npos) return {name, {}};
  return {name.substr(0, dot), name.substr(dot + 1)};
}
}  // namespace

OperatorHandle Dispatcher::def(std::string_view schema_text, OpInfo info, std::string_view default_ns,
                               std::string_view where) {
  FunctionSchema schema = parse_schema(schema_text, default_ns);
  std::lock_guard<std::mutex> g(mu_);
  for (OperatorEntry* e : ops_) {
    EMBER_CHECK(!(e->schema().name == schema.name && e->schema().overload == schema.overload),
                "duplicate definition of op {} (registered by {}); already defined as {}", schema.full_name(),
                where, e->schema().str());
  }
  auto* e = new OperatorEntry(std::move(schema), std::move(info));
  e->direct_.fill(nullptr);
  for (int i = 0; i < kNumDispatchKeys; ++i) e->recompute(DispatchKey(i), fallbacks_[i]);
  ops_.push_back(e);
  return OperatorHandle(e);
}

std::string schema_signature_string(const FunctionSchema& s) {
  auto norm = [](const SchemaType& t) {
    std::string n = t.str();
    // Fixed list sizes are not part of the C++ type: int[2] is IntArrayRef.
    for (size_t p; (p = n.find_first_of("0123456789")) != std::string::npos;) n.erase(p, 1);
    return n;
  };
  std::string r = "(";
  for (size_t i = 0; i < s.arguments.size(); ++i) r += (i ? ", " : "") + norm(s.arguments[i].type);
  r += ") -> ";
  if (s.returns.empty()) return r + "()";
  if (s.returns.size() == 1) return r + norm(s.returns[0].type);
  r += "(";
  for (size_t i = 0; i < s.returns.size(); ++i) r += (i ? ", " : "") + norm(s.returns[i].type);
  return r + ")";
}

// Note [signature check]
// A typed kernel is called through a function pointer cast to the signature the generated code (or a
// typed_op) uses, so a kernel whose C++ signature differs from its schema would corrupt memory. m.impl()
// therefore compares the two in schema spelling and rejects a mismatch with both spelled out.
void Dispatcher::impl(std::string_view name, DispatchKey key, KernelFunction k, std::string_view where) {
  OperatorHandle op = find(name);
  EMBER_CHECK(op.valid(), "impl: no op named {} has been defined (registering a {} kernel from {}); define it "
              "with m.def() first", name, key_name(key), where);
  if (!k.signature.empty()) {
    std::string want = schema_signature_string(op.schema());
    EMBER_CHECK(k.signature == want, "impl: the {} kernel for {} from {} has C++ signature {} but the schema {} "
                "needs {}", key_name(key), name, where, k.signature, op.schema().str(), want);
  }
  k.debug = std::string(where);
  std::lock_guard<std::mutex> g(mu_);
  OperatorEntry* e = op.entry();
  kernels_.push_back(std::make_unique<KernelFunction>(std::move(k)));
  const KernelFunction* rec = kernels_.back().get();
  auto dup = [&](const KernelFunction* old) {
    EMBER_CHECK(old == nullptr, "impl: a {} kernel for {} is already registered (by {}); second registration "
                "from {}", key_name(key), name, old->debug, where);
  };
  if (key == DispatchKey::CompositeImplicitAutograd) {
    dup(e->composite_implicit_);
    e->composite_implicit_ = rec;
    for (int i = 0; i < kNumDispatchKeys; ++i) e->recompute(DispatchKey(i), fallbacks_[i]);
  } else if (key == DispatchKey::CompositeExplicitAutograd) {
    dup(e->composite_explicit_);
    e->composite_explicit_ = rec;
    for (int i = 0; i < kNumDispatchKeys; ++i) e->recompute(DispatchKey(i), fallbacks_[i]);
  } else {
    dup(e->direct_[static_cast<int>(key)]);
    e->direct_[static_cast<int>(key)] = rec;
    e->recompute(key, fallbacks_[static_cast<int>(key)]);
  }
}

void Dispatcher::fallback(DispatchKey key, KernelFunction k) {
  std::lock_guard<std::mutex> g(mu_);
  kernels_.push_back(std::make_unique<KernelFunction>(std::move(k)));
  int i = static_cast<int>(key);
  fallbacks_[i] = kernels_.back().get();
  for (OperatorEntry* e : ops_) e->recompute(key, fallbacks_[i]);  // See Note [kernel precedence]
}

OperatorHandle Dispatcher::find(std::string_view name) const {
  auto [base, overload] = split_overload(name);
  std::lock_guard<std::mutex> g(mu_);
  for (OperatorEntry* e : ops_)
    if (e->schema().name == base && e->schema().overload == overload) return OperatorHandle(e);
  return {};
}

OperatorHandle Dispatcher::find_or_throw(std::string_view name) const {
  OperatorHandle h = find(name);
  EMBER_CHECK(h.valid(), "Unknown operator '{}': no op with this name is registered; if it is a custom op, load "
              "the library that defines it first (ember.ops.load_library / ember::load_library)", name);
  return h;
}

std::vector<OperatorHandle> Dispatcher::overloads(std::string_view name) const {
  std::vector<OperatorHandle> r;
  std::lock_guard<std::mutex> g(mu_);
  for (OperatorEntry* e : ops_)
    if (e->schema().name == name) r.emplace_back(e);
  return r;
}

std::vector<OperatorHandle> Dispatcher::all_ops() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<OperatorHandle> r;
  for (OperatorEntry* e : ops_) r.emplace_back(e);
  return r;
}

OperatorHandle find_op_checked(std::string_view name, const std::string& cpp_signature) {
  OperatorHandle h = Dispatcher::singleton().find_or_throw(name);
  std::string want = schema_signature_string(h.schema());
  EMBER_CHECK(cpp_signature == want, "typed_op: {} was requested with C++ signature {} but its schema {} needs {}",
              name, cpp_signature, h.schema().str(), want);
  return h;
}

}  // namespace ember
