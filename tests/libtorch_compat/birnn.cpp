// Recurrent classifiers that read an image row by row, in the style of the pyember-cpp tutorials
// (intermediate/bidirectional_recurrent_neural_network): a 2-layer bidirectional LSTM, and a GRU with dropout
// between its layers. Arguments: the data folder (uncompressed IDX files). MAX_BATCHES limits training.
#include <ember/ember.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

using ember::indexing::Slice;

class BiRNNImpl : public ember::nn::Module {
 public:
  BiRNNImpl(int64_t input_size, int64_t hidden_size, int64_t num_layers, int64_t num_classes)
      : lstm(ember::nn::LSTMOptions(input_size, hidden_size).num_layers(num_layers).batch_first(true)
                 .bidirectional(true)),
        fc(hidden_size * 2, num_classes) {
    register_module("lstm", lstm);
    register_module("fc", fc);
  }

  ember::Tensor forward(ember::Tensor x) {
    auto out = std::get<0>(lstm->forward(x));  // (batch, sequence, 2 * hidden)
    auto out_directions = out.chunk(2, 2);
    // Last hidden state of the forward direction, first of the backward direction
    auto out_1 = out_directions[0].index({Slice(), -1, Slice()});
    auto out_2 = out_directions[1].index({Slice(), 0, Slice()});
    auto out_cat = ember::cat({out_1, out_2}, 1);
    return fc->forward(out_cat);
  }

 private:
  ember::nn::LSTM lstm;
  ember::nn::Linear fc;
};
EMBER_MODULE(BiRNN);

struct GRUNetImpl : ember::nn::Module {
  GRUNetImpl(int64_t input_size, int64_t hidden_size, int64_t num_classes)
      : gru(register_module("gru", ember::nn::GRU(ember::nn::GRUOptions(input_size, hidden_size)
                                                          .num_layers(2)
                                                          .batch_first(true)
                                                          .dropout(0.2)))),
        fc(register_module("fc", ember::nn::Linear(hidden_size, num_classes))) {}

  ember::Tensor forward(ember::Tensor x) {
    ember::Tensor output, h_n;
    std::tie(output, h_n) = gru->forward(x);
    return fc->forward(h_n[-1]);  // the last layer's final state
  }

  ember::nn::GRU gru;
  ember::nn::Linear fc;
};
EMBER_MODULE(GRUNet);

template <typename Model, typename Loader>
void train_and_test(const std::string& name, Model model, Loader& train_loader, Loader& test_loader,
                    size_t max_batches) {
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(0.003));
  std::cout << name << ": " << model << '\n';
  model->train();
  size_t batches = 0;
  double running_loss = 0;
  for (auto& batch : *train_loader) {
    auto data = batch.data.view({-1, 28, 28});
    auto output = model->forward(data);
    auto loss = ember::nn::functional::cross_entropy(output, batch.target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    running_loss += loss.template item<double>();
    if (max_batches != 0 && ++batches >= max_batches) break;
  }
  model->eval();
  ember::NoGradGuard no_grad;
  int64_t correct = 0, total = 0;
  for (auto& batch : *test_loader) {
    auto output = model->forward(batch.data.view({-1, 28, 28}));
    correct += output.argmax(1).eq(batch.target).sum().template item<int64_t>();
    total += batch.target.size(0);
    if (total >= 1000) break;
  }
  std::cout << name << ": mean train loss " << running_loss / batches << ", test accuracy "
            << static_cast<double>(correct) / total << " on " << total << " images\n";
}

int main(int argc, char** argv) {
  const std::string data_path = argc > 1 ? argv[1] : "../../../../data/mnist/";
  const char* limit = std::getenv("MAX_BATCHES");
  const size_t max_batches = limit ? std::strtoul(limit, nullptr, 10) : 0;
  ember::manual_seed(2);
  std::cout << std::fixed << std::setprecision(4);

  auto train_loader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(
      ember::data::datasets::MNIST(data_path)
          .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(ember::data::transforms::Stack<>()),
      100);
  auto test_loader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(
      ember::data::datasets::MNIST(data_path, ember::data::datasets::MNIST::Mode::kTest)
          .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(ember::data::transforms::Stack<>()),
      100);

  train_and_test("BiRNN", BiRNN(28, 64, 2, 10), train_loader, test_loader, max_batches);
  train_and_test("GRUNet", GRUNet(28, 64, 10), train_loader, test_loader, max_batches);
}
