#pragma once
// ParameterList and ParameterDict (LibTorch's torch::nn::ParameterList / ParameterDict; Python's ember.nn of the
// same names): modules that only hold parameters, registered under their positions ("0", "1", ...) or their
// keys, so that state dicts and named_parameters() name them as Python's do.
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/OrderedDict.h"

namespace ember::nn {

/// A list of parameters named "0", "1", ... by position. As LibTorch's, append() registers the tensor itself
/// (shared, not copied) and keeps its requires_grad (a plain tensor does not require grad; Python's
/// ParameterList makes it a Parameter that does). Prints as Python's: "ParameterList(\n    (0): Parameter
/// containing: [ember.float32 of size 2x3]\n)". Errors: an index out of range (IndexError); a non-leaf tensor.
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  ParameterListImpl() = default;
  /// The given tensors, in order.
  template <typename... Tensors>
    requires(sizeof...(Tensors) > 0 && (std::convertible_to<Tensors, Tensor> && ...))
  explicit ParameterListImpl(Tensors&&... params) {
    (append(std::forward<Tensors>(params)), ...);
  }

  /// Registers copies of the parameters anew (clone() calls it; see Note [clone]).
  void reset() override;
  /// Appends param under the name str(size()).
  void append(const Tensor& param);
  /// Appends the value of a named parameter (an item of named_parameters()).
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  /// Appends every tensor (or named-parameter item) of container, in order.
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& param : container) append(param);
  }
  /// Appends the parameters of other (shared).
  ParameterListImpl& operator+=(const ParameterListImpl& other) {
    extend(other);
    return *this;
  }

  /// The parameter at idx. Errors: idx >= size() (IndexError).
  const Tensor& at(size_t idx) const;
  const Tensor& operator[](size_t idx) const { return at(idx); }
  size_t size() const noexcept { return params_.size(); }
  bool is_empty() const noexcept { return params_.empty(); }
  std::vector<Tensor>::const_iterator begin() const { return params_.begin(); }
  std::vector<Tensor>::const_iterator end() const { return params_.end(); }

  void pretty_print(std::ostream& stream) const override;

 private:
  std::vector<Tensor> params_;  // the registered handles, in order
};
EMBER_MODULE(ParameterList);

/// An ordered dict of parameters registered under their keys (the state dict's names). As LibTorch's, insert()
/// registers the tensor itself and keeps its requires_grad; inserting an existing key replaces its value in
/// place. Prints as Python's: "ParameterDict(\n    (a): Parameter containing: [ember.FloatTensor of size 2x3]\n)".
/// Errors: a key that is empty or contains '.' (as any parameter name); get()/[] of a missing key (IndexError).
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  ParameterDictImpl() = default;
  /// The items of params, in order.
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params);

  /// Registers copies of the parameters anew (clone() calls it; see Note [clone]).
  void reset() override;
  /// Registers param under key (replacing the value of an existing key); returns the stored handle.
  const Tensor& insert(const std::string& key, const Tensor& param);
  /// Inserts every (key, tensor) item of container (an OrderedDict or a std::vector of pairs), in order.
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) {
      if constexpr (requires { item.key(); }) {
        insert(item.key(), item.value());
      } else {
        insert(item.first, item.second);
      }
    }
  }

  bool contains(const std::string& key) const noexcept { return params_.contains(key); }
  /// The parameter of key. Errors: a missing key (IndexError, naming it).
  const Tensor& get(const std::string& key) const;
  const Tensor& operator[](const std::string& key) const { return get(key); }
  size_t size() const noexcept { return params_.size(); }
  bool empty() const noexcept { return params_.is_empty(); }
  /// The keys and the parameters, in insertion order.
  std::vector<std::string> keys() const { return params_.keys(); }
  std::vector<Tensor> values() const { return params_.values(); }
  OrderedDict<std::string, Tensor>::ConstIterator begin() const { return params_.begin(); }
  OrderedDict<std::string, Tensor>::ConstIterator end() const { return params_.end(); }

  void pretty_print(std::ostream& stream) const override;

 private:
  OrderedDict<std::string, Tensor> params_{"Parameter"};  // the registered handles, in order
};
EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
