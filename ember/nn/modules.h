#pragma once
// LibTorch's <torch/nn/modules.h> renamed: every module of ember::nn (ember/nn/nn.h).
#include "ember/nn/nn.h"
