#pragma once
// The training-step benchmark (train_step_main.cpp): one interface, two implementations in separate translation
// units (train_step_ember.cpp: Ember's C++ frontend, ember::nn + ember::optim; train_step_libtorch.cpp:
// LibTorch's torch::nn + torch::optim), so no file includes both frameworks' headers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace train_step {

/// The models timed: the Fashion-MNIST CNN of examples/fashion_mnist/train.py (conv 3x3 without bias,
/// BatchNorm2d, ReLU, 2x2 max pooling, twice; flatten, dropout 0.25, linear 3136 -> 10) trained with AdamW
/// (lr 1e-3, weight decay 5e-4 as train.py's), and an MLP 784-512-256-10 with ReLUs trained with SGD
/// (lr 0.01, momentum 0.9).
enum class Model { kCnn, kMlp };

/// The model's name for the report.
const char* model_name(Model m);

/// Real Fashion-MNIST training batches, framework-neutral: `batches` batches of `batch` images, normalised as
/// train.py normalises them ((p / 255 - 0.2860) / 0.3530), row-major (batches * batch, 28 * 28), and their
/// labels (int64).
struct Data {
  int64_t batch = 0;
  int64_t batches = 0;
  std::vector<float> images;
  std::vector<int64_t> labels;
};

/// Reads the first batch * batches training images of the Fashion-MNIST IDX files in `dir` (with Ember's IDX
/// reader; defined in train_step_ember.cpp). Errors: std::exception naming the file.
Data load_data(const std::string& dir, int64_t batch, int64_t batches);

/// One parameter or buffer of a model: its name in the framework, sizes and values (float32 as float,
/// integer buffers converted).
struct Named {
  std::string name;
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

/// A model with its optimizer and the data, ready to train.
class Trainer {
 public:
  virtual ~Trainer() = default;
  /// Sets the framework's intra-op thread count.
  virtual void set_threads(int n) = 0;
  /// One training step on batch i % data.batches: zero_grad, forward (training mode), cross_entropy,
  /// backward, optimizer step; returns the loss (loss.item(), as a training loop reads it).
  virtual double step(int64_t i) = 0;
  /// The loss of batch i in eval mode without autograd (to check that both sides compute the same model).
  virtual double eval_loss(int64_t i) = 0;
  /// The parameters and then the buffers, in registration order.
  virtual std::vector<Named> state() = 0;
  /// Copies values into the parameters and buffers, in the order state() lists them. Errors: a size mismatch.
  virtual void load_state(const std::vector<Named>& values) = 0;
};

/// Ember's side (train_step_ember.cpp).
std::unique_ptr<Trainer> make_ember(Model m, const Data& data);
/// LibTorch's side; nullptr when built without LibTorch.
std::unique_ptr<Trainer> make_libtorch(Model m, const Data& data);

/// The BLAS each framework says it uses (Ember: OpenBLAS's own configuration; LibTorch: its build
/// configuration's BLAS line).
std::string ember_blas();
/// Switches Ember's oneDNN provider on or off (train_step_ember.cpp).
void ember_set_onednn(bool on);
std::string libtorch_blas();

}  // namespace train_step
