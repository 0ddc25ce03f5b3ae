// result_type's three priority groups (dims, 0-dim, wrapped numbers) and NumPy broadcasting.
#include <gtest/gtest.h>

#include "TestSupport.h"

#include "ember/core/TypePromotion.h"

namespace {

using namespace ember;

Tensor dims(DType t) { return make_empty({2}, t); }
Tensor zero_dim(DType t) { return make_empty({}, t); }
Tensor wrapped(DType t) {
  Tensor w = make_empty({}, t);
  w.impl()->set_wrapped_number(true);
  return w;
}

// Restores the default dtype when a test changes it.
struct DefaultDtypeGuard {
  DType saved = default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

TEST(ResultType, WrappedNumbersOnlyLiftTheCategory) {
  EXPECT_EQ(result_type(dims(kInt32), Scalar(2.5)), kFloat32);      // int32 tensor + 2.5
  EXPECT_EQ(result_type(dims(kInt32), wrapped(kFloat64)), kFloat32);
  EXPECT_EQ(result_type(dims(kUInt8), Scalar(-1)), kUInt8);         // uint8 + python int stays uint8
  EXPECT_EQ(result_type(dims(kBool), Scalar(2)), kInt64);           // bool + python int -> int64
  EXPECT_EQ(result_type(dims(kBool), Scalar(true)), kBool);
  EXPECT_EQ(result_type(dims(kFloat16), Scalar(2.5)), kFloat16);
  EXPECT_EQ(result_type(dims(kInt8), Scalar(int64_t{1} << 40)), kInt8);
  EXPECT_EQ(result_type(dims(kBFloat16), Scalar(1)), kBFloat16);
  EXPECT_EQ(result_type(dims(kFloat64), Scalar(1.5)), kFloat64);
}

// Complex is a fourth category (Note [promotion]); the values are torch.result_type's.
TEST(ResultType, Complex) {
  DefaultDtypeGuard guard;
  const Scalar j(std::complex<double>(0, 1));
  EXPECT_EQ(j.dtype(), kComplexDouble);
  EXPECT_EQ(result_type(dims(kFloat32), j), kComplexFloat);           // float tensor + 1j
  EXPECT_EQ(result_type(dims(kFloat64), j), kComplexDouble);
  EXPECT_EQ(result_type(dims(kInt64), j), kComplexFloat);             // the default complex dtype
  EXPECT_EQ(result_type(dims(kComplexDouble), Scalar(2.5)), kComplexDouble);
  EXPECT_EQ(result_type(dims(kFloat32), zero_dim(kComplexDouble)), kComplexFloat);  // keeps float32's precision
  EXPECT_EQ(result_type(dims(kFloat64), zero_dim(kComplexFloat)), kComplexDouble);
  EXPECT_EQ(result_type(dims(kInt32), zero_dim(kComplexDouble)), kComplexDouble);
  EXPECT_EQ(result_type(dims(kComplexFloat), zero_dim(kFloat64)), kComplexFloat);
  EXPECT_EQ(result_type(dims(kComplexFloat), dims(kFloat64)), kComplexDouble);
  set_default_dtype(kFloat64);
  EXPECT_EQ(result_type(dims(kInt64), j), kComplexDouble);
  EXPECT_EQ(result_type(dims(kFloat32), j), kComplexFloat);
}

TEST(ResultType, ZeroDimTensorsPromoteOnlyAcrossCategories) {
  EXPECT_EQ(result_type(dims(kUInt8), zero_dim(kInt64)), kUInt8);       // uint8 + int64 0-dim -> uint8
  EXPECT_EQ(result_type(dims(kInt32), zero_dim(kFloat64)), kFloat64);   // int tensor + float64 0-dim -> float64
  EXPECT_EQ(result_type(dims(kFloat16), zero_dim(kFloat64)), kFloat16); // float16 + float64 0-dim -> float16
  EXPECT_EQ(result_type(dims(kBool), zero_dim(kFloat64)), kFloat64);
  EXPECT_EQ(result_type(dims(kBFloat16), zero_dim(kFloat16)), kBFloat16);
  EXPECT_EQ(result_type(zero_dim(kFloat16), dims(kInt64)), kFloat16);   // order does not matter
  // Only 0-dim operands: they promote among themselves.
  EXPECT_EQ(result_type(zero_dim(kInt8), zero_dim(kInt16)), kInt16);
  EXPECT_EQ(result_type(zero_dim(kBool), zero_dim(kInt32)), kInt32);
  EXPECT_EQ(result_type(zero_dim(kFloat64), zero_dim(kFloat32)), kFloat64);
  EXPECT_EQ(result_type(zero_dim(kInt8), Scalar(2.5)), kFloat32);
  EXPECT_EQ(result_type(zero_dim(kInt64), Scalar(2.5)), kFloat32);
  EXPECT_EQ(result_type(zero_dim(kInt64), Scalar(true)), kInt64);
}

TEST(ResultType, DimsPromoteFully) {
  EXPECT_EQ(result_type(dims(kUInt8), dims(kInt8)), kInt16);
  EXPECT_EQ(result_type(dims(kFloat16), dims(kBFloat16)), kFloat32);
  EXPECT_EQ(result_type(dims(kInt64), dims(kFloat16)), kFloat16);
  std::vector<Tensor> many = {dims(kInt8), zero_dim(kFloat64), dims(kInt16), wrapped(kInt64)};
  EXPECT_EQ(result_type(many), kFloat64);
  std::vector<Tensor> ints = {dims(kInt8), zero_dim(kInt64), wrapped(kFloat64), dims(kUInt8)};
  EXPECT_EQ(result_type(ints), kFloat32);  // wrapped float lifts int16 to the default dtype
}

TEST(ResultType, WrappedFloatFollowsTheDefaultDtype) {
  DefaultDtypeGuard g;
  set_default_dtype(kFloat64);
  EXPECT_EQ(result_type(dims(kInt32), Scalar(2.5)), kFloat64);
  EXPECT_EQ(result_type(dims(kFloat32), Scalar(2.5)), kFloat32);
  EXPECT_EQ(result_type(dims(kInt32), wrapped(kFloat64)), kFloat64);
}

TEST(ResultType, UndefinedTensorsAreIgnored) {
  EXPECT_EQ(result_type(dims(kInt16), Tensor()), kInt16);
}

TEST(BroadcastShapes, Shapes) {
  auto bs = [](IntArrayRef a, IntArrayRef b) {
    DimVector r = broadcast_shapes(a, b);
    return std::vector<int64_t>(r.begin(), r.end());
  };
  EXPECT_EQ(bs({2, 1, 3}, {4, 1}), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(bs({}, {3}), (std::vector<int64_t>{3}));
  EXPECT_EQ(bs({}, {}), (std::vector<int64_t>{}));
  EXPECT_EQ(bs({5, 1}, {}), (std::vector<int64_t>{5, 1}));
  EXPECT_EQ(bs({1}, {0}), (std::vector<int64_t>{0}));        // 1 broadcasts to 0
  EXPECT_EQ(bs({0, 3}, {1, 3}), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(bs({2, 0}, {2, 1}), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(bs({0}, {0}), (std::vector<int64_t>{0}));
  EXPECT_EQ(bs({3, 1, 0}, {1, 5, 1}), (std::vector<int64_t>{3, 5, 0}));
}

void expect_broadcast_error(IntArrayRef a, IntArrayRef b, const std::string& msg) {
  try {
    broadcast_shapes(a, b);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

TEST(BroadcastShapes, ErrorsNameTheDimensionAsPyTorch) {
  // PyTorch compares from the trailing dimension and reports the first mismatch it meets there.
  expect_broadcast_error({0}, {2},
                         "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0");
  expect_broadcast_error({2, 3}, {3, 2},
                         "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  expect_broadcast_error({4, 3}, {5, 1, 2},
                         "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2");
  expect_broadcast_error({2, 0}, {3},
                         "The size of tensor a (0) must match the size of tensor b (3) at non-singleton dimension 1");
}

}  // namespace
