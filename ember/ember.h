#pragma once
// The one header for C++ programs: #include <ember/ember.h>. It belongs to the api layer (ember/api/ember.h
// holds the list), so it may include every layer.
#if __cplusplus < 202002L
#error "Ember's headers are C++20: compile with -std=c++20 (CMake's Ember::ember target sets it for its users)"
#endif
#include "ember/api/ember.h"
