#pragma once
// ember::data, the C++ frontend's data sets, transforms, samplers and DataLoader (LibTorch's torch::data): one
// include for all of them. <ember/ember.h> includes this file.
#include "ember/data/DataLoader.h"
#include "ember/data/Dataset.h"
#include "ember/data/Datasets.h"
#include "ember/data/Example.h"
#include "ember/data/Idx.h"
#include "ember/data/Samplers.h"
#include "ember/data/Transforms.h"
