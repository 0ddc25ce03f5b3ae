#pragma once
// ember::nn::functional's alpha dropouts (LibTorch's F::alpha_dropout and F::feature_alpha_dropout), composed of
// ops as Python's ember.alpha_dropout (python/ember/_attention.py, Note [dropout family]), so a seed gives the
// masks and values of Python's and PyTorch's.
#include "ember/core/Tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn::functional {

/// Alpha dropout (Klambauer et al., "Self-Normalizing Neural Networks", 2017): in training each element is set
/// with probability p to SELU's negative saturation -s (s = 1.7580993...) and the result mapped affinely,
/// out = a * (x * m - s * (1 - m)) + a * s * p with a = ((1 - p) * (1 + p * s^2))^(-1/2), so a zero-mean,
/// unit-variance input keeps its mean and variance; m is one Bernoulli(1 - p) draw per element (PyTorch's
/// draws under the same seed). Not training, p == 0 or an empty input: the input itself. p == 1: input * 0.
/// input: any shape; returns its shape. Errors: p outside [0, 1].
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options = {});

/// alpha_dropout with one draw per (sample, channel) of (N, C, *) input, broadcast over the other dims.
/// Errors: p outside [0, 1]; an input of fewer than 2 dims (when a mask is drawn), naming its shape.
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace ember::nn::functional
