// A custom-op library built out of tree with ember_add_extension() (see CMakeLists.txt beside this file).
#include <ember/ember.h>

namespace {
// axpb(x, a, b) = a * x + b.
ember::Tensor axpb_cpu(const ember::Tensor& x, double a, double b) {
  return ember::add(ember::mul(x, ember::Scalar(a)), ember::Scalar(b));
}
}  // namespace

EMBER_LIBRARY(oot_ops, m) { m.def("axpb(Tensor x, float a=2.0, float b=0.0) -> Tensor"); }
EMBER_LIBRARY_IMPL(oot_ops, CPU, m) { m.impl("axpb", &axpb_cpu); }
