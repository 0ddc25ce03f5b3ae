// Tensor::str() against PyTorch 1.13's repr (expected strings produced by Debian's PyTorch with "torch."
// replaced by "ember.").
#include <gtest/gtest.h>

#include <cmath>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using ember::testing::make_bool_tensor;
using ember::testing::make_tensor;

// Restores the print options after a test changes them.
struct PrintOptionsGuard {
  PrintOptions saved = print_options();
  ~PrintOptionsGuard() { print_options() = saved; }
};

TEST(Print, Basic) {
  EXPECT_EQ(make_tensor<float>({1, 2}).str(), "tensor([1., 2.])");
  EXPECT_EQ(arange(4, kInt32).reshape({2, 2}).str(), "tensor([[0, 1],\n        [2, 3]], dtype=ember.int32)");
  EXPECT_EQ(make_tensor<float>({0.1f, 1.5f, -2.25f}).str(), "tensor([ 0.1000,  1.5000, -2.2500])");
  EXPECT_EQ(make_tensor<double>({1, 2}).str(), "tensor([1., 2.], dtype=ember.float64)");
  EXPECT_EQ(make_tensor<int64_t>({-1, 10, -100}).str(), "tensor([  -1,   10, -100])");
  EXPECT_EQ(make_tensor<uint8_t>({1, 200}).str(), "tensor([  1, 200], dtype=ember.uint8)");
  EXPECT_EQ(make_tensor<int8_t>({1, 2}, {2, 1}).str(), "tensor([[1],\n        [2]], dtype=ember.int8)");
  EXPECT_EQ(make_bool_tensor({1, 0}, {2}).str(), "tensor([ True, False])");
  EXPECT_EQ(zeros({3}).str(), "tensor([0., 0., 0.])");
  EXPECT_EQ(make_tensor<float>({-0.0f, 1.0f}).str(), "tensor([-0., 1.])");
}

TEST(Print, ZeroDimAndEmpty) {
  EXPECT_EQ(scalar_tensor(3.5).str(), "tensor(3.5000)");
  EXPECT_EQ(scalar_tensor(7, kInt64).str(), "tensor(7)");
  EXPECT_EQ(scalar_tensor(true, kBool).str(), "tensor(True)");
  EXPECT_EQ(empty({0, 3}).str(), "tensor([], size=(0, 3))");
  EXPECT_EQ(empty({0}).str(), "tensor([])");
  EXPECT_EQ(empty({0}, kInt64).str(), "tensor([], dtype=ember.int64)");
  EXPECT_EQ(zeros({2, 0, 3}, kInt32).str(), "tensor([], size=(2, 0, 3), dtype=ember.int32)");
}

