// ggml's block types dequantized (Note [ggml block types] in GgufQuant.h).
#include "ember/serialize/GgufQuant.h"

#include <cstring>
#include <iterator>

#include "ember/base/Half.h"

namespace ember::serialize {

namespace {

float f16(const unsigned char* p) {
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return static_cast<float>(Half(bits, from_bits));
}

// 32 values from 16 bytes of nibbles: value j from the low nibble of byte j, j + 16 from its high nibble, each
// mapped by f(nibble, fifth bit index j or j + 16).
template <class F>
void nibbles32(const unsigned char* q, float* y, F f) {
  for (int j = 0; j < 16; ++j) {
    y[j] = f(q[j] & 0x0f, j);
    y[j + 16] = f(q[j] >> 4, j + 16);
  }
}

void q4_0(const unsigned char* p, float* y) {
  const float d = f16(p);
  nibbles32(p + 2, y, [d](int q, int) { return static_cast<float>(q - 8) * d; });
}

void q4_1(const unsigned char* p, float* y) {
  const float d = f16(p), m = f16(p + 2);
  nibbles32(p + 4, y, [d, m](int q, int) { return static_cast<float>(q) * d + m; });
}

void q5(const unsigned char* p, float* y, bool with_min) {
  const float d = f16(p), m = with_min ? f16(p + 2) : 0.0f;
  const int offset = with_min ? 0 : 16;
  uint32_t qh;
  std::memcpy(&qh, p + (with_min ? 4 : 2), 4);
  nibbles32(p + (with_min ? 8 : 6), y, [=](int q, int j) {
    return static_cast<float>((q | static_cast<int>(((qh >> j) & 1u) << 4)) - offset) * d + m;
  });
}
void q5_0(const unsigned char* p, float* y) { q5(p, y, false); }
void q5_1(const unsigned char* p, float* y) { q5(p, y, true); }

void int8s(const unsigned char* q, int n, float d, float* y) {
  for (int j = 0; j < n; ++j) y[j] = static_cast<float>(static_cast<int8_t>(q[j])) * d;
}
void q8_0(const unsigned char* p, float* y) { int8s(p + 2, 32, f16(p), y); }
void q8_1(const unsigned char* p, float* y) { int8s(p + 4, 32, f16(p), y); }
void q8_k(const unsigned char* p, float* y) {
  float d;
  std::memcpy(&d, p, 4);
  int8s(p + 4, 256, d, y);
}

// Q2_K and Q3_K share their walk: two halves of 128 values, each reading 32 bytes of 2-bit q at shifts 0, 2, 4, 6,
// 16 values (one sub-block) from bytes 0-15 and 16 from bytes 16-31. value(sub-block, q, index in the block).
template <class F>
void walk_2bit(const unsigned char* qs, float* y, F value) {
  int sub = 0;
  for (int half = 0; half < 2; ++half, qs += 32) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int part = 0; part < 2; ++part, ++sub) {
        for (int l = 0; l < 16; ++l, ++y) {
          const int i = part * 16 + l;
          *y = value(sub, (qs[i] >> shift) & 3, half * 32 + i, shift / 2 + half * 4);
        }
      }
    }
  }
}

void q2_k(const unsigned char* p, float* y) {
  const unsigned char* scales = p;
  const float d = f16(p + 80), dmin = f16(p + 82);
  walk_2bit(p + 16, y, [&](int sub, int q, int, int) {
    return d * static_cast<float>(scales[sub] & 0x0f) * static_cast<float>(q) -
           dmin * static_cast<float>(scales[sub] >> 4);
  });
}

void q3_k(const unsigned char* p, float* y) {
  const unsigned char* hmask = p;
  const unsigned char* packed = p + 96;
  const float d = f16(p + 108);
  // Sixteen 6-bit scales: the low 4 bits of scale i are a nibble of bytes 0-7 (low nibbles for 0-7, high for
  // 8-15), the top 2 bits come from bytes 8-11, two bits per scale.
  int scales[16];
  for (int i = 0; i < 16; ++i) {
    const int low = (packed[i % 8] >> (4 * (i / 8))) & 0x0f;
    const int high = (packed[8 + i % 4] >> (2 * (i / 4))) & 3;
    scales[i] = (low | (high << 4)) - 32;
  }
  walk_2bit(p + 32, y, [&](int sub, int q, int byte, int bit) {
    const int hi = (hmask[byte % 32] >> bit) & 1;
    return d * static_cast<float>(scales[sub]) * static_cast<float>(q - (hi ? 0 : 4));
  });
}

// Scale and min j (0-7) of Q4_K/Q5_K from their 12 packed bytes.
void scale_min_k4(int j, const unsigned char* q, int& scale, int& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4);
    min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// Q4_K and Q5_K: four groups of 64 values, each from 32 bytes of nibbles (low nibbles: sub-block 2g, high:
