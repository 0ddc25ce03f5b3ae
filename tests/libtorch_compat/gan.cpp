// A fully connected GAN on (Fashion-)MNIST in the style of the pyember-cpp tutorials
// (advanced/generative_adversarial_network). Arguments: the data folder (uncompressed IDX files).
// MAX_BATCHES in the environment limits training.
#include <ember/ember.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

ember::Tensor denorm(ember::Tensor tensor) { return tensor.add(1).div_(2).clamp_(0, 1); }

int main(int argc, char** argv) {
  std::cout << "Generative Adversarial Network\n\n";
  const std::string MNIST_data_path = argc > 1 ? argv[1] : "../../../../data/mnist/";
  const char* limit = std::getenv("MAX_BATCHES");
  const size_t max_batches = limit ? std::strtoul(limit, nullptr, 10) : 0;
  ember::manual_seed(3);

  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t latent_size = 64;
  const int64_t hidden_size = 256;
  const int64_t image_size = 28 * 28;
  const int64_t batch_size = 100;
  const size_t num_epochs = 1;
  const double learning_rate = 0.0002;

  auto dataset = ember::data::datasets::MNIST(MNIST_data_path)
                     .map(ember::data::transforms::Normalize<>(0.5, 0.5))
                     .map(ember::data::transforms::Stack<>());
  auto num_samples = dataset.size().value();
  auto dataloader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(std::move(dataset),
                                                                                        batch_size);

  // Model
  // - Discriminator
  ember::nn::Sequential D{ember::nn::Linear(image_size, hidden_size),
                          ember::nn::LeakyReLU(ember::nn::LeakyReLUOptions().negative_slope(0.2)),
                          ember::nn::Linear(hidden_size, hidden_size),
                          ember::nn::LeakyReLU(ember::nn::LeakyReLUOptions().negative_slope(0.2)),
                          ember::nn::Linear(hidden_size, 1), ember::nn::Sigmoid()};

  // - Generator
  ember::nn::Sequential G{ember::nn::Linear(latent_size, hidden_size), ember::nn::ReLU(),
                          ember::nn::Linear(hidden_size, hidden_size), ember::nn::ReLU(),
                          ember::nn::Linear(hidden_size, image_size), ember::nn::Tanh()};

  D->to(device);
  G->to(device);

  // Optimizers
  ember::optim::Adam d_optimizer(D->parameters(), ember::optim::AdamOptions(learning_rate));
  ember::optim::Adam g_optimizer(G->parameters(), ember::optim::AdamOptions(learning_rate));

  ember::nn::BCELoss criterion;

  std::cout << std::fixed << std::setprecision(4);
  std::cout << "Training...\n";

  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    ember::Tensor images;
    ember::Tensor fake_images;
    size_t batch_index = 0;

    for (auto& batch : *dataloader) {
      images = batch.data.reshape({batch_size, -1}).to(device);

      // Create the labels which are later used as input for the loss
      auto real_labels = ember::ones({batch_size, 1}).to(device);
      auto fake_labels = ember::zeros({batch_size, 1}).to(device);

      // ================================================================== #
      //                      Train the discriminator                       #
      // ================================================================== #

      // Compute binary cross entropy loss using real images where binary cross entropy loss is
      auto outputs = D->forward(images);
      auto d_loss_real = criterion(outputs, real_labels);
      auto real_score = outputs;

      // Compute binary cross entropy loss using fake images
      auto z = ember::randn({batch_size, latent_size}).to(device);
      fake_images = G->forward(z);
      outputs = D->forward(fake_images);
      auto d_loss_fake = criterion(outputs, fake_labels);
      auto fake_score = outputs;

      auto d_loss = d_loss_real + d_loss_fake;

      // Backward pass and optimize
      d_optimizer.zero_grad();
      d_loss.backward();
      d_optimizer.step();

      // ================================================================== #
      //                        Train the generator                         #
      // ================================================================== #

      // Compute loss with fake images
      z = ember::randn({batch_size, latent_size}).to(device);
      fake_images = G->forward(z);
      outputs = D->forward(fake_images);

      auto g_loss = criterion(outputs, real_labels);

      // Backward pass and optimize
      g_optimizer.zero_grad();
      g_loss.backward();
      g_optimizer.step();

      if ((batch_index + 1) % 20 == 0) {
        std::cout << "Epoch [" << epoch << "/" << num_epochs << "], Step [" << batch_index + 1 << "/"
                  << num_samples / batch_size << "], d_loss: " << d_loss.item<double>()
                  << ", g_loss: " << g_loss.item<double>() << ", D(x): " << real_score.mean().item<double>()
                  << ", D(G(z)): " << fake_score.mean().item<double>() << "\n";
      }

      ++batch_index;
      if (max_batches != 0 && batch_index >= max_batches) break;
    }
    // Save the real and generated images, denormalized to [0, 1], as tensors.
    if (epoch == 0) ember::save(denorm(images.reshape({images.size(0), 1, 28, 28})), "real_images.pt");
    ember::save(denorm(fake_images.reshape({fake_images.size(0), 1, 28, 28})),
                "fake_images-" + std::to_string(epoch + 1) + ".pt");
  }

  std::cout << "Training finished!\n";
  ember::Tensor fake;
  ember::load(fake, "fake_images-1.pt");
  std::cout << "fake images " << fake.sizes() << " in [" << fake.min().item<float>() << ", "
            << fake.max().item<float>() << "]\n";
}
