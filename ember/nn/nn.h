#pragma once
// ember::nn, the C++ frontend's modules (LibTorch's torch::nn): one include for all of them. Each header of
// this folder is listed here as it is added; <ember/ember.h> includes this file.
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Options.h"
#include "ember/nn/enum.h"
#include "ember/nn/functional.h"
#include "ember/nn/options/activation.h"
#include "ember/nn/options/conv.h"
#include "ember/nn/options/loss.h"
#include "ember/nn/options/normalization.h"
#include "ember/nn/options/pooling.h"
