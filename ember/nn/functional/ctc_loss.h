#pragma once
// ember::nn::functional's ctc_loss (LibTorch's F::ctc_loss): connectionist temporal classification, as
// Python's ember.nn.functional.ctc_loss (python/ember/_losses.py): the alpha recursion over ops, the beta
// recursion for the gradient (Note [CTC] there), in a custom autograd function.
#include "ember/core/Tensor.h"
#include "ember/nn/options/loss.h"

namespace ember::nn::functional {

/// -log p(target | log_probs) per sample, summed over every alignment of the target to the input frames
/// (Graves et al., "Connectionist Temporal Classification", ICML 2006).
///
/// log_probs: (T, N, C) or unbatched (T, C) log-probabilities (float32/float64), e.g. log_softmax over C.
/// targets: (N, S) padded, or the concatenation of the N targets (sum(target_lengths)); values in [0, C).
/// input_lengths, target_lengths: (N) integral, each input length <= T.
/// Reduction kNone: the (N) losses (() unbatched); kMean: each loss divided by its target length (at least 1),
/// then averaged; kSum. zero_infinity: infinite losses (inputs too short) and their gradients become 0.
/// The gradient w.r.t. log_probs is the exact one of the loss (equal to PyTorch's through a log_softmax); it
/// has no derivative of its own (no double backward).
/// Errors: log_probs not 3-D (or 2-D) or not float32/float64; blank outside [0, C); lengths of the wrong
/// size, negative, non-integral, or input lengths above T; targets of the wrong size, rank or values. Each
/// names the sizes involved.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace ember::nn::functional
