#pragma once
// LibTorch's <torch/data.h> renamed: ember::data: datasets, samplers, transforms and data loaders. As LibTorch's
// headers bring much of the API each, this one includes all of <ember/ember.h>.
#include "ember/api/ember.h"
