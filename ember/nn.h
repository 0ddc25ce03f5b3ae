#pragma once
// LibTorch's <torch/nn.h> renamed: ember::nn: modules, options, functional, init and utilities. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
