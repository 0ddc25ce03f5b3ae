#pragma once
// The recorded PyTorch 1.13 values of fixtures/nn.ember (written by fixtures/make_fixtures.py), by name, for
// the tests added after layers_test.cpp (which keeps its own reader).
#include <string>

#include "ember/nn/Serialize.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::testing {

/// The tensor recorded under `name` in nn.ember (the archive is read once per process). Errors: an unknown name.
inline const Tensor& nn_fixture(const std::string& name) {
  static const OrderedDict<std::string, Tensor> all =
      nn::state_dict_from_ivalue(serialize::load(std::string(EMBER_TEST_FIXTURES) + "/nn.ember"), "nn.ember");
  return all[name];
}

}  // namespace ember::testing
