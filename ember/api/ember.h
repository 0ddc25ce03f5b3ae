#pragma once
// Everything a C++ program needs; include it as <ember/ember.h> (which forwards here).
//
//   ember::Tensor x = ember::arange(6, ember::kFloat32).reshape({2, 3});
//   ember::Tensor y = (x * 2).exp().sum();   // ops as functions and methods
//   std::cout << y.str() << "\n";
#include "ember/api/cuda.h"
#include "ember/api/init.h"
#include "ember/api/libtorch.h"
#include "ember/autograd/autograd.h"
#include "ember/backends/onednn/OneDNN.h"
#include "ember/backends/openblas/OpenBLAS.h"
#include "ember/core/Tensor.h"
#include "ember/core/TypePromotion.h"
#include "ember/data/data.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/Library.h"
#include "ember/dispatch/InferSchema.h"
#include "ember/dispatch/LoadLibrary.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/Provider.h"
#include "ember/nn/nn.h"
#include "ember/optim/optim.h"
#include "ember/ops/Functions.h"
#include "ember/ops/meta.h"
#include "ember/ops/Operators.h"
#include "ember/ops/TensorIndexing.h"
#include "ember/ops/TensorPrint.h"
#include "ember/serialize/EmberFormat.h"
#include "ember/serialize/InputArchive.h"
#include "ember/serialize/OutputArchive.h"
#include "ember/serialize/Save.h"
