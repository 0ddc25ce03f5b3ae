// Sequential, ModuleList, ModuleDict and AnyModule: naming ("0", "1", ... or given names), calling order,
// indexing and its errors, iteration, printing, and seed-identical initialisation of a Sequential's layers
// (recorded from PyTorch 1.13 by fixtures/make_fixtures.py).
#include <gtest/gtest.h>

#include <sstream>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_tensor;
using ember::testing::values;
using Strings = std::vector<std::string>;

std::string printed(const nn::Module& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

// A module that adds a constant, to check calling order.
struct AddImpl : nn::Module {
  explicit AddImpl(double v) : v(v) {}
  Tensor forward(const Tensor& x) { return x + v; }
  std::string extra_repr() const override { return nn::repr::py(v); }
  double v;
};
EMBER_MODULE(Add);

// A module that scales, to check calling order.
struct TimesImpl : nn::Module {
  explicit TimesImpl(double v) : v(v) {}
  Tensor forward(const Tensor& x) { return x * v; }
  double v;
};
EMBER_MODULE(Times);

TEST(Sequential, InitialisesItsLayersInOrderAsPyTorch) {
  manual_seed(11);
  nn::Sequential seq(nn::Linear(3, 4), nn::Dropout(0.5), nn::Linear(4, 2));
  const auto f = nn::state_dict_from_ivalue(serialize::load(std::string(EMBER_TEST_FIXTURES) + "/nn.ember"), "");
  EXPECT_EQ(seq->state_dict().keys(), (Strings{"0.weight", "0.bias", "2.weight", "2.bias"}));
  for (const auto& item : seq->state_dict())
    EXPECT_TRUE(ember::equal(item.value(), f["sequential." + item.key()])) << item.key();
  seq->eval();
  const Tensor out = seq(f["sequential.input"]);
  EXPECT_LE((out - f["sequential.output_eval"]).abs().max().item<double>(), 1e-6);
}

TEST(Sequential, CallsInOrderAndIndexes) {
  nn::Sequential seq(Add(1), Times(10), std::make_shared<AddImpl>(2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(values<float>(seq(make_tensor<float>({0, 1}))), (std::vector<float>{12, 22}));
  EXPECT_EQ(seq[1]->name(), "Times");
  EXPECT_EQ(seq->at<AddImpl>(-1).v, 2);
  EXPECT_EQ(seq->ptr<TimesImpl>(1)->v, 10);
  EMBER_EXPECT_ERROR(seq->at<AddImpl>(1), Runtime, "the module is a Times, not a Add");
  EMBER_EXPECT_ERROR(seq[3], Index, "index 3 is out of range for a sequence of 3 modules");
  EMBER_EXPECT_ERROR(seq[-4], Index, "out of range");
  std::vector<std::string> names;
  for (const nn::AnyModule& m : *seq) names.push_back(m.ptr()->name());
  EXPECT_EQ(names, (Strings{"Add", "Times", "Add"}));
  EXPECT_EQ(seq->named_children().keys(), (Strings{"0", "1", "2"}));
  EXPECT_EQ(printed(*seq),
            "Sequential(\n"
            "  (0): Add(1.0)\n"
            "  (1): Times()\n"
            "  (2): Add(2.0)\n"
            ")");
}

TEST(Sequential, NamedPushBackExtendAndEmpty) {
  nn::Sequential named({{"first", Add(1)}, {"second", std::make_shared<TimesImpl>(3)}});
  EXPECT_EQ(named->named_children().keys(), (Strings{"first", "second"}));
  EXPECT_EQ(values<float>(named(make_tensor<float>({1}))), (std::vector<float>{6}));
  named->push_back("third", Add(1));
  named->push_back(nn::AnyModule(Times(2)));
  EXPECT_EQ(named->named_children().keys(), (Strings{"first", "second", "third", "3"}));
  EMBER_EXPECT_ERROR(named->push_back("first", Add(1)), Runtime, "'first' is already in the sequence");
  nn::Sequential twice;
  twice->extend(*twice);
  EXPECT_TRUE(twice->is_empty());
  Tensor x = ember::ones({2});
  EXPECT_TRUE(twice(x).is_same(x));
  nn::Sequential base(Add(1));
  base->extend(*base);
  EXPECT_EQ(base->size(), 2u);
  EXPECT_EQ(values<float>(base(make_tensor<float>({0}))), (std::vector<float>{2}));
  EMBER_EXPECT_ERROR(nn::Sequential(nn::Linear(nullptr)), Runtime, "empty Linear holder");
}

TEST(Sequential, TrainEvalReachesItsLayers) {
  nn::Sequential seq(nn::Linear(2, 2), nn::Dropout(1.0));
  seq->eval();
  Tensor x = ember::ones({1, 2});
  EXPECT_TRUE(ember::equal(seq(x), seq[0]->as<nn::LinearImpl>()->forward(x)));
  seq->train();
  EXPECT_EQ(values<float>(seq(x)), (std::vector<float>{0, 0}));
}

TEST(ModuleList, NamesByPositionAndRenumbersAfterInsert) {
  nn::ModuleList list(nn::Linear(2, 3), Add(1));
  list->push_back(std::make_shared<TimesImpl>(2));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (Strings{"0.weight", "0.bias"}));
  list->insert(0, Add(5));
  EXPECT_EQ(list->named_parameters().keys(), (Strings{"1.weight", "1.bias"}));
  EXPECT_EQ(list->named_children().keys(), (Strings{"0", "1", "2", "3"}));
  EXPECT_EQ(list->at<AddImpl>(0).v, 5);
  EXPECT_EQ(list[-1]->name(), "Times");
  EMBER_EXPECT_ERROR(list[4], Index, "out of range for a list of 4 modules");
  EMBER_EXPECT_ERROR(list->at<TimesImpl>(0), Runtime, "index 0 is a Add, not a Times");
  Tensor x = make_tensor<float>({1});
  for (const auto& m : *list)
    if (auto* add = m->as<AddImpl>()) x = add->forward(x);
  EXPECT_EQ(values<float>(x), (std::vector<float>{7}));
  list->extend(*list);
  EXPECT_EQ(list->size(), 8u);
  EXPECT_EQ(list->named_parameters().keys(), (Strings{"1.weight", "1.bias"}));  // the same Linear, listed once
  EXPECT_EQ(list->state_dict().keys(), (Strings{"1.weight", "1.bias", "5.weight", "5.bias"}));
}

TEST(ModuleDict, KeepsInsertionOrderAndReplacesInPlace) {
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> modules = {
      {"enc", std::make_shared<nn::LinearImpl>(2, 3)}, {"act", std::make_shared<AddImpl>(1)}};
  nn::ModuleDict dict(modules);
  EXPECT_EQ(dict->keys(), (Strings{"enc", "act"}));
  EXPECT_EQ(dict->named_parameters().keys(), (Strings{"enc.weight", "enc.bias"}));
  dict->insert("enc", nn::Linear(nn::LinearOptions(2, 3).bias(false)));
  EXPECT_EQ(dict->keys(), (Strings{"enc", "act"}));
  EXPECT_EQ(dict->named_parameters().keys(), (Strings{"enc.weight"}));
  dict->insert("dec", Times(2));
  EXPECT_EQ(dict->at<TimesImpl>("dec").v, 2);
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_EQ(dict["act"]->name(), "Add");
  EXPECT_EQ(dict->pop("act")->name(), "Add");
  EXPECT_EQ(dict->named_children().keys(), (Strings{"enc", "dec"}));
  EMBER_EXPECT_ERROR(dict["act"], Runtime, "no module named 'act'");
  EMBER_EXPECT_ERROR(dict->at<AddImpl>("dec"), Runtime, "'dec' is a Times, not a Add");
  EMBER_EXPECT_ERROR(dict->insert("a.b", Add(1)), Runtime, "can't contain");
  size_t n = 0;
  for (const auto& item : *dict) n += item.key().size();
  EXPECT_EQ(n, 6u);
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_TRUE(dict->named_children().is_empty());
}

TEST(AnyModule, EmptyAndTyped) {
  nn::AnyModule empty;
  EXPECT_TRUE(empty.is_empty());
  EMBER_EXPECT_ERROR(empty.forward(ember::ones({1})), Runtime, "no module is held");
  nn::AnyModule any(Add(3));
  EXPECT_EQ(values<float>(any.forward(make_tensor<float>({1}))), (std::vector<float>{4}));
  EXPECT_EQ(any.get<AddImpl>().v, 3);
}

}  // namespace
