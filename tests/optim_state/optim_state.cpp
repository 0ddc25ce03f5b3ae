// ember_optim_state: runs optimizer steps from C++ for tests/python/test_cpp_optim_state.py, which checks that
// optimizer state crosses between Python's ember.optim and ember::optim in both directions.
//
//   ember_optim_state <in.ember> <out.ember>
//
// in.ember (written by Python's ember.save): {"optimizer": "SGD" | "Adam" | "AdamW" | "RMSprop",
//   "options": {keyword arguments}, "group1_lr": None | float, "params": [tensors], "grads": [[tensor | None
//   per parameter] per step], "state_dict": None | a state dict to load first (saved by Python)}.
// out.ember: [the parameters after the steps] (ember::serialize::save), and <out.ember>.optim: the optimizer's
// state, written by ember::save(optimizer, path) for Python's ember.load.
#include <cstdio>
#include <exception>

#include "OptimizerFromOptions.h"

namespace {

const ember::IValue& entry(const ember::IValue& dict, const std::string& key) {
  for (const auto& [k, v] : dict.to_dict())
    if (k.is_string() && k.to_string() == key) return v;
  throw std::runtime_error("ember_optim_state: the input has no entry '" + key + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <in.ember> <out.ember>\n", argv[0]);
    return 2;
  }
  try {
    const ember::IValue in = ember::serialize::load(argv[1]);
    std::vector<ember::Tensor> params;
    for (const ember::IValue& p : entry(in, "params").to_list()) {
      ember::Tensor t = p.to_tensor().clone();
      ember::autograd::set_requires_grad(t, true);
      params.push_back(t);
    }
    auto opt = ember::optim::testing::make_optimizer(entry(in, "optimizer").to_string(), entry(in, "options"), params,
                                                     entry(in, "group1_lr"));
    if (!entry(in, "state_dict").is_none()) opt->load_state_dict(entry(in, "state_dict"));
    for (const ember::IValue& grads : entry(in, "grads").to_list()) {
      const auto& g = grads.to_list();
      for (size_t i = 0; i < params.size(); ++i)
        ember::autograd::set_grad(params[i], g[i].is_none() ? ember::Tensor() : g[i].to_tensor());
      opt->step();
    }
    std::vector<ember::IValue> out_params;
    for (const ember::Tensor& p : params) out_params.emplace_back(p.detach());
    ember::serialize::save(ember::IValue::list(std::move(out_params)), argv[2]);
    ember::save(*opt, std::string(argv[2]) + ".optim");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember_optim_state: %s\n", e.what());
    return 1;
  }
  return 0;
}
