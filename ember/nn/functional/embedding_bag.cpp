// ember::nn::functional::embedding_bag over ops (embedding, index_add, index_select, max), mirroring
// python/ember/nn/_functional_loss.py (argument handling) and python/ember/_losses.py (the bags).
#include "ember/nn/functional/embedding_bag.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {
namespace {

void check_index_dtype(const Tensor& t, const char* arg) {
  EMBER_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32,
              "embedding_bag: expected tensor for argument '{}' to have one of the following scalar types: Long, "
              "Int; but got {} instead",
              arg, t.dtype());
}

// The bags of the 1-D indices at offsets (Python's ember._losses.embedding_bag). mode 0 sum, 1 mean, 2 max.
Tensor bags(const Tensor& weight, const Tensor& indices_, const Tensor& offsets_, int mode, bool scale_grad_by_freq,
            const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  check_index_dtype(indices_, "indices");
  check_index_dtype(offsets_, "offsets");
  EMBER_CHECK(weight.is_floating_point(),
              "embedding_bag: expected tensor for argument 'weight' to have one of the following scalar types: "
              "Half, Float, Double; but got {} instead",
              weight.dtype());
  EMBER_CHECK(!per_sample_weights.defined() || per_sample_weights.dtype() == weight.dtype(),
              "embedding_bag: expected per_sample_weights to have the dtype of weight ({}), got {}", weight.dtype(),
              per_sample_weights.dtype());
  const int64_t num_weights = weight.size(0), dim = weight.size(1);
  if (padding_idx) {
    EMBER_CHECK(*padding_idx >= -num_weights && *padding_idx < num_weights,
                "embedding_bag: padding_idx must be within the number of embeddings, {} through {}, but got {}",
                -num_weights, num_weights - 1, *padding_idx);
    if (*padding_idx < 0) padding_idx = *padding_idx + num_weights;
  }
  const Tensor indices = indices_.reshape({-1}).to(kInt64), offsets = offsets_.to(kInt64);
  const int64_t length = indices.numel();
  const int64_t n_bags = std::max<int64_t>(include_last_offset ? offsets.numel() - 1 : offsets.numel(), 0);
  if (offsets.numel()) {
    const int64_t first = offsets.select(0, 0).item<int64_t>(), last = offsets.select(0, -1).item<int64_t>();
    EMBER_CHECK(first == 0,
                "embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                "position 0. However, got {}",
                first);
    EMBER_CHECK(last <= length,
                "embedding_bag: offsets[-1] can not be greater than input's length {} but got offsets[-1] of {}",
                length, last);
    EMBER_CHECK(!(offsets.slice(0, 1) < offsets.slice(0, 0, -1)).any().item<bool>(),
                "embedding_bag: offsets must be non-decreasing (offsets of shape [{}])",
                fmt::join(offsets.sizes(), ", "));
  }
  if (length) {
    const int64_t lo = indices.min().item<int64_t>(), hi = indices.max().item<int64_t>();
    EMBER_CHECK(lo >= 0 && hi < num_weights, "embedding_bag: index {} is out of bounds for a weight of {} rows",
                lo < 0 ? lo : hi, num_weights);
  }
  // bag b holds the entries [starts[b], starts[b] + lengths[b])
  const Tensor starts = offsets.slice(0, 0, n_bags);
  const Tensor ends =
      include_last_offset
          ? offsets.slice(0, 1, n_bags + 1)
          : ember::cat({offsets.slice(0, 1, n_bags), ember::full({1}, length, kInt64)}).slice(0, 0, n_bags);
  const Tensor lengths = ends - starts;
  const int64_t used = n_bags ? lengths.sum().item<int64_t>() : 0;
  const Tensor bag_of = ember::arange(n_bags).repeat_interleave(lengths);  // (used): the bag of each entry
  const Tensor used_indices = indices.slice(0, 0, used);
  const Tensor keep = padding_idx ? used_indices != *padding_idx : ember::ones({used}, kBool);
  const Tensor bag_size = ember::zeros({n_bags}, kInt64).index_add(0, bag_of, keep.to(kInt64));
  // (used, D); the gradient is dense whatever sparse says
  Tensor rows = ember::embedding(weight, used_indices, padding_idx.value_or(-1), scale_grad_by_freq, false);
  if (mode != 2) {
    if (per_sample_weights.defined()) rows = rows * per_sample_weights.reshape({-1}).slice(0, 0, used).unsqueeze(1);
    rows = ember::where(keep.unsqueeze(1), rows, ember::zeros_like(rows));
    Tensor out = ember::zeros({n_bags, dim}, weight.dtype()).index_add(0, bag_of, rows);
    if (mode == 1) out = out / bag_size.clamp_min(1).unsqueeze(1).to(weight.dtype());
    return out;
  }
  // max: the rows of each bag in a (B, longest, D) block padded with -inf, then the maxima
  const int64_t longest = n_bags ? lengths.max().item<int64_t>() : 0;
  if (longest == 0) return rows.sum({0}).unsqueeze(0).expand({n_bags, dim}).contiguous();  // zeros, in the graph
  const Tensor pos = ember::arange(longest).unsqueeze(0);
  const Tensor where_from =
      ember::where(pos < lengths.unsqueeze(1), starts.unsqueeze(1) + pos, ember::full_like(pos, used)).reshape({-1});
  const Tensor padded_rows = ember::cat({rows, ember::zeros({1, dim}, weight.dtype())});
  Tensor block = padded_rows.index_select(0, where_from).reshape({n_bags, longest, dim});
  const Tensor padded_keep = ember::cat({keep, ember::zeros({1}, kBool)});
  const Tensor block_keep = padded_keep.index_select(0, where_from).reshape({n_bags, longest, 1});
  block = ember::where(block_keep, block, ember::full_like(block, -std::numeric_limits<double>::infinity()));
  const Tensor values = std::get<0>(block.max(1));
  return ember::where((bag_size == 0).unsqueeze(1), ember::zeros_like(values), values);
}

}  // namespace

