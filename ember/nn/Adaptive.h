#pragma once
// AdaptiveLogSoftmaxWithLoss (LibTorch's torch::nn::AdaptiveLogSoftmaxWithLoss, modules/adaptive.h; Python's
// ember.nn.AdaptiveLogSoftmaxWithLoss): the adaptive softmax of Grave, Joulin, Cisse, Grangier and Jegou,
// "Efficient softmax approximation for GPUs" (ICML 2017).
#include <cstdint>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Linear.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/ModuleList.h"
#include "ember/nn/options/adaptive.h"

namespace ember::nn {

/// What AdaptiveLogSoftmaxWithLoss::forward returns: output, the log-probability of each target ((N) or ()),
/// and loss, the mean of -output (0-dim).
///
/// Note [ASMoutput loss]
/// LibTorch 1.13's ASMoutput holds the loss as a double, which cannot be backpropagated; Ember's holds the
/// 0-dim tensor Python's namedtuple has, so `asm.loss.backward()` trains the module (`asm.loss.item<double>()`
/// gives the number).
struct ASMoutput {
  ASMoutput(Tensor output_, Tensor loss_) : output(std::move(output_)), loss(std::move(loss_)) {}
  Tensor output;
  Tensor loss;
};

/// Adaptive softmax: the classes, sorted by frequency, are split by cutoffs into a shortlist [0, cutoffs[0])
/// and clusters [cutoffs[i], cutoffs[i + 1]) (the last ending at n_classes). The head, a Linear(in_features,
/// cutoffs[0] + n_clusters, bias = head_bias), scores the shortlist classes and one entry per cluster; cluster
/// i has its own projection Sequential(Linear(in_features, in_features / div_value^(i + 1), no bias),
/// Linear(that, cluster size, no bias)) scoring the classes inside it. log p(class) = log p_head(class) in the
/// shortlist, else log p_head(cluster) + log p_cluster(class).
///
/// Parameters as PyTorch's (head.weight, head.bias, tail.0.0.weight, tail.0.1.weight, ...), drawn in its
/// order, so state dicts interchange with Python and initial values under a seed are equal.
/// forward(input (N, in_features) or (in_features), target (N) or () int64): ASMoutput (Note [ASMoutput loss]).
/// Errors: cutoffs not unique, increasing and within [1, n_classes - 1] (at construction, ValueError); a
/// target of more than 1 dim, an input of a rank that does not fit target's, batch sizes that differ, a target
/// outside [0, n_classes - 1] (RuntimeError, naming the shapes or values).
class AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, cutoffs)) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_);

  ASMoutput forward(const Tensor& input, const Tensor& target);
  /// Registers head and tail (the constructor calls it).
  void reset() override;
  /// Draws new initial values for every Linear (head first, then the tail in order).
  void reset_parameters();
  /// log p of every class, (N, n_classes), from input (N, in_features) and the head's scores head_output.
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  /// log p of every class: input (N, in_features) -> (N, n_classes).
  Tensor log_prob(const Tensor& input);
  /// The most likely class of each row of input (N, in_features): (N) int64.
  Tensor predict(const Tensor& input);

  AdaptiveLogSoftmaxWithLossOptions options;
  /// options.cutoffs() followed by n_classes.
  std::vector<int64_t> cutoffs;
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail = nullptr;
};

EMBER_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace ember::nn
