// The dtype list: stable ids equal to PyTorch's ScalarType numbers, names, sizes, categories, and the
// promotion and casting tables of torch.promote_types / torch.can_cast.
#include <gtest/gtest.h>

#include "TestSupport.h"

#include <type_traits>
#include <vector>

#include "ember/core/DType.h"

namespace {

using namespace ember;

const std::vector<DType> kAll = {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kFloat32, kFloat64, kBool, kBFloat16};

TEST(DType, StableIdsArePyTorchScalarTypeNumbers) {
  EXPECT_EQ(static_cast<int>(kUInt8), 0);
  EXPECT_EQ(static_cast<int>(kInt8), 1);
  EXPECT_EQ(static_cast<int>(kInt16), 2);
  EXPECT_EQ(static_cast<int>(kInt32), 3);
  EXPECT_EQ(static_cast<int>(kInt64), 4);
  EXPECT_EQ(static_cast<int>(kFloat16), 5);
  EXPECT_EQ(static_cast<int>(kFloat32), 6);
  EXPECT_EQ(static_cast<int>(kFloat64), 7);
  EXPECT_EQ(static_cast<int>(kBool), 11);
  EXPECT_EQ(static_cast<int>(kBFloat16), 15);
  for (int64_t id = -1; id <= kNumDTypeIds; ++id) {
    bool want = (id >= 0 && id <= 7) || id == 9 || id == 10 || id == 11 || id == 15;
    EXPECT_EQ(is_valid_dtype_id(id), want) << id;
  }
  // LibTorch spellings.
  EXPECT_EQ(kLong, kInt64);
  EXPECT_EQ(kFloat, kFloat32);
  EXPECT_EQ(kDouble, kFloat64);
  EXPECT_EQ(kHalf, kFloat16);
  EXPECT_EQ(kByte, kUInt8);
}

TEST(DType, NamesAndSizes) {
  const std::vector<std::pair<const char*, int64_t>> want = {
      {"uint8", 1}, {"int8", 1},    {"int16", 2},   {"int32", 4}, {"int64", 8},
      {"float16", 2}, {"float32", 4}, {"float64", 8}, {"bool", 1},  {"bfloat16", 2}};
  for (size_t i = 0; i < kAll.size(); ++i) {
    EXPECT_EQ(dtype_name(kAll[i]), want[i].first);
    EXPECT_EQ(element_size(kAll[i]), want[i].second) << want[i].first;
    EXPECT_EQ(fmt::format("{}", kAll[i]), want[i].first);
  }
}

TEST(DType, Categories) {
  for (DType t : kAll) {
    bool fl = t == kFloat16 || t == kBFloat16 || t == kFloat32 || t == kFloat64;
    EXPECT_EQ(is_floating_point(t), fl) << t;
    EXPECT_EQ(is_integral(t, false), !fl && t != kBool) << t;
    EXPECT_EQ(is_integral(t, true), !fl) << t;
    EXPECT_EQ(is_signed(t), t != kUInt8 && t != kBool) << t;
  }
}

TEST(DType, CppTypes) {
  static_assert(std::is_same_v<cpp_type<kFloat32>, float>);
  static_assert(std::is_same_v<cpp_type<kFloat16>, Half>);
  static_assert(std::is_same_v<cpp_type<kBFloat16>, BFloat16>);
  static_assert(std::is_same_v<cpp_type<kBool>, bool>);
  static_assert(std::is_same_v<cpp_type<kUInt8>, uint8_t>);
  EXPECT_EQ(dtype_of<int64_t>(), kInt64);
  EXPECT_EQ(dtype_of<double>(), kFloat64);
  EXPECT_EQ(dtype_of<Half>(), kFloat16);
  EXPECT_EQ(dtype_of<int8_t>(), kInt8);
}

// torch.promote_types for every pair, rows and columns in the order of kAll (PyTorch 1.13's table:
// bool < integral < floating; uint8 with a signed type gives the smallest signed type holding both;
// float16 with bfloat16 gives float32).
TEST(DType, PromoteTypesTable) {
  const DType u8 = kUInt8, i8 = kInt8, i16 = kInt16, i32 = kInt32, i64 = kInt64, f16 = kFloat16, f32 = kFloat32,
              f64 = kFloat64, b1 = kBool, bf = kBFloat16;
  const DType table[10][10] = {
      //   u8   i8   i16  i32  i64  f16  f32  f64  b1   bf
      {u8, i16, i16, i32, i64, f16, f32, f64, u8, bf},    // u8
      {i16, i8, i16, i32, i64, f16, f32, f64, i8, bf},    // i8
      {i16, i16, i16, i32, i64, f16, f32, f64, i16, bf},  // i16
      {i32, i32, i32, i32, i64, f16, f32, f64, i32, bf},  // i32
      {i64, i64, i64, i64, i64, f16, f32, f64, i64, bf},  // i64
      {f16, f16, f16, f16, f16, f16, f32, f64, f16, f32}, // f16
      {f32, f32, f32, f32, f32, f32, f32, f64, f32, f32}, // f32
      {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64}, // f64
      {u8, i8, i16, i32, i64, f16, f32, f64, b1, bf},     // b1
      {bf, bf, bf, bf, bf, f32, f32, f64, bf, bf},        // bf
  };
  for (size_t i = 0; i < kAll.size(); ++i)
    for (size_t j = 0; j < kAll.size(); ++j)
      EXPECT_EQ(promote_types(kAll[i], kAll[j]), table[i][j]) << kAll[i] << " with " << kAll[j];
}

// torch.can_cast(from, to): no floating -> integral/bool, no non-bool -> bool.
TEST(DType, CanCastTable) {
  const int table[10][10] = {
      // to: u8 i8 i16 i32 i64 f16 f32 f64 b1 bf
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // from u8
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // i8
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // i16
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // i32
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1},  // i64
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1},  // f16
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1},  // f32
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1},  // f64
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // b1
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1},  // bf
  };
  for (size_t i = 0; i < kAll.size(); ++i)
    for (size_t j = 0; j < kAll.size(); ++j)
      EXPECT_EQ(can_cast(kAll[i], kAll[j]), table[i][j] == 1) << kAll[i] << " -> " << kAll[j];
}

