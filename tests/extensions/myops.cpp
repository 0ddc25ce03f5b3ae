// A custom-op library as a user writes it (tests of issue 7): a CPU kernel with its own backward through
// ember::autograd::Function, overloads, an op that mutates its input, and a plain function bound with
// def_function. Built as a shared library by tests/CMakeLists.txt and compiled at run time by the Python tests.
#include <ember/ember.h>

#include <cmath>

namespace {

// fused_act(x, alpha) = x * sigmoid(alpha * x) (SiLU with a slope), one pass over contiguous memory.
template <class T>
void fused_act_loop(const T* x, T* y, int64_t n, T alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (T(1) + std::exp(-alpha * x[i]));
}

ember::Tensor fused_act_cpu(const ember::Tensor& x, double alpha) {
  EMBER_CHECK(x.dtype() == ember::kFloat32 || x.dtype() == ember::kFloat64,
              "myops::fused_act: expected a float32 or float64 tensor, got {}", x.dtype());
  ember::Tensor xc = x.contiguous();
  ember::Tensor y = ember::empty_like(xc);
  if (x.dtype() == ember::kFloat32)
    fused_act_loop(xc.data_ptr<float>(), y.data_ptr<float>(), xc.numel(), static_cast<float>(alpha));
  else
    fused_act_loop(xc.data_ptr<double>(), y.data_ptr<double>(), xc.numel(), alpha);
  return y;
}

// d/dx x*s(ax) = s(ax) + a*x*s(ax)*(1 - s(ax)), written with Ember ops.
struct FusedAct : ember::autograd::Function<FusedAct> {
  static ember::Tensor forward(ember::autograd::AutogradContext* ctx, const ember::Tensor& x, double alpha) {
    ctx->save_for_backward({x});
    ctx->saved_data["alpha"] = alpha;
    return fused_act_cpu(x, alpha);
  }
  static ember::autograd::variable_list backward(ember::autograd::AutogradContext* ctx,
                                                 ember::autograd::variable_list grads) {
    ember::Tensor x = ctx->get_saved_variables()[0];
    double alpha = ctx->saved_data["alpha"].to_double();
    ember::Tensor s = ember::sigmoid(ember::mul(x, ember::Scalar(alpha)));
    ember::Tensor one_minus_s = ember::sub(ember::ones_like(s), s);
    ember::Tensor d = ember::add(s, ember::mul(ember::mul(ember::mul(x, ember::Scalar(alpha)), s), one_minus_s));
    return {ember::mul(grads[0], d), ember::Tensor()};
  }
};

ember::Tensor fused_act_autograd(const ember::Tensor& x, double alpha) { return FusedAct::apply(x, alpha); }

// Overloads: scale by a float or by an int (the int one keeps integer dtypes).
ember::Tensor scale_float(const ember::Tensor& x, double s) { return ember::mul(x, ember::Scalar(s)); }
ember::Tensor scale_int(const ember::Tensor& x, int64_t n) { return ember::mul(x, ember::Scalar(n)); }

// An op that writes its input.
ember::Tensor scale_inplace(const ember::Tensor& x, double s) {
  return ember::mul_(x, ember::scalar_tensor(ember::Scalar(s), x.dtype()));
}

}  // namespace

// A plain function bound without a written schema (Note [inferred schemas]).
ember::Tensor add_scaled(ember::Tensor a, ember::Tensor b, double s) {
  return ember::add(a, ember::mul(b, ember::Scalar(s)));
}

EMBER_LIBRARY(myops, m) {
  m.def("fused_act(Tensor x, float alpha=1.0) -> Tensor");
  m.def("scale(Tensor x, float s) -> Tensor", &scale_float);
  m.def("scale.int(Tensor x, int n) -> Tensor", &scale_int);
  m.def("scale_(Tensor(a!) x, float s) -> Tensor(a!)");
  ember::def_function<&add_scaled>(m, "add_scaled");
}

EMBER_LIBRARY_IMPL(myops, CPU, m) {
  m.impl("fused_act", &fused_act_cpu);
  m.impl("scale_", &scale_inplace);
}

EMBER_LIBRARY_IMPL(myops, Autograd, m) { m.impl("fused_act", &fused_act_autograd); }
