// Ember's main job from C++ with no Python: trains the CNN of examples/fashion_mnist/train.py on the 60,000
// Fashion-MNIST training images and tests it on the 10,000 test images after every epoch, with Ember's C++
// frontend — ember::nn modules in LibTorch's holder style, ember::optim's AdamW and OneCycleLR, ember::data's
// DataLoader — then saves the trained model's state dict with ember::save, in the file format of Python's
// ember.save, which train.py loads and evaluates (`--eval-state-dict PATH`, on Ember or on PyTorch).
//
//   make && build/examples/cpp/train_fashion_mnist [--epochs 3] [--threads 2] [--data-dir DIR]
//       [--out out/fashion_mnist] [--batch-size 128] [--seed 0] [--limit N] [--test-limit N] [--workers 2]
//       [--no-progress] [--init-only]
//   PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py --eval-state-dict out/fashion_mnist/model_cpp.pt
//
// The same recipe as train.py (see its docstring): the same modules under the same names, so the state dict's
// keys are the Python model's ("0.weight", "1.running_mean", ..., "8.bias"); the same initialisation (Ember's
// C++ layers draw their initial values with the same ops in the same order as the Python ones, so a seed gives
// the Python model's initial weights); AdamW (lr 0.01, weight decay 5e-4) under a OneCycle schedule stepped after
// every batch; batches of 128 in the order of train.py's seeded DataLoader (ember::data draws the permutations
// Python draws); images normalised as train.py normalises them. ReLU + max pooling are Ember's plain ops
// (train.py's `--plain-ops` path; its fused custom op gives the same values). Dropout draws from the default
// generator as in Python, so a run follows train.py's up to the summation order of the kernels.
//
// Output: one progress line per epoch, updated in place on a terminal (step, loss, images/s; a log gets only the
// epoch's summary line), the test accuracy after every epoch, and `<out>/model_cpp.pt`.
#include <ember/ember.h>

#include "example_cli.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

namespace nn = ember::nn;
namespace F = ember::nn::functional;

constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kDefaultOut = "out/fashion_mnist";
constexpr const char* kStateDictFile = "model_cpp.pt";
constexpr int64_t kImageSide = 28;
constexpr int64_t kClasses = 10;
constexpr double kMaxLr = 0.01, kWeightDecay = 5e-4;  // train.py's make_optimizer
constexpr int64_t kTestBatch = 1000;                  // train.py's evaluate()

// Note [pixel normalisation, training]
// train.py normalises the pixels with NumPy in float32: (p / 255 - 0.2860) / 0.3530. The same three float32
// operations are done here in the same order, once per byte value (a table, as classify_fashion_mnist.cpp
// does), so the C++ program trains and tests on bit-identical inputs and a state dict it saves scores the same
// test accuracy in train.py's evaluation as here.
constexpr float kPixelMean = 0.2860f, kPixelStd = 0.3530f;

std::array<float, 256> normalisation_table() {
  std::array<float, 256> table{};
  for (int p = 0; p < 256; ++p) {
    float x = static_cast<float>(p) / 255.0f;
    x = x - kPixelMean;
    table[static_cast<size_t>(p)] = x / kPixelStd;
  }
  return table;
}

/// One split of Fashion-MNIST (the gzipped IDX files of Debian's dataset-fashion-mnist) as a dataset of
/// ember::data: images normalised to float32 (1, 28, 28) (Note [pixel normalisation, training]), labels int64.
class FashionMNIST : public ember::data::datasets::Dataset<FashionMNIST> {
 public:
  enum class Split { kTrain, kTest };

