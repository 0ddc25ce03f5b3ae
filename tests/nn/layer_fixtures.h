#pragma once
// The recorded PyTorch 1.13 values of the layer tests (fixtures/layers.ember, written by
// fixtures/make_layer_fixtures.py) and a tolerance comparison of tensors.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "TestSupport.h"
#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::testing {

/// The tensor recorded under `name` (the archive is read once per process).
inline Tensor fixture(const std::string& name) {
  static const std::map<std::string, Tensor> all = [] {
    std::map<std::string, Tensor> m;
    const IValue root = serialize::load(std::string(EMBER_TEST_FIXTURES) + "/layers.ember");
    for (const auto& [key, value] : root.to_dict()) m.emplace(key.to_string(), value.to_tensor());
    return m;
  }();
  auto it = all.find(name);
  if (it == all.end()) {
    ADD_FAILURE() << "no fixture named " << name;
    return Tensor();
  }
  return it->second;
}

/// A copy of fixture(name) that requires grad (a leaf of its own graph).
inline Tensor fixture_leaf(const std::string& name) {
  Tensor t = fixture(name).clone();
  autograd::set_requires_grad(t, true);
  return t;
}

/// Same dtype, same shape, and every element within atol + rtol * |expected| (NaNs equal).
inline ::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, double rtol = 1e-5,
                                        double atol = 1e-6) {
  if (!actual.defined() || !expected.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << " != " << expected.dtype();
  }
  if (!actual.sizes().equals(expected.sizes())) {
    return ::testing::AssertionFailure() << "shape [" << fmt::format("{}", fmt::join(actual.sizes(), ", "))
                                         << "] != [" << fmt::format("{}", fmt::join(expected.sizes(), ", "))
                                         << "]";
  }
  const auto a = values<double>(actual.detach().to(kFloat64));
  const auto e = values<double>(expected.to(kFloat64));
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    if (!both_nan && !(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " != " << e[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::testing
