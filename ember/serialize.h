#pragma once
// LibTorch's <torch/serialize.h> renamed: ember::save / ember::load of tensors, modules and optimizers. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
