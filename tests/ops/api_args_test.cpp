// The C++ API's argument conventions: `int[]?` dims given as an int, a braced list or a vector (Note [optional
// array refs]: none may dangle), and undefined Tensors refused with an error naming the op (never a crash).
#include <gtest/gtest.h>

#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::values;

Tensor grid() { return arange(6, kFloat32).reshape({2, 3}); }  // [[0, 1, 2], [3, 4, 5]]

TEST(ApiArgs, OptionalDimsFromIntListAndVector) {
  Tensor x = grid();
  const std::vector<float> rows{3, 12}, cols{3, 5, 7};
  EXPECT_EQ(values<float>(x.sum(1)), rows);  // an int: the int64_t lives until the end of the full expression
  EXPECT_EQ(values<float>(x.sum({1})), rows);
  EXPECT_EQ(values<float>(x.sum(0)), cols);
  EXPECT_EQ(values<float>(x.mean(1)), (std::vector<float>{1, 4}));
  EXPECT_EQ(values<float>(ember::sum(x, {0, 1})), (std::vector<float>{15}));
  std::vector<int64_t> dims{-1};
  EXPECT_EQ(values<float>(x.sum(dims, /*keepdim=*/true)), rows);
  EXPECT_EQ(x.sum(dims, true).sizes().vec(), (std::vector<int64_t>{2, 1}));
  // x.var(1) and x.var({1}) pick var(bool unbiased), a standard conversion, as in LibTorch.
  EXPECT_EQ(values<float>(x.var({1}, /*unbiased=*/true)), (std::vector<float>{1, 1}));
  EXPECT_EQ(values<float>(x.amax(1)), (std::vector<float>{2, 5}));
}

TEST(ApiArgs, UndefinedTensorArgumentThrows) {
  Tensor x = grid(), u;
  auto expect_error = [](auto&& call, const char* op) {
    try {
      call();
      ADD_FAILURE() << "no error for " << op;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("undefined"), std::string::npos) << e.what();
    }
  };
  expect_error([&] { return u + 1; }, "add");
  expect_error([&] { return x + u; }, "add");
  expect_error([&] { return u.exp(); }, "exp");
  expect_error([&] { return ember::cat({x, u}); }, "cat");
  expect_error([&] { return ember::mm(u, x); }, "mm");
}

}  // namespace
