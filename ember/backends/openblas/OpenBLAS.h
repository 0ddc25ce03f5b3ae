#pragma once
// OpenBLAS as a provider of the GEMM of Note [gemm] (Note [providers]): float32 and float64 products run as
// one BLAS call per matrix — gemm, or gemv when one side is a vector, or dot for 1x1 results — with
// transposed operands passed through BLAS's trans flags and any other layout packed first. Linked directly
// against Debian's libopenblas-openmp (the OpenMP build, whose threads follow ember::set_num_threads), never
// through the system's libblas.so.3 choice. The provider is called "blas": in Python,
// `ember.backends.blas.enabled = False` switches it off.
#include <string>

namespace ember::backends::blas {

/// Registers OpenBLAS's kernels (run once by ember::init()).
void register_provider();

/// Whether OpenBLAS serves the matrix products it supports (on by default).
bool enabled();
/// Switches OpenBLAS off (every product then runs the reference kernel) or on again.
void set_enabled(bool on);

/// OpenBLAS's build configuration as it reports it, e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen
/// MAX_THREADS=64", followed by the core it chose and the path of the loaded library.
std::string config();

}  // namespace ember::backends::blas
