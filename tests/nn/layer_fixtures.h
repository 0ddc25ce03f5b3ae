#pragma once
// The recorded PyTorch 1.13 values of the layer tests (fixtures/layers.ember, written by
// fixtures/make_layer_fixtures.py, and the other archives of fixtures/), a tolerance comparison of tensors, and
// the printing of a module.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "TestSupport.h"
#include "ember/autograd/autograd.h"
#include "ember/nn/Module.h"
#include "ember/ops/Functions.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::testing {

/// Every tensor recorded in fixtures/<file> by name (each archive is read once per process).
inline const std::map<std::string, Tensor>& fixture_archive(const std::string& file) {
  static std::map<std::string, std::map<std::string, Tensor>> archives;
  auto [entry, added] = archives.try_emplace(file);
  if (added) {
    const IValue root = serialize::load(std::string(EMBER_TEST_FIXTURES) + "/" + file);
    for (const auto& [key, value] : root.to_dict()) entry->second.emplace(key.to_string(), value.to_tensor());
  }
  return entry->second;
}

/// Whether fixtures/<file> records a tensor under `name`.
inline bool fixture_has(const std::string& file, const std::string& name) {
  return fixture_archive(file).count(name) != 0;
}

/// The tensor recorded under `name` in fixtures/<file>.
inline Tensor fixture_from(const std::string& file, const std::string& name) {
  const auto& all = fixture_archive(file);
  auto it = all.find(name);
  if (it == all.end()) {
    ADD_FAILURE() << "no fixture named " << name << " in " << file;
    return Tensor();
  }
  return it->second;
}

/// The text recorded under `name` in fixtures/<file> as the uint8 tensor of its UTF-8 bytes (a repr, a list of
/// keys).
inline std::string fixture_text(const std::string& file, const std::string& name) {
  const Tensor t = fixture_from(file, name);
  if (!t.defined()) return {};
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const char*>(c.data_ptr());
  return std::string(p, p + c.numel());
}

/// Python's repr recorded under name + ".repr" in fixtures/<file>.
inline std::string fixture_repr_from(const std::string& file, const std::string& name) {
  return fixture_text(file, name + ".repr");
}

/// The tensor recorded under `name` in fixtures/layers.ember.
inline Tensor fixture(const std::string& name) { return fixture_from("layers.ember", name); }

/// What `stream << module` prints (Python's repr of the same module).
inline std::string module_repr(const nn::Module& module) {
  std::ostringstream s;
  s << module;
  return s.str();
}

/// A copy of fixture_from(file, name) that requires grad (a leaf of its own graph).
inline Tensor fixture_leaf_from(const std::string& file, const std::string& name) {
  Tensor t = fixture_from(file, name).clone();
  autograd::set_requires_grad(t, true);
  return t;
}

/// A copy of fixture(name) that requires grad (a leaf of its own graph).
inline Tensor fixture_leaf(const std::string& name) { return fixture_leaf_from("layers.ember", name); }

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

/// Checks module m against what a fixtures/make_*_fixtures.py recorded for `name` in `file` with its put_module:
/// every parameter equal to "<name>.param.<key>" (the seeded initial values), the state dict keys in order equal
/// to "<name>.keys" (one per line), and the printed module equal to Python's repr ("<name>.repr").
inline void expect_module_matches(const std::string& file, const std::string& name, const nn::Module& m) {
  SCOPED_TRACE(name);
  for (const auto& p : m.named_parameters()) {
    EXPECT_TRUE(close(p.value(), fixture_from(file, name + ".param." + p.key()))) << p.key();
  }
  std::string keys;
  for (const auto& item : m.state_dict()) keys += (keys.empty() ? "" : "\n") + item.key();
  EXPECT_EQ(keys, fixture_text(file, name + ".keys"));
  std::ostringstream printed;
  m.pretty_print(printed);
  EXPECT_EQ(printed.str(), fixture_text(file, name + ".repr"));
}

/// The parameters recorded for `name` in `file` as a state dict, under the keys of m's state dict.
inline OrderedDict<std::string, Tensor> fixture_state_dict(const std::string& file, const std::string& name,
                                                           const nn::Module& m) {
  OrderedDict<std::string, Tensor> state;
  for (const auto& item : m.state_dict()) state.insert(item.key(), fixture_from(file, name + ".param." + item.key()));
  return state;
}

}  // namespace ember::testing
