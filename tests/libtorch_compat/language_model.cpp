// A word-level LSTM language model in the style of the pyember-cpp tutorials (intermediate/language_model):
// a Dictionary and Corpus read from a text file, Embedding -> LSTM -> Linear, truncated backpropagation through
// time with detached states, gradient clipping, perplexity, and sampling. Arguments: the text file.
// MAX_BATCHES in the environment limits the training steps per epoch.
#include <ember/ember.h>

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

class Dictionary {
 public:
  int64_t add_word(const std::string& word) {
    auto found = word_to_index_.find(word);
    if (found != word_to_index_.end()) return found->second;
    int64_t index = static_cast<int64_t>(index_to_word_.size());
    word_to_index_[word] = index;
    index_to_word_.push_back(word);
    return index;
  }
  const std::string& word_at_index(int64_t index) const { return index_to_word_.at(index); }
  int64_t size() const { return static_cast<int64_t>(index_to_word_.size()); }

 private:
  std::unordered_map<std::string, int64_t> word_to_index_;
  std::vector<std::string> index_to_word_;
};

class Corpus {
 public:
  explicit Corpus(const std::string& path) : path_(path) {}

  // Reads the file, adds its words (and an end-of-line marker per line) to the dictionary, and returns the
  // word ids split into batch_size rows.
  ember::Tensor get_data(int64_t batch_size) {
    std::ifstream file(path_);
    EMBER_CHECK(file, "Could not open ", path_);
    std::vector<int64_t> ids;
    std::string line, word;
    while (std::getline(file, line)) {
      std::istringstream words(line + " <eos>");
      while (words >> word) ids.push_back(dictionary_.add_word(word));
    }
    auto num_batches = static_cast<int64_t>(ids.size()) / batch_size;
    return ember::tensor(ids).narrow(0, 0, num_batches * batch_size).view({batch_size, -1});
  }

  const Dictionary& get_dictionary() const { return dictionary_; }

 private:
  std::string path_;
  Dictionary dictionary_;
};

class RNNLMImpl : public ember::nn::Module {
 public:
  RNNLMImpl(int64_t vocab_size, int64_t embed_size, int64_t hidden_size, int64_t num_layers, double dropout)
      : embed(vocab_size, embed_size),
        lstm(ember::nn::LSTMOptions(embed_size, hidden_size).num_layers(num_layers).batch_first(true)
                 .dropout(dropout)),
        linear(hidden_size, vocab_size) {
    register_module("embed", embed);
    register_module("lstm", lstm);
    register_module("linear", linear);
  }

  std::tuple<ember::Tensor, std::tuple<ember::Tensor, ember::Tensor>> forward(
      ember::Tensor x, std::tuple<ember::Tensor, ember::Tensor> hx) {
    // Embed word ids to vectors
    auto x_embed = embed->forward(x);
    // Forward propagate LSTM
    auto lstm_out = lstm->forward(x_embed, hx);
    auto out = std::get<0>(lstm_out);
    auto state = std::get<1>(lstm_out);
    // Reshape output to (batch_size * sequence_length, hidden_size)
    out = out.reshape({-1, out.size(2)});
    // Decode hidden states of all time steps
    out = linear->forward(out);
    return std::make_tuple(out, state);
  }

 private:
  ember::nn::Embedding embed;
  ember::nn::LSTM lstm;
  ember::nn::Linear linear;
};

EMBER_MODULE(RNNLM);