  /// Reads the split's two files from `dir`, keeping the first `limit` images when given. Errors: a missing
  /// or malformed file (std::exception naming it and saying how to get the data).
  FashionMNIST(const std::string& dir, Split split, std::optional<int64_t> limit) {
    const std::string prefix = split == Split::kTrain ? "train" : "t10k";
    const std::string image_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
    const std::string label_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
    for (const std::string& path : {image_path, label_path}) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(path, ec))
        throw std::runtime_error("'" + path + "' not found; install Debian's dataset-fashion-mnist "
                                 "(scripts/setup.sh does) or pass --data-dir");
    }
    ember::Tensor images = ember::data::read_idx(image_path);
    ember::Tensor labels = ember::data::read_idx(label_path);
    if (images.dim() != 3 || images.size(1) != kImageSide || images.size(2) != kImageSide ||
        images.dtype() != ember::kUInt8)
      throw std::runtime_error("'" + image_path + "' does not hold uint8 images of 28x28 pixels");
    if (labels.dim() != 1 || labels.dtype() != ember::kUInt8 || labels.size(0) != images.size(0))
      throw std::runtime_error("'" + label_path + "' does not hold one uint8 label per image of '" + image_path +
                               "'");
    int64_t n = images.size(0);
    if (limit) n = std::min(n, *limit);
    static const std::array<float, 256> table = normalisation_table();
    images_ = ember::empty({n, 1, kImageSide, kImageSide}, ember::kFloat32);
    const uint8_t* src = images.contiguous().data_ptr<uint8_t>();
    float* dst = images_.data_ptr<float>();
    for (int64_t i = 0, total = images_.numel(); i < total; ++i) dst[i] = table[src[i]];
    labels_ = labels.narrow(0, 0, n).to(ember::kInt64).contiguous();
  }

  ember::data::Example<> get(size_t index) override {
    const auto i = static_cast<int64_t>(index);
    return {images_.select(0, i), labels_.select(0, i)};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(images_.size(0)); }

  /// All images (N, 1, 28, 28) and labels (N), for the test pass.
  const ember::Tensor& images() const { return images_; }
  const ember::Tensor& labels() const { return labels_; }

 private:
  ember::Tensor images_, labels_;
};

/// ReLU followed by 2x2 max pooling, the third module of a conv block (train.py's ReLUMaxPool2d with its plain
/// ops): no parameters, so it adds no state-dict keys, but it takes an index in the Sequential as in Python.
struct ReLUMaxPool2dImpl : nn::Module {
  ember::Tensor forward(const ember::Tensor& x) { return F::max_pool2d(F::relu(x), F::MaxPool2dFuncOptions(2)); }
};
EMBER_MODULE(ReLUMaxPool2d);

/// The CNN of train.py's build_model: conv block (32 channels) -> conv block (64 channels) -> flatten ->
/// dropout 0.25 -> linear 3136 -> 10, where a conv block is conv 3x3 (padding 1, no bias: BatchNorm follows),
/// BatchNorm2d and ReLU + 2x2 max pooling.
nn::Sequential build_model() {
  // One module per statement: the layers draw their initial values in construction order, and the arguments
  // of one call (Sequential(a, b, ...)) are constructed in an unspecified order (right to left with GCC), which
  // would give other weights than Python's for the same seed.
  nn::Sequential model;
  for (auto [in, out] : {std::pair<int64_t, int64_t>{1, 32}, {32, 64}}) {
    model->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1).bias(false)));
    model->push_back(nn::BatchNorm2d(out));
    model->push_back(ReLUMaxPool2d());
  }
  model->push_back(nn::Flatten());
  model->push_back(nn::Dropout(0.25));
  model->push_back(nn::Linear(64 * 7 * 7, kClasses));
  return model;
}

/// Test accuracy: the model in eval mode, without autograd, over the images in batches of 1000 (as train.py's
/// evaluate(), so both run the same ops on the same batches). Leaves the model in training mode.
double evaluate(nn::Sequential& model, const FashionMNIST& test) {
  ember::NoGradGuard no_grad;
  model->eval();
  const int64_t n = test.images().size(0);
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kTestBatch) {
    const int64_t len = std::min(kTestBatch, n - start);
    ember::Tensor predicted = model->forward(test.images().narrow(0, start, len)).argmax(1);
    correct += predicted.eq(test.labels().narrow(0, start, len)).sum().item<int64_t>();
  }
  model->train();
  return static_cast<double>(correct) / static_cast<double>(n);
}

