#pragma once
// oneDNN's float32 convolutions (Note [onednn conv] in Convolution.cpp), registered by register_provider().
#include "ember/kernels/cpu/Provider.h"

namespace ember::backends::onednn {

/// Adds oneDNN's convolution kernels (forward, backward) of provider p to the conv provider slots.
void register_conv_kernels(cpu::Provider& p);

}  // namespace ember::backends::onednn
