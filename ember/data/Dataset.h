#pragma once
// Data sets (LibTorch's torch::data::datasets): the BatchDataset and Dataset interfaces a DataLoader reads, and
// MapDataset, a data set seen through a transform (dataset.map(transform)).
//
// Note [datasets are values]
// Data sets and transforms are plain values, copied and moved like LibTorch's: make_data_loader takes the
// data set by value and, with workers, gives every worker thread its own copy (Note [data loader workers]).
// A data set that holds tensors (MNIST, TensorDataset) shares their storage between the copies, so copying
// is cheap; get()/get_batch() must then only read shared state, as they run in several threads at once.
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/data/Example.h"

namespace ember::data::datasets {

template <typename SourceDataset, typename AppliedTransform>
class MapDataset;

/// A data set that answers whole batch requests: get_batch(request) -> Batch for a request of the sampler
/// (by default the indices of the batch). Self is the derived class (map() returns a MapDataset over it).
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  virtual ~BatchDataset() = default;

  /// The batch for request (for an index-based data set: the examples at those indices, in that order).
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, or nullopt when unknown (make_data_loader without a sampler needs a size).
  virtual std::optional<size_t> size() const = 0;

  /// This data set seen through transform: its batches become transform.apply_batch(batch). The data set is
  /// copied (an lvalue) or moved (an rvalue) into the result.
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return MapDataset<Self, TransformType>(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return MapDataset<Self, TransformType>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A data set of single examples: get(index) -> SingleExample; a batch is the vector of the examples at the
/// requested indices (get_batch calls get once per index, in order).
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// The example at index, 0 <= index < size().
  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A data set whose batches are those of SourceDataset passed through AppliedTransform::apply_batch. The
/// transform's InputBatchType must be the source's BatchType (checked at compile time); the result's
/// BatchType is the transform's OutputBatchType, so maps chain: ds.map(Normalize<>(..)).map(Stack<>()).
template <typename SourceDataset, typename AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename SourceDataset::BatchRequestType> {
  static_assert(std::is_same_v<typename SourceDataset::BatchType, typename AppliedTransform::InputBatchType>,
                "MapDataset: the transform's InputBatchType must be the data set's BatchType (a Stack<>() "
                "collation, say, consumes the batch and must be the last map)");

 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(request)));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }

  /// The source data set and the transform.
  const SourceDataset& dataset() const noexcept { return dataset_; }
  const AppliedTransform& transform() const noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

/// dataset.map(transform) as a free function.
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  return MapDataset<DatasetType, TransformType>(std::move(dataset), std::move(transform));
}

}  // namespace ember::data::datasets
