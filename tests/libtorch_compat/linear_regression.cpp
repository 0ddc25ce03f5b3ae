// Linear regression in the style of the pyember-cpp tutorials (basics/linear_regression).
#include <ember/ember.h>

#include <iomanip>
#include <iostream>

int main() {
  std::cout << "Linear Regression\n\n";

  // Device
  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t input_size = 1;
  const int64_t output_size = 1;
  const size_t num_epochs = 60;
  const double learning_rate = 0.001;

  // Sample dataset
  auto x_train = ember::randint(0, 10, {15, 1}, ember::TensorOptions(ember::kFloat).device(device));
  auto y_train = ember::randint(0, 10, {15, 1}, ember::TensorOptions(ember::kFloat).device(device));

  // Linear regression model
  ember::nn::Linear model(input_size, output_size);
  model->to(device);

  // Optimizer
  ember::optim::SGD optimizer(model->parameters(), ember::optim::SGDOptions(learning_rate));

  // Set floating point output precision
  std::cout << std::fixed << std::setprecision(4);

  std::cout << "Training...\n";

  // Train the model
  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    // Forward pass
    auto output = model->forward(x_train);
    auto loss = ember::nn::functional::mse_loss(output, y_train);

    // Backward pass and optimize
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();

    if ((epoch + 1) % 5 == 0) {
      std::cout << "Epoch [" << (epoch + 1) << "/" << num_epochs << "], Loss: " << loss.item<double>() << "\n";
    }
  }

  std::cout << "Training finished!\n";
  std::cout << "weight " << model->weight << "\nbias " << model->bias << '\n';
}