// 2g + 1), the fifth bit (Q5_K) from bit 2g / 2g + 1 of qh[l].
void q45_k(const unsigned char* p, float* y, const unsigned char* qh, const unsigned char* qs) {
  const float d = f16(p), dmin = f16(p + 2);
  for (int g = 0; g < 4; ++g, qs += 32) {
    for (int h = 0; h < 2; ++h) {
      int sc, m;
      scale_min_k4(2 * g + h, p + 4, sc, m);
      const float ds = d * static_cast<float>(sc), dm = dmin * static_cast<float>(m);
      for (int l = 0; l < 32; ++l, ++y) {
        int q = (qs[l] >> (4 * h)) & 0x0f;
        if (qh) q |= ((qh[l] >> (2 * g + h)) & 1) << 4;
        *y = ds * static_cast<float>(q) - dm;
      }
    }
  }
}
void q4_k(const unsigned char* p, float* y) { q45_k(p, y, nullptr, p + 16); }
void q5_k(const unsigned char* p, float* y) { q45_k(p, y, p + 16, p + 48); }

void q6_k(const unsigned char* p, float* y) {
  const unsigned char* ql = p;
  const unsigned char* qh = p + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(p + 192);
  const float d = f16(p + 208);
  for (int half = 0; half < 2; ++half, ql += 64, qh += 32, sc += 8, y += 128) {
    for (int l = 0; l < 32; ++l) {
      // Quarter k (0-3) of the 128 values: low bits from ql[l] / ql[l + 32] (low nibble for k < 2), high bits
      // from bits 2k, 2k+1 of qh[l].
      for (int k = 0; k < 4; ++k) {
        const int low = (ql[l + 32 * (k % 2)] >> (4 * (k / 2))) & 0x0f;
        const int q = (low | (((qh[l] >> (2 * k)) & 3) << 4)) - 32;
        y[l + 32 * k] = d * static_cast<float>(sc[l / 16 + 2 * k]) * static_cast<float>(q);
      }
    }
  }
}

// IQ4's non-linear grid (ggml's kvalues_iq4nl).
constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

void iq4_nl(const unsigned char* p, float* y) {
  const float d = f16(p);
  nibbles32(p + 2, y, [d](int q, int) { return d * static_cast<float>(kIq4Values[q]); });
}

void iq4_xs(const unsigned char* p, float* y) {
  const float d = f16(p);
  uint16_t scales_h;
  std::memcpy(&scales_h, p + 2, 2);
  const unsigned char* scales_l = p + 4;
  const unsigned char* qs = p + 8;
  for (int i = 0; i < 8; ++i, qs += 16, y += 32) {
    const int ls = ((scales_l[i / 2] >> (4 * (i % 2))) & 0x0f) | (((scales_h >> (2 * i)) & 3) << 4);
    const float dl = d * static_cast<float>(ls - 32);
    nibbles32(qs, y, [dl](int q, int) { return dl * static_cast<float>(kIq4Values[q]); });
  }
}

constexpr GgmlBlockType kBlockTypes[] = {
    {2, "Q4_0", 32, 18, q4_0},      {3, "Q4_1", 32, 20, q4_1},      {6, "Q5_0", 32, 22, q5_0},
    {7, "Q5_1", 32, 24, q5_1},      {8, "Q8_0", 32, 34, q8_0},      {9, "Q8_1", 32, 36, q8_1},
    {10, "Q2_K", 256, 84, q2_k},    {11, "Q3_K", 256, 110, q3_k},   {12, "Q4_K", 256, 144, q4_k},
    {13, "Q5_K", 256, 176, q5_k},   {14, "Q6_K", 256, 210, q6_k},   {15, "Q8_K", 256, 292, q8_k},
    {20, "IQ4_NL", 32, 18, iq4_nl}, {23, "IQ4_XS", 256, 136, iq4_xs},
};

}  // namespace

const GgmlBlockType* ggml_block_type(uint32_t type) {
  for (const GgmlBlockType& t : kBlockTypes)
    if (t.type == type) return &t;
  return nullptr;
}

const char* ggml_type_name(uint32_t type) {
  // ggml.h's enum ggml_type; numbers 4, 5 and 31-33, 36-38 were removed from it.
  static constexpr const char* kNames[] = {
      "F32",  "F16",     "Q4_0",  "Q4_1",  "",      "",       "Q5_0",    "Q5_1",   "Q8_0",   "Q8_1", "Q2_K",
      "Q3_K", "Q4_K",    "Q5_K",  "Q6_K",  "Q8_K",  "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S",
      "IQ2_S", "IQ4_XS", "I8",    "I16",   "I32",   "I64",    "F64",     "IQ1_M",  "BF16",   "",     "",
      "",     "TQ1_0",   "TQ2_0", "",      "",      "",       "MXFP4",   "NVFP4",  "Q1_0"};
  return type < std::size(kNames) ? kNames[type] : "";
}

const char* ggml_block_type_names() {
  return "Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K, IQ4_NL, IQ4_XS";
}

}  // namespace ember::serialize
