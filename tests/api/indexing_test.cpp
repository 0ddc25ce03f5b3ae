// LibTorch-style indexing from C++: x.index({...}) and x.index_put_({...}, v) with ember::indexing's Slice,
// None, Ellipsis ("..."), integers, bools and tensors, against PyTorch 1.13's results of the same Python
// expressions (tests/api/fixtures/make_fixtures.py -> indexing.ember).
#include <gtest/gtest.h>

#include <map>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using namespace ember::indexing;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::make_tensor;
using ember::testing::values;

// The recorded results, by case name.
const std::map<std::string, Tensor>& expected() {
  static const std::map<std::string, Tensor> cases = [] {
    std::map<std::string, Tensor> m;
    ember::IValue v = ember::serialize::load(std::string(EMBER_TEST_FIXTURES) + "/indexing.ember");
    for (const auto& [k, t] : v.to_dict()) m[k.to_string()] = t.to_tensor();
    return m;
  }();
  return cases;
}

void expect_case(const std::string& name, const Tensor& got) {
  SCOPED_TRACE(name);
  auto it = expected().find(name);
  ASSERT_NE(it, expected().end()) << "no recorded case " << name;
  const Tensor& want = it->second;
  EXPECT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(values<float>(got), values<float>(want));
}

Tensor x() { return ember::arange(24, ember::kFloat32).reshape({2, 3, 4}); }

TEST(Indexing, BasicItemsMatchPyTorch) {
  Tensor t = x();
  expect_case("slice_int", t.index({Slice(0, 2), 1}));
  expect_case("full_slice", t.index({Slice()}));
  expect_case("step", t.index({"...", Slice(None, None, 2)}));
  expect_case("none_int", t.index({None, 1}));
  expect_case("ellipsis_int", t.index({Ellipsis, 1}));
  expect_case("negative", t.index({-1, Slice(-2, None)}));
  expect_case("slice_start", t.index({Slice(), Slice(1)}));
  expect_case("slice_stop", t.index({Slice(), Slice(None, -1), 3}));
  expect_case("none_ellipsis_none", t.index({None, "...", None}));
  expect_case("empty_slice", t.index({Slice(), Slice(3, None)}));
  expect_case("zero_dim_ellipsis", ember::full({}, 5.0, ember::kFloat32).index({"..."}));
  expect_case("zero_dim_none", ember::full({}, 5.0, ember::kFloat32).index({None}));
  expect_case("empty_dim", ember::zeros({0, 3}, ember::kFloat32).index({Slice(), 1}));
}

TEST(Indexing, AdvancedItemsMatchPyTorch) {
  Tensor t = x();
  Tensor i = make_tensor<int64_t>({1, 0, 1});
  expect_case("tensor", t.index({i}));
  expect_case("two_tensors", t.index({Slice(), make_tensor<int64_t>({0, 2}), make_tensor<int64_t>({1, 3})}));
  expect_case("tensors_apart", t.index({make_tensor<int64_t>({0, 1}), Slice(), make_tensor<int64_t>({3, 0})}));
  expect_case("mask", t.index({t > 10}));
  expect_case("mask_dim1", t.index({Slice(), ember::testing::make_bool_tensor({1, 0, 1}, {3})}));
  expect_case("bool_true", t.index({true}));
  expect_case("bool_false", t.index({false}));
  expect_case("bool_mixed", t.index({1, true, 2}));
  expect_case("tensor_0dim", t.index({ember::full({}, 1, ember::kInt64), 2}));
}

TEST(Indexing, BasicIndexingIsAViewAdvancedACopy) {
  Tensor t = x();
  Tensor row = t.index({0, Slice(), Slice(1, 3)});
  EXPECT_TRUE(row._is_view());
  row.fill_(-5);
  EXPECT_EQ(t.index({0, 0, 1}).item<float>(), -5);
  Tensor picked = t.index({make_tensor<int64_t>({1})});
  picked.fill_(100);
  EXPECT_EQ(t.index({1, 0, 0}).item<float>(), 12);
  // A lone Ellipsis is an alias: another TensorImpl over the same storage.
  Tensor all = t.index({"..."});
  EXPECT_FALSE(all.is_same(t));
  EXPECT_EQ(all.data_ptr(), t.data_ptr());
  // Indices held in a vector, as code that builds them at run time does.
  std::vector<TensorIndex> idx{1, Slice(None, None, 3)};
  EXPECT_EQ(t.index(idx).sizes().vec(), (std::vector<int64_t>{1, 4}));  // t[1, ::3]
}

