#pragma once
// The batch-1 latency benchmark of saved models (latency_main.cpp): one interface, two implementations in
// separate translation units (latency_ember.cpp: Ember's JIT runtime; latency_libtorch.cpp: TorchScript
// through LibTorch), so no file includes both frameworks' headers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace latency {

/// A loaded model with a fixed input (a batch of Fashion-MNIST-shaped images: (batch, 1, 28, 28) for the CNN,
/// flattened (batch, 784) for the MLP), ready to run.
class Runner {
 public:
  virtual ~Runner() = default;
  /// Sets the framework's intra-op thread count.
  virtual void set_threads(int n) = 0;
  /// One forward call, in inference mode; returns the logits (batch x classes, row-major) when `want` is set.
  virtual std::vector<float> forward(bool want = false) = 0;
};

/// The deterministic input both sides get: `numel` values in [-0.8, 2.0], as normalised Fashion-MNIST pixels
/// span (row-major, whatever the shape).
std::vector<float> input_values(int64_t numel);

/// Loads an ember.jit archive (ember::jit::load) and makes its input of `shape`. Errors: std::exception from
/// the loader.
std::unique_ptr<Runner> make_ember(const std::string& path, const std::vector<int64_t>& shape);
/// Loads a TorchScript file (torch::jit::load) and makes its input of `shape`; nullptr when built without
/// LibTorch.
std::unique_ptr<Runner> make_libtorch(const std::string& path, const std::vector<int64_t>& shape);

}  // namespace latency
