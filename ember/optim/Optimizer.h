#pragma once
// The base of the C++ optimizers (LibTorch's torch::optim::Optimizer): parameter groups with their own
// options, per-parameter state, zero_grad, and state dicts in exactly the structure of Python's
// ember.optim.Optimizer.state_dict(), so ember::save / ember::load files cross between C++ and Python.
//
//   ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//   ember::save(opt, "opt.ember");   // loads in Python: optimizer.load_state_dict(ember.load("opt.ember"))
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/dispatch/IValue.h"

/// Declares an option `name` of type T with a chainable setter `name(value)` returning *this and a getter
/// `name()` (LibTorch's TORCH_ARG), stored in the member `name##_`.
#define EMBER_OPTIM_ARG(T, name)                   \
 public:                                            \
  auto name(const T& new_##name)->decltype(*this) { \
    this->name##_ = new_##name;                     \
    return *this;                                   \
  }                                                 \
  const T& name() const noexcept { return this->name##_; } \
                                                    \
 private:                                           \
  T name##_

namespace ember::optim {

/// Adam's (beta1, beta2).
using betas_t = std::tuple<double, double>;

/// Visits each option of an OptimizerOptions by its Python key (Note [option fields]).
class OptionVisitor {
 public:
  virtual ~OptionVisitor() = default;
  virtual void field(std::string_view key, double& value) = 0;
  virtual void field(std::string_view key, bool& value) = 0;
  virtual void field(std::string_view key, betas_t& value) = 0;
  /// An option that may be None in Python (foreach).
  virtual void field(std::string_view key, std::optional<bool>& value) = 0;
  /// An integer option (LBFGS's max_iter, history_size): an int in Python's state dict.
  virtual void field(std::string_view key, int64_t& value) = 0;
  /// An integer option that may be None (LBFGS's max_eval before it is resolved).
  virtual void field(std::string_view key, std::optional<int64_t>& value) = 0;
  /// A string option that may be None (LBFGS's line_search_fn).
  virtual void field(std::string_view key, std::optional<std::string>& value) = 0;
};

/// The options of an optimizer, a parameter group's copy of them, and the defaults a new group starts from.
///
/// Note [option fields]
/// Each options struct lists its fields once, in visit(), under the key and in the order Python's
/// ember.optim (PyTorch 1.13) gives them in a parameter group. Everything that handles options by name is
/// built on that list: state_dict() writes a group's options as Python's dict, load_state_dict() reads them
/// back, and the schedulers read and write "lr", "momentum" and "betas" through get()/set() as Python's
/// schedulers index group dicts. Numbers are stored as doubles; a Python state dict may hold an int (PyTorch's
/// default momentum=0), which loads as the same number.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  /// The learning rate (every optimizer has one).
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  /// Calls visitor.field(key, member) for each option in Python's key order (Note [option fields]).
  virtual void visit(OptionVisitor& visitor) = 0;
  /// Raises ValueError (PyTorch's message) for an invalid value, e.g. "Invalid learning rate: -0.1".
  virtual void validate() const {}

  /// Whether the options have a field named key.
  bool has(std::string_view key) const;
  /// The option named key as an IValue (double, bool, tuple of two doubles or None). Errors: no such option.
  IValue get(std::string_view key) const;
  /// Sets the option named key from an IValue of the matching kind (an int is accepted for a double).
  /// Errors: no such option; a value of another kind (naming the key and both kinds).
  void set(std::string_view key, const IValue& value);
  /// (key, value) for every option in Python's order: a group's entries of a state dict.
  std::vector<std::pair<std::string, IValue>> items() const;
};

/// CRTP helper giving an options struct its clone().
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// The state an optimizer keeps for one parameter (momentum buffers, running averages, step counts).
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  /// (key, value) in the order and with the value kinds of Python's per-parameter state dict.
  virtual std::vector<std::pair<std::string, IValue>> items() const = 0;
};

/// A parameter group: its parameters and its own copy of the options, plus the entries of the group that are
/// not options (Note [group extras]).
///
/// Note [group extras]
/// Python's parameter groups are dicts, and the schedulers add keys to them: "initial_lr" (every epoch-based
/// scheduler), "max_lr", "min_lr", "max_momentum", "base_momentum" (OneCycleLR). A group keeps such entries
/// in `extras` (in insertion order), so the C++ schedulers use them exactly as Python's do, and a state dict
/// saved from Python with them loads and saves back with the same keys.
class OptimizerParamGroup {
 public:
  /// A group that takes the optimizer's default options when added (add_param_group).
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: implicit as LibTorch
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) noexcept = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) noexcept = default;

  bool has_options() const { return options_ != nullptr; }
  /// The group's options. Errors: a group without options (not yet added to an optimizer).
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

  /// Whether the group has an entry named key (an option or an extra).
  bool contains(std::string_view key) const;
  /// The entry named key, option or extra (Python's group[key]). Errors: no such entry (KeyError-like
  /// RuntimeError naming the key).
  IValue get(std::string_view key) const;
  /// Sets an option, or adds/replaces an extra entry when the options have no such field.
  void set(std::string_view key, IValue value);
  /// The entries that are not options, in insertion order (Note [group extras]).
  const std::vector<std::pair<std::string, IValue>>& extras() const { return extras_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
  std::vector<std::pair<std::string, IValue>> extras_;
};

/// The base class of the optimizers (LibTorch's torch::optim::Optimizer).
///
/// Parameters are numbered through the groups in order; state dicts refer to them by that number, so an
/// optimizer loads a state dict of another one over parameters of the same shapes, grouped the same way.
class Optimizer {
 public:
  /// A function that re-evaluates the model and returns the loss (step() runs it with grad mode on).
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  virtual ~Optimizer() = default;

