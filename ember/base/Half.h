#pragma once
// 16-bit floating types. Both store raw bits and compute by widening to float and rounding back
// (round to nearest even), which is what PyTorch's CPU kernels do for these types.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ember {

namespace detail {
/// IEEE binary32 -> binary16, round to nearest even; overflow gives inf, NaN stays NaN (quiet).
inline uint16_t float_to_half_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {  // result is subnormal or zero in half precision
    // Scale so the half subnormal unit (2^-24) becomes 1.0 and let float rounding do RNE.
    float scaled = std::bit_cast<float>(ax) * 16777216.0f;  // 2^24, exact
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  uint32_t mant_odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

/// IEEE binary16 -> binary32 (exact).
inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

/// binary32 -> bfloat16 (upper half), round to nearest even; NaN stays a quiet NaN.
inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}
inline float bf16_bits_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
}  // namespace detail

struct from_bits_t {};
inline constexpr from_bits_t from_bits{};

/// IEEE half precision (1 sign, 5 exponent, 10 mantissa bits).
struct Half {
  uint16_t x = 0;
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float f) : x(detail::float_to_half_bits(f)) {}
  operator float() const { return detail::half_bits_to_float(x); }
};

/// bfloat16 (1 sign, 8 exponent, 7 mantissa bits): the top half of a float32.
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float f) : x(detail::float_to_bf16_bits(f)) {}
  operator float() const { return detail::bf16_bits_to_float(x); }
};

}  // namespace ember

// Arithmetic between narrow floats widens to float (the result converts back on assignment).
#define EMBER_NARROW_FLOAT_OPS(T)                                               \
  namespace ember {                                                             \
  inline float operator+(T a, T b) { return float(a) + float(b); }             \
  inline float operator-(T a, T b) { return float(a) - float(b); }             \
  inline float operator*(T a, T b) { return float(a) * float(b); }             \
  inline float operator/(T a, T b) { return float(a) / float(b); }             \
  inline float operator-(T a) { return -float(a); }                            \
  inline bool operator<(T a, T b) { return float(a) < float(b); }              \
  inline bool operator>(T a, T b) { return float(a) > float(b); }              \
  inline bool operator<=(T a, T b) { return float(a) <= float(b); }            \
  inline bool operator>=(T a, T b) { return float(a) >= float(b); }            \
  inline bool operator==(T a, T b) { return float(a) == float(b); }            \
  inline bool operator!=(T a, T b) { return float(a) != float(b); }            \
  }
EMBER_NARROW_FLOAT_OPS(Half)
EMBER_NARROW_FLOAT_OPS(BFloat16)
#undef EMBER_NARROW_FLOAT_OPS

namespace std {
template <>
class numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, has_infinity = true,
                        has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr ember::Half min() { return {0x0400, ember::from_bits}; }
  static constexpr ember::Half lowest() { return {0xfbff, ember::from_bits}; }
  static constexpr ember::Half max() { return {0x7bff, ember::from_bits}; }
  static constexpr ember::Half epsilon() { return {0x1400, ember::from_bits}; }
  static constexpr ember::Half infinity() { return {0x7c00, ember::from_bits}; }
  static constexpr ember::Half quiet_NaN() { return {0x7e00, ember::from_bits}; }
  static constexpr ember::Half denorm_min() { return {0x0001, ember::from_bits}; }
};
template <>
class numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, has_infinity = true,
                        has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr ember::BFloat16 min() { return {0x0080, ember::from_bits}; }
  static constexpr ember::BFloat16 lowest() { return {0xff7f, ember::from_bits}; }
  static constexpr ember::BFloat16 max() { return {0x7f7f, ember::from_bits}; }
  static constexpr ember::BFloat16 epsilon() { return {0x3c00, ember::from_bits}; }
  static constexpr ember::BFloat16 infinity() { return {0x7f80, ember::from_bits}; }
  static constexpr ember::BFloat16 quiet_NaN() { return {0x7fc0, ember::from_bits}; }
  static constexpr ember::BFloat16 denorm_min() { return {0x0001, ember::from_bits}; }
};
}  // namespace std