int main(int argc, char** argv) {
  std::cout << "Language Model\n\n";
  const std::string data_path = argc > 1 ? argv[1] : "../../../../data/penntreebank/train.txt";
  const char* limit = std::getenv("MAX_BATCHES");
  const int64_t max_batches = limit ? std::atol(limit) : 0;
  ember::manual_seed(11);

  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t embed_size = 64;
  const int64_t hidden_size = 128;
  const int64_t num_layers = 2;
  const int64_t num_samples = 20;  // the number of words to be sampled
  const int64_t batch_size = 10;
  const int64_t sequence_length = 20;
  const size_t num_epochs = 2;
  const double learning_rate = 0.002;

  // Load the text data
  Corpus corpus(data_path);
  auto ids = corpus.get_data(batch_size);
  auto vocab_size = corpus.get_dictionary().size();
  std::cout << "vocabulary: " << vocab_size << " words, data " << ids.sizes() << '\n';

  // Split the data into a training part and a held-out part (the last tenth of each row)
  auto held_out_length = ids.size(1) / 10;
  auto train_ids = ids.narrow(1, 0, ids.size(1) - held_out_length);
  auto valid_ids = ids.narrow(1, ids.size(1) - held_out_length, held_out_length);

  // Model
  RNNLM model(vocab_size, embed_size, hidden_size, num_layers, 0.2);
  model->to(device);

  // Optimizer
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(learning_rate));

  std::cout << std::fixed << std::setprecision(4);
  std::cout << "Training...\n";

  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    model->train();
    double running_loss = 0.0;
    int64_t steps = 0;

    // Set initial hidden- and cell-states (stacked into one tensor)
    auto state = std::make_tuple(ember::zeros({num_layers, batch_size, hidden_size}, device),
                                 ember::zeros({num_layers, batch_size, hidden_size}, device));

    for (int64_t i = 0; i + 1 < train_ids.size(1); i += sequence_length) {
      auto length = std::min(sequence_length, train_ids.size(1) - 1 - i);
      // Transfer data and target labels to device
      auto data = train_ids.narrow(1, i, length).to(device);
      auto target = train_ids.narrow(1, i + 1, length).reshape(-1).to(device);

      // Truncated backpropagation: detach the states from the previous chunk
      state = std::make_tuple(std::get<0>(state).detach(), std::get<1>(state).detach());

      // Forward pass
      auto [output, new_state] = model->forward(data, state);
      state = new_state;

      // Calculate the loss
      auto loss = ember::nn::functional::cross_entropy(output, target);
      running_loss += loss.item<double>();
      ++steps;

      // Backward pass and optimize
      optimizer.zero_grad();
      loss.backward();
      ember::nn::utils::clip_grad_norm_(model->parameters(), 0.5);
      optimizer.step();
      if (max_batches != 0 && steps >= max_batches) break;
    }

    // Perplexity on the held-out words
    model->eval();
    ember::NoGradGuard no_grad;
    auto valid_state = std::make_tuple(ember::zeros({num_layers, batch_size, hidden_size}, device),
                                       ember::zeros({num_layers, batch_size, hidden_size}, device));
    auto valid_output = model->forward(valid_ids.narrow(1, 0, valid_ids.size(1) - 1), valid_state);
    auto valid_loss = ember::nn::functional::cross_entropy(
        std::get<0>(valid_output), valid_ids.narrow(1, 1, valid_ids.size(1) - 1).reshape(-1));

    std::cout << "Epoch [" << epoch + 1 << "/" << num_epochs << "], Train loss: " << running_loss / steps
              << ", Train perplexity: " << std::exp(running_loss / steps)
              << ", Held-out perplexity: " << std::exp(valid_loss.item<double>()) << '\n';
  }

  std::cout << "Training finished!\n\n";
  std::cout << "Generating samples...\n";

  model->eval();
  ember::NoGradGuard no_grad;

  // Initialize hidden- and cell-states for a batch of one
  auto state = std::make_tuple(ember::zeros({num_layers, 1, hidden_size}, device),
                               ember::zeros({num_layers, 1, hidden_size}, device));

  // Select one word id randomly and convert it to shape (1,1)
  auto input = ember::randint(0, vocab_size, {1}, ember::kLong).unsqueeze(1).to(device);

  std::string text;
  for (int64_t i = 0; i != num_samples; ++i) {
    // Forward propagate RNN
    auto [output, new_state] = model->forward(input, state);
    state = new_state;

    // Sample a word id from the exponentiated output distribution
    auto prob = output.exp();
    auto word_id = prob.multinomial(1).item();
    // Fill input with sampled word id for the next time step
    input.fill_(word_id);

    // Write the results to the text
    auto word = corpus.get_dictionary().word_at_index(word_id.toLong());
    text += word == "<eos>" ? "\n" : word + " ";
  }
  std::cout << text << "\n";
}
