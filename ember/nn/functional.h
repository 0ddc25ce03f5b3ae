#pragma once
// ember::nn::functional, LibTorch's torch::nn::functional: stateless layers with options structs.
//
//   namespace F = ember::nn::functional;
//   auto y = F::relu(F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1)));
//   auto loss = F::cross_entropy(y.flatten(1), target, F::CrossEntropyFuncOptions().reduction(ember::kSum));
//
// Each function calls the op of the database that Python's ember.nn.functional calls for it
// (python/ember/nn/functional.py), with the same argument handling, so both front ends give identical values
// and gradients; shape errors come from the ops and name them.
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/ctc_loss.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/distribution_loss.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding_bag.h"
#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/margin_loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/upsampling.h"
