#pragma once
// LibTorch's <torch/optim.h> renamed: ember::optim: optimizers and learning-rate schedulers. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
