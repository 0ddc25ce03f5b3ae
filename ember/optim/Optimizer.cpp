#include "ember/optim/Optimizer.h"

#include <cxxabi.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <typeinfo>
#include <unordered_set>

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/optim/Update.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::optim {

namespace {

// Reads a field by key: the value of the first visited field named key, as an IValue.
class GetField : public OptionVisitor {
 public:
  explicit GetField(std::string_view key) : key_(key) {}
  void field(std::string_view key, double& v) override { take(key, IValue(v)); }
  void field(std::string_view key, bool& v) override { take(key, IValue(v)); }
  void field(std::string_view key, betas_t& v) override {
    if (key == key_) take(key, IValue::tuple({std::get<0>(v), std::get<1>(v)}));
  }
  void field(std::string_view key, std::optional<bool>& v) override { take(key, IValue(v)); }
  void field(std::string_view key, int64_t& v) override { take(key, IValue(v)); }
  void field(std::string_view key, std::optional<int64_t>& v) override { take(key, IValue(v)); }
  void field(std::string_view key, std::optional<std::string>& v) override { take(key, IValue(v)); }
  std::optional<IValue> value;

 private:
  void take(std::string_view key, IValue v) {
    if (key == key_ && !value) value = std::move(v);
  }
  std::string_view key_;
};

// Collects every field as (key, value).
class ItemsOf : public OptionVisitor {
 public:
  void field(std::string_view key, double& v) override { items.emplace_back(key, v); }
  void field(std::string_view key, bool& v) override { items.emplace_back(key, v); }
  void field(std::string_view key, betas_t& v) override {
    items.emplace_back(key, IValue::tuple({std::get<0>(v), std::get<1>(v)}));
  }
  void field(std::string_view key, std::optional<bool>& v) override { items.emplace_back(key, IValue(v)); }
  void field(std::string_view key, int64_t& v) override { items.emplace_back(key, IValue(v)); }
  void field(std::string_view key, std::optional<int64_t>& v) override { items.emplace_back(key, IValue(v)); }
  void field(std::string_view key, std::optional<std::string>& v) override { items.emplace_back(key, IValue(v)); }
  std::vector<std::pair<std::string, IValue>> items;
};

// Assigns the field named key from an IValue, checking its kind.
class SetField : public OptionVisitor {
 public:
  SetField(std::string_view key, const IValue& value) : key_(key), value_(value) {}
  void field(std::string_view key, double& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_int() || value_.is_double(), "optimizer option '{}' must be a number, not {}", key,
                value_.tag_name());
    v = value_.to_double();
  }
  void field(std::string_view key, bool& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_bool(), "optimizer option '{}' must be a bool, not {}", key, value_.tag_name());
    v = value_.to_bool();
  }
  void field(std::string_view key, betas_t& v) override {
    if (key != key_) return;
    found = true;
    bool ok = (value_.is_tuple() || value_.is_list()) && value_.to_list().size() == 2;
    EMBER_CHECK(ok, "optimizer option '{}' must be a pair of numbers, not {}", key, value_.repr());
    const auto& items = value_.to_list();
    EMBER_CHECK(items[0].is_scalar() && items[1].is_scalar() && !items[0].is_bool() && !items[1].is_bool(),
                "optimizer option '{}' must be a pair of numbers, not {}", key, value_.repr());
    v = {items[0].to_double(), items[1].to_double()};
  }
  void field(std::string_view key, std::optional<bool>& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_none() || value_.is_bool(), "optimizer option '{}' must be None or a bool, not {}",
                key, value_.tag_name());
    v = value_.is_none() ? std::nullopt : std::optional<bool>(value_.to_bool());
  }
  void field(std::string_view key, int64_t& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_int(), "optimizer option '{}' must be an int, not {}", key, value_.tag_name());
    v = value_.to_int();
  }
  void field(std::string_view key, std::optional<int64_t>& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_none() || value_.is_int(), "optimizer option '{}' must be None or an int, not {}", key,
                value_.tag_name());
    v = value_.is_none() ? std::nullopt : std::optional<int64_t>(value_.to_int());
  }
  void field(std::string_view key, std::optional<std::string>& v) override {
    if (key != key_) return;
    found = true;
    EMBER_CHECK(value_.is_none() || value_.is_string(), "optimizer option '{}' must be None or a str, not {}",
                key, value_.tag_name());
    v = value_.is_none() ? std::nullopt : std::optional<std::string>(value_.to_string());
  }
  bool found = false;

 private:
  std::string_view key_;
  const IValue& value_;
};

