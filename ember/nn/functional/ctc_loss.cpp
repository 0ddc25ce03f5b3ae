// ember::nn::functional::ctc_loss: the alpha-beta recursions of python/ember/_losses.py (Note [CTC]) written
// with ops over the whole (batch, 2S + 1) state per time step, in a custom autograd function.
#include "ember/nn/functional/ctc_loss.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/autograd/CustomFunction.h"
#include "ember/autograd/GradMode.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// log(exp(a) + exp(b) + exp(c)), -inf where all three are -inf (no nan).
Tensor logaddexp3(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor m = ember::maximum(ember::maximum(a, b), c);
  m = ember::where(m == -kInf, ember::zeros_like(m), m);
  return m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).log();
}

// x (N, S) moved |k| states along dim 1, right for k > 0 and left for k < 0, fill taking the states vacated.
Tensor shift(const Tensor& x, int64_t k, const Scalar& fill) {
  const int64_t n = x.size(0), size = x.size(1), width = std::min<int64_t>(std::abs(k), size);
  const Tensor pad = ember::full({n, width}, fill, x.dtype());
  if (k > 0) return ember::cat({pad, x.slice(1, 0, size - width)}, 1);
  return ember::cat({x.slice(1, width, size), pad}, 1);
}

Tensor tensor_at(const autograd::AutogradContext* ctx, const char* key) { return ctx->saved_data.at(key).to_tensor(); }

