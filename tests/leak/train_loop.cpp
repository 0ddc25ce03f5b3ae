// Leak check of the autograd graph (issue 4), run by CTest as `leak_check`: a training-like loop — forward,
// backward, SGD update in place under no_grad — plus forward passes that never run backward, in a program
// linked with LeakSanitizer (-fsanitize=leak: only this program is built with it; LSan replaces malloc for the
// whole process, libember.so included, and reports at exit every block no longer reachable, such as a graph
// kept alive by a reference cycle). tests/autograd/graph_lifetime_test.cpp checks that nodes die on time.
// Runs in well under a second; by hand: build/tests/ember_leak_check (exit status 23 on a leak).
#include <cstdio>
#include <vector>

#include "ember/api/ember.h"

namespace {

using namespace ember;
namespace ag = ember::autograd;

Tensor floats(const std::vector<float>& v) {
  return tensor_from_buffer(v.data(), {static_cast<int64_t>(v.size())}, DType::Float32);
}

Tensor loss_of(const Tensor& w, const Tensor& c, const Tensor& x) {
  Tensor h = (w * x + c).exp();  // exp saves its output
  Tensor y = h.sin();
  y.mul_(c);                     // in place on a non-leaf
  y.narrow(0, 1, 2).add_(w.narrow(0, 0, 2));  // in place on a view: CopySlices
  Tensor out = ember::zeros({4});
  out.select(0, 3).copy_(y.select(0, 0));     // a plain base gets history
  return (y.tanh() * h + out).sum();
}

}  // namespace

int main() {
  Tensor w = floats({0.5f, -1.0f, 0.25f, 2.0f}), c = floats({0.1f, 0.2f, 0.3f, 0.4f});
  Tensor x = floats({1.0f, 2.0f, 3.0f, 4.0f});
  ag::set_requires_grad(w, true);
  ag::set_requires_grad(c, true);
  for (int i = 0; i < 200; ++i) {
    Tensor loss = loss_of(w, c, x);
    ag::backward({loss}, {}, /*retain_graph=*/i % 2 == 0);
    ag::NoGradGuard no_grad;
    w.sub_(ag::grad(w) * 0.01);
    c.sub_(ag::grad(c) * 0.01);
    ag::set_grad(w, Tensor());
    ag::set_grad(c, Tensor());
  }
  for (int i = 0; i < 50; ++i) {  // forward only: the graph must go with the loss
    Tensor loss = loss_of(w, c, x);
    (void)loss;
  }
  std::printf("leak_check: loop done, w[0] = %f\n", static_cast<double>(w.select(0, 0).item<float>()));
  return 0;
}