// The list of parameter indices of a saved group ("params": a list of ints).
std::vector<int64_t> int_list(const IValue& v, std::string_view what) {
  if (v.is_int_list()) {
    auto r = v.to_int_list();
    return {r.begin(), r.end()};
  }
  EMBER_CHECK(v.is_list() || v.is_tuple(), "load_state_dict: {} must be a list of ints, not {}", what,
              v.tag_name());
  std::vector<int64_t> out;
  for (const IValue& x : v.to_list()) {
    EMBER_CHECK(x.is_int(), "load_state_dict: {} must be a list of ints, not a list holding {}", what,
                x.tag_name());
    out.push_back(x.to_int());
  }
  return out;
}

const std::vector<std::pair<IValue, IValue>>& dict_of(const IValue& v, std::string_view what) {
  EMBER_CHECK(v.tag() == IValue::Tag::Dict, "load_state_dict: {} must be a dict, not {}", what, v.tag_name());
  return v.to_dict();
}

const IValue& required_entry(const std::vector<std::pair<IValue, IValue>>& entries, std::string_view key,
                             std::string_view what) {
  const IValue* v = find_entry(entries, key);
  EMBER_CHECK(v != nullptr, "load_state_dict: {} has no entry '{}'", what, key);
  return *v;
}

// A state value as load_state_dict keeps it: tensors copied (Python deep-copies the whole state dict), and
// converted to the parameter's dtype when both are floating, except the step count.
// Lists and tuples are converted element by element, as Python's _cast_state (LBFGS keeps lists of tensors).
IValue cast_state_value(const IValue& value, const Tensor& param, bool is_step) {
  if (value.is_tensor()) {
    Tensor t = value.to_tensor().clone();
    if (!is_step && param.is_floating_point() && t.is_floating_point() && t.dtype() != param.dtype())
      t = t.to(param.dtype());
    return t;
  }
  if (value.is_tensor_list()) {
    std::vector<IValue> items;
    for (const Tensor& t : value.to_tensor_list()) items.push_back(cast_state_value(IValue(t), param, is_step));
    return IValue::list(std::move(items));
  }
  if (value.is_list() || value.is_tuple()) {
    std::vector<IValue> items;
    for (const IValue& v : value.to_list()) items.push_back(cast_state_value(v, param, is_step));
    return value.is_tuple() ? IValue::tuple(std::move(items)) : IValue::list(std::move(items));
  }
  return value;
}

