// ember::save / ember::load of modules: the archive is an ordered dict of the state dict (what Python's
// ember.save(model.state_dict(), path) writes), tensors without history, and loading checks keys and shapes
// with errors naming the file, the keys and both shapes. (The Python <-> C++ crossing is
// tests/python/test_cpp_state_dict.py.)
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::values;
using Strings = std::vector<std::string>;

struct NetImpl : nn::Module {
  explicit NetImpl(int64_t hidden = 3) {
    body = register_module("body", nn::Sequential(nn::Linear(2, hidden), nn::Linear(hidden, 1)));
    emb = register_module("emb", nn::Embedding(4, 2));
    register_buffer("steps", ember::zeros({}, kInt64));
  }
  Tensor forward(const Tensor& x) { return body(x); }
  nn::Sequential body{nullptr};
  nn::Embedding emb{nullptr};
};
EMBER_MODULE(Net);

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_nn_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(ModuleArchive, RoundTripsThroughAFile) {
  const std::string path = temp_path("net.ember");
  manual_seed(1);
  Net a;
  manual_seed(2);
  Net b;
  ASSERT_FALSE(ember::equal(a->body[0]->as<nn::LinearImpl>()->weight, b->body[0]->as<nn::LinearImpl>()->weight));
  ember::save(a, path);
  ember::load(b, path);
  for (const auto& item : a->state_dict()) EXPECT_TRUE(ember::equal(item.value(), b->state_dict()[item.key()])) << item.key();
  std::filesystem::remove(path);
}

TEST(ModuleArchive, IsAnOrderedDictOfDetachedTensors) {
  const std::string path = temp_path("layout.ember");
  Net net;
  ember::save(net, path);
  serialize::Attributes attrs;
  IValue root = serialize::load(path, &attrs);
  ASSERT_EQ(root.tag(), IValue::Tag::Dict);
  EXPECT_EQ(attrs.ordered_dicts.count(root.payload_ptr()), 1u);
  Strings keys;
  for (const auto& [k, v] : root.to_dict()) {
    keys.push_back(k.to_string());
    EXPECT_TRUE(attrs.requires_grad.count(v.payload_ptr()) == 0) << k.to_string() << " saved with requires_grad";
  }
  EXPECT_EQ(keys, (Strings{"steps", "body.0.weight", "body.0.bias", "body.1.weight", "body.1.bias", "emb.weight"}));
  std::filesystem::remove(path);
}

TEST(ModuleArchive, RoundTripsThroughStreams) {
  Net a, b;
  std::stringstream s;
  ember::save(a, s);
  ember::load(b, s);
  EXPECT_TRUE(ember::equal(a->emb->weight, b->emb->weight));
}

TEST(ModuleArchive, LoadingAnotherArchitectureNamesKeysAndShapes) {
  const std::string path = temp_path("wide.ember");
  Net wide(5);
  ember::save(wide, path);
  Net narrow(3);
  std::string msg = ember::testing::expect_error([&] { ember::load(narrow, path); }).what();
  EXPECT_TRUE(ember::testing::contains(msg, "load: '" + path + "': Error(s) in loading state_dict for Net:"));
  EXPECT_TRUE(ember::testing::contains(msg, "size mismatch for body.0.weight: copying a param with shape [5, 2] from "
                                            "checkpoint, the shape in current model is [3, 2]."));
  EXPECT_TRUE(ember::testing::contains(msg, "size mismatch for body.1.weight: copying a param with shape [1, 5]"));
  nn::Sequential other(nn::Linear(2, 5));
  msg = ember::testing::expect_error([&] { ember::load(other, path); }).what();
  EXPECT_TRUE(ember::testing::contains(msg, "Missing key(s) in state_dict: \"0.weight\", \"0.bias\"."));
  EXPECT_TRUE(ember::testing::contains(msg, "Unexpected key(s) in state_dict: \"steps\", \"body.0.weight\""));
  std::filesystem::remove(path);
}

TEST(ModuleArchive, RejectsArchivesThatAreNoStateDict) {
  const std::string path = temp_path("list.ember");
  serialize::save(IValue(std::vector<Tensor>{ember::ones({1})}), path);
  Net net;
  EMBER_EXPECT_ERROR(ember::load(net, path), Runtime, "not a state dict");
  serialize::save(IValue::dict({{IValue("body.0.weight"), IValue(int64_t{3})}}), path);
  EMBER_EXPECT_ERROR(ember::load(net, path), Runtime, "the entry 'body.0.weight' of the state dict is a int");
  std::filesystem::remove(path);
  EMBER_EXPECT_ERROR(ember::load(net, path), Runtime, path);
}

}  // namespace
