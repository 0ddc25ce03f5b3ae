#pragma once
// The recorded reference values of the ember::data tests (tests/data/fixtures/data.ember, written from PyTorch
// 1.13 by tests/data/fixtures/make_fixtures.py, which lists the keys).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ember/api/ember.h"

namespace ember::testing {

/// The recorded tensor under key (a test failure and an undefined tensor when there is none).
inline Tensor data_fixture(const std::string& key) {
  static const IValue archive = serialize::load(std::string(EMBER_TEST_FIXTURES) + "/data.ember");
  for (const auto& [k, v] : archive.to_dict())
    if (k.to_string() == key) return v.to_tensor();
  ADD_FAILURE() << "no fixture '" << key << "' in data.ember; rerun tests/data/fixtures/make_fixtures.py";
  return Tensor();
}

/// The elements of an int64 tensor as indices.
inline std::vector<size_t> as_indices(const Tensor& t) {
  std::vector<size_t> out;
  const Tensor c = t.contiguous();
  for (int64_t i = 0; i < c.numel(); ++i) out.push_back(static_cast<size_t>(c.data_ptr<int64_t>()[i]));
  return out;
}

}  // namespace ember::testing
