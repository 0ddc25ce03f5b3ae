#pragma once
// ember::optim, the C++ frontend's optimizers and learning-rate schedulers (LibTorch's torch::optim): one
// include for all of them. Each header of this folder is listed here as it is added; <ember/ember.h> includes
// this file.
#include "ember/optim/Adagrad.h"
#include "ember/optim/Adam.h"
#include "ember/optim/LBFGS.h"
#include "ember/optim/LRScheduler.h"
#include "ember/optim/Optimizer.h"
#include "ember/optim/RMSprop.h"
#include "ember/optim/SGD.h"
