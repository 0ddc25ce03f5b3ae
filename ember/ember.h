#pragma once
// The one header for C++ programs: #include <ember/ember.h>. It belongs to the api layer (ember/api/ember.h
// holds the list), so it may include every layer.
#include "ember/api/ember.h"
