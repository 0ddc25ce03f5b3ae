#pragma once
// Flatten and Unflatten (LibTorch's torch::nn::Flatten / Unflatten; Python's ember.nn.Flatten / Unflatten).
#include <cstdint>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"

namespace ember::nn {

/// Options of Flatten: `FlattenOptions().start_dim(0).end_dim(-1)`.
struct FlattenOptions {
  /// First dim to flatten (negative counts from the end).
  EMBER_ARG(int64_t, start_dim) = 1;
  /// Last dim to flatten (negative counts from the end).
  EMBER_ARG(int64_t, end_dim) = -1;
};

/// Flattens dims start_dim..end_dim into one (by default all but the batch dim):
/// input (N, C, H, W) -> (N, C*H*W). Errors: dims out of range or start_dim after end_dim (from flatten).
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input);
  /// "start_dim=1, end_dim=-1".
  std::string extra_repr() const override;

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

/// Options of Unflatten: `UnflattenOptions(dim, {2, 3})` splits dim into sizes 2 and 3.
struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  /// The dim to split (negative counts from the end).
  EMBER_ARG(int64_t, dim);
  /// The sizes it becomes; one of them may be -1 (inferred).
  EMBER_ARG(std::vector<int64_t>, sizes);
};

/// Splits dim into the given sizes: Unflatten(1, {2, 3}) maps (N, 6, *) -> (N, 2, 3, *).
/// Errors: a dim out of range; sizes whose product is not the dim's size (from unflatten).
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  Tensor forward(const Tensor& input);
  /// "dim=1, unflattened_size=(2, 3)".
  std::string extra_repr() const override;

  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace ember::nn
