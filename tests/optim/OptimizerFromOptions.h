#pragma once
// An optimizer built from Python's keyword arguments (for the recorded cases of the gtests and the
// ember_optim_state program of tests/python/test_cpp_optim_state.py). No gtest here: both use it.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/api/ember.h"

namespace ember::optim::testing {

/// An optimizer of the given kind ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad") whose options are Python's keyword
/// arguments in the dict `options` (set by key: OptimizerOptions::set), over params; with group1_lr a number,
/// two groups: params[0] alone and the rest with that lr.
inline std::unique_ptr<Optimizer> make_optimizer(const std::string& kind, const IValue& options,
                                                 const std::vector<Tensor>& params, const IValue& group1_lr) {
  std::unique_ptr<OptimizerOptions> defaults;
  if (kind == "SGD") defaults = std::make_unique<SGDOptions>(0.0);
  if (kind == "Adam") defaults = std::make_unique<AdamOptions>();
  if (kind == "AdamW") defaults = std::make_unique<AdamWOptions>();
  if (kind == "RMSprop") defaults = std::make_unique<RMSpropOptions>();
  if (kind == "Adagrad") defaults = std::make_unique<AdagradOptions>();
  if (!defaults) throw std::invalid_argument("make_optimizer: unknown optimizer " + kind);
  for (const auto& [k, v] : options.to_dict()) defaults->set(k.to_string(), v);
  std::vector<OptimizerParamGroup> groups;
  if (group1_lr.is_none()) {
    groups.emplace_back(params);
  } else {
    groups.emplace_back(std::vector<Tensor>{params[0]});
    auto second = defaults->clone();
    second->set_lr(group1_lr.to_double());
    groups.emplace_back(std::vector<Tensor>(params.begin() + 1, params.end()), std::move(second));
  }
  if (kind == "SGD") return std::make_unique<SGD>(groups, static_cast<SGDOptions&>(*defaults));
  if (kind == "Adam") return std::make_unique<Adam>(groups, static_cast<AdamOptions&>(*defaults));
  if (kind == "AdamW") return std::make_unique<AdamW>(groups, static_cast<AdamWOptions&>(*defaults));
  if (kind == "Adagrad") return std::make_unique<Adagrad>(groups, static_cast<AdagradOptions&>(*defaults));
  return std::make_unique<RMSprop>(groups, static_cast<RMSpropOptions&>(*defaults));
}

}  // namespace ember::optim::testing
