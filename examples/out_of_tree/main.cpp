// Uses an installed Ember through find_package(Ember); see CMakeLists.txt beside this file.
#include <ember/ember.h>

#include <cmath>
#include <iostream>
#include <string>

int main() {
  ember::Tensor x = ember::arange(1, 7, 1, ember::kFloat64).reshape({2, 3});
  ember::Tensor y = (x * x).sqrt() - x;  // all zeros
  std::cout << "x = " << x.str() << "\n" << "sqrt(x * x) - x = " << y.str() << "\n";
  ember::Tensor yc = y.contiguous();
  bool ok = yc.numel() == 6;
  for (int64_t i = 0; i < yc.numel(); ++i) ok = ok && std::abs(yc.data_ptr<double>()[i]) < 1e-12;

  // The custom op of oot_ops.cpp, loaded at run time and called through the dispatcher by name.
  ember::load_library(OOT_OPS_PATH);
  static const auto axpb = ember::typed_op<ember::Tensor(const ember::Tensor&, double, double)>("oot_ops::axpb");
  ember::Tensor z = axpb(x, 3.0, 1.0).contiguous();  // 3x + 1
  for (int64_t i = 0; i < z.numel(); ++i) ok = ok && z.data_ptr<double>()[i] == 3.0 * double(i + 1) + 1.0;
  bool raised = false;
  try {
    ember::load_library("/nonexistent/libnothing.so");
  } catch (const ember::LibraryLoadError& e) {
    raised = std::string(e.what()).find("no such file") != std::string::npos;
  }
  ok = ok && raised;
  std::cout << (ok ? "out-of-tree example: ok" : "out-of-tree example: WRONG RESULT") << "\n";
  return ok ? 0 : 1;
}
