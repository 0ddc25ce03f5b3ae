#pragma once
// LibTorch's <torch/utils.h> renamed: the utilities (NoGradGuard, manual_seed, ...). As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
