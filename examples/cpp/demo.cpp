// Ember's C++ demo: build tensors, run ops on them and print them, with no Python involved.
//
//   make && build/examples/cpp/demo
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  try {
    Tensor x = arange(6, kFloat32).reshape({2, 3});
    Tensor b = linspace(-1, 1, 3);  // broadcasts along the rows of x
    std::cout << "x =\n" << x.str() << "\n\n";
    std::cout << "b =\n" << b.str() << "\n\n";
    std::cout << "x * 2 + b =\n" << (x * 2 + b).str() << "\n\n";
    std::cout << "exp(x.t()) =\n" << x.t().exp().str() << "\n\n";
    std::cout << "sigmoid(x - 2.5) =\n" << sigmoid(x - 2.5).str() << "\n\n";
    std::cout << "where(x > 2, x, -x) as int64 =\n" << where(x > 2, x, -x).to(kInt64).str() << "\n";

    // Errors are exceptions that name the op and the shapes involved; they never abort the process.
    try {
      add(x, ones({4}));
    } catch (const Error& e) {
      std::cout << "\nadd of shapes (2, 3) and (4) fails: " << e.what() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "demo failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
