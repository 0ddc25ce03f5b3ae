// Classifies the 10,000 Fashion-MNIST test images with a model exported by examples/fashion_mnist/train.py
// (`--export`, an ember.jit archive), in C++ with no Python: ember::jit::load reads the model, the IDX reader
// (ember::data::read_idx) reads the images and labels, the JIT runtime runs the model batch by batch. Prints the
// accuracy and the images per second, and optionally writes one predicted class per line.
//
// The model calls a custom op, fmnist::relu_max_pool2d, which train.py compiles at run time into a shared
// library and lists (its path) in custom_ops.txt next to the saved model; --library loads such a library
// (ember::load_library) before the model is loaded. Without it, loading the model fails with an error that
// names the library to load.
//
//   make && PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py      (trains and exports)
//   build/examples/cpp/classify_fashion_mnist [--model out/fashion_mnist/model_ember_jit.pt]
//       [--data-dir /usr/share/datasets/fashion-mnist] [--batch-size 1000] [--threads 2] [--limit N]
//       [--predictions FILE] [--library PATH]...
//
// `make demo` runs training, export and this program in that order.
#include <ember/ember.h>
#include <ember/jit/runtime/SavedModule.h>

#include "example_cli.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* kDefaultModel = "out/fashion_mnist/model_ember_jit.pt";
constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kTestImages = "t10k-images-idx3-ubyte.gz";
constexpr const char* kTestLabels = "t10k-labels-idx1-ubyte.gz";
constexpr int64_t kImageSide = 28;
constexpr int64_t kClasses = 10;

// Note [pixel normalisation]
// The model was trained on pixels normalised by train.py's NumPy code, (p / 255 - 0.2860) / 0.3530 with every
// step in float32 (NumPy casts the Python floats to the array's float32). Predictions equal the Python
// model's only if the inputs are bit-identical, so the same three float32 operations are done here, in the
// same order, once per possible byte value (a 256-entry table), rather than with tensor ops whose scalar
// handling (a reciprocal multiply, say) could round differently.
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

struct Options {
  std::string model = kDefaultModel;
  std::string data_dir = kDefaultDataDir;
  int64_t batch_size = 1000;
  int threads = 2;
  std::optional<int64_t> limit;
  std::string predictions;  // empty: not written
  std::vector<std::string> libraries;  // op libraries to load before the model
};

void usage(std::ostream& os) {
  os << "usage: classify_fashion_mnist [--model PATH] [--data-dir DIR] [--batch-size N] [--threads N] [--limit N]\n"
        "                              [--predictions FILE] [--library PATH]...\n"
        "  --model PATH        model exported by examples/fashion_mnist/train.py --export (default "
     << kDefaultModel << ")\n"
        "  --data-dir DIR      directory of "
     << kTestImages << " and " << kTestLabels << " (default " << kDefaultDataDir
     << ")\n"
        "  --batch-size N      images per forward call (default 1000)\n"
        "  --threads N         intra-op threads (default 2)\n"
        "  --limit N           classify the first N test images only\n"
        "  --predictions FILE  write the predicted class of each image, one per line\n"
        "  --library PATH      load this op library first (the model's custom ops; train.py lists them in\n"
        "                      custom_ops.txt next to the model); repeatable\n";
}

Options parse_args(int argc, char** argv) {
  Options o;
  examples::CommandLine cli("classify_fashion_mnist", argc, argv, usage);
  while (cli.next()) {
    if (cli.is("--model")) o.model = cli.value();
    else if (cli.is("--data-dir")) o.data_dir = cli.value();
    else if (cli.is("--batch-size")) o.batch_size = cli.integer(1);
    else if (cli.is("--threads")) o.threads = static_cast<int>(cli.integer(1, 1024));
    else if (cli.is("--limit")) o.limit = cli.integer(1);
    else if (cli.is("--predictions")) o.predictions = cli.value();
    else if (cli.is("--library")) o.libraries.emplace_back(cli.value());
    else cli.unknown();
  }
  return o;
}

// A file that must exist, with what to do when it does not.
void require_file(const std::string& path, const std::string& hint) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::runtime_error("'" + path + "' does not exist or is not a file; " + hint);
}

// --predictions' folder must exist, checked before the model is loaded and the images classified, so a
// mistyped path fails at once rather than after the whole run.
void require_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw std::runtime_error("--predictions '" + path + "' is a directory; give a file to write");
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec))
    throw std::runtime_error("--predictions '" + path + "': the folder '" + folder.string() +
                             "' does not exist; create it first");
}

// The images as normalised float32 (N, 1, 28, 28) (Note [pixel normalisation]).
ember::Tensor normalise(const ember::Tensor& images) {
  static const std::array<float, 256> table = normalisation_table();
  const int64_t n = images.size(0);
  ember::Tensor out = ember::empty({n, 1, kImageSide, kImageSide}, ember::kFloat32);
  const uint8_t* src = images.contiguous().data_ptr<uint8_t>();
  float* dst = out.data_ptr<float>();
  for (int64_t i = 0, total = out.numel(); i < total; ++i) dst[i] = table[src[i]];
  return out;
}

