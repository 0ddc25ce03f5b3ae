#pragma once
// ember::nn, the C++ frontend's modules (LibTorch's torch::nn): one include for all of them. Each header of
// this folder is listed here as it is added; <ember/ember.h> includes this file.
#include "ember/nn/AnyModule.h"
#include "ember/nn/Dropout.h"
#include "ember/nn/Embedding.h"
#include "ember/nn/Flatten.h"
#include "ember/nn/Linear.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleDict.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/ModuleList.h"
#include "ember/nn/Options.h"
#include "ember/nn/OrderedDict.h"
#include "ember/nn/Repr.h"
#include "ember/nn/Sequential.h"
#include "ember/nn/Serialize.h"
#include "ember/nn/init.h"
