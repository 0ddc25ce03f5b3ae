// serialize::OutputArchive / InputArchive (LibTorch's checkpoint API) with Module::save(archive) /
// Module::load(archive): round trips, nested archives, other keys beside a module's, errors; and
// CppWritesCheckpointForPython.File, which tests/python/test_cpp_save_load.py runs to read the file in Python.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "TestSupport.h"
#include "ember/ember.h"

namespace {

using namespace ember;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(Checkpoint, ModuleAndValuesRoundTrip) {
  manual_seed(0);
  nn::Sequential model{nn::Linear(3, 4), nn::BatchNorm1d(4), nn::Linear(4, 2)};
  model(randn({5, 3}));  // running statistics move
  serialize::OutputArchive ar;
  ar.write("epoch", tensor(3));
  ar.write("lr", IValue(0.01));
  model->save(ar);
  EXPECT_EQ(ar.keys().front(), "epoch");
  EXPECT_EQ(ar.keys().size(), 2u + model->state_dict().size());
  ar.save_to(temp_path("ckpt.ember"));

  manual_seed(1);
  nn::Sequential fresh{nn::Linear(3, 4), nn::BatchNorm1d(4), nn::Linear(4, 2)};
  Tensor w = fresh[0]->named_parameters()["weight"];
  serialize::InputArchive in;
  in.load_from(temp_path("ckpt.ember"));
  Tensor epoch;
  in.read("epoch", epoch);
  EXPECT_EQ(epoch.item<int64_t>(), 3);
  IValue lr;
  in.read("lr", lr);
  EXPECT_EQ(lr.to_double(), 0.01);
  fresh->load(in);
  for (const auto& item : model->state_dict()) {
    EXPECT_TRUE(equal(fresh->state_dict()[item.key()], item.value())) << item.key();
  }
  EXPECT_TRUE(w.is_same(fresh[0]->named_parameters()["weight"]));  // loaded in place
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(in.contains("0.weight"));
  EXPECT_FALSE(in.contains("nothing"));
}

TEST(Checkpoint, NestedArchivesStreamsAndReadIntoDefined) {
  nn::Linear fc(2, 2);
  serialize::OutputArchive model_ar, ar;
  fc->save(model_ar);
  ar.write("model", model_ar);
  ar.write("step", tensor({1.5, 2.5}, kFloat64));
  ar.write("step", tensor({7.0}, kFloat64));  // written again: replaced in place
  std::stringstream stream;
  ar.save_to(stream);
  serialize::InputArchive in, nested;
  in.load_from(stream);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"model", "step"}));
  in.read("model", nested);
  nn::Linear other(2, 2);
  other->load(nested);
  EXPECT_TRUE(equal(other->weight, fc->weight));
  Tensor step = zeros({3});
  Tensor alias = step;
  in.read("step", step);
  EXPECT_TRUE(alias.is_same(step));  // a defined tensor keeps its identity and takes the loaded data
  EXPECT_EQ(alias.dtype(), kFloat64);
  EXPECT_EQ(alias.sizes().vec(), std::vector<int64_t>{1});
  Tensor none;
  EXPECT_FALSE(in.try_read("absent", none));
  EXPECT_FALSE(none.defined());
}

TEST(Checkpoint, Errors) {
  serialize::OutputArchive ar;
  EMBER_EXPECT_ERROR(ar.write("t", Tensor()), Runtime, "the tensor for key 't' is undefined");
  ar.write("epoch", tensor(1));
  ar.write("name", IValue("run"));
  ar.save_to(temp_path("errors.ember"));
  serialize::InputArchive in;
  in.load_from(temp_path("errors.ember"));
  Tensor t;
  EMBER_EXPECT_ERROR(in.read("missing", t), Runtime, "no key 'missing' in");
  EMBER_EXPECT_ERROR(in.read("name", t), Runtime, "the value of 'name'");
  nn::Linear fc(2, 2);
  EMBER_EXPECT_ERROR(fc->load(in), Runtime, "Missing key(s) in state_dict: \"weight\", \"bias\"");
  serialize::OutputArchive wrong;
  nn::Linear(3, 2)->save(wrong);
  std::stringstream stream;
  wrong.save_to(stream);
  serialize::InputArchive in2;
  in2.load_from(stream);
  EMBER_EXPECT_ERROR(fc->load(in2), Runtime, "size mismatch for weight");
  EMBER_EXPECT_ERROR(in2.load_from(temp_path("no_such_file.ember")), Runtime, "no_such_file.ember");
  ember::save(tensor({1.0}), temp_path("plain_tensor.ember"));
  EMBER_EXPECT_ERROR(in2.load_from(temp_path("plain_tensor.ember")), Runtime, "does not hold a dict");
}

// Run by tests/python/test_cpp_save_load.py with EMBER_API_SAVE_DIR set.
TEST(CppWritesCheckpointForPython, File) {
  const char* env = std::getenv("EMBER_API_SAVE_DIR");
  const std::string dir = env ? env : ::testing::TempDir();
  nn::Linear fc(3, 2);
  {
    NoGradGuard no_grad;
    fc->weight.copy_(arange(6, kFloat32).reshape({2, 3}));
    fc->bias.copy_(tensor({-1.0f, 1.0f}));
  }
  serialize::OutputArchive ar, model;
  ar.write("epoch", tensor(3));
  fc->save(model);
  ar.write("model", model);
  fc->save(ar);
  ar.save_to(dir + "/cpp_checkpoint.ember");
}

}  // namespace
