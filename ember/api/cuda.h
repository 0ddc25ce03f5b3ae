#pragma once
// ember::cuda (LibTorch's torch::cuda): Ember runs on the CPU only, so these answer "no GPU" and ported code
// takes its CPU path:
//
//   ember::Device device(ember::cuda::is_available() ? ember::kCUDA : ember::kCPU);   // the CPU
//   model->to(device);
#include <cstddef>
#include <cstdint>

namespace ember::cuda {

/// False: Ember has no CUDA backend (as Python's ember.cuda.is_available()).
inline bool is_available() noexcept { return false; }
/// 0: no CUDA devices (as Python's ember.cuda.device_count()).
inline std::size_t device_count() noexcept { return 0; }
/// False: no cuDNN either (LibTorch's torch::cuda::cudnn_is_available()).
inline bool cudnn_is_available() noexcept { return false; }
/// Does nothing: there are no CUDA generators to seed (LibTorch's torch::cuda::manual_seed, which likewise does
/// nothing without CUDA). Seed the CPU generator with ember::manual_seed.
inline void manual_seed(uint64_t /*seed*/) noexcept {}
/// Does nothing, as manual_seed.
inline void manual_seed_all(uint64_t /*seed*/) noexcept {}

}  // namespace ember::cuda
