#pragma once
// LibTorch's <torch/all.h> renamed: all of the C++ API. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
