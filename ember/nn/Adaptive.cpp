#include "ember/nn/Adaptive.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Sequential.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn {

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_)
    : Cloneable<AdaptiveLogSoftmaxWithLossImpl>("AdaptiveLogSoftmaxWithLoss"), options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const std::vector<int64_t>& given = options.cutoffs();
  const int64_t n_classes = options.n_classes(), in_features = options.in_features();
  const bool valid = !given.empty() && std::is_sorted(given.begin(), given.end()) && given.front() > 0 &&
                     given.back() <= n_classes - 1 &&
                     std::set<int64_t>(given.begin(), given.end()).size() == given.size();
  EMBER_CHECK_VALUE(
      valid,
      "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers sorted in an "
      "increasing order, where each value is between 1 and n_classes-1; got [{}] for n_classes {}",
      fmt::join(given, ", "), n_classes);
  cutoffs = given;
  cutoffs.push_back(n_classes);
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  // drawn in Python's order: the head, then each cluster's two layers
  head = register_module("head", Linear(LinearOptions(in_features, head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    // Python's int(in_features // div_value ** (i + 1))
    const auto hidden = static_cast<int64_t>(std::floor(in_features / std::pow(options.div_value(), i + 1)));
    Sequential projection;
    projection->push_back(Linear(LinearOptions(in_features, hidden).bias(false)));
    projection->push_back(Linear(LinearOptions(hidden, cutoffs[i + 1] - cutoffs[i]).bias(false)));
    tail->push_back(projection);
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (int64_t i = 0; i < n_clusters; ++i) {
    for (const auto& layer : tail->ptr<SequentialImpl>(i)->children()) {
      std::dynamic_pointer_cast<LinearImpl>(layer)->reset_parameters();
    }
  }
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  const int64_t tdim = target_.dim();
  EMBER_CHECK(tdim <= 1,
              "AdaptiveLogSoftmaxWithLoss: 0D or 1D target tensor expected, multi-target not supported; got target "
              "[{}]",
              fmt::join(target_.sizes(), ", "));
  EMBER_CHECK(
      input_.dim() == tdim + 1,
      "AdaptiveLogSoftmaxWithLoss: {}D target tensor expects {}D input tensors, but found inputs with size [{}]", tdim,
      tdim + 1, fmt::join(input_.sizes(), ", "));
  EMBER_CHECK(tdim == 0 || input_.size(0) == target_.size(0),
              "AdaptiveLogSoftmaxWithLoss: Input and target should have the same size in the batch dimension; got "
              "input [{}] and target [{}]",
              fmt::join(input_.sizes(), ", "), fmt::join(target_.sizes(), ", "));
  const bool batched = tdim > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  if (target.numel()) {
    const int64_t lo = target.min().item<int64_t>(), hi = target.max().item<int64_t>();
    EMBER_CHECK(lo >= 0 && hi <= options.n_classes() - 1,
                "AdaptiveLogSoftmaxWithLoss: Target values should be in [0, {}], but values in range [{}, {}] were "
                "found.",
                options.n_classes() - 1, lo, hi);
  }
  // the head entry of each target: itself in the shortlist, else its cluster's
  Tensor cluster = ember::zeros_like(target);
  for (int64_t i = 0; i < n_clusters; ++i) cluster = cluster + (target >= cutoffs[i]).to(kInt64);
  const Tensor head_index = ember::where(cluster == 0, target, cluster + (shortlist_size - 1));
  const Tensor head_logprob = ember::log_softmax(head->forward(input), 1);
  Tensor output = head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1);
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor rows = (cluster == i + 1).nonzero().reshape({-1});
    if (rows.numel() == 0) continue;
    const Tensor local = target.index_select(0, rows) - cutoffs[i];
    const Tensor cluster_logprob =
        ember::log_softmax(tail->ptr<SequentialImpl>(i)->forward(input.index_select(0, rows)), 1);
    output = output.index_add(0, rows, cluster_logprob.gather(1, local.unsqueeze(1)).squeeze(1));
  }
  Tensor loss = (-output).mean();
  return ASMoutput(batched ? output : output.squeeze(0), std::move(loss));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input, const Tensor& head_output) {
  const Tensor head_logprob = ember::log_softmax(head_output, 1);
  std::vector<Tensor> parts = {head_logprob.slice(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor cluster_logprob = ember::log_softmax(tail->ptr<SequentialImpl>(i)->forward(input), 1);
    parts.push_back(cluster_logprob + head_logprob.select(1, shortlist_size + i).unsqueeze(1));
  }
  return ember::cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  return _get_full_log_prob(input, head->forward(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  const Tensor head_output = head->forward(input);
  const Tensor output = head_output.argmax(1);
  const Tensor outside = output >= shortlist_size;
  // a row whose head prefers a shortlist class needs no cluster: that class beats every cluster's total
  if (!outside.any().item<bool>()) return output;
  const Tensor rows = outside.nonzero().reshape({-1});
  const Tensor full = _get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows));
  return output.index_copy(0, rows, full.argmax(1));
}

}  // namespace ember::nn
