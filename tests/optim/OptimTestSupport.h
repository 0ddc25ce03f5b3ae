#pragma once
// Helpers of the ember::optim tests: the recorded cases of fixtures/optimizers.ember (make_fixtures.py), the
// optimizers built from a case's Python keyword arguments, and comparisons of tensors and state dicts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "OptimizerFromOptions.h"
#include "TestSupport.h"
#include "ember/api/ember.h"

namespace ember::optim::testing {

/// The entry key of a dict IValue (a str key). Fails the test when absent.
inline const IValue& at(const IValue& dict, const std::string& key) {
  for (const auto& [k, v] : dict.to_dict())
    if (k.is_string() && k.to_string() == key) return v;
  ADD_FAILURE() << "no entry '" << key << "'";
  static const IValue none;
  return none;
}

/// The fixture archive `name` of tests/optim/fixtures, loaded once.
inline const IValue& fixture(const std::string& name) {
  static std::unordered_map<std::string, IValue> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, serialize::load(std::string(EMBER_TEST_FIXTURES) + "/" + name)).first;
  return it->second;
}

/// The pieces of a flat tensor (fixture layout) with the given shapes, as new leaf tensors.
inline std::vector<Tensor> split_flat(const Tensor& flat, const IValue& shapes, bool requires_grad) {
  std::vector<Tensor> out;
  int64_t offset = 0;
  for (const IValue& shape : shapes.to_list()) {
    std::vector<int64_t> sizes;
    for (const IValue& s : shape.to_list()) sizes.push_back(s.to_int());
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    Tensor t = flat.narrow(0, offset, n).reshape(sizes).clone();
    if (requires_grad) autograd::set_requires_grad(t, true);
    out.push_back(t);
    offset += n;
  }
  return out;
}

/// The parameters flattened and concatenated (the fixture layout).
inline Tensor flatten_all(const std::vector<Tensor>& params) {
  std::vector<Tensor> pieces;
  for (const Tensor& p : params) pieces.push_back(p.detach().reshape({-1}));
  return cat(pieces);
}

/// a and b have the same dtype, shape and bytes.
inline ::testing::AssertionResult same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return ::testing::AssertionFailure() << "dtypes differ";
  if (a.sizes().vec() != b.sizes().vec()) return ::testing::AssertionFailure() << "shapes differ";
  Tensor ca = a.contiguous(), cb = b.contiguous();
  if (std::memcmp(ca.data_ptr(), cb.data_ptr(), static_cast<size_t>(ca.nbytes())) != 0)
    return ::testing::AssertionFailure() << "values differ:\n" << a.str() << "\n" << b.str();
  return ::testing::AssertionSuccess();
}

/// a equals b to within `ulps` ulps of b's largest magnitude (Note [addcmul and FMA] in
/// tests/python/test_optim.py: PyTorch's addcmul rounds once, Ember's twice).
inline ::testing::AssertionResult close_ulps(const Tensor& a, const Tensor& b, double ulps) {
  if (a.dtype() != b.dtype()) return ::testing::AssertionFailure() << "dtypes differ";
  Tensor da = a.to(kFloat64).contiguous(), db = b.to(kFloat64).contiguous();
  const double eps = b.dtype() == kFloat32 ? std::numeric_limits<float>::epsilon()
                                           : std::numeric_limits<double>::epsilon();
  const double* x = da.data_ptr<double>();
  const double* y = db.data_ptr<double>();
  double scale = 0;
  for (int64_t i = 0; i < db.numel(); ++i) scale = std::max(scale, std::abs(y[i]));
  for (int64_t i = 0; i < db.numel(); ++i)
    if (std::abs(x[i] - y[i]) > ulps * eps * scale)
      return ::testing::AssertionFailure() << "element " << i << ": " << x[i] << " vs " << y[i];
  return ::testing::AssertionSuccess();
}

/// Two IValue trees are equal: the same kinds (a tuple is not a list, an int not a double), dict keys in the
/// same order, numbers equal, tensors bit for bit.
inline ::testing::AssertionResult same_tree(const IValue& a, const IValue& b, const std::string& where = "") {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << where << ": " << why << " (" << a.repr() << " vs " << b.repr() << ")";
  };
  const bool a_list = a.is_list() || a.is_int_list(), b_list = b.is_list() || b.is_int_list();
  if (a.tag() != b.tag() && !(a_list && b_list)) return fail("kinds differ");
  if (a.is_tensor()) {
    auto r = same_bits(a.to_tensor(), b.to_tensor());
    return r ? r : (fail("tensors differ") << r.message());
  }
  if (a.tag() == IValue::Tag::Dict) {
    const auto& x = a.to_dict();
    const auto& y = b.to_dict();
    if (x.size() != y.size()) return fail("dict sizes differ");
    for (size_t i = 0; i < x.size(); ++i) {
      if (auto r = same_tree(x[i].first, y[i].first, where + "<key>"); !r) return r;
      if (auto r = same_tree(x[i].second, y[i].second, where + "[" + x[i].first.repr() + "]"); !r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (a_list || a.is_tuple()) {
    std::vector<IValue> x, y;
    auto items = [](const IValue& v) {
      std::vector<IValue> out;
      if (v.is_int_list())
        for (int64_t i : v.to_int_list()) out.emplace_back(i);
      else
        out = v.to_list();
      return out;
    };
    x = items(a);
    y = items(b);
    if (x.size() != y.size()) return fail("lengths differ");
    for (size_t i = 0; i < x.size(); ++i)
      if (auto r = same_tree(x[i], y[i], where + "[" + std::to_string(i) + "]"); !r) return r;
    return ::testing::AssertionSuccess();
  }
  if (a.is_double()) {
    const double x = a.to_double(), y = b.to_double();
    return (x == y || (std::isnan(x) && std::isnan(y))) ? ::testing::AssertionSuccess() : fail("numbers differ");
  }
  return a.repr() == b.repr() ? ::testing::AssertionSuccess() : fail("values differ");
}

}  // namespace ember::optim::testing
