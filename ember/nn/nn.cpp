// Compiles the umbrella header on its own, so a header of ember/nn that is not self-contained fails here.
#include "ember/nn/nn.h"