TEST(Indexing, IndexPutMatchesPyTorch) {
  Tensor y = x();
  y.index_put_({0, Slice(), 1}, -1);
  expect_case("put_scalar", y);
  y = x();
  y.index_put_({"...", Slice(1, 3)}, make_tensor<float>({7, 8}, {1, 2}));
  expect_case("put_broadcast", y);
  y = x();
  y.index_put_({y > 20}, 0);
  expect_case("put_mask", y);
  y = x();
  y.index_put_({make_tensor<int64_t>({0, 1}), make_tensor<int64_t>({2, 0})}, make_tensor<float>({100, 200}, {2, 1}));
  expect_case("put_advanced", y);
  y = x();
  EXPECT_TRUE(y.index_put_({1}, ember::arange(4, ember::kFloat32)).is_same(y));
  expect_case("put_row", y);
  y = x();
  y.index_put_({false}, 3);
  expect_case("put_false", y);
  y = x();
  y.index_put_({None}, 2.0);
  expect_case("put_none", y);
  y = x();
  y.index_put_({Slice(), None, 2, Slice(None, None, 3)}, make_tensor<float>({9, 10}, {1, 1, 2}));
  expect_case("put_none_step", y);
}

TEST(Indexing, IndexPutOfANumberChecksTheDtypeRange) {
  Tensor b = ember::zeros({3}, ember::kInt8);
  b.index_put_({1}, 100);
  EXPECT_EQ(values<int8_t>(b), (std::vector<int8_t>{0, 100, 0}));
  EMBER_EXPECT_ERROR(b.index_put_({1}, 1000), Runtime, "");
}

TEST(Indexing, ErrorsAsPyTorch) {
  Tensor t = x();
  EMBER_EXPECT_ERROR(t.index({5}), Index, "index 5 is out of bounds for dimension 0 with size 2");
  EMBER_EXPECT_ERROR(t.index({0, -4}), Index, "index -4 is out of bounds for dimension 1 with size 3");
  EMBER_EXPECT_ERROR(t.index({0, 0, 0, 0}), Index, "too many indices for tensor of dimension 3");
  EMBER_EXPECT_ERROR(t.index({Slice(), Slice(), Slice(), Slice()}), Index,
                     "too many indices for tensor of dimension 3");
  EMBER_EXPECT_ERROR(ember::full({}, 1.0, ember::kFloat32).index({0}), Index, "invalid index of a 0-dim tensor");
  EMBER_EXPECT_ERROR(Slice(0, 2, 0), Value, "slice step cannot be zero");
  EMBER_EXPECT_ERROR(Slice(0, 2, -1), Value, "step must be greater than zero");
  EMBER_EXPECT_ERROR(TensorIndex(".."), Value, "Expected \"...\"");
  EMBER_EXPECT_ERROR(t.index({make_tensor<float>({0, 1})}), Index, "tensors used as indices must be long");
  EMBER_EXPECT_ERROR(t.index({make_tensor<int64_t>({2})}), Index, "out of bounds");
  EMBER_EXPECT_ERROR(t.index_put_({0}, make_tensor<float>({1, 2})), Runtime, "");
  EMBER_EXPECT_ERROR(t.index({Tensor()}), Runtime, "undefined");
}

TEST(Indexing, AutogradFlowsThroughIndexing) {
  Tensor w = ember::arange(6, ember::kFloat64).reshape({2, 3}).requires_grad_();
  Tensor y = w.index({Slice(), make_tensor<int64_t>({2, 2, 0})}).sum();
  y.backward();
  EXPECT_EQ(values<double>(w.grad()), (std::vector<double>{1, 0, 2, 1, 0, 2}));
}

}  // namespace
