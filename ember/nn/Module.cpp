#include "ember/nn/Module.h"

#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/autograd.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/ops/Functions.h"

namespace ember::nn {

namespace {

std::string shape_str(IntArrayRef sizes) { return fmt::format("[{}]", fmt::join(sizes, ", ")); }

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}

Module::Module() = default;

const std::string& Module::name() const noexcept {
  // The dynamic type is only known once construction is over, so the default name is computed lazily.
  if (name_.empty()) name_ = detail::readable_type_name(typeid(*this));
  return name_;
}

// ---------------------------------------------------------------------------------------------- traversals

void Module::visit(const std::string& prefix, bool dedup, std::unordered_set<const Module*>& seen,
                   const Visitor& fn) const {
  if (dedup && !seen.insert(this).second) return;
  fn(prefix, *this);
  for (const auto& child : children_)
    child.value()->visit(prefix.empty() ? child.key() : prefix + "." + child.key(), dedup, seen, fn);
}

OrderedDict<std::string, Tensor> Module::named_members(bool recurse, bool buffers) const {
  OrderedDict<std::string, Tensor> out(buffers ? "Buffer" : "Parameter");
  std::unordered_set<const TensorImpl*> seen_tensors;
  auto take = [&](const std::string& prefix, const Module& m) {
    for (const auto& item : buffers ? m.buffers_ : m.parameters_) {
      const Tensor& t = item.value();
      if (!t.defined() || !seen_tensors.insert(t.impl()).second) continue;
      out.insert(prefix.empty() ? item.key() : prefix + "." + item.key(), t);
    }
  };
  if (recurse) {
    std::unordered_set<const Module*> seen;
    visit("", /*dedup=*/true, seen, take);
  } else {
    take("", *this);
  }
  return out;
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  return named_members(recurse, /*buffers=*/false);
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  return named_members(recurse, /*buffers=*/true);
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  if (include_self) {
    auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
    EMBER_CHECK(self != nullptr,
                "{}.modules(): the module is not owned by a std::shared_ptr, so it cannot list itself; create it with "
                "std::make_shared (or a module holder), or pass include_self=false",
                name());
    out.insert(name_prefix, std::move(self));
  }
  std::unordered_set<const Module*> seen{this};
  for (const auto& child : children_) {
    const std::string prefix = name_prefix.empty() ? child.key() : name_prefix + "." + child.key();
    child.value()->visit(prefix, /*dedup=*/true, seen, [&](const std::string& name, const Module& m) {
      out.insert(name, std::const_pointer_cast<Module>(m.shared_from_this()));
    });
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  std::unordered_set<const Module*> seen;
  for (const auto& child : children_)
    if (seen.insert(child.value().get()).second) out.insert(child.key(), child.value());
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return named_children().values(); }

void Module::apply(const std::function<void(Module&)>& fn) {
  std::unordered_set<const Module*> seen;
  visit("", true, seen, [&](const std::string&, const Module& m) { fn(const_cast<Module&>(m)); });
}

void Module::apply(const std::function<void(const Module&)>& fn) const {
  std::unordered_set<const Module*> seen;
  visit("", true, seen, [&](const std::string&, const Module& m) { fn(m); });
}

// ---------------------------------------------------------------------------------------------- modes, grads

void Module::train(bool on) {
  is_training_ = on;
  for (const auto& child : children_) child.value()->train(on);
}

void Module::eval() { train(false); }

bool Module::is_training() const noexcept { return is_training_; }

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) {
    Tensor g = autograd::grad(p);
    if (!g.defined()) continue;
    if (set_to_none) {
      autograd::set_grad(p, Tensor());
      continue;
    }
    // A grad with history (create_graph) is cut from its graph first, as PyTorch's zero_grad does.
    if (autograd::grad_fn(g))
      autograd::detach_(g);
    else
      autograd::set_requires_grad(g, false);
    g.zero_();
  }
}

// Note [module conversion]
// Layers keep handles to their parameters (LinearImpl::weight) and optimizers keep them too, so to(dtype) must
// not swap in new tensors: each floating tensor takes the converted data in place (TensorImpl::set_data, Note
// [set_data]), as PyTorch's set_data and Python's `param.data = ...`. A grad is converted as well (Ember's
// grads always match their tensor's dtype), so it is set aside while the tensor changes dtype.
void Module::to(DType dtype, bool non_blocking) {
  EMBER_CHECK_TYPE(is_floating_point(dtype),
                   "nn.Module.to only accepts floating point dtypes, but got desired dtype={}", dtype);
  autograd::NoGradGuard no_grad;
  auto convert = [&](const Tensor& t) {
    if (!t.defined() || !t.is_floating_point() || t.dtype() == dtype) return;
    Tensor g = autograd::grad(t);
    if (g.defined()) autograd::set_grad(t, Tensor());
    Tensor converted = t.to(dtype, non_blocking);
    t.impl()->set_data(*converted.impl());
    if (g.defined()) autograd::set_grad(t, g.to(dtype, non_blocking));
  };
  for (const Tensor& p : parameters()) convert(p);
  for (const Tensor& b : buffers()) convert(b);
}

