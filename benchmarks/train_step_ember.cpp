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

std::string ember_blas() {
  return ember::backends::blas::config() + "; " + ember::backends::onednn::config() +
         (ember::backends::onednn::enabled() ? " (on)" : " (switched off by --providers blas)");
}

void ember_set_onednn(bool on) { ember::backends::onednn::set_enabled(on); }

namespace {

namespace nn = ember::nn;

// The models as LibTorch's side builds them (train_step_libtorch.cpp), module for module.

nn::Sequential make_model(Model m) {
  if (m == Model::kCnn) {
    auto block = [](nn::Sequential& s, int64_t in, int64_t out) {
      s->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
      s->push_back(nn::BatchNorm2d(out));
      s->push_back(nn::ReLU());
      s->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2)));
    };
    nn::Sequential s;
    block(s, 1, 32);
    block(s, 32, 64);
    s->push_back(nn::Flatten());
    s->push_back(nn::Dropout(0.25));
    s->push_back(nn::Linear(64 * 7 * 7, 10));
    return s;
  }
  nn::Sequential s;  // one push_back per layer: they draw their initial values in this order
  s->push_back(nn::Flatten());
  s->push_back(nn::Linear(784, 512));
  s->push_back(nn::ReLU());
  s->push_back(nn::Linear(512, 256));
  s->push_back(nn::ReLU());
  s->push_back(nn::Linear(256, 10));
  return s;
}

std::unique_ptr<ember::optim::Optimizer> make_optimizer(Model m, nn::Sequential& model) {
  if (m == Model::kCnn)
    return std::make_unique<ember::optim::AdamW>(model->parameters(),
                                                 ember::optim::AdamWOptions(1e-3).weight_decay(5e-4));
  return std::make_unique<ember::optim::SGD>(model->parameters(), ember::optim::SGDOptions(0.01).momentum(0.9));
}

class EmberTrainer final : public Trainer {
 public:
  EmberTrainer(Model m, const Data& data) : model_(make_model(m)), optimizer_(make_optimizer(m, model_)) {
    images_ = ember::empty({data.batches * data.batch, 1, 28, 28}, ember::kFloat32);
    std::memcpy(images_.data_ptr(), data.images.data(), data.images.size() * sizeof(float));
    labels_ = ember::empty({data.batches * data.batch}, ember::kInt64);
    std::memcpy(labels_.data_ptr(), data.labels.data(), data.labels.size() * sizeof(int64_t));
    batch_ = data.batch;
    batches_ = data.batches;
    model_->train();
  }
  void set_threads(int n) override { ember::set_num_threads(n); }
  double step(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    optimizer_->zero_grad();
    ember::Tensor loss = nn::functional::cross_entropy(model_->forward(images_.narrow(0, start, batch_)),
                                                       labels_.narrow(0, start, batch_));
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }
  double eval_loss(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    ember::NoGradGuard no_grad;
    model_->eval();
    ember::Tensor loss = nn::functional::cross_entropy(model_->forward(images_.narrow(0, start, batch_)),
                                                       labels_.narrow(0, start, batch_));
    model_->train();
    return loss.item<double>();
  }
  std::vector<Named> state() override {
    std::vector<Named> r;
    auto add = [&r](const std::string& name, const ember::Tensor& t) {
      ember::Tensor c = t.to(ember::kFloat64).contiguous();
      const double* p = c.data_ptr<double>();
      r.push_back({name, std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                   std::vector<double>(p, p + t.numel())});
    };
    for (const auto& item : model_->named_parameters()) add(item.key(), item.value());
    for (const auto& item : model_->named_buffers()) add(item.key(), item.value());
    return r;
  }
  void load_state(const std::vector<Named>& values) override {
    std::vector<ember::Tensor> ts = model_->parameters();
    for (const ember::Tensor& b : model_->buffers()) ts.push_back(b);
    if (ts.size() != values.size())
      throw std::runtime_error("ember load_state: " + std::to_string(values.size()) + " values for " +
                               std::to_string(ts.size()) + " tensors");
    ember::NoGradGuard no_grad;
    for (size_t k = 0; k < ts.size(); ++k) {
      if (std::vector<int64_t>(ts[k].sizes().begin(), ts[k].sizes().end()) != values[k].sizes)
        throw std::runtime_error("ember load_state: sizes of tensor " + std::to_string(k) + " (" + values[k].name +
                                 ") differ");
      ember::Tensor src = ember::empty(values[k].sizes, ember::kFloat64);
      std::memcpy(src.data_ptr(), values[k].values.data(), values[k].values.size() * sizeof(double));
      ts[k].copy_(src);
    }
  }

 private:
  nn::Sequential model_;
  std::unique_ptr<ember::optim::Optimizer> optimizer_;
  ember::Tensor images_, labels_;
  int64_t batch_ = 0, batches_ = 0;
};

}  // namespace

std::unique_ptr<Trainer> make_ember(Model m, const Data& data) { return std::make_unique<EmberTrainer>(m, data); }

}  // namespace train_step
