// Half and BFloat16: conversions round to nearest even, keep subnormals, map overflow to inf and keep NaN.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <cpuid.h>
#include <immintrin.h>

#include "ember/base/Half.h"

namespace {

using ember::BFloat16;
using ember::Half;

uint16_t half_bits(float f) { return Half(f).x; }
uint16_t bf16_bits(float f) { return BFloat16(f).x; }
float from_half(uint16_t b) { return float(Half(b, ember::from_bits)); }
float from_bf16(uint16_t b) { return float(BFloat16(b, ember::from_bits)); }
float pow2(int e) { return std::ldexp(1.0f, e); }

TEST(Half, ExactValues) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);  // largest finite half
  EXPECT_EQ(half_bits(pow2(-14)), 0x0400);  // smallest normal
  EXPECT_EQ(from_half(0x3c00), 1.0f);
  EXPECT_EQ(from_half(0x7bff), 65504.0f);
  EXPECT_EQ(from_half(0x0400), pow2(-14));
  EXPECT_TRUE(std::signbit(from_half(0x8000)));
  EXPECT_EQ(from_half(0x8000), 0.0f);
}

TEST(Half, RoundsToNearestEven) {
  // Spacing of halves in [1, 2) is 2^-10: a tie rounds to the even mantissa.
  EXPECT_EQ(half_bits(1.0f + pow2(-11)), 0x3c00);               // tie between 0x3c00 and 0x3c01 -> even
  EXPECT_EQ(half_bits(1.0f + 3 * pow2(-11)), 0x3c02);           // tie between 0x3c01 and 0x3c02 -> even
  EXPECT_EQ(half_bits(1.0f + pow2(-11) + pow2(-20)), 0x3c01);   // just above the tie
  EXPECT_EQ(half_bits(1.0f + pow2(-11) - pow2(-20)), 0x3c00);   // just below the tie
  EXPECT_EQ(half_bits(-(1.0f + 3 * pow2(-11))), 0xbc02);
  // A tie that carries into the exponent: 2 - 2^-11 lies halfway between 0x3bff (odd) and 2.0 (0x4000).
  EXPECT_EQ(half_bits(2.0f - pow2(-11)), 0x4000);
}

TEST(Half, Subnormals) {
  EXPECT_EQ(half_bits(pow2(-24)), 0x0001);               // smallest subnormal
  EXPECT_EQ(from_half(0x0001), pow2(-24));
  EXPECT_EQ(half_bits(1023 * pow2(-24)), 0x03ff);         // largest subnormal
  EXPECT_EQ(from_half(0x03ff), 1023 * pow2(-24));
  EXPECT_EQ(half_bits(pow2(-25)), 0x0000);               // half of the smallest: tie -> even (zero)
  EXPECT_EQ(half_bits(-pow2(-25)), 0x8000);
  EXPECT_EQ(half_bits(1.5f * pow2(-24)), 0x0002);         // tie between 1 and 2 units -> 2
  EXPECT_EQ(half_bits(2.5f * pow2(-24)), 0x0002);         // tie between 2 and 3 units -> 2
  EXPECT_EQ(half_bits(pow2(-25) + pow2(-30)), 0x0001);   // above the tie
  EXPECT_EQ(half_bits(pow2(-26)), 0x0000);
  EXPECT_EQ(half_bits(1023.5f * pow2(-24)), 0x0400);      // rounds up into the smallest normal
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Half, OverflowInfAndNaN) {
  EXPECT_EQ(half_bits(65519.0f), 0x7bff);   // below the midpoint to 65536
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);   // the midpoint rounds to even: infinity
  EXPECT_EQ(half_bits(1e10f), 0x7c00);
  EXPECT_EQ(half_bits(-1e10f), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_TRUE(std::isinf(from_half(0x7c00)));
  EXPECT_LT(from_half(0xfc00), 0.0f);
  uint16_t n = half_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(n & 0x7c00, 0x7c00);
  EXPECT_NE(n & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(from_half(n)));
  EXPECT_TRUE(std::isnan(from_half(0x7c01)));  // a signalling-pattern NaN stays NaN when widened
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::quiet_NaN()) & 0x8000, 0x8000);
  // A NaN whose payload sits only in the low float mantissa bits must not become infinity.
  EXPECT_TRUE(std::isnan(from_half(half_bits(std::bit_cast<float>(0x7f800001u)))));
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = from_half(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(from_half(half_bits(f)))) << b;
    } else {
      ASSERT_EQ(half_bits(f), b) << "bits 0x" << std::hex << b;
    }
  }
}