void Module::to(Device device, bool /*non_blocking*/) {
  EMBER_CHECK(device.is_cpu(),
              "{}.to: cannot move the module to device {}: Ember runs on the CPU only (ember::cuda::is_available() "
              "is false)",
              name(), device.str());
}

void Module::to(Device device, DType dtype, bool non_blocking) {
  to(device, non_blocking);
  to(dtype, non_blocking);
}

// ---------------------------------------------------------------------------------------------- copies

Module::Module(const Module& other) : std::enable_shared_from_this<Module>(), is_training_(other.is_training_),
                                      name_(other.name_) {}

detail::DefaultGeneratorStateGuard::DefaultGeneratorStateGuard() : state_(default_generator()->get_state()) {}
detail::DefaultGeneratorStateGuard::~DefaultGeneratorStateGuard() {
  default_generator()->set_state(state_.data(), state_.size());
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>& device) const {
  check_clone_device(device);
  EMBER_FAIL("{}.clone: this module type does not support clone(); derive it from ember::nn::Cloneable<{}Impl> "
             "(or Cloneable<YourClass>) and define reset() to register its members",
             name(), name());
}

void Module::check_clone_device(const std::optional<Device>& device) const {
  EMBER_CHECK(!device || device->is_cpu(),
              "{}.clone: cannot clone the module to device {}: Ember runs on the CPU only", name(), device->str());
}

void Module::copy_state_for_clone(const Module& original) {
  auto check_same = [&](const std::vector<std::string>& mine, const std::vector<std::string>& theirs,
                        const char* kind) {
    EMBER_CHECK(mine == theirs,
                "{}.clone: the rebuilt module has {} [{}] but the original has [{}]; reset() must register the "
                "same members as the module being cloned",
                name(), kind, fmt::join(mine, ", "), fmt::join(theirs, ", "));
  };
  check_same(parameters_.keys(), original.parameters_.keys(), "parameters");
  check_same(buffers_.keys(), original.buffers_.keys(), "buffers");
  check_same(children_.keys(), original.children_.keys(), "submodules");
  autograd::NoGradGuard no_grad;
  // set_data keeps the rebuilt tensor's identity (the handles the clone's members hold) and gives it a copy
  // of the original's storage, sizes and dtype (a module converted with to(kFloat64) clones as float64).
  auto copy_into = [](Tensor& mine, const Tensor& theirs) {
    if (!theirs.defined()) {
      mine = Tensor();
      return;
    }
    const Tensor copy = theirs.detach().clone();
    if (!mine.defined()) {
      mine = copy;
    } else {
      mine.impl()->set_data(*copy.impl());
    }
    if (mine.requires_grad() != theirs.requires_grad()) mine.requires_grad_(theirs.requires_grad());
  };
  for (auto& item : parameters_) copy_into(item.value(), original.parameters_[item.key()]);
  for (auto& item : buffers_) copy_into(item.value(), original.buffers_[item.key()]);
  non_persistent_buffers_ = original.non_persistent_buffers_;
  is_training_ = original.is_training_;
  for (auto& item : children_) item.value()->copy_state_for_clone(*original.children_[item.key()]);
}

// ---------------------------------------------------------------------------------------------- state dicts

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> out("Key");
  std::unordered_set<const Module*> seen;
  // No de-duplication: Python's state_dict lists a shared module (and tensor) under every name.
  visit("", /*dedup=*/false, seen, [&](const std::string& prefix, const Module& m) {
    const std::string p = prefix.empty() ? "" : prefix + ".";
    for (const auto& item : m.parameters_)
      if (item.value().defined()) out.insert(p + item.key(), item.value().detach());
    for (const auto& item : m.buffers_)
      if (item.value().defined() && !m.non_persistent_buffers_.count(item.key()))
        out.insert(p + item.key(), item.value().detach());
  });
  return out;
}

