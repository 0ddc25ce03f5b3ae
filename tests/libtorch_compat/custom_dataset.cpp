// A custom dataset in the manner of pyember/examples' cpp/custom-dataset: a ember::data::datasets::Dataset
// subclass that reads its samples itself (here the IDX files of Fashion-MNIST, uncompressed, with
// std::ifstream), a Lambda transform, a random sampler, and a small convolutional network trained on it.
// Arguments: the data folder. MAX_BATCHES in the environment limits the training batches.
#include <ember/ember.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

uint32_t read_be32(std::ifstream& in) {
  unsigned char b[4];
  in.read(reinterpret_cast<char*>(b), 4);
  return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | uint32_t(b[3]);
}

ember::Tensor read_images(const std::string& path, int64_t limit) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in, "cannot open ", path);
  EMBER_CHECK(read_be32(in) == 2051, "bad magic in ", path);
  int64_t count = read_be32(in), rows = read_be32(in), cols = read_be32(in);
  if (limit > 0 && limit < count) count = limit;
  auto images = ember::empty({count, 1, rows, cols}, ember::kByte);
  in.read(reinterpret_cast<char*>(images.data_ptr()), images.numel());
  return images.to(ember::kFloat32).div_(255);
}

ember::Tensor read_labels(const std::string& path, int64_t limit) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in, "cannot open ", path);
  EMBER_CHECK(read_be32(in) == 2049, "bad magic in ", path);
  int64_t count = read_be32(in);
  if (limit > 0 && limit < count) count = limit;
  auto labels = ember::empty(count, ember::kByte);
  in.read(reinterpret_cast<char*>(labels.data_ptr<uint8_t>()), count);
  return labels.to(ember::kInt64);
}

}  // namespace

class CustomDataset : public ember::data::datasets::Dataset<CustomDataset> {
 public:
  CustomDataset(const std::string& root, bool train, int64_t limit = 0) {
    std::string prefix = root + (train ? "/train" : "/t10k");
    images_ = read_images(prefix + "-images-idx3-ubyte", limit);
    labels_ = read_labels(prefix + "-labels-idx1-ubyte", limit);
    EMBER_CHECK(images_.size(0) == labels_.size(0), "image and label counts differ");
  }

  // Override the get method to load custom data.
  ember::data::Example<> get(size_t index) override { return {images_[index], labels_[index]}; }

  // Override the size method to infer the size of the data set.
  ember::optional<size_t> size() const override { return images_.size(0); }

 private:
  ember::Tensor images_, labels_;
};

struct NetworkImpl : ember::nn::SequentialImpl {
  NetworkImpl() {
    using namespace ember::nn;
    push_back(Conv2d(Conv2dOptions(1, 16, 3).padding(1)));
    push_back(Functional(ember::relu));
    push_back(MaxPool2d(MaxPool2dOptions(2).stride(2)));
    push_back(Conv2d(Conv2dOptions(16, 32, 3).padding(1)));
    push_back(Functional(ember::relu));
    push_back(Functional([](ember::Tensor x) { return ember::max_pool2d(x, 2); }));
    push_back(Flatten());
    push_back(Linear(32 * 7 * 7, 64));
    push_back(Functional(ember::relu));
    push_back(Dropout(0.25));
    push_back(Linear(64, 10));
    push_back(Functional(
        [](ember::Tensor x) { return ember::log_softmax(x, /*dim=*/1); }));
  }
};
EMBER_MODULE(Network);

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : "./data";
  const char* limit = std::getenv("MAX_BATCHES");
  const int64_t max_batches = limit ? std::atol(limit) : 0;
  const int64_t batch_size = 32;
  ember::manual_seed(0);

  auto train_set = CustomDataset(root, /*train=*/true, max_batches * batch_size)
                       .map(ember::data::transforms::Lambda<ember::data::Example<>>(
                           [](ember::data::Example<> e) {
                             e.data = (e.data - 0.5) / 0.5;  // to [-1, 1]
                             return e;
                           }))
                       .map(ember::data::transforms::Stack<>());
  auto test_set = CustomDataset(root, /*train=*/false, 1000)
                      .map(ember::data::transforms::Lambda<ember::data::Example<>>(
                          [](ember::data::Example<> e) {
                            e.data = (e.data - 0.5) / 0.5;
                            return e;
                          }))
                      .map(ember::data::transforms::Stack<>());
  std::cout << "train samples: " << train_set.size().value() << ", test samples: " << test_set.size().value()
            << std::endl;

  auto train_loader = ember::data::make_data_loader<ember::data::samplers::RandomSampler>(
      std::move(train_set), ember::data::DataLoaderOptions().batch_size(batch_size).workers(2));
  auto test_loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
      std::move(test_set), ember::data::DataLoaderOptions(200));

  Network network;
  std::cout << network << std::endl;
  ember::optim::Adam optimizer(network->parameters(), ember::optim::AdamOptions(1e-3));

  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    network->train();
    double epoch_loss = 0;
    int64_t batches = 0;
    for (auto& batch : *train_loader) {
      optimizer.zero_grad();
      auto output = network->forward(batch.data);
      auto loss = ember::nll_loss(output, batch.target);
      loss.backward();
      optimizer.step();
      epoch_loss += loss.item<double>();
      ++batches;
    }
    network->eval();
    ember::NoGradGuard no_grad;
    int64_t correct = 0, total = 0;
    for (const auto& batch : *test_loader) {
      auto prediction = network->forward(batch.data).argmax(1);
      correct += prediction.eq(batch.target).sum().item<int64_t>();
      total += batch.target.size(0);
    }
    std::printf("epoch %ld: mean loss %.4f over %ld batches, test accuracy %.3f\n", epoch, epoch_loss / batches,
                batches, static_cast<double>(correct) / total);
  }
}
