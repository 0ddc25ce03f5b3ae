// The C++ half of tests/python/test_cpp_state_dict.py: a model built with ember::nn that reads state dicts
// written by Python's ember.save(model.state_dict(), path) and writes its own for Python to read.
//
//   nn_state_dict_roundtrip load <state.ember> <input.ember> <out_dir>
//       loads the state dict into the model (strict), then writes <out_dir>/output.ember (the eval-mode forward
//       of the input) and <out_dir>/state.ember (ember::save of the model)
//   nn_state_dict_roundtrip init <seed> <input.ember> <out_dir>
//       builds the model under ember::manual_seed(seed) and writes the same two files
//
// The model is tests/python/test_cpp_state_dict.py's Net: Embedding(6, 4, padding_idx=0), then
// Sequential(Flatten, Linear(8, 5), Dropout(0.2), Linear(5, 3)) as `body`, a buffer `calls`.
// Errors go to stderr with exit status 1.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "ember/api/ember.h"

namespace {

using namespace ember;

struct NetImpl : nn::Module {
  NetImpl() {
    emb = register_module("emb", nn::Embedding(nn::EmbeddingOptions(6, 4).padding_idx(0)));
    body = register_module("body", nn::Sequential(nn::Flatten(), nn::Linear(8, 5), nn::Dropout(0.2), nn::Linear(5, 3)));
    register_buffer("calls", ember::zeros({}, kInt64));
  }
  /// indices: (N, 2) int64 -> (N, 3)
  Tensor forward(const Tensor& indices) { return body(emb(indices)); }
  nn::Embedding emb{nullptr};
  nn::Sequential body{nullptr};
};
EMBER_MODULE(Net);

void run(Net& net, const std::string& input_path, const std::string& out_dir) {
  net->eval();
  const Tensor input = serialize::load(input_path).to_tensor();
  Tensor output;
  {
    autograd::NoGradGuard no_grad;
    output = net(input);
  }
  serialize::save(IValue(output), out_dir + "/output.ember");
  ember::save(net, out_dir + "/state.ember");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc == 5 ? argv[1] : "";
    if (mode == "load") {
      Net net;
      ember::load(net, argv[2]);
      run(net, argv[3], argv[4]);
    } else if (mode == "init") {
      ember::manual_seed(std::stoull(argv[2]));
      Net net;
      run(net, argv[3], argv[4]);
    } else {
      std::cerr << "usage: " << argv[0] << " load <state.ember> <input.ember> <out_dir>\n"
                << "       " << argv[0] << " init <seed> <input.ember> <out_dir>\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
