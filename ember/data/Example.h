#pragma once
// One example of a data set: its data and its target (LibTorch's torch::data::Example).
#include <utility>

#include "ember/core/Tensor.h"

namespace ember::data {

/// A (data, target) pair: what Dataset::get returns for one index, and, after a collating transform such as
/// transforms::Stack, a whole batch (data of shape (B, ...), target of shape (B, ...)).
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
/// The Target of an Example that has data only.
using NoTarget = void;
}  // namespace example

/// An example without a target; it converts to its data (so a TensorExample passes where a Tensor is
/// expected).
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}

  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

/// A tensor without a target: the example type of datasets::TensorDataset.
using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
