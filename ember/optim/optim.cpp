// Compiles the umbrella header on its own, so a header of ember/optim that is not self-contained fails here.
#include "ember/optim/optim.h"
