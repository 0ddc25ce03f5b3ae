// A feed-forward network on (Fashion-)MNIST in the style of the pyember-cpp tutorials
// (basics/feedforward_neural_network): a EMBER_MODULE with two linear layers, Adam, checkpointing.
// Arguments: the data folder (uncompressed IDX files). MAX_BATCHES in the environment limits training.
#include <ember/ember.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

class NeuralNetImpl : public ember::nn::Module {
 public:
  NeuralNetImpl(int64_t input_size, int64_t hidden_size, int64_t num_classes)
      : fc1(input_size, hidden_size), fc2(hidden_size, num_classes) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  ember::Tensor forward(ember::Tensor x) {
    x = ember::nn::functional::relu(fc1->forward(x));
    return fc2->forward(x);
  }

 private:
  ember::nn::Linear fc1;
  ember::nn::Linear fc2;
};

EMBER_MODULE(NeuralNet);

int main(int argc, char** argv) {
  std::cout << "FeedForward Neural Network\n\n";
  const std::string MNIST_data_path = argc > 1 ? argv[1] : "../../../../data/mnist/";
  const char* limit = std::getenv("MAX_BATCHES");
  const size_t max_batches = limit ? std::strtoul(limit, nullptr, 10) : 0;
  ember::manual_seed(42);

  // Device
  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t input_size = 784;
  const int64_t hidden_size = 500;
  const int64_t num_classes = 10;
  const int64_t batch_size = 100;
  const size_t num_epochs = 1;
  const double learning_rate = 0.001;

  // MNIST Dataset
  auto train_dataset = ember::data::datasets::MNIST(MNIST_data_path)
                           .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(ember::data::transforms::Stack<>());
  auto num_train_samples = train_dataset.size().value();
  auto test_dataset = ember::data::datasets::MNIST(MNIST_data_path, ember::data::datasets::MNIST::Mode::kTest)
                          .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(ember::data::transforms::Stack<>());
  auto num_test_samples = test_dataset.size().value();

  // Data loaders
  auto train_loader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(
      std::move(train_dataset), batch_size);
  auto test_loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
      std::move(test_dataset), batch_size);

  // Neural Network model
  NeuralNet model(input_size, hidden_size, num_classes);
  model->to(device);

  // Optimizer
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(learning_rate));

  // Set floating point output precision
  std::cout << std::fixed << std::setprecision(4);

  std::cout << "Training...\n";

  // Train the model
  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    double running_loss = 0.0;
    size_t num_correct = 0, seen = 0, batches = 0;

    for (auto& batch : *train_loader) {
      auto data = batch.data.view({batch_size, -1}).to(device);
      auto target = batch.target.to(device);

      auto output = model->forward(data);
      auto loss = ember::nn::functional::cross_entropy(output, target);
      running_loss += loss.item<double>() * data.size(0);
      auto prediction = output.argmax(1);
      num_correct += prediction.eq(target).sum().item<int64_t>();

      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      seen += data.size(0);
      if (max_batches != 0 && ++batches >= max_batches) break;
    }

    auto sample_mean_loss = running_loss / seen;
    auto accuracy = static_cast<double>(num_correct) / seen;

    std::cout << "Epoch [" << (epoch + 1) << "/" << num_epochs << "], Trainset - Loss: " << sample_mean_loss
              << ", Accuracy: " << accuracy << " (" << seen << " of " << num_train_samples << " samples)\n";
  }

  std::cout << "Training finished!\n\n";

  // Save the model and its optimizer, then restore them into fresh ones.
  ember::save(model, "feedforward_net.pt");
  ember::save(optimizer, "feedforward_net_optimizer.pt");
  NeuralNet restored(input_size, hidden_size, num_classes);
  ember::load(restored, "feedforward_net.pt");

  std::cout << "Testing...\n";

  // Test the model
  restored->eval();
  ember::NoGradGuard no_grad;

  double running_loss = 0.0;
  size_t num_correct = 0;

  for (const auto& batch : *test_loader) {
    auto data = batch.data.view({batch_size, -1}).to(device);
    auto target = batch.target.to(device);

    auto output = restored->forward(data);
    EMBER_CHECK(ember::equal(output, model->forward(data)), "the restored model computes other values");
    auto loss = ember::nn::functional::cross_entropy(output, target);
    running_loss += loss.item<double>() * data.size(0);
    auto prediction = output.argmax(1);
    num_correct += prediction.eq(target).sum().item<int64_t>();
  }

  std::cout << "Testing finished!\n";

  auto test_accuracy = static_cast<double>(num_correct) / num_test_samples;
  auto test_sample_mean_loss = running_loss / num_test_samples;

  std::cout << "Testset - Loss: " << test_sample_mean_loss << ", Accuracy: " << test_accuracy << '\n';
}
