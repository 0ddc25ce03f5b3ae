// A convolutional network on (Fashion-)MNIST in the style of the pyember-cpp tutorials
// (intermediate/convolutional_neural_network): Sequential blocks of Conv2d, BatchNorm2d, ReLU, MaxPool2d.
// Arguments: the data folder (uncompressed IDX files). MAX_BATCHES in the environment limits training.
#include <ember/ember.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

class ConvNetImpl : public ember::nn::Module {
 public:
  explicit ConvNetImpl(int64_t num_classes = 10)
      : fc(7 * 7 * 32, num_classes) {
    register_module("layer1", layer1);
    register_module("layer2", layer2);
    register_module("pool", pool);
    register_module("fc", fc);
  }

  ember::Tensor forward(ember::Tensor x) {
    x = layer1->forward(x);
    x = layer2->forward(x);
    x = pool->forward(x);
    x = x.view({-1, 7 * 7 * 32});
    return fc->forward(x);
  }

 private:
  ember::nn::Sequential layer1{ember::nn::Conv2d(ember::nn::Conv2dOptions(1, 16, 5).stride(1).padding(2)),
                               ember::nn::BatchNorm2d(16), ember::nn::ReLU(),
                               ember::nn::MaxPool2d(ember::nn::MaxPool2dOptions(2).stride(2))};

  ember::nn::Sequential layer2{ember::nn::Conv2d(ember::nn::Conv2dOptions(16, 32, 5).stride(1).padding(2)),
                               ember::nn::BatchNorm2d(32), ember::nn::ReLU(),
                               ember::nn::MaxPool2d(ember::nn::MaxPool2dOptions(2).stride(2))};

  ember::nn::AdaptiveAvgPool2d pool{ember::nn::AdaptiveAvgPool2dOptions({7, 7})};

  ember::nn::Linear fc;
};

EMBER_MODULE(ConvNet);

int main(int argc, char** argv) {
  std::cout << "Convolutional Neural Network\n\n";
  const std::string MNIST_data_path = argc > 1 ? argv[1] : "../../../../data/mnist/";
  const char* limit = std::getenv("MAX_BATCHES");
  const size_t max_batches = limit ? std::strtoul(limit, nullptr, 10) : 0;
  ember::manual_seed(7);

  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t num_classes = 10;
  const int64_t batch_size = 100;
  const size_t num_epochs = 1;
  const double learning_rate = 0.001;

  auto train_dataset = ember::data::datasets::MNIST(MNIST_data_path)
                           .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(ember::data::transforms::Stack<>());
  auto num_train_samples = train_dataset.size().value();
  auto test_dataset = ember::data::datasets::MNIST(MNIST_data_path, ember::data::datasets::MNIST::Mode::kTest)
                          .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(ember::data::transforms::Stack<>());
  auto num_test_samples = test_dataset.size().value();

  auto train_loader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(
      std::move(train_dataset), batch_size);
  auto test_loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
      std::move(test_dataset), batch_size);

  // Model
  ConvNet model(num_classes);
  model->to(device);
  std::cout << model << '\n';

  // Optimizer
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(learning_rate));

  std::cout << std::fixed << std::setprecision(4);
  std::cout << "Training...\n";

  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    double running_loss = 0.0;
    size_t num_correct = 0, seen = 0, batches = 0;

    for (auto& batch : *train_loader) {
      auto data = batch.data.to(device);
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

    std::cout << "Epoch [" << (epoch + 1) << "/" << num_epochs << "], Trainset - Loss: " << running_loss / seen
              << ", Accuracy: " << static_cast<double>(num_correct) / seen << " (" << seen << " of "
              << num_train_samples << ")\n";
  }

  std::cout << "Training finished!\n\n";
  std::cout << "Testing...\n";

  model->eval();
  ember::NoGradGuard no_grad;

  double running_loss = 0.0;
  size_t num_correct = 0;

  for (const auto& batch : *test_loader) {
    auto data = batch.data.to(device);
    auto target = batch.target.to(device);

    auto output = model->forward(data);
    auto loss = ember::nn::functional::cross_entropy(output, target);
    running_loss += loss.item<double>() * data.size(0);
    auto prediction = output.argmax(1);
    num_correct += prediction.eq(target).sum().item<int64_t>();
  }

  std::cout << "Testing finished!\n";
  std::cout << "Testset - Loss: " << running_loss / num_test_samples
            << ", Accuracy: " << static_cast<double>(num_correct) / num_test_samples << '\n';

  // The state dict, as the named parameters and buffers.
  for (const auto& pair : model->named_parameters()) std::cout << pair.key() << ": " << pair.value().sizes() << '\n';
  for (const auto& pair : model->named_buffers()) std::cout << pair.key() << ": " << pair.value().sizes() << '\n';
}
