#pragma once
// Ready-made data sets (LibTorch's torch::data::datasets::TensorDataset and MNIST).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ember/data/Dataset.h"
#include "ember/data/Example.h"

namespace ember::data::datasets {

/// The slices of one tensor along dim 0: get(i) is tensor[i] as a TensorExample (no target), size() is
/// tensor.size(0). Built from a tensor, or from a list of equally shaped tensors (ember::stack of them).
/// Errors: a 0-dim tensor, an empty list (RuntimeError); get() of an index >= size() (IndexError).
struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);

  TensorExample get(size_t index) override;
  std::optional<size_t> size() const override;

  Tensor tensor;
};

/// MNIST, or any data set in its four IDX files, such as Fashion-MNIST: `root` holds
/// {train,t10k}-{images-idx3,labels-idx1}-ubyte, each plain or gzip-compressed with the suffix .gz (the
/// plain file is preferred when both exist). Mode::kTrain reads the train-* pair, Mode::kTest the t10k-*
/// pair. As LibTorch's MNIST:
///   images(): float32 (N, 1, H, W), the uint8 pixels divided by 255 (so in [0, 1]); 28 x 28 for (Fashion-)MNIST;
///   targets(): int64 (N), the labels;
///   get(i): Example{images()[i] (1, H, W), targets()[i] (a 0-dim int64 tensor)}.
///
///   auto ds = ember::data::datasets::MNIST("/usr/share/datasets/fashion-mnist", MNIST::Mode::kTest);
///
/// Errors (RuntimeError, each naming the file): a missing file (with every path looked at); what read_idx
/// rejects (corrupt or truncated files); images that are not uint8 (N, H, W) or labels not uint8 (N); image and
/// label counts that differ. get() of an index >= size(): IndexError.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;

  /// Whether this is the training split.
  bool is_train() const noexcept { return train_; }
  /// All images, float32 (N, 1, H, W) in [0, 1].
  const Tensor& images() const { return images_; }
  /// All labels, int64 (N).
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

}  // namespace ember::data::datasets
