// ember::load_library on the custom-op library of tests/extensions/myops.cpp (built by tests/CMakeLists.txt):
// its ops become callable by name through the dispatcher, typed and boxed, with the library's own autograd
// kernel; loading twice is harmless; missing and non-library files raise LibraryLoadError naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::contains;
using ember::testing::make_tensor;
using ember::testing::values;

TEST(LoadLibrary, OpsCallableByNameAfterLoading) {
  load_library(EMBER_TEST_MYOPS);
  load_library(EMBER_TEST_MYOPS);  // again: nothing happens
  std::vector<std::string> libs = loaded_libraries();
  EXPECT_EQ(std::count(libs.begin(), libs.end(), std::string(EMBER_TEST_MYOPS)), 1);

  static const auto fused_act = typed_op<Tensor(const Tensor&, double)>("myops::fused_act");
  Tensor x = make_tensor<double>({-1.0, 0.0, 2.0});
  std::vector<double> y = values<double>(fused_act(x, 0.5));
  for (size_t i = 0; i < y.size(); ++i) {
    double v = values<double>(x)[i];
    EXPECT_NEAR(y[i], v / (1.0 + std::exp(-0.5 * v)), 1e-12);
  }
  // Boxed, with the schema's default for alpha.
  OperatorHandle h = Dispatcher::singleton().find_or_throw("myops::fused_act");
  Stack s{IValue(x), IValue(1.0)};
  h.call_boxed(&s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(values<double>(s[0].to_tensor())[2], 2.0 / (1.0 + std::exp(-2.0)), 1e-12);
  // A boxed call with too few values on the stack is an error, not a read past the stack.
  Stack empty;
  EMBER_EXPECT_ERROR(h.call_boxed(&empty), Runtime, "needs all 2 arguments of the schema on the stack");
  Stack one{IValue(x)};
  EMBER_EXPECT_ERROR(h.call_boxed(&one), Runtime, "the stack holds 1");
  // Which library defined which op (recorded in saved models).
  EXPECT_EQ(op_source("myops::fused_act").kind, OpSource::Kind::Library);
  EXPECT_EQ(op_source("myops::fused_act").detail, EMBER_TEST_MYOPS);
  EXPECT_EQ(op_source("myops::scale").detail, EMBER_TEST_MYOPS);
  EXPECT_EQ(op_source("aten::add").kind, OpSource::Kind::Unknown);
  EXPECT_EQ(op_source("nothere::op").kind, OpSource::Kind::Unknown);
  // Overloads and the inferred schema of def_function.
  EXPECT_TRUE(Dispatcher::singleton().find("myops::scale.int").valid());
  EXPECT_EQ(Dispatcher::singleton().find_or_throw("myops::add_scaled").schema().str(),
            "myops::add_scaled(Tensor _0, Tensor _1, float _2) -> Tensor");
}

TEST(LoadLibrary, AutogradKernelOfTheLibrary) {
  load_library(EMBER_TEST_MYOPS);
  static const auto fused_act = typed_op<Tensor(const Tensor&, double)>("myops::fused_act");
  Tensor x = make_tensor<double>({0.3, -1.2});
  autograd::set_requires_grad(x, true);
  Tensor y = fused_act(x, 1.0);
  ASSERT_TRUE(autograd::requires_grad(y));
  autograd::backward({sum(y)});
  std::vector<double> g = values<double>(autograd::grad(x));
  for (size_t i = 0; i < g.size(); ++i) {
    double v = values<double>(x)[i], sg = 1.0 / (1.0 + std::exp(-v));
    EXPECT_NEAR(g[i], sg + v * sg * (1.0 - sg), 1e-12);
  }
}

TEST(LoadLibrary, Errors) {
  try {
    load_library("/nonexistent/libnothing.so");
    ADD_FAILURE() << "no error";
  } catch (const LibraryLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "no such file '/nonexistent/libnothing.so'"));
  }
  std::string junk = ::testing::TempDir() + "/ember_junk_library.so";
  std::ofstream(junk) << "not an ELF file";
  try {
    load_library(junk);
    ADD_FAILURE() << "no error";
  } catch (const LibraryLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "could not load '" + junk + "'"));
  }
  std::remove(junk.c_str());
  EMBER_EXPECT_ERROR(load_library(""), Runtime, "empty");
}

}  // namespace
