// Ember's side of the training-step benchmark (train_step.h): the models written with ember::nn as a user of
// the C++ frontend writes them (the LibTorch style: Sequential of holders, plain ReLU and max pooling), trained
// with ember::optim. Also reads the data for both sides (Ember's IDX reader).
#include "benchmarks/train_step.h"

#include <ember/ember.h>

#include <cmath>
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

namespace {

// Note [ember side without the frontend]
// The modules of Ember's C++ frontend (ember::nn) are being written in other branches; until they are merged,
// this side writes the models as those modules compute them — the same ops (conv2d, batch_norm, relu,
// max_pool2d, dropout, linear, cross_entropy_loss) on parameter tensors that require grad, backward through
// ember::autograd — and trains them with ember::optim's AdamW and SGD.

struct Param {
  std::string name;
  ember::Tensor value;
};

ember::Tensor uniform_param(std::vector<int64_t> sizes, int64_t fan_in) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  ember::Tensor t = ember::empty(sizes, ember::kFloat32);
  ember::uniform_(t, -bound, bound);
  ember::autograd::set_requires_grad(t, true);
  return t;
}

ember::Tensor grad_param(ember::Tensor t) {
  ember::autograd::set_requires_grad(t, true);
  return t;
}

class EmberTrainer final : public Trainer {
 public:
  EmberTrainer(Model m, const Data& data) : model_(m) {
    images_ = ember::empty({data.batches * data.batch, 1, 28, 28}, ember::kFloat32);
    std::memcpy(images_.data_ptr(), data.images.data(), data.images.size() * sizeof(float));
    labels_ = ember::empty({data.batches * data.batch}, ember::kInt64);
    std::memcpy(labels_.data_ptr(), data.labels.data(), data.labels.size() * sizeof(int64_t));
    batch_ = data.batch;
    batches_ = data.batches;
    if (m == Model::kCnn) {
      params_ = {{"0.weight", uniform_param({32, 1, 3, 3}, 9)},
                 {"1.weight", grad_param(ember::ones({32}, ember::kFloat32))},
                 {"1.bias", grad_param(ember::zeros({32}, ember::kFloat32))},
                 {"4.weight", uniform_param({64, 32, 3, 3}, 288)},
                 {"5.weight", grad_param(ember::ones({64}, ember::kFloat32))},
                 {"5.bias", grad_param(ember::zeros({64}, ember::kFloat32))},
                 {"10.weight", uniform_param({10, 3136}, 3136)},
                 {"10.bias", uniform_param({10}, 3136)}};
      for (int64_t c : {32, 64}) {
        const std::string prefix = c == 32 ? "1." : "5.";
        buffers_.push_back({prefix + "running_mean", ember::zeros({c}, ember::kFloat32)});
        buffers_.push_back({prefix + "running_var", ember::ones({c}, ember::kFloat32)});
        buffers_.push_back({prefix + "num_batches_tracked", ember::zeros({}, ember::kInt64)});
      }
    } else {
      params_ = {{"1.weight", uniform_param({512, 784}, 784)}, {"1.bias", uniform_param({512}, 784)},
                 {"3.weight", uniform_param({256, 512}, 512)}, {"3.bias", uniform_param({256}, 512)},
                 {"5.weight", uniform_param({10, 256}, 256)},  {"5.bias", uniform_param({10}, 256)}};
    }
    std::vector<ember::Tensor> parameters;
    for (const Param& p : params_) parameters.push_back(p.value);
    if (m == Model::kCnn)
      optimizer_ = std::make_unique<ember::optim::AdamW>(parameters,
                                                         ember::optim::AdamWOptions(1e-3).weight_decay(5e-4));
    else
      optimizer_ = std::make_unique<ember::optim::SGD>(parameters, ember::optim::SGDOptions(0.01).momentum(0.9));
  }
  void set_threads(int n) override { ember::set_num_threads(n); }
  double step(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    optimizer_->zero_grad();
    ember::Tensor loss = ember::cross_entropy_loss(forward(images_.narrow(0, start, batch_), true),
                                                   labels_.narrow(0, start, batch_));
    ember::autograd::backward({loss});
    optimizer_->step();
    return loss.item<double>();
  }
  double eval_loss(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    ember::autograd::NoGradGuard no_grad;
    return ember::cross_entropy_loss(forward(images_.narrow(0, start, batch_), false),
                                     labels_.narrow(0, start, batch_))
        .item<double>();
  }
  std::vector<Named> state() override {
    std::vector<Named> r;
    for (const std::vector<Param>* list : {&params_, &buffers_})
      for (const Param& p : *list) {
        ember::Tensor c = p.value.to(ember::kFloat64).contiguous();
        const double* v = c.data_ptr<double>();
        r.push_back({p.name, std::vector<int64_t>(p.value.sizes().begin(), p.value.sizes().end()),
                     std::vector<double>(v, v + p.value.numel())});
      }
    return r;
  }
  void load_state(const std::vector<Named>& values) override {
    std::vector<ember::Tensor> ts;
    for (const std::vector<Param>* list : {&params_, &buffers_})
      for (const Param& p : *list) ts.push_back(p.value);
    if (ts.size() != values.size())
      throw std::runtime_error("ember load_state: " + std::to_string(values.size()) + " values for " +
                               std::to_string(ts.size()) + " tensors");
    ember::autograd::NoGradGuard no_grad;
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
  ember::Tensor forward(ember::Tensor x, bool training) {
    auto p = [this](size_t k) { return params_[k].value; };
    if (model_ == Model::kMlp) {
      x = ember::flatten(x, 1);
      x = ember::relu(ember::linear(x, p(0), p(1)));
      x = ember::relu(ember::linear(x, p(2), p(3)));
      return ember::linear(x, p(4), p(5));
    }
    for (size_t b = 0; b < 2; ++b) {
      x = ember::conv2d(x, p(3 * b), std::nullopt, {1, 1}, {1, 1});
      x = ember::batch_norm(x, p(3 * b + 1), p(3 * b + 2), buffers_[3 * b].value, buffers_[3 * b + 1].value,
                            training, 0.1, 1e-5, false);
      if (training) buffers_[3 * b + 2].value.add_(ember::ones({}, ember::kInt64));
      x = ember::max_pool2d(ember::relu(x), {2, 2});
    }
    x = ember::dropout(ember::flatten(x, 1), 0.25, training);
    return ember::linear(x, p(6), p(7));
  }

  Model model_;
  std::vector<Param> params_, buffers_;
  std::unique_ptr<ember::optim::Optimizer> optimizer_;
  ember::Tensor images_, labels_;
  int64_t batch_ = 0, batches_ = 0;
};

}  // namespace

std::unique_ptr<Trainer> make_ember(Model m, const Data& data) { return std::make_unique<EmberTrainer>(m, data); }

}  // namespace train_step
