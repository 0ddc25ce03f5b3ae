// LibTorch's side of the training-step benchmark (train_step.h): the models written with torch::nn as a
// LibTorch user writes them (Sequential of the stock modules, plain functional ReLU and max pooling), trained with
// torch::optim, on tensors LibTorch allocated itself.
#include "benchmarks/train_step.h"

#ifdef EMBER_BENCH_WITH_LIBTORCH
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/torch.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace train_step {
namespace {

namespace nn = torch::nn;

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
  return nn::Sequential(nn::Flatten(), nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 256), nn::ReLU(),
                        nn::Linear(256, 10));
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Model m, nn::Sequential& model) {
  if (m == Model::kCnn)
    return std::make_unique<torch::optim::AdamW>(model->parameters(),
                                                 torch::optim::AdamWOptions(1e-3).weight_decay(5e-4));
  return std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
}

class TorchTrainer final : public Trainer {
 public:
  TorchTrainer(Model m, const Data& data) : model_(make_model(m)), optimizer_(make_optimizer(m, model_)) {
    images_ = at::empty({data.batches * data.batch, 1, 28, 28}, at::kFloat);
    std::memcpy(images_.data_ptr(), data.images.data(), data.images.size() * sizeof(float));
    labels_ = at::empty({data.batches * data.batch}, at::kLong);
    std::memcpy(labels_.data_ptr(), data.labels.data(), data.labels.size() * sizeof(int64_t));
    batch_ = data.batch;
    batches_ = data.batches;
    model_->train();
  }
  void set_threads(int n) override { at::set_num_threads(n); }
  double step(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    optimizer_->zero_grad();
    at::Tensor loss = torch::nn::functional::cross_entropy(model_->forward(images_.narrow(0, start, batch_)),
                                                           labels_.narrow(0, start, batch_));
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }
  double eval_loss(int64_t i) override {
    const int64_t start = (i % batches_) * batch_;
    torch::NoGradGuard no_grad;
    model_->eval();
    at::Tensor loss = torch::nn::functional::cross_entropy(model_->forward(images_.narrow(0, start, batch_)),
                                                           labels_.narrow(0, start, batch_));
    model_->train();
    return loss.item<double>();
  }
  std::vector<Named> state() override {
    std::vector<Named> r;
    for (const at::Tensor& t : tensors()) {
      at::Tensor c = t.to(at::kDouble).contiguous();
      const double* p = c.data_ptr<double>();
      r.push_back({"", std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                   std::vector<double>(p, p + t.numel())});
    }
    auto names = model_->named_parameters(), buffers = model_->named_buffers();
    size_t k = 0;
    for (const auto& item : names) r[k++].name = item.key();
    for (const auto& item : buffers) r[k++].name = item.key();
    return r;
  }
  void load_state(const std::vector<Named>& values) override {
    std::vector<at::Tensor> ts = tensors();
    if (ts.size() != values.size())
      throw std::runtime_error("libtorch load_state: " + std::to_string(values.size()) + " values for " +
                               std::to_string(ts.size()) + " tensors");
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < ts.size(); ++k) {
      if (std::vector<int64_t>(ts[k].sizes().begin(), ts[k].sizes().end()) != values[k].sizes)
        throw std::runtime_error("libtorch load_state: sizes of tensor " + std::to_string(k) + " (" +
                                 values[k].name + ") differ");
      at::Tensor src = at::empty(ts[k].sizes(), at::kDouble);
      std::memcpy(src.data_ptr(), values[k].values.data(), values[k].values.size() * sizeof(double));
      ts[k].copy_(src);
    }
  }

 private:
  std::vector<at::Tensor> tensors() {
    std::vector<at::Tensor> r = model_->parameters();
    for (const at::Tensor& b : model_->buffers()) r.push_back(b);
    return r;
  }

  nn::Sequential model_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  at::Tensor images_, labels_;
  int64_t batch_ = 0, batches_ = 0;
};

}  // namespace

std::unique_ptr<Trainer> make_libtorch(Model m, const Data& data) { return std::make_unique<TorchTrainer>(m, data); }

std::string libtorch_blas() {
  // at::show_config() lists the build's settings: one line of comma-separated KEY=VALUE pairs, among them the
  // BLAS, LAPACK, oneDNN (MKLDNN) and OpenMP ones, and a line per library with its version (oneDNN's).
  std::istringstream config(at::show_config());
  std::string line, r;
  auto add = [&r](const std::string& item) { r += (r.empty() ? "" : ", ") + item; };
  while (std::getline(config, line)) {
    if (line.find("Deep Neural Network") != std::string::npos || line.find("Math Kernel") != std::string::npos) {
      const size_t first = line.find_first_not_of(" -");
      add(line.substr(first == std::string::npos ? 0 : first));
    }
    std::istringstream items(line);
    for (std::string item; std::getline(items, item, ',');) {
      for (const char* key : {"BLAS_INFO=", "LAPACK_INFO=", "USE_MKLDNN=", "USE_MKL=", "USE_OPENMP="})
        if (const size_t at = item.find(key); at != std::string::npos && (at == 0 || item[at - 1] == ' '))
          add(item.substr(at));
    }
  }
  return r;
}

}  // namespace train_step
#else
namespace train_step {
std::unique_ptr<Trainer> make_libtorch(Model, const Data&) { return nullptr; }
std::string libtorch_blas() { return "(built without LibTorch)"; }
}  // namespace train_step
#endif