  /// Adds a group; options it lacks are the optimizer's defaults. Errors (ValueError, PyTorch's messages):
  /// an undefined tensor; a non-leaf tensor ("can't optimize a non-leaf Tensor"); a parameter already in
  /// another group ("some parameters appear in more than one parameter group"); invalid options.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Adds parameters to the first group (LibTorch's add_parameters).
  void add_parameters(const std::vector<Tensor>& parameters);

  /// One update of every parameter that has a gradient (one without is skipped). closure, when given, is
  /// evaluated first with grad mode on; its loss is returned (an undefined Tensor without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  /// Resets the gradients: zeros them in place (detached from any graph), or with set_to_none undefines
  /// them. The default is PyTorch 1.13's (Python's zero_grad(set_to_none=False) and LibTorch's zero_grad()):
  /// zeros. A zero gradient still takes part in step(), an undefined one does not.
  void zero_grad(bool set_to_none = false);

  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// The parameters of the first group.
  const std::vector<Tensor>& parameters() const;
  /// The number of parameters in all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }

  /// The state of parameter p, or null when p has taken no step (or is not optimized here).
  OptimizerParamState* state(const Tensor& p);
  const OptimizerParamState* state(const Tensor& p) const;
  /// The number of parameters with state.
  size_t state_size() const noexcept { return state_.size(); }

  /// The optimizer's state as Python's ember.optim Optimizer.state_dict() gives it:
  ///   {"state": {index: {<state entries>}}, "param_groups": [{<options>, <extras>, "params": [indices]}]}
  /// with the state tensors themselves (not copies), in the order parameters first took a step.
  IValue state_dict() const;
  /// Loads a state dict made by state_dict() here or in Python: the groups' options and extras are replaced
  /// and the state tensors copied (floating ones converted to the dtype of their parameter, except a step
  /// count). Errors (ValueError): a different number of groups ("loaded state dict has a different number of
  /// parameter groups"), a group of another size ("loaded state dict contains a parameter group that doesn't
  /// match the size of optimizer's group"); a malformed dict, missing state entries or an option of the wrong
  /// kind (RuntimeError naming the entry). On error the optimizer is left unchanged.
  void load_state_dict(const IValue& state_dict);

 protected:
  /// Validates defaults (ValueError as PyTorch's constructors) and adds the groups. Errors: no groups
  /// ("optimizer got an empty parameter list").
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  /// One group of params with the defaults. Errors: invalid defaults; an empty list ("optimizer got an empty
  /// parameter list", ValueError as PyTorch's).
  Optimizer(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> defaults);

  /// The state of p, created by make() on its first step (in the order Python's defaultdict creates it).
  template <class State, class Make>
  State& state_or_init(const Tensor& p, Make&& make) {
    if (auto* s = state(p)) return static_cast<State&>(*s);
    auto created = std::make_unique<State>(make());
    State& ref = *created;
    insert_state(p, std::move(created));
    return ref;
  }
  /// Whether the per-parameter state entry `key` (other than "step") has its parameter's shape, which
  /// load_state_dict() checks (Note [loading another optimizer's state]). LBFGS's state is global (flat
  /// vectors and lists kept on the first parameter): it says false.
  virtual bool state_has_param_shape(std::string_view /*key*/) const { return true; }
  /// Builds the state of parameter `param` from a dict of Python's per-parameter state (its entries already
  /// converted as load_state_dict() says). Errors: a missing or malformed entry (naming it).
  virtual std::unique_ptr<OptimizerParamState> state_from_dict(
      const std::vector<std::pair<IValue, IValue>>& entries, const Tensor& param) const = 0;
  /// Runs closure with grad mode on (an undefined Tensor without a closure).
  static Tensor evaluate(const LossClosure& closure);

 private:
  void insert_state(const Tensor& p, std::unique_ptr<OptimizerParamState> s);

  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<OptimizerParamGroup> param_groups_;
  // Per-parameter state in the order it was created, and the position of each parameter's entry.
  std::vector<std::pair<Tensor, std::unique_ptr<OptimizerParamState>>> state_;
  std::unordered_map<const void*, size_t> state_index_;
};

/// Looks key up in the entries of a state dict (Python's dict[key]); null when absent.
const IValue* find_entry(const std::vector<std::pair<IValue, IValue>>& entries, std::string_view key);
/// The tensor entry key of a per-parameter state. Errors: missing or not a tensor (RuntimeError naming the
/// key and `what`, e.g. "Adam state").
Tensor tensor_entry(const std::vector<std::pair<IValue, IValue>>& entries, std::string_view key,
                    std::string_view what);

namespace detail {
/// x as Python's repr(float) writes it ("0.1", "-1.0", "1e-05", "inf"): optimizers' error messages quote
/// their options as PyTorch's do.
std::string py_float(double x);
/// Raises ValueError(message) unless ok: the option checks of the constructors.
void check_option(bool ok, const std::string& message);
}  // namespace detail

}  // namespace ember::optim

namespace ember {

/// Writes optimizer.state_dict() to path in the file format of Python's ember.save (LibTorch's
/// torch::save(optimizer, path)). Errors: as ember::serialize::save.
void save(const optim::Optimizer& optimizer, const std::string& path);
/// Loads a state dict saved by ember::save or Python's ember.save(optimizer.state_dict(), path) into
/// optimizer (LibTorch's torch::load(optimizer, path)). Errors: as ember::serialize::load and
/// Optimizer::load_state_dict.
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
