#include "ember/data/Datasets.h"

#include <filesystem>
#include <utility>

#include "ember/base/Error.h"
#include "ember/data/Idx.h"
#include "ember/ops/Functions.h"

namespace ember::data::datasets {

namespace {

void check_index(const char* dataset, size_t index, int64_t size) {
  EMBER_CHECK_INDEX(index < static_cast<size_t>(size), "{}: index {} is out of range for a data set of {} examples",
                    dataset, index, size);
}

Tensor stacked(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "TensorDataset: expected at least one tensor, got an empty list");
  return stack(tensors, 0);
}

/// The path of IDX file `base` in root: plain preferred, else with .gz.
std::string find_idx(const std::string& root, const std::string& base) {
  namespace fs = std::filesystem;
  const std::string plain = (fs::path(root) / base).string(), gz = plain + ".gz";
  for (const auto& path : {plain, gz}) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return path;
  }
  EMBER_FAIL("MNIST: {}[.gz] not found in '{}' (looked for {} and {}); MNIST and Fashion-MNIST ship these four "
             "files: {{train,t10k}}-{{images-idx3,labels-idx1}}-ubyte[.gz] (Fashion-MNIST's are in Debian's "
             "dataset-fashion-mnist, /usr/share/datasets/fashion-mnist)",
             base, root, plain, gz);
}

}  // namespace

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stacked(tensors)) {}

TensorDataset::TensorDataset(Tensor t) : tensor(std::move(t)) {
  EMBER_CHECK(tensor.defined() && tensor.dim() >= 1,
              "TensorDataset: expected a tensor of at least one dimension (its examples are the slices along dim "
              "0), got {}",
              tensor.defined() ? "a 0-dim tensor" : "an undefined tensor");
}

TensorExample TensorDataset::get(size_t index) {
  check_index("TensorDataset", index, tensor.size(0));
  return tensor.select(0, static_cast<int64_t>(index));
}

std::optional<size_t> TensorDataset::size() const { return static_cast<size_t>(tensor.size(0)); }

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  const std::string prefix = train_ ? "train" : "t10k";
  const std::string image_path = find_idx(root, prefix + "-images-idx3-ubyte");
  const std::string label_path = find_idx(root, prefix + "-labels-idx1-ubyte");
  Tensor images = read_idx(image_path), labels = read_idx(label_path);
  EMBER_CHECK(images.dtype() == kUInt8 && images.dim() == 3,
              "MNIST: {}: expected uint8 images of shape (N, H, W), got {} of shape [{}]", image_path,
              dtype_name(images.dtype()), fmt::join(images.sizes(), ", "));
  EMBER_CHECK(labels.dtype() == kUInt8 && labels.dim() == 1,
              "MNIST: {}: expected uint8 labels of shape (N), got {} of shape [{}]", label_path,
              dtype_name(labels.dtype()), fmt::join(labels.sizes(), ", "));
  EMBER_CHECK(images.size(0) == labels.size(0), "MNIST: {} images in {} but {} labels in {}", images.size(0),
              image_path, labels.size(0), label_path);
  images_ = images.unsqueeze(1).to(kFloat32).div(255);
  targets_ = labels.to(kInt64);
}

Example<> MNIST::get(size_t index) {
  check_index("MNIST", index, images_.size(0));
  const auto i = static_cast<int64_t>(index);
  return {images_.select(0, i), targets_.select(0, i)};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

}  // namespace ember::data::datasets