struct Options {
  int64_t epochs = 3;
  int threads = 2;
  std::string data_dir = kDefaultDataDir;
  std::string out = kDefaultOut;
  int64_t batch_size = 128;
  uint64_t seed = 0;
  std::optional<int64_t> limit, test_limit;
  int64_t workers = 2;
  bool progress = true;
  bool init_only = false;
};

void usage(std::ostream& os) {
  os << "usage: train_fashion_mnist [--epochs N] [--threads N] [--data-dir DIR] [--out DIR] [--batch-size N]\n"
        "                           [--seed N] [--limit N] [--test-limit N] [--workers N] [--no-progress]\n"
        "                           [--init-only]\n"
        "  --epochs N        epochs (default 3)\n"
        "  --threads N       intra-op threads (default 2)\n"
        "  --data-dir DIR    where the gzipped IDX files are (default "
     << kDefaultDataDir << ")\n"
        "  --out DIR         where to write the state dict, "
     << kStateDictFile << " (default " << kDefaultOut
     << ")\n"
        "  --batch-size N    training batch size (default 128)\n"
        "  --seed N          seed of the weights, dropout and shuffling (default 0)\n"
        "  --limit N         train on the first N training images only\n"
        "  --test-limit N    test on the first N test images only\n"
        "  --workers N       data loader worker threads (default 2; 0 loads batches in the training thread)\n"
        "  --no-progress     no progress line, only each epoch's summary (as when the output is not a terminal)\n"
        "  --init-only       save the freshly initialised model's state dict and stop (no data needed; train.py's\n"
        "                    model starts from the same values under the same --seed)\n";
}

Options parse_args(int argc, char** argv) {
  Options o;
  examples::CommandLine cli("train_fashion_mnist", argc, argv, usage);
  while (cli.next()) {
    if (cli.is_switch("--no-progress")) o.progress = false;
    else if (cli.is_switch("--init-only")) o.init_only = true;
    else if (cli.is("--epochs")) o.epochs = cli.integer(1);
    else if (cli.is("--threads")) o.threads = static_cast<int>(cli.integer(1, 1024));
    else if (cli.is("--data-dir")) o.data_dir = cli.value();
    else if (cli.is("--out")) o.out = cli.value();
    else if (cli.is("--batch-size")) o.batch_size = cli.integer(1);
    else if (cli.is("--seed")) o.seed = static_cast<uint64_t>(cli.integer(0));
    else if (cli.is("--limit")) o.limit = cli.integer(1);
    else if (cli.is("--test-limit")) o.test_limit = cli.integer(1);
    else if (cli.is("--workers")) o.workers = cli.integer(0, 64);
    else cli.unknown();
  }
  return o;
}

/// The progress line of an epoch: rewritten in place (carriage return) at most a few times a second on a
/// terminal, so an epoch leaves one line, never one per step; silent when disabled.
class Progress {
 public:
  Progress(bool enabled, int64_t epoch, int64_t epochs, int64_t steps)
      : enabled_(enabled), epoch_(epoch), epochs_(epochs), steps_(steps) {}
  void update(int64_t step, double loss, double images_per_s) {
    const auto now = std::chrono::steady_clock::now();
    if (!enabled_ || (step != steps_ && now - last_ < std::chrono::milliseconds(250))) return;
    last_ = now;
    std::printf("\repoch %lld/%lld  step %lld/%lld  loss %.4f  %.0f images/s ", static_cast<long long>(epoch_),
                static_cast<long long>(epochs_), static_cast<long long>(step), static_cast<long long>(steps_), loss,
                images_per_s);
    std::fflush(stdout);
    shown_ = true;
  }
  /// Ends the line (the summary that follows starts on a new one).
  void finish() {
    if (shown_) std::printf("\n");
  }