// The optimizer's class name without namespaces ("SGD"), for messages.
std::string type_name(const Optimizer& optimizer) {
  const char* mangled = typeid(optimizer).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 && demangled ? demangled.get() : mangled;
  const size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

// Note [loading another optimizer's state]
// A state dict does not name the optimizer that wrote it, and PyTorch loads Adam's state into SGD without a
// word, failing only at step() (a missing option or state entry). Ember checks at load time, in C++ and in
// Python (python/ember/optim/optimizer.py) alike: a saved parameter group that both lacks some of this
// optimizer's options and has options of another optimizer comes from another optimizer type (a group
// that only lacks options, as a hand-written one may, still loads with this optimizer's values for them), and
// every per-parameter state tensor but "step" must have its parameter's shape (unless the optimizer says an
// entry is not shaped so: state_has_param_shape(), Python's _state_has_param_shape(); ASGD's eta and mu and
// NAdam's mu_product are 0-dim, LBFGS's state is global). Only the option names of the
// optimizers Ember has count as foreign: a group may also hold extras of any name (a scheduler's initial_lr).
constexpr std::string_view kKnownOptionNames[] = {
    "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable", "betas",
    "eps", "amsgrad", "capturable", "fused", "alpha", "centered", "lr_decay", "initial_accumulator_value", "rho",
    "momentum_decay", "lambd", "t0", "etas", "step_sizes", "max_iter", "max_eval", "tolerance_grad",
    "tolerance_change", "history_size", "line_search_fn"};

// (an option only that optimizer has, its name), most specific first: the same list as Python's
// _TELLTALE_OPTIONS.
constexpr std::pair<std::string_view, std::string_view> kTelltaleOptions[] = {
    {"max_iter", "LBFGS"}, {"lr_decay", "Adagrad"}, {"rho", "Adadelta"}, {"momentum_decay", "NAdam"},
    {"lambd", "ASGD"},     {"etas", "Rprop"},       {"alpha", "RMSprop"}, {"betas", "Adam or AdamW"},
    {"nesterov", "SGD"},   {"dampening", "SGD"}};

std::string guess_optimizer(const std::vector<std::string>& foreign_keys) {
  for (const auto& [key, name] : kTelltaleOptions)
    if (std::find(foreign_keys.begin(), foreign_keys.end(), key) != foreign_keys.end()) return std::string(name);
  return "another optimizer";
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::vector<std::string> q;
  for (const auto& k : keys) q.push_back("'" + k + "'");
  return fmt::format("{}", fmt::join(q, ", "));
}

void check_group_options(const Optimizer& optimizer, const OptimizerOptions& own,
                         const std::vector<std::pair<IValue, IValue>>& saved, size_t group_index) {
  std::vector<std::string> own_keys, saved_keys, foreign, missing;
  for (const auto& [k, v] : own.items()) own_keys.push_back(k);
  for (const auto& [k, v] : saved)
    if (k.is_string() && k.to_string() != "params") saved_keys.push_back(k.to_string());
  for (const auto& k : saved_keys)
    if (std::find(own_keys.begin(), own_keys.end(), k) == own_keys.end() &&
        std::find(std::begin(kKnownOptionNames), std::end(kKnownOptionNames), k) != std::end(kKnownOptionNames))
      foreign.push_back(k);
  for (const auto& k : own_keys)
    if (std::find(saved_keys.begin(), saved_keys.end(), k) == saved_keys.end()) missing.push_back(k);
  if (foreign.empty() || missing.empty()) return;
  const std::string name = type_name(optimizer);
  EMBER_FAIL_KIND(ErrorKind::Value,
                  "load_state_dict: the state dict is not the state of a {0} optimizer (it looks like the state of "
                  "{1}): parameter group {2} has options {3} that {0} does not have and lacks {0}'s options {4}",
                  name, guess_optimizer(foreign), group_index, quoted_list(foreign), quoted_list(missing));
}

}  // namespace

bool OptimizerOptions::has(std::string_view key) const {
  GetField g(key);
  const_cast<OptimizerOptions*>(this)->visit(g);  // the visitor only reads
  return g.value.has_value();
}

IValue OptimizerOptions::get(std::string_view key) const {
  GetField g(key);
  const_cast<OptimizerOptions*>(this)->visit(g);  // the visitor only reads
  EMBER_CHECK(g.value.has_value(), "optimizer options have no option '{}'", key);
  return *g.value;
}

void OptimizerOptions::set(std::string_view key, const IValue& value) {
  SetField s(key, value);
  visit(s);
  EMBER_CHECK(s.found, "optimizer options have no option '{}'", key);
}

std::vector<std::pair<std::string, IValue>> OptimizerOptions::items() const {
  ItemsOf items;
  const_cast<OptimizerOptions*>(this)->visit(items);  // the visitor only reads
  return std::move(items.items);
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr),
      extras_(other.extras_) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) *this = OptimizerParamGroup(other);
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr, "OptimizerParamGroup: the group has no options (it has not been added to "
                                   "an optimizer)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup*>(this)->options();
}

bool OptimizerParamGroup::contains(std::string_view key) const {
  if (options_ && options_->has(key)) return true;
  for (const auto& [k, v] : extras_)
    if (k == key) return true;
  return false;
}

IValue OptimizerParamGroup::get(std::string_view key) const {
  if (options_ && options_->has(key)) return options_->get(key);
  for (const auto& [k, v] : extras_)
    if (k == key) return v;
  EMBER_FAIL("OptimizerParamGroup: the group has no entry '{}'", key);
}

