#pragma once
// oneDNN (Debian's libdnnl, the OpenMP build) as a provider (Note [providers]), called "onednn": in Python
// `ember.backends.onednn.enabled = False` switches it off.
//
// Note [onednn gemm]
// oneDNN's sgemm picks its kernel from the instruction sets the CPU reports (AVX-512 where present), while
// OpenBLAS follows OPENBLAS_CORETYPE when it is set (this machine pins it to Haswell, AVX2): on the training
// step's shapes oneDNN's sgemm takes 0.45-0.55x OpenBLAS's time (BENCHMARKS.md, "GEMM").
// So float32 matrix products with m, n > 1 go to oneDNN first (priority 200, above OpenBLAS's 100);
// matrix-vector products and dots stay with OpenBLAS's gemv/dot, and float64 (oneDNN has no dgemm) too.
// Results differ from OpenBLAS's only in the order of the float32 sums.
// oneDNN also serves float32 convolutions (Note [onednn conv] in Convolution.cpp).
#include <string>

namespace ember::backends::onednn {

/// Registers oneDNN's kernels (run once by ember::init()).
void register_provider();

/// Whether oneDNN serves the calls it supports (on by default).
bool enabled();
/// Switches oneDNN off (the next provider or the reference kernel then runs) or on again.
void set_enabled(bool on);

/// oneDNN's version, e.g. "oneDNN 2.6.3 (cpu runtime OpenMP, ISA ...)", and the path of the loaded library.
std::string config();

}  // namespace ember::backends::onednn