Tensor embedding_bag(const Tensor& input_, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  Tensor input = input_, offsets = options.offsets(), per_sample_weights = options.per_sample_weights();
  EMBER_CHECK_VALUE(!per_sample_weights.defined() || input.sizes().equals(per_sample_weights.sizes()),
                    "embedding_bag: If per_sample_weights ([{}]) is not None, then it must have the same shape as the "
                    "input ([{}])",
                    fmt::join(per_sample_weights.sizes(), ", "), fmt::join(input.sizes(), ", "));
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(),
                      "embedding_bag: if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                      "of fixed length sequences. However, found offsets of shape [{}]",
                      fmt::join(offsets.sizes(), ", "));
    EMBER_CHECK(input.size(1) > 0, "embedding_bag: a 2-D input of [{}] has bags of no entries",
                fmt::join(input.sizes(), ", "));
    offsets = ember::arange(0, input.numel(), input.size(1), input.dtype());
    input = input.reshape({-1});
    if (per_sample_weights.defined()) per_sample_weights = per_sample_weights.reshape({-1});
  } else {
    EMBER_CHECK_VALUE(input.dim() == 1,
                      "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension {} (shape [{}])",
                      input.dim(), fmt::join(input.sizes(), ", "));
    EMBER_CHECK_VALUE(offsets.defined(), "embedding_bag: offsets has to be a 1D Tensor but got None (input [{}])",
                      fmt::join(input.sizes(), ", "));
    EMBER_CHECK_VALUE(offsets.dim() == 1, "embedding_bag: offsets has to be a 1D Tensor, got one of shape [{}]",
                      fmt::join(offsets.sizes(), ", "));
  }
  const int mode = static_cast<int>(options.mode().index());  // kSum 0, kMean 1, kMax 2
  if (mode == 2) {
    EMBER_CHECK_VALUE(!options.scale_grad_by_freq(),
                      "embedding_bag: max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_VALUE(!options.sparse(), "embedding_bag: max mode does not support sparse weights");
  }
  if (options.max_norm()) {
    // rescales the rows looked up, in place and outside the graph (as F::embedding does)
    autograd::NoGradGuard no_grad;
    ember::embedding_renorm_(weight, input.contiguous(), *options.max_norm(), options.norm_type());
  }
  EMBER_CHECK_NOT_IMPLEMENTED(!per_sample_weights.defined() || mode == 0,
                              "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
                              "for mode='sum' (got mode='{}'). Please open a feature request on GitHub.",
                              enum_name(options.mode()));
  return bags(weight, input, offsets, mode, options.scale_grad_by_freq(), per_sample_weights,
              options.include_last_offset(), options.padding_idx());
}

}  // namespace ember::nn::functional