// The model (ember::jit::load). When loading fails and no --library was given but train.py listed libraries
// next to the model, the error says how to pass them (the error itself names a missing op's library).
ember::jit::Module load_model(const Options& o) {
  try {
    return ember::jit::load(o.model);
  } catch (const std::exception& e) {
    const std::string listed = (std::filesystem::path(o.model).parent_path() / "custom_ops.txt").string();
    std::ifstream f(listed);
    std::string line;
    bool any = false;
    while (std::getline(f, line)) any = any || !line.empty();
    if (!o.libraries.empty() || !any) throw;
    // On the error's first line, which is what main prints.
    const std::string message = e.what();
    throw std::runtime_error(message.substr(0, message.find('\n')) + " (" + listed +
                             " lists the libraries of the model's custom ops: pass each with --library PATH)");
  }
}

int run(const Options& o) {
  ember::set_num_threads(o.threads);
  if (!o.predictions.empty()) require_output_path(o.predictions);
  require_file(o.model, "export a model first: PYTHONPATH=python /usr/bin/python3 examples/fashion_mnist/train.py "
                        "(writes " + std::string(kDefaultModel) + "), or pass --model");
  const std::string image_path = o.data_dir + "/" + kTestImages, label_path = o.data_dir + "/" + kTestLabels;
  const std::string data_hint = "install Debian's dataset-fashion-mnist (scripts/setup.sh does) or pass --data-dir";
  require_file(image_path, data_hint);
  require_file(label_path, data_hint);

  for (const std::string& library : o.libraries) ember::load_library(library);
  ember::jit::Module model = load_model(o);
  model.eval();
  ember::Tensor images = ember::data::read_idx(image_path);
  ember::Tensor labels = ember::data::read_idx(label_path);
  if (images.dim() != 3 || images.size(1) != kImageSide || images.size(2) != kImageSide ||
      images.dtype() != ember::kUInt8)
    throw std::runtime_error("'" + image_path + "' does not hold uint8 images of 28x28 pixels");
  if (labels.dim() != 1 || labels.dtype() != ember::kUInt8 || labels.size(0) != images.size(0))
    throw std::runtime_error("'" + label_path + "' does not hold one uint8 label per image of '" + image_path + "'");

  int64_t n = images.size(0);
  if (o.limit) n = std::min(n, *o.limit);
  ember::Tensor inputs = normalise(images.narrow(0, 0, n));
  const uint8_t* truth = labels.contiguous().data_ptr<uint8_t>();

  std::vector<int64_t> predicted(static_cast<size_t>(n));
  ember::InferenceMode inference;  // no autograd graph: the parameters may require grad, these calls need none
  auto start = std::chrono::steady_clock::now();
  for (int64_t b = 0; b < n; b += o.batch_size) {
    const int64_t len = std::min(o.batch_size, n - b);
    ember::IValue out = model.forward({inputs.narrow(0, b, len)});
    if (!out.is_tensor())
      throw std::runtime_error("the model returned " + out.repr() + ", not a tensor of logits");
    const ember::Tensor& logits = out.to_tensor();
    if (logits.dim() != 2 || logits.size(0) != len || logits.size(1) != kClasses) {
      std::string shape;
      for (int64_t d = 0; d < logits.dim(); ++d) shape += (d ? ", " : "") + std::to_string(logits.size(d));
      throw std::runtime_error("the model returned logits of shape (" + shape + ") for a batch of " +
                               std::to_string(len) + " images, expected (" + std::to_string(len) + ", 10)");
    }
    ember::Tensor classes = ember::argmax(logits, 1).contiguous();
    std::copy_n(classes.data_ptr<int64_t>(), len, predicted.begin() + b);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) correct += predicted[static_cast<size_t>(i)] == truth[i];
  std::printf("%s: %lld test images, accuracy %.4f (%lld correct), %.2f s in batches of %lld on %d thread%s "
              "(%.0f images/s)\n",
              o.model.c_str(), static_cast<long long>(n), static_cast<double>(correct) / static_cast<double>(n),
              static_cast<long long>(correct), seconds, static_cast<long long>(o.batch_size), o.threads,
              o.threads == 1 ? "" : "s", static_cast<double>(n) / seconds);

  if (!o.predictions.empty()) {
    std::ofstream f(o.predictions);
    for (int64_t p : predicted) f << p << '\n';
    f.close();
    if (!f) throw std::runtime_error("cannot write the predictions to '" + o.predictions + "'");
    std::printf("wrote the predictions to %s\n", o.predictions.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  return examples::run_main("classify_fashion_mnist", [&] { return run(o); });
}
