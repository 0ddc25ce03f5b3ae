// Uses an installed Ember through find_package(Ember); see CMakeLists.txt beside this file.
#include <ember/ember.h>

#include <cmath>
#include <iostream>

int main() {
  ember::Tensor x = ember::arange(1, 7, 1, ember::kFloat64).reshape({2, 3});
  ember::Tensor y = (x * x).sqrt() - x;  // all zeros
  std::cout << "x = " << x.str() << "\n" << "sqrt(x * x) - x = " << y.str() << "\n";
  ember::Tensor yc = y.contiguous();
  bool ok = yc.numel() == 6;
  for (int64_t i = 0; i < yc.numel(); ++i) ok = ok && std::abs(yc.data_ptr<double>()[i]) < 1e-12;
  std::cout << (ok ? "out-of-tree example: ok" : "out-of-tree example: WRONG RESULT") << "\n";
  return ok ? 0 : 1;
}