// An independent reference conversion (round to nearest even): the compiler's _Float16 (GCC's, in libgcc); clang
// 14 has no _Float16 on x86-64 (make asan builds with it), so there the CPU's F16C instruction.
#ifdef __FLT16_MAX__
bool have_reference_half() { return true; }
uint16_t reference_half_bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
#else
bool have_reference_half() {  // clang 14's __builtin_cpu_supports does not know "f16c": CPUID leaf 1
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
__attribute__((target("f16c"))) uint16_t reference_half_bits(float f) {
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
#endif

TEST(Half, MatchesCompilerConversion) {
  if (!have_reference_half()) GTEST_SKIP() << "no _Float16 in this compiler and no F16C in this CPU";
  for (uint64_t b = 0; b < 0x100000000ull; b += 4093) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(b));
    if (std::isnan(f)) continue;
    uint16_t want = reference_half_bits(f);
    ASSERT_EQ(half_bits(f), want) << "float bits 0x" << std::hex << b;
  }
}

TEST(Half, ArithmeticWidensToFloat) {
  Half a(1.5f), b(2.25f);
  EXPECT_EQ(a + b, 3.75f);
  EXPECT_EQ(a * b, 3.375f);
  EXPECT_EQ(-a, -1.5f);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a == Half(1.5f));
  EXPECT_EQ(float(std::numeric_limits<Half>::max()), 65504.0f);
  EXPECT_EQ(float(std::numeric_limits<Half>::lowest()), -65504.0f);
  EXPECT_EQ(float(std::numeric_limits<Half>::epsilon()), pow2(-10));
  EXPECT_EQ(float(std::numeric_limits<Half>::denorm_min()), pow2(-24));
  EXPECT_EQ(float(std::numeric_limits<Half>::min()), pow2(-14));
}

// Reference bfloat16 rounding: the two neighbouring bfloat16 values, nearest wins, ties go to even.
uint16_t bf16_reference(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t lo = x & 0xffff0000u, hi = lo + 0x10000u;
  double dl = std::abs(static_cast<double>(f) - static_cast<double>(std::bit_cast<float>(lo)));
  double dh = std::abs(static_cast<double>(std::bit_cast<float>(hi)) - static_cast<double>(f));
  if ((hi & 0x7fffffffu) == 0x7f800000u) {  // upper neighbour is infinity: measure against 2^128
    dh = std::abs(std::ldexp(1.0, 128) - std::abs(static_cast<double>(f)));
  }
  if (dl < dh) return static_cast<uint16_t>(lo >> 16);
  if (dh < dl) return static_cast<uint16_t>(hi >> 16);
  return static_cast<uint16_t>(((lo >> 16) & 1u) ? hi >> 16 : lo >> 16);
}

TEST(BFloat16, ExactValuesAndTies) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits(-2.0f), 0xc000);
  EXPECT_EQ(bf16_bits(0.0f), 0x0000);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16_bits(1.0f + pow2(-8)), 0x3f80);              // tie -> even
  EXPECT_EQ(bf16_bits(1.0f + 3 * pow2(-8)), 0x3f82);          // tie -> even (up)
  EXPECT_EQ(bf16_bits(1.0f + pow2(-8) + pow2(-20)), 0x3f81);  // above the tie
  EXPECT_EQ(from_bf16(0x3f80), 1.0f);
  EXPECT_EQ(from_bf16(0x4049), 3.140625f);
}

TEST(BFloat16, SubnormalsOverflowNaN) {
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00010000u)), 0x0001);  // float subnormal kept
  EXPECT_EQ(from_bf16(0x0001), std::bit_cast<float>(0x00010000u));
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00008000u)), 0x0000);  // tie -> even (zero)
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00018000u)), 0x0002);  // tie -> even (up)
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x7f7f7fffu)), 0x7f7f);   // largest finite stays finite
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(from_bf16(bf16_bits(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN with payload only in the low 16 bits would truncate to infinity; it must stay NaN.
  EXPECT_TRUE(std::isnan(from_bf16(bf16_bits(std::bit_cast<float>(0x7f800001u)))));
  EXPECT_TRUE(std::isnan(from_bf16(bf16_bits(std::bit_cast<float>(0xff800001u)))));
  EXPECT_EQ(float(std::numeric_limits<BFloat16>::max()), std::bit_cast<float>(0x7f7f0000u));
  EXPECT_EQ(float(std::numeric_limits<BFloat16>::epsilon()), pow2(-7));
}

TEST(BFloat16, MatchesReferenceRounding) {
  for (uint64_t b = 0; b < 0x100000000ull; b += 4093) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(b));
    if (std::isnan(f) || std::isinf(f)) continue;
    ASSERT_EQ(bf16_bits(f), bf16_reference(f)) << "float bits 0x" << std::hex << b;
  }
}

TEST(BFloat16, EveryValueRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = from_bf16(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(bf16_bits(f), b) << b;
  }
}

}  // namespace
