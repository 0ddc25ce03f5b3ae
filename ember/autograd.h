#pragma once
// LibTorch's <torch/autograd.h> renamed: ember::autograd: backward, grad, custom Functions, grad modes. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