// Note [complex numbers]: complex64/complex128 are PyTorch's ComplexFloat (9) and ComplexDouble (10).
TEST(DType, Complex) {
  EXPECT_EQ(static_cast<int>(kComplexFloat), 9);
  EXPECT_EQ(static_cast<int>(kComplexDouble), 10);
  EXPECT_EQ(dtype_name(kComplexFloat), "complex64");
  EXPECT_EQ(dtype_name(kComplexDouble), "complex128");
  EXPECT_EQ(element_size(kComplexFloat), 8);
  EXPECT_EQ(element_size(kComplexDouble), 16);
  static_assert(std::is_same_v<cpp_type<kComplexFloat>, std::complex<float>>);
  EXPECT_EQ(dtype_of<std::complex<double>>(), kComplexDouble);
  EXPECT_TRUE(is_complex(kComplexFloat) && !is_floating_point(kComplexFloat) && is_signed(kComplexDouble));
  EXPECT_EQ(to_real_dtype(kComplexFloat), kFloat32);
  EXPECT_EQ(to_complex_dtype(kFloat64), kComplexDouble);
  // torch.promote_types of a complex dtype with every dtype of kAll, then with each other.
  for (DType t : kAll) {
    EXPECT_EQ(promote_types(kComplexFloat, t), t == kFloat64 ? kComplexDouble : kComplexFloat) << t;
    EXPECT_EQ(promote_types(t, kComplexDouble), kComplexDouble) << t;
    EXPECT_TRUE(can_cast(t, kComplexFloat)) << t;
    EXPECT_FALSE(can_cast(kComplexFloat, t)) << t;
  }
  EXPECT_EQ(promote_types(kComplexFloat, kComplexDouble), kComplexDouble);
  EXPECT_TRUE(can_cast(kComplexDouble, kComplexFloat));
  EXPECT_EQ(default_complex_dtype(), kComplexFloat);
  set_default_dtype(kFloat64);
  EXPECT_EQ(default_complex_dtype(), kComplexDouble);
  set_default_dtype(kFloat32);
}

TEST(DType, DefaultDtype) {
  EXPECT_EQ(default_dtype(), kFloat32);
  set_default_dtype(kFloat64);
  EXPECT_EQ(default_dtype(), kFloat64);
  set_default_dtype(kFloat32);
  try {
    set_default_dtype(kInt32);
    FAIL() << "integral default dtype accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
  EXPECT_EQ(default_dtype(), kFloat32);
}

}  // namespace
