// A variational autoencoder on (Fashion-)MNIST in the style of the pyember-cpp tutorials
// (advanced/variational_autoencoder). Arguments: the data folder (uncompressed IDX files).
// MAX_BATCHES in the environment limits training.
#include <ember/ember.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <utility>

struct VAEOutput {
  ember::Tensor reconstruction;
  ember::Tensor mu;
  ember::Tensor log_var;
};

class VAEImpl : public ember::nn::Module {
 public:
  VAEImpl(int64_t image_size, int64_t h_dim, int64_t z_dim)
      : fc1(image_size, h_dim), fc2(h_dim, z_dim), fc3(h_dim, z_dim), fc4(z_dim, h_dim), fc5(h_dim, image_size) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
    register_module("fc4", fc4);
    register_module("fc5", fc5);
  }

  std::pair<ember::Tensor, ember::Tensor> encode(ember::Tensor x) {
    auto h = ember::nn::functional::relu(fc1->forward(x));
    return {fc2->forward(h), fc3->forward(h)};
  }

  ember::Tensor reparameterize(ember::Tensor mu, ember::Tensor log_var) {
    if (is_training()) {
      auto std = log_var.div(2).exp_();
      auto eps = ember::randn_like(std);
      return eps.mul(std).add_(mu);
    } else {
      // During inference, return mean of the learned distribution
      // See https://stats.stackexchange.com/a/216167
      return mu;
    }
  }

  ember::Tensor decode(ember::Tensor z) {
    auto h = ember::nn::functional::relu(fc4->forward(z));
    return ember::sigmoid(fc5->forward(h));
  }

  VAEOutput forward(ember::Tensor x) {
    auto encode_output = encode(x);
    auto mu = encode_output.first;
    auto log_var = encode_output.second;
    auto z = reparameterize(mu, log_var);
    auto x_reconstructed = decode(z);
    return {x_reconstructed, mu, log_var};
  }

 private:
  ember::nn::Linear fc1;
  ember::nn::Linear fc2;
  ember::nn::Linear fc3;
  ember::nn::Linear fc4;
  ember::nn::Linear fc5;
};

EMBER_MODULE(VAE);

int main(int argc, char** argv) {
  std::cout << "Variational Autoencoder\n\n";
  const std::string MNIST_data_path = argc > 1 ? argv[1] : "../../../../data/mnist/";
  const char* limit = std::getenv("MAX_BATCHES");
  const size_t max_batches = limit ? std::strtoul(limit, nullptr, 10) : 0;
  ember::manual_seed(5);

  auto cuda_available = ember::cuda::is_available();
  ember::Device device(cuda_available ? ember::kCUDA : ember::kCPU);
  std::cout << (cuda_available ? "CUDA available. Training on GPU." : "Training on CPU.") << '\n';

  // Hyper parameters
  const int64_t h_dim = 400;
  const int64_t z_dim = 20;
  const int64_t image_size = 28 * 28;
  const int64_t batch_size = 100;
  const size_t num_epochs = 1;
  const double learning_rate = 1e-3;

  // MNIST dataset, pixels in [0, 1]
  auto dataset = ember::data::datasets::MNIST(MNIST_data_path).map(ember::data::transforms::Stack<>());
  auto num_samples = dataset.size().value();
  auto dataloader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(std::move(dataset),
                                                                                        batch_size);

  // Model
  VAE model(image_size, h_dim, z_dim);
  model->to(device);

  // Optimizer
  ember::optim::Adam optimizer(model->parameters(), ember::optim::AdamOptions(learning_rate));

  std::cout << std::fixed << std::setprecision(4);
  std::cout << "Training...\n";

  for (size_t epoch = 0; epoch != num_epochs; ++epoch) {
    ember::Tensor images;
    size_t batch_index = 0;

    model->train();

    for (auto& batch : *dataloader) {
      // Transfer images to device
      images = batch.data.reshape({-1, image_size}).to(device);

      // Forward pass
      auto output = model->forward(images);

      // Compute reconstruction loss and kl divergence
      // For KL divergence, see Appendix B in VAE paper https://arxiv.org/pdf/1312.6114.pdf
      auto reconstruction_loss = ember::nn::functional::binary_cross_entropy(
          output.reconstruction, images, ember::nn::functional::BinaryCrossEntropyFuncOptions().reduction(ember::kSum));
      auto kl_divergence = -0.5 * ember::sum(1 + output.log_var - output.mu.pow(2) - output.log_var.exp());

      // Backward pass and optimize
      auto loss = reconstruction_loss + kl_divergence;
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();

      if ((batch_index + 1) % 10 == 0) {
        std::cout << "Epoch [" << epoch + 1 << "/" << num_epochs << "], Step [" << batch_index + 1 << "/"
                  << num_samples / batch_size << "], Reconstruction loss: "
                  << reconstruction_loss.item<double>() / batch.data.size(0)
                  << ", KL-divergence: " << kl_divergence.item<double>() / batch.data.size(0) << "\n";
      }

      ++batch_index;
      if (max_batches != 0 && batch_index >= max_batches) break;
    }

    model->eval();
    ember::NoGradGuard no_grad;

    // Sample a batch of codes from the learned distribution and decode them
    auto z = ember::randn({batch_size, z_dim}).to(device);
    auto output = model->decode(z).view({-1, 1, 28, 28});
    ember::save(output, "vae-sample-" + std::to_string(epoch + 1) + ".pt");

    // Reconstruct the images of the last batch
    auto out = model->forward(images).reconstruction;
    auto reconstructed = ember::cat({images.view({-1, 1, 28, 28}), out.view({-1, 1, 28, 28})}, /*dim=*/3);
    std::cout << "reconstruction " << reconstructed.sizes() << ", mean squared error "
              << ember::mse_loss(out, images).item<double>() << "\n";
  }

  std::cout << "Training finished!\n";
}
