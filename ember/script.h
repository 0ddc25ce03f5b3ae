#pragma once
// LibTorch's <torch/script.h> renamed: everything of <ember/ember.h> plus the JIT runtime, for programs that load a
// saved model and run it (`auto module = ember::jit::load(path); module.forward({x}).toTensor()`). ember::jit::
// script::Module is LibTorch's older name of ember::jit::Module.
#include "ember/ember.h"  // (which checks for C++20)
#include "ember/jit/runtime/SavedModule.h"

namespace ember::jit {
using IValue = ::ember::IValue;
namespace script {
using Module = ::ember::jit::Module;
}  // namespace script
}  // namespace ember::jit