void Module::load_state_dict(const OrderedDict<std::string, Tensor>& state, bool strict) {
  std::vector<std::string> errors, missing;
  std::vector<std::pair<Tensor, Tensor>> copies;  // (destination, source)
  const OrderedDict<std::string, Tensor> own = state_dict();
  for (const auto& item : own) {
    const Tensor* src = state.find(item.key());
    if (!src) {
      if (strict) missing.push_back(item.key());
      continue;
    }
    Tensor source = *src;
    const Tensor& dst = item.value();
    // Old checkpoints stored 0-dim values as 1-element vectors (as PyTorch's loader accepts).
    if (dst.dim() == 0 && source.dim() == 1 && source.numel() == 1) source = source.reshape({});
    if (!autograd::same_sizes(source.sizes(), dst.sizes())) {
      errors.push_back(fmt::format(
          "size mismatch for {}: copying a param with shape {} from checkpoint, the shape in current model is {}.",
          item.key(), shape_str(source.sizes()), shape_str(dst.sizes())));
      continue;
    }
    copies.emplace_back(dst, source);
  }
  std::vector<std::string> unexpected;
  if (strict)
    for (const auto& item : state)
      if (!own.contains(item.key())) unexpected.push_back(item.key());
  auto quoted = [](const std::vector<std::string>& keys) {
    std::string s;
    for (const std::string& k : keys) s += (s.empty() ? "\"" : ", \"") + k + "\"";
    return s;
  };
  if (!unexpected.empty())
    errors.insert(errors.begin(), fmt::format("Unexpected key(s) in state_dict: {}. ", quoted(unexpected)));
  if (!missing.empty())
    errors.insert(errors.begin(), fmt::format("Missing key(s) in state_dict: {}. ", quoted(missing)));
  EMBER_CHECK(errors.empty(), "Error(s) in loading state_dict for {}:\n\t{}", name(), fmt::join(errors, "\n\t"));
  autograd::NoGradGuard no_grad;
  for (auto& [dst, src] : copies) dst.copy_(src);
}

// ---------------------------------------------------------------------------------------------- printing

std::string Module::extra_repr() const { return ""; }

void Module::pretty_print(std::ostream& stream) const {
  // Python's Module.__repr__: extra_repr's lines, then "(name): <child repr>" with the child's continuation
  // lines indented by two spaces; everything on one line when there is one extra line and no child.
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  size_t extra_lines = 0;
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string line; std::getline(in, line);) lines.push_back(line), ++extra_lines;
  }
  for (const auto& child : children_) {
    std::ostringstream repr;
    child.value()->pretty_print(repr);
    std::string text = repr.str(), indented;
    for (char c : text) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
    lines.push_back("(" + child.key() + "): " + indented);
  }
  stream << name() << "(";
  if (extra_lines == 1 && children_.is_empty()) {
    stream << lines[0];
  } else if (!lines.empty()) {
    stream << "\n";
    for (const std::string& line : lines) stream << "  " << line << "\n";
  }
  stream << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print(stream);
  return stream;
}

// ---------------------------------------------------------------------------------------------- registration

void Module::check_new_name(const std::string& name, const char* kind, const void* own_registry) const {
  EMBER_CHECK(!name.empty(), "{}: {} name can't be empty string \"\"", this->name(), kind);
  EMBER_CHECK(name.find('.') == std::string::npos, "{}: {} name can't contain \".\", got \"{}\"", this->name(), kind,
              name);
  const bool taken = (own_registry != &parameters_ && parameters_.contains(name)) ||
                     (own_registry != &buffers_ && buffers_.contains(name)) ||
                     (own_registry != &children_ && children_.contains(name));
  EMBER_CHECK(!taken, "{}: cannot register {} '{}': the name is already used by another parameter, buffer or submodule",
              this->name(), kind, name);
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "parameter", &parameters_);
  if (tensor.defined()) {
    EMBER_CHECK_VALUE(autograd::is_leaf(tensor),
                      "{}: cannot register non-leaf Tensor as parameter '{}'. Model parameters must be created "
                      "explicitly; to express one as a function of another tensor, compute it in forward()",
                      this->name(), name);
    autograd::set_requires_grad(tensor, requires_grad);
  }
  if (Tensor* existing = parameters_.find(name)) return *existing = std::move(tensor);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_new_name(name, "buffer", &buffers_);
  if (persistent)
    non_persistent_buffers_.erase(name);
  else
    non_persistent_buffers_.insert(name);
  if (Tensor* existing = buffers_.find(name)) return *existing = std::move(tensor);
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::register_module_impl(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "submodule", &children_);
  EMBER_CHECK(module != nullptr, "{}: cannot register an empty (null) module as submodule '{}'", this->name(), name);
  if (auto* existing = children_.find(name)) {
    *existing = std::move(module);
    return;
  }
  children_.insert(std::move(name), std::move(module));
}

void Module::replace_module_impl(const std::string& name, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "{}: cannot replace submodule '{}' by an empty (null) module", this->name(), name);
  children_[name] = std::move(module);
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "{}: no submodule named '{}' to unregister", this->name(), name);
  children_.erase(name);
}

}  // namespace ember::nn
