#pragma once
// ember::optim, the C++ frontend's optimizers and learning-rate schedulers (LibTorch's torch::optim): one
// include for all of them. Each header of this folder is listed here as it is added; <ember/ember.h> includes
// this file.