 private:
  bool enabled_;
  int64_t epoch_, epochs_, steps_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

/// Writes the model's state dict to <out>/model_cpp.pt (ember::save: an archive of Python's ember.save format,
/// its keys in the Python model's order); returns the path.
std::string save_state_dict(nn::Sequential& model, const std::string& out) {
  std::filesystem::create_directories(out);
  const std::string path = (std::filesystem::path(out) / kStateDictFile).string();
  ember::save(model, path);
  return path;
}

int run(const Options& o) {
  ember::set_num_threads(o.threads);
  ember::manual_seed(o.seed);
  if (o.init_only) {
    nn::Sequential model = build_model();
    std::printf("saved the initial state dict (seed %llu) to %s\n", static_cast<unsigned long long>(o.seed),
                save_state_dict(model, o.out).c_str());
    return 0;
  }
  FashionMNIST test(o.data_dir, FashionMNIST::Split::kTest, o.test_limit);
  auto train_set = FashionMNIST(o.data_dir, FashionMNIST::Split::kTrain, o.limit);
  const int64_t train_size = static_cast<int64_t>(*train_set.size());
  const int64_t steps_per_epoch = (train_size + o.batch_size - 1) / o.batch_size;

  nn::Sequential model = build_model();
  ember::optim::AdamW optimizer(model->parameters(), ember::optim::AdamWOptions(kMaxLr).weight_decay(kWeightDecay));
  ember::optim::OneCycleLR scheduler(
      optimizer, kMaxLr, ember::optim::OneCycleLROptions().epochs(o.epochs).steps_per_epoch(steps_per_epoch));
  // Shuffled as train.py's DataLoader(shuffle=True, generator=torch.Generator().manual_seed(seed)): the sampler
  // and the loader's per-epoch seed draw use a generator of their own seeded with the seed, and ember::data
  // draws what Python's DataLoader draws (Note [C++ sampler random streams]), so the batches are Python's.
  ember::Generator shuffle = ember::make_generator(o.seed);
  auto loader = ember::data::make_data_loader(
      std::move(train_set).map(ember::data::transforms::Stack<>()),
      ember::data::samplers::RandomSampler(train_size, shuffle),
      ember::data::DataLoaderOptions()
          .batch_size(static_cast<size_t>(o.batch_size))
          .workers(static_cast<size_t>(o.workers))
          .generator(shuffle));

  std::printf("ember C++, %d thread%s: %lld training images, %lld test images, %lld epoch%s of %lld batches of "
              "%lld\n",
              o.threads, o.threads == 1 ? "" : "s", static_cast<long long>(train_size),
              static_cast<long long>(test.images().size(0)), static_cast<long long>(o.epochs),
              o.epochs == 1 ? "" : "s", static_cast<long long>(steps_per_epoch), static_cast<long long>(o.batch_size));
  const bool progress = o.progress && isatty(fileno(stdout));
  model->train();
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    Progress bar(progress, epoch, o.epochs, steps_per_epoch);
    int64_t step = 0, seen = 0;
    double loss_sum = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      ember::Tensor loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      scheduler.step();
      const double value = loss.item<double>();
      loss_sum += value;
      ++step;
      seen += batch.data.size(0);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      bar.update(step, value, static_cast<double>(seen) / elapsed);
    }
    bar.finish();
    const double train_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto eval_start = std::chrono::steady_clock::now();
    const double accuracy = evaluate(model, test);
    const double eval_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - eval_start).count();
    std::printf("epoch %lld: train loss %.4f, %.1f s (%.0f images/s), eval %.1f s, test accuracy %.4f\n",
                static_cast<long long>(epoch), loss_sum / static_cast<double>(std::max<int64_t>(step, 1)), train_time,
                static_cast<double>(seen) / train_time, eval_time, accuracy);
    std::fflush(stdout);
  }

  const std::string path = save_state_dict(model, o.out);
  std::printf("saved the state dict to %s (evaluate it with: PYTHONPATH=python /usr/bin/python3 "
              "examples/fashion_mnist/train.py --eval-state-dict %s)\n",
              path.c_str(), path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  return examples::run_main("train_fashion_mnist", [&] { return run(o); });
}
