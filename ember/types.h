#pragma once
// LibTorch's <torch/types.h> renamed: the tensor types and factories. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
