#pragma once
// LibTorch's <torch/cuda.h> renamed: ember::cuda (is_available() is false: Ember runs on the CPU). As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
