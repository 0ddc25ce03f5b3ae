// LibTorch's side of the latency benchmark (latency.h): a TorchScript file (torch.jit.trace, optionally
// torch.jit.freeze / optimize_for_inference, then torch.jit.save), run by torch::jit::Module::forward in
// inference mode, as a C++ deployment of PyTorch runs it.
#include "benchmarks/latency.h"

#ifdef EMBER_BENCH_WITH_LIBTORCH
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <cstring>

namespace latency {
namespace {

class TorchRunner final : public Runner {
 public:
  TorchRunner(const std::string& path, const std::vector<int64_t>& shape) : model_(torch::jit::load(path)) {
    model_.eval();
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::vector<float> v = input_values(numel);
    input_ = at::empty(shape, at::kFloat);
    std::memcpy(input_.data_ptr(), v.data(), v.size() * sizeof(float));
  }
  void set_threads(int n) override { at::set_num_threads(n); }
  std::vector<float> forward(bool want) override {
    c10::InferenceMode guard;
    c10::IValue out = model_.forward({input_});
    if (!want) return {};
    at::Tensor t = out.toTensor().contiguous();
    const float* p = t.data_ptr<float>();
    return std::vector<float>(p, p + t.numel());
  }

 private:
  torch::jit::Module model_;
  at::Tensor input_;
};

}  // namespace

std::unique_ptr<Runner> make_libtorch(const std::string& path, const std::vector<int64_t>& shape) {
  return std::make_unique<TorchRunner>(path, shape);
}

}  // namespace latency
#else
namespace latency {
std::unique_ptr<Runner> make_libtorch(const std::string&, const std::vector<int64_t>&) { return nullptr; }
}  // namespace latency
#endif
