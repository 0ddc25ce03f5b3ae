#pragma once
// ggml's block-quantized tensor types, dequantized to float32 when a GGUF file is read (Gguf.h).
//
// Note [ggml block types]
// A quantized tensor is a sequence of blocks, each holding `block` values in `block_bytes` bytes; a row's length
// (ne[0]) is a multiple of `block`. The layouts are ggml's (ggml-common.h of llama.cpp; every multi-byte field
// little-endian, scales float16 unless said otherwise), value = scale * quant (- or + a minimum):
//   Q4_0 (32 values, 18 bytes): d; 16 bytes of 4-bit q, value j in the low nibble of byte j, j + 16 in its high
//        nibble; x = (q - 8) d.                  Q4_1 (20): d, m, then as Q4_0 unsigned: x = q d + m.
//   Q5_0 (22): d, u32 of the fifth bits (bit j for value j), low nibbles as Q4_0; x = (q - 16) d.
//   Q5_1 (24): d, m, u32 fifth bits, nibbles; x = q d + m.       Q8_0 (34): d, 32 int8; x = q d.
//   Q8_1 (36): d, s (the block's sum, unused here), 32 int8; x = q d.
// The K-quants hold 256 values in sub-blocks of 16 or 32 with scales of their own, quantized against the block's
// float16 d (and dmin):
//   Q2_K (84): 16 bytes of sub-block scales (low nibble: scale, high: min), 64 bytes of 2-bit q, d, dmin. Each
//        half of 128 values reads 32 bytes of q four times (shift 0, 2, 4, 6), 16 values per sub-block;
//        x = d sc q - dmin m.
//   Q3_K (110): 32 bytes of high bits (hmask), 64 bytes of low 2 bits, 12 bytes packing sixteen 6-bit scales, d;
//        q as Q2_K's, minus 4 where the value's hmask bit (bit 0..7 by quarter) is clear; x = d (sc - 32) q.
//   Q4_K (144): d, dmin, 12 bytes packing eight 6-bit scales and mins (the first four in the low 6 bits of bytes
//        0-3 and 4-7, the last four in the nibbles of bytes 8-11 with their top two bits in the top bits of bytes
//        0-7), 128 bytes of 4-bit q: each 64 values take 32 bytes, low nibbles then high; x = d sc q - dmin m.
//   Q5_K (176): as Q4_K with 32 bytes of fifth bits (bits 2i and 2i+1 of byte l for the pair of sub-blocks i).
//   Q6_K (210): 128 bytes of low 4 bits, 64 bytes of high 2 bits, 16 int8 scales, d; x = d sc (q - 32), each
//        128 values laid out as Q4_K's 64 twice over.
//   Q8_K (292): float32 d, 256 int8 q, 16 int16 sums (unused); x = q d.
//   IQ4_NL (32 values, 18 bytes): d, 16 bytes of 4-bit indices into the non-linear grid kIq4Values, laid out as
//        Q4_0's; x = d grid[q].   IQ4_XS (256, 136): d, u16 of high scale bits, 4 bytes of low scale nibbles,
//        128 bytes of indices; eight sub-blocks of 32 with 6-bit scales: x = d (sc - 32) grid[q].
// ggml's other types (IQ1/IQ2/IQ3, which index grids of hundreds of entries; TQ1_0/TQ2_0; MXFP4 and later
// ones) are refused with their name. Checked against ggml's own dequantize_row_* (Q8_1, which ggml never
// dequantizes, against the format; tests/python/test_gguf_kquants.py).
#include <cstdint>

namespace ember::serialize {

/// One ggml block type: its number in ggml.h, name, values and bytes per block, and the function that writes a
/// block's `block` float32 values to out.
struct GgmlBlockType {
  uint32_t type;
  const char* name;
  uint64_t block;
  uint64_t block_bytes;
  void (*dequantize)(const unsigned char* block, float* out);
};

/// The block type numbered `type`, or nullptr when Ember does not read it (Note [ggml block types]).
const GgmlBlockType* ggml_block_type(uint32_t type);

/// Names of every block type read, comma-separated (for error messages).
const char* ggml_block_type_names();

/// ggml.h's name of type number `type` ("IQ2_XXS", ...), or "" for a number ggml does not define.
const char* ggml_type_name(uint32_t type);

}  // namespace ember::serialize
