#pragma once
// ember::nn, the C++ frontend's modules (LibTorch's torch::nn): one include for all of them. Each header of
// this folder is listed here as it is added; <ember/ember.h> includes this file.
