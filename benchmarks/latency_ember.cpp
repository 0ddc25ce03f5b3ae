// Ember's side of the latency benchmark (latency.h): a model saved by ember.jit.save, run by the JIT runtime.
#include <cstring>

#include "benchmarks/latency.h"
#include "ember/api/ember.h"
#include "ember/jit/runtime/SavedModule.h"

namespace latency {
namespace {

class EmberRunner final : public Runner {
 public:
  EmberRunner(const std::string& path, const std::vector<int64_t>& shape) : model_(ember::jit::load(path)) {
    model_.eval();
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    std::vector<float> v = input_values(numel);
    input_ = ember::empty(shape, ember::kFloat32);
    std::memcpy(input_.data_ptr(), v.data(), v.size() * sizeof(float));
  }
  void set_threads(int n) override { ember::set_num_threads(n); }
  std::vector<float> forward(bool want) override {
    ember::InferenceMode guard;
    ember::IValue out = model_.forward({input_});
    if (!want) return {};
    ember::Tensor t = out.to_tensor().contiguous();
    const float* p = t.data_ptr<float>();
    return std::vector<float>(p, p + t.numel());
  }

 private:
  ember::jit::Module model_;
  ember::Tensor input_;
};

}  // namespace

std::unique_ptr<Runner> make_ember(const std::string& path, const std::vector<int64_t>& shape) {
  return std::make_unique<EmberRunner>(path, shape);
}

}  // namespace latency