void OptimizerParamGroup::set(std::string_view key, IValue value) {
  if (options_ && options_->has(key)) {
    options_->set(key, value);
    return;
  }
  for (auto& [k, v] : extras_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  extras_.emplace_back(std::string(key), std::move(value));
}

const IValue* find_entry(const std::vector<std::pair<IValue, IValue>>& entries, std::string_view key) {
  for (const auto& [k, v] : entries)
    if (k.is_string() && k.to_string() == key) return &v;
  return nullptr;
}

Tensor tensor_entry(const std::vector<std::pair<IValue, IValue>>& entries, std::string_view key,
                    std::string_view what) {
  const IValue& v = required_entry(entries, key, what);
  EMBER_CHECK(v.is_tensor(), "load_state_dict: {} entry '{}' must be a tensor, not {}", what, key, v.tag_name());
  return v.to_tensor();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  defaults_->validate();
  EMBER_CHECK_VALUE(!param_groups.empty(), "optimizer got an empty parameter list");
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  defaults_->validate();
  EMBER_CHECK_VALUE(!params.empty(), "optimizer got an empty parameter list");
  add_param_group(OptimizerParamGroup(std::move(params)));
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::unordered_set<const void*> taken;
  for (const auto& group : param_groups_)
    for (const Tensor& p : group.params()) taken.insert(p.impl());
  for (const Tensor& p : param_group.params()) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer can only optimize Tensors, but one of the params is undefined");
    EMBER_CHECK_VALUE(autograd::is_leaf(p) || autograd::retains_grad(p), "can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(!taken.contains(p.impl()), "some parameters appear in more than one parameter group");
  }
  OptimizerParamGroup group(param_group);
  if (!group.has_options()) group.set_options(defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!param_groups_.empty(), "add_parameters: the optimizer has no parameter group");
  std::unordered_set<const void*> taken;
  for (const auto& group : param_groups_)
    for (const Tensor& p : group.params()) taken.insert(p.impl());
  for (const Tensor& p : parameters) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer can only optimize Tensors, but one of the params is undefined");
    EMBER_CHECK_VALUE(autograd::is_leaf(p) || autograd::retains_grad(p), "can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(!taken.contains(p.impl()), "some parameters appear in more than one parameter group");
  }
  auto& params = param_groups_.front().params();
  params.insert(params.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_) {
    for (const Tensor& p : group.params()) {
      Tensor grad = autograd::grad(p);
      if (!grad.defined()) continue;
      if (set_to_none) {
        autograd::set_grad(p, Tensor());
        continue;
      }
      // The gradient leaves any graph (a create_graph=True backward) before it is reused.
      if (autograd::grad_fn(grad))
        autograd::detach_(grad);
      else
        autograd::set_requires_grad(grad, false);
      grad.zero_();
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const {
  EMBER_CHECK(!param_groups_.empty(), "parameters: the optimizer has no parameter group");
  return param_groups_.front().params();
}

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

OptimizerParamState* Optimizer::state(const Tensor& p) {
  auto it = state_index_.find(p.impl());
  return it == state_index_.end() ? nullptr : state_[it->second].second.get();
}

const OptimizerParamState* Optimizer::state(const Tensor& p) const {
  return const_cast<Optimizer*>(this)->state(p);
}

void Optimizer::insert_state(const Tensor& p, std::unique_ptr<OptimizerParamState> s) {
  state_index_[p.impl()] = state_.size();
  state_.emplace_back(p, std::move(s));
}

Tensor Optimizer::evaluate(const LossClosure& closure) {
  if (!closure) return Tensor();
  autograd::AutoGradMode enable(true);
  return closure();
}

IValue Optimizer::state_dict() const {
  // Note [state dict numbering]
  // Parameters are numbered through the groups in order. A parameter seen in an earlier group keeps its
  // number; one listed twice in a group takes its later position (Python's and PyTorch 1.13's numbering).
  std::unordered_map<const void*, int64_t> index_of;
  std::vector<IValue> groups;
  int64_t start = 0;
  for (const auto& group : param_groups_) {
    std::unordered_map<const void*, int64_t> local;
    for (size_t i = 0; i < group.params().size(); ++i) local[group.params()[i].impl()] = start + int64_t(i);
    for (const auto& [impl, i] : local) index_of.emplace(impl, i);
    std::vector<std::pair<IValue, IValue>> packed;
    for (auto& [k, v] : group.options().items()) packed.emplace_back(k, std::move(v));
    for (const auto& [k, v] : group.extras()) packed.emplace_back(k, v);
    std::vector<IValue> indices;
    for (const Tensor& p : group.params()) indices.emplace_back(index_of.at(p.impl()));
    packed.emplace_back("params", IValue::list(std::move(indices)));
    groups.push_back(IValue::dict(std::move(packed)));
    start += int64_t(group.params().size());
  }
  std::vector<std::pair<IValue, IValue>> state;
  for (const auto& [p, s] : state_) {
    std::vector<std::pair<IValue, IValue>> entries;
    for (auto& [k, v] : s->items()) entries.emplace_back(k, std::move(v));
    state.emplace_back(index_of.at(p.impl()), IValue::dict(std::move(entries)));
  }
  return IValue::dict({{"state", IValue::dict(std::move(state))}, {"param_groups", IValue::list(std::move(groups))}});
}

void Optimizer::load_state_dict(const IValue& state_dict) {
  const auto& root = dict_of(state_dict, "the state dict");
  const IValue& saved_groups_value = required_entry(root, "param_groups", "the state dict");
  EMBER_CHECK(saved_groups_value.is_list() || saved_groups_value.is_tuple(),
              "load_state_dict: 'param_groups' must be a list, not {}", saved_groups_value.tag_name());
  const auto& saved_groups = saved_groups_value.to_list();
  EMBER_CHECK_VALUE(saved_groups.size() == param_groups_.size(),
                    "loaded state dict has a different number of parameter groups");
  // Everything is read into new groups and state first, so a failure leaves the optimizer as it was.
  std::vector<OptimizerParamGroup> groups;
  std::unordered_map<int64_t, Tensor> param_of;
  std::unordered_map<int64_t, std::pair<size_t, size_t>> position_of;  // saved index -> (group, position)
  for (size_t g = 0; g < saved_groups.size(); ++g) {
    const auto& saved = dict_of(saved_groups[g], "a parameter group");
    auto indices = int_list(required_entry(saved, "params", "a parameter group"), "a group's 'params'");
    const auto& params = param_groups_[g].params();
    EMBER_CHECK_VALUE(indices.size() == params.size(),
                      "loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                      "group");
    check_group_options(*this, param_groups_[g].options(), saved, g);
    for (size_t i = 0; i < indices.size(); ++i) {
      param_of.emplace(indices[i], params[i]);
      position_of.emplace(indices[i], std::make_pair(g, i));
    }
    OptimizerParamGroup group(params, param_groups_[g].options().clone());
    for (const auto& [key, value] : saved) {
      EMBER_CHECK(key.is_string(), "load_state_dict: a parameter group's keys must be strings, not {}",
                  key.tag_name());
      if (key.to_string() != "params") group.set(key.to_string(), value);
    }
    groups.push_back(std::move(group));
  }
  const auto& saved_state = dict_of(required_entry(root, "state", "the state dict"), "'state'");
  std::vector<std::pair<Tensor, std::unique_ptr<OptimizerParamState>>> state;
  for (const auto& [key, value] : saved_state) {
    // State that belongs to no parameter of the saved groups has nothing to attach to here and is dropped.
    auto it = key.is_int() ? param_of.find(key.to_int()) : param_of.end();
    if (it == param_of.end()) continue;
    const Tensor& param = it->second;
    std::vector<std::pair<IValue, IValue>> entries;
    for (const auto& [k, v] : dict_of(value, "a parameter's state")) {
      const bool is_step = k.is_string() && k.to_string() == "step";
      // See Note [loading another optimizer's state].
      if (!is_step && v.is_tensor() && state_has_param_shape(k.is_string() ? k.to_string() : std::string()) &&
          !v.to_tensor().sizes().equals(param.sizes())) {
        const auto [g, i] = position_of.at(key.to_int());
        EMBER_FAIL_KIND(ErrorKind::Value,
                        "load_state_dict: the state '{}' of parameter {} in group {} has shape [{}] but the "
                        "parameter has shape [{}]",
                        k.is_string() ? k.to_string() : std::string("?"), i, g,
                        fmt::join(v.to_tensor().sizes(), ", "), fmt::join(param.sizes(), ", "));
      }
      entries.emplace_back(k, cast_state_value(v, param, is_step));
    }
    state.emplace_back(param, state_from_dict(entries, param));
  }
  param_groups_ = std::move(groups);
  state_.clear();
  state_index_.clear();
  for (auto& [p, s] : state) insert_state(p, std::move(s));
}

namespace detail {

std::string py_float(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "n": nan and inf need no ".0"
  return s;
}

void check_option(bool ok, const std::string& message) {
  if (!ok) EMBER_FAIL_KIND(ErrorKind::Value, "{}", message);
}

void reject_unsupported(bool capturable, bool differentiable) {
  EMBER_CHECK(!capturable, "capturable=True needs CUDA graph capture, which Ember does not have");
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !differentiable,
                   "differentiable=True (gradients through the optimizer step) is not supported by Ember's "
                   "optimizers");
}

}  // namespace detail

}  // namespace ember::optim

namespace ember {

void save(const optim::Optimizer& optimizer, const std::string& path) {
  serialize::save(optimizer.state_dict(), path);
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  optimizer.load_state_dict(serialize::load(path));
}

}  // namespace ember