// -log p(target | log_probs) per sample. Inputs: log_probs (T, N, C); targets (N, S) int64 padded with blanks;
// input_lengths, target_lengths (N) int64.
struct CTCLossFunction : autograd::Function<CTCLossFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& log_probs, const Tensor& targets,
                        const Tensor& input_lengths, const Tensor& target_lengths, int64_t blank, bool zero_infinity) {
    const int64_t T = log_probs.size(0), N = log_probs.size(1), S = targets.size(1), states = 2 * S + 1;
    const DType dtype = log_probs.dtype();
    const Tensor s_idx = ember::arange(states);
    // l' (N, 2S + 1): blank at even states, the targets at odd ones
    const Tensor ext = ember::full({N, states}, blank, kInt64);
    if (S) ext.slice(1, 1, states, 2).copy_(targets);
    const Tensor two_l = (2 * target_lengths).unsqueeze(1);
    const Tensor valid = s_idx.unsqueeze(0) <= two_l;
    Tensor skip = (s_idx.remainder(2) == 1) & (s_idx >= 3);
    skip = skip.unsqueeze(0) & (ext != shift(ext, 2, -1));
    const Tensor neg_inf = ember::full({N, states}, -kInf, dtype);
    const Tensor lp_ext = log_probs.gather(2, ext.unsqueeze(0).expand({T, N, states}));  // (T, N, 2S + 1)
    const Tensor log_alpha = ember::full({T, N, states}, -kInf, dtype);
    if (T) {
      const Tensor s = s_idx.unsqueeze(0);
      const Tensor start = (s == 0) | ((s == 1) & (target_lengths.unsqueeze(1) > 0));
      log_alpha.select(0, 0).copy_(ember::where(start, lp_ext.select(0, 0), neg_inf));
    }
    for (int64_t t = 1; t < T; ++t) {
      const Tensor prev = log_alpha.select(0, t - 1);
      const Tensor skipped = ember::where(skip, shift(prev, 2, -kInf), neg_inf);
      const Tensor step = logaddexp3(prev, shift(prev, 1, -kInf), skipped) + lp_ext.select(0, t);
      log_alpha.select(0, t).copy_(ember::where(valid, step, neg_inf));
    }
    // the end: alpha at t = input_length - 1, states 2L and 2L - 1
    Tensor final = neg_inf;
    if (T) {
      const Tensor last_t = (input_lengths - 1).clamp_min(0).view({N, 1, 1}).expand({N, 1, states});
      final = log_alpha.permute({1, 0, 2}).gather(1, last_t).squeeze(1);  // (N, 2S + 1)
    }
    const Tensor end_blank = final.gather(1, two_l).squeeze(1);
    Tensor end_label = final.gather(1, (two_l - 1).clamp_min(0)).squeeze(1);
    end_label = ember::where(target_lengths > 0, end_label, ember::full_like(end_label, -kInf));
    Tensor nll = -ember::logaddexp(end_blank, end_label);
    // no frames: the empty target has probability 1, any other 0
    nll = ember::where(input_lengths == 0,
                       ember::where(target_lengths == 0, ember::zeros_like(nll), ember::full_like(nll, kInf)), nll);
    ctx->save_for_backward({log_probs});
    // internal tensors (no version check needed); nll detached so the context does not own its output
    ctx->saved_data["ext"] = ext;
    ctx->saved_data["input_lengths"] = input_lengths;
    ctx->saved_data["target_lengths"] = target_lengths;
    ctx->saved_data["log_alpha"] = log_alpha;
    ctx->saved_data["lp_ext"] = lp_ext;
    ctx->saved_data["nll"] = nll.detach();
    ctx->saved_data["skip"] = skip;
    ctx->saved_data["valid"] = valid;
    ctx->saved_data["zero_infinity"] = zero_infinity;
    return nll;
  }

  // d(nll) / d(log_probs) * grad_nll by the beta recursion (Note [CTC] in python/ember/_losses.py).
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const Tensor log_probs = ctx->get_saved_variables()[0];
    autograd::NoGradGuard no_grad;
    const Tensor ext = tensor_at(ctx, "ext"), input_lengths = tensor_at(ctx, "input_lengths");
    const Tensor target_lengths = tensor_at(ctx, "target_lengths"), log_alpha = tensor_at(ctx, "log_alpha");
    const Tensor lp_ext = tensor_at(ctx, "lp_ext"), nll = tensor_at(ctx, "nll");
    const Tensor valid = tensor_at(ctx, "valid"), skip = tensor_at(ctx, "skip");
    const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2), states = ext.size(1);
    const DType dtype = log_probs.dtype();
    const Tensor neg_inf = ember::full({N, states}, -kInf, dtype);
    const Tensor s_idx = ember::arange(states).unsqueeze(0);
    const Tensor two_l = (2 * target_lengths).unsqueeze(1);
    const Tensor end = (s_idx == two_l) | ((s_idx == two_l - 1) & (target_lengths.unsqueeze(1) > 0));
    const Tensor skip_from = shift(skip, -2, false);  // s may jump to s + 2
    const Tensor log_beta = ember::full({T, N, states}, -kInf, dtype);
    Tensor next = neg_inf;
    for (int64_t t = T - 1; t >= 0; --t) {
      const Tensor lp = lp_ext.select(0, t);
      const Tensor skipped = ember::where(skip_from, shift(next, -2, -kInf), neg_inf);
      const Tensor step = ember::where(valid, logaddexp3(next, shift(next, -1, -kInf), skipped) + lp, neg_inf);
      const Tensor first = ember::where(end, lp, neg_inf);
      const Tensor at_end = (input_lengths == t + 1).unsqueeze(1);
      const Tensor inside = (input_lengths > t + 1).unsqueeze(1);
      next = ember::where(at_end, first, ember::where(inside, step, neg_inf));
      log_beta.select(0, t).copy_(next);
    }
    // each state's share of the posterior, gathered onto its class
    Tensor share = (log_alpha + log_beta - lp_ext + nll.view({1, N, 1})).exp();
    const Tensor in_time = ember::arange(T).view({T, 1, 1}) < input_lengths.view({1, N, 1});
    share = ember::where(in_time, share, ember::zeros_like(share));
    if (ctx->saved_data.at("zero_infinity").to_bool()) {
      share = ember::where((nll == kInf).view({1, N, 1}), ember::zeros_like(share), share);
    }
    const Tensor grad = ember::zeros({T, N, C}, dtype).scatter_add(2, ext.unsqueeze(0).expand({T, N, states}), share);
    return {-grad * grads[0].view({1, N, 1}), Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

// The (N) int64 lengths. Errors: a floating or bool tensor; a size other than N; a negative length.
Tensor lengths_tensor(const Tensor& lengths, const char* name, int64_t n) {
  EMBER_CHECK(!lengths.is_floating_point() && !lengths.is_complex() && lengths.dtype() != kBool,
              "ctc_loss: {} must be integral, got dtype {}", name, lengths.dtype());
  const Tensor l = lengths.reshape({-1}).to(kInt64);
  EMBER_CHECK(l.numel() == n, "ctc_loss: {} must be of size batch_size ({}), got shape [{}]", name, n,
              fmt::join(lengths.sizes(), ", "));
  EMBER_CHECK(n == 0 || l.min().item<int64_t>() >= 0, "ctc_loss: {} must be non-negative, got a length of {}", name,
              n ? l.min().item<int64_t>() : 0);
  return l;
}

// The targets as (N, longest) int64, entries past a target's length set to blank.
Tensor padded_targets(const Tensor& targets_, const Tensor& target_lengths, int64_t n, int64_t c, int64_t blank) {
  const Tensor targets = targets_.to(kInt64);
  const int64_t longest = n ? target_lengths.max().item<int64_t>() : 0;
  const int64_t total = target_lengths.sum().item<int64_t>();
  Tensor padded;
  if (targets.dim() == 2) {
    EMBER_CHECK(targets.size(0) == n,
                "ctc_loss: Expected tensor to have size {} at dimension 0, but got size {} for argument #2 "
                "'targets' of shape [{}]",
                n, targets.size(0), fmt::join(targets.sizes(), ", "));
    EMBER_CHECK(targets.size(1) >= longest,
                "ctc_loss: Expected tensor to have size at least {} at dimension 1, but got size {} for argument #2 "
                "'targets' of shape [{}]",
                longest, targets.size(1), fmt::join(targets.sizes(), ", "));
    padded = targets.slice(1, 0, longest);
  } else {
    EMBER_CHECK(targets.dim() == 1,
                "ctc_loss: Expected 1 to 2 dimensions, but got {}-dimensional tensor for argument #2 'targets'",
                targets.dim());
    EMBER_CHECK(targets.size(0) == total,
                "ctc_loss: Expected tensor to have size {} (the sum of target_lengths) at dimension 0, but got size "
                "{} for argument #2 'targets'",
                total, targets.size(0));
    // positions past a target's length read the blank appended at index total
    const Tensor starts = target_lengths.cumsum(0) - target_lengths;
    const Tensor pos = ember::arange(longest).unsqueeze(0);
    const Tensor where_from = ember::where(pos < target_lengths.unsqueeze(1), starts.unsqueeze(1) + pos,
                                           ember::full({n, longest}, total, kInt64));
    const Tensor flat = ember::cat({targets, ember::full({1}, blank, kInt64)});
    padded = flat.index_select(0, where_from.reshape({-1})).reshape({n, longest});
  }
  const Tensor used = ember::arange(longest).unsqueeze(0) < target_lengths.unsqueeze(1);
  const Tensor bad = used & ((padded < 0) | (padded >= c));
  EMBER_CHECK(!bad.any().item<bool>(), "ctc_loss: target values must be in [0, {}), got {}", c,
              padded.masked_select(bad).select(0, 0).item<int64_t>());
  return ember::where(used, padded, ember::full_like(padded, blank));
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs_, const Tensor& targets_, const Tensor& input_lengths_,
                const Tensor& target_lengths_, const CTCLossFuncOptions& options) {
  const bool unbatched = log_probs_.dim() == 2;
  const Tensor log_probs = unbatched ? log_probs_.unsqueeze(1) : log_probs_;
  const Tensor targets = unbatched && targets_.dim() == 1 ? targets_.unsqueeze(0) : targets_;
  EMBER_CHECK(log_probs.dim() == 3,
              "ctc_loss: Expected 3-dimensional tensor, but got {}-dimensional tensor for argument #1 'log_probs' "
              "(expected (T, N, C) or unbatched (T, C))",
              log_probs_.dim());
  EMBER_CHECK(log_probs.dtype() == kFloat32 || log_probs.dtype() == kFloat64,
              "ctc_loss: expected log_probs of dtype float32 or float64, but got {}", log_probs.dtype());
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2), blank = options.blank();
  EMBER_CHECK(blank >= 0 && blank < C, "ctc_loss: blank must be in label range [0, {}), got {}", C, blank);
  const Tensor input_lengths = lengths_tensor(input_lengths_, "input_lengths", N);
  const Tensor target_lengths = lengths_tensor(target_lengths_, "target_lengths", N);
  EMBER_CHECK(N == 0 || input_lengths.max().item<int64_t>() <= T,
              "ctc_loss: Expected input_lengths to have value at most {}, but got value {}", T,
              N ? input_lengths.max().item<int64_t>() : 0);
  const Tensor padded = padded_targets(targets, target_lengths, N, C, blank);
  Tensor nll = CTCLossFunction::apply(log_probs, padded, input_lengths, target_lengths, blank, options.zero_infinity());
  if (options.zero_infinity()) nll = ember::where(nll == kInf, ember::zeros_like(nll), nll);
  const auto& r = options.reduction();
  if (std::holds_alternative<enumtype::kMean>(r)) return (nll / target_lengths.clamp_min(1).to(nll.dtype())).mean();
  if (std::holds_alternative<enumtype::kSum>(r)) return nll.sum();
  return unbatched ? nll.squeeze(0) : nll;
}

}  // namespace ember::nn::functional