TEST(Print, SpecialValuesAndScientific) {
  EXPECT_EQ(make_tensor<float>({NAN, INFINITY, -INFINITY, 1.0f}).str(), "tensor([nan, inf, -inf, 1.])");
  EXPECT_EQ(make_tensor<float>({1.5f, NAN, -INFINITY, 2.0f}, {2, 2}).str(),
            "tensor([[1.5000,    nan],\n        [  -inf, 2.0000]])");
  EXPECT_EQ(make_tensor<float>({1e-5f, 1.0f}).str(), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(make_tensor<float>({1e10f, 1.0f}).str(), "tensor([1.0000e+10, 1.0000e+00])");
  EXPECT_EQ(make_tensor<float>({123456789.0f, 1.0f}).str(), "tensor([1.2346e+08, 1.0000e+00])");
  EXPECT_EQ(make_tensor<float>({100000.0f, 1.0f}).str(), "tensor([1.0000e+05, 1.0000e+00])");
}

TEST(Print, NarrowFloats) {
  EXPECT_EQ(make_tensor<float>({0.5f, 1.25f}).to(kFloat16).str(), "tensor([0.5000, 1.2500], dtype=ember.float16)");
  EXPECT_EQ(make_tensor<float>({1, 2}).to(kBFloat16).str(), "tensor([1., 2.], dtype=ember.bfloat16)");
}

TEST(Print, MultiDimensionalAndNonContiguous) {
  EXPECT_EQ(arange(12.0).reshape({2, 2, 3}).str(),
            "tensor([[[ 0.,  1.,  2.],\n         [ 3.,  4.,  5.]],\n\n        [[ 6.,  7.,  8.],\n         [ 9., 10., "
            "11.]]])");
  EXPECT_EQ(arange(6).reshape({2, 3}).t().str(), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
  EXPECT_EQ(arange(12).reshape({3, 4}).slice(1, std::nullopt, std::nullopt, 2).str(),
            "tensor([[ 0,  2],\n        [ 4,  6],\n        [ 8, 10]])");
}

TEST(Print, WrapsAtTheLineWidth) {
  EXPECT_EQ((arange(30.0) * 1.5).str(),
            "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
            "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
            "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
            "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])");
}

TEST(Print, SummarisesLargeTensors) {
  EXPECT_EQ(arange(2000.0).str(),
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])");
  EXPECT_EQ(arange(2000).reshape({40, 50}).str(),
            "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
            "        [  50,   51,   52,  ...,   97,   98,   99],\n"
            "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
            "        ...,\n"
            "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
            "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
            "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])");
  std::string s3 = arange(2000.0).reshape({10, 20, 10}).str();
  const std::string head =
      "tensor([[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 7.0000e+00,\n"
      "          8.0000e+00, 9.0000e+00],\n"
      "         [1.0000e+01, 1.1000e+01, 1.2000e+01,  ..., 1.7000e+01,\n"
      "          1.8000e+01, 1.9000e+01],\n";
  const std::string middle =
      "          1.9800e+02, 1.9900e+02]],\n\n        [[2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.0700e+02,\n";
  const std::string skip = "          5.9800e+02, 5.9900e+02]],\n\n        ...,\n\n        [[1.4000e+03, 1.4010e+03,";
  const std::string tail =
      "         [1.9900e+03, 1.9910e+03, 1.9920e+03,  ..., 1.9970e+03,\n          1.9980e+03, 1.9990e+03]]])";
  EXPECT_EQ(s3.substr(0, head.size()), head);
  EXPECT_NE(s3.find(middle), std::string::npos) << s3;
  EXPECT_NE(s3.find(skip), std::string::npos) << s3;
  ASSERT_GE(s3.size(), tail.size());
  EXPECT_EQ(s3.substr(s3.size() - tail.size()), tail);
  EXPECT_EQ(s3.size(), 3673u);  // PyTorch's repr has this length
}

TEST(Print, PrintOptions) {
  PrintOptionsGuard g;
  print_options().precision = 2;
  EXPECT_EQ(make_tensor<float>({0.1f, 1.5f, -2.25f}).str(), "tensor([ 0.10,  1.50, -2.25])");
  print_options().precision = 4;
  print_options().sci_mode = false;
  EXPECT_EQ(make_tensor<float>({1e-5f, 1.0f}).str(), "tensor([    0.0000,     1.0000])");
  print_options().sci_mode = true;
  EXPECT_EQ(make_tensor<float>({1.5f, 2.0f}).str(), "tensor([1.5000e+00, 2.0000e+00])");
  print_options().sci_mode = std::nullopt;
  print_options().threshold = 5;
  print_options().edgeitems = 2;
  EXPECT_EQ(arange(10).str(), "tensor([0, 1,  ..., 8, 9])");
  print_options().threshold = 1000;
  print_options().edgeitems = 3;
  print_options().linewidth = 40;
  EXPECT_EQ(
      arange(20, kInt32).str(),
      "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,\n         8,  9, 10, 11, 12, 13, 14, 15,\n        16, 17, 18, 19],\n"
      "       dtype=ember.int32)");
}

}  // namespace
