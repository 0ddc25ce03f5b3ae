#pragma once
// Transforms (LibTorch's torch::data::transforms): what dataset.map(...) applies to every batch. A
// BatchTransform maps a whole batch; a Transform maps each example of a batch (a vector) on its own; a
// Collation turns the vector of examples into one value (Stack). Tensor transforms (Normalize, TensorLambda)
// change the data of an Example and leave its target.
#include <functional>
#include <utility>
#include <vector>

#include "ember/base/ArrayRef.h"
#include "ember/data/Example.h"
#include "ember/ops/Functions.h"

namespace ember::data::transforms {

/// Maps a whole batch: apply_batch(InputBatch) -> OutputBatch.
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Maps each example of a batch (std::vector<Input> -> std::vector<Output>) with apply(), in order.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual OutputType apply(InputType input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

/// A BatchTransform given as a function of the whole batch.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

/// A Transform given as a function of one example.
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A transform that turns a batch (by default a vector of T) into one T.
template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
/// A Collation given as a function.
template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

/// A transform of an Example's data tensor (operator()); the target passes through unchanged.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;

  virtual Tensor operator()(Tensor input) = 0;

  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// A TensorTransform given as a function of the data tensor.
template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

namespace detail {
/// values as a float32 tensor of shape (C, 1, 1), for Normalize. Errors (ValueError, naming `what`): no
/// values; with `nonzero`, a zero value (dividing by it would fill the images with inf and NaN).
Tensor channel_constants(ArrayRef<double> values, const char* what, bool nonzero);
/// (input - mean) / stddev with mean, stddev of shape (C, 1, 1) (see Normalize). Errors: C > 1 values but
/// an input without C channels at dim -3 (RuntimeError naming both shapes).
Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev);
}  // namespace detail

/// (data - mean) / stddev, per channel: mean and stddev hold one value for every channel (the input's dim
/// -3, as images (C, H, W) have it) or one value for all. Computed in float32 when the input is float32 or
/// an integer type (the constants are float32 tensors of shape (C, 1, 1), broadcast against the input, so a
/// 2-D (H, W) input comes out (1, H, W), as in LibTorch); float64 input stays float64.
///
///   dataset.map(ember::data::transforms::Normalize<>(0.1307, 0.3081))           // one value
///   dataset.map(ember::data::transforms::Normalize<>({0.5, 0.4, 0.3}, {0.2, 0.2, 0.2}))   // RGB
///
/// Errors: empty mean or stddev, a zero in stddev (ValueError); at apply time, an input whose channel count
/// does not match several values (RuntimeError naming the shapes).
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(detail::channel_constants(mean, "mean", /*nonzero=*/false)),
        stddev(detail::channel_constants(stddev, "stddev", /*nonzero=*/true)) {}

  Tensor operator()(Tensor input) override { return detail::normalize(input, mean, stddev); }

  /// The constants, float32 of shape (C, 1, 1).
  Tensor mean, stddev;
};

namespace detail {
/// ember::stack of the tensors, with an error naming the transform when there are none.
Tensor stack_batch(std::vector<Tensor> tensors, const char* what);
}  // namespace detail

/// Collates a batch of examples by stacking: Stack<>() (for Example<Tensor, Tensor>) makes one Example whose
/// data is ember::stack of the examples' data (B, ...) and whose target the stack of their targets (a batch of
/// 0-dim int64 targets becomes (B,)); Stack<TensorExample>() stacks the data only. Errors: an empty batch;
/// examples of different shapes (ember::stack's error).
template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {detail::stack_batch(std::move(data), "Stack (data)"),
            detail::stack_batch(std::move(targets), "Stack (target)")};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return detail::stack_batch(std::move(data), "Stack");
  }
};

}  // namespace ember::data::transforms
