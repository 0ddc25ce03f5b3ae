#include "ember/autograd/Gradcheck.h"

#include <algorithm>

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::autograd {

namespace {

// A 0-dim alias of the j-th element (row-major order) of t, without autograd metadata and with a version
// counter of its own: perturbing an input through it leaves the input's version (and so the graphs that
// saved it) untouched, as PyTorch's perturbation through .data does. The value is restored exactly.
Tensor element(const Tensor& t, int64_t j) {
  int64_t offset = t.storage_offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t size = t.sizes()[d];
    offset += (j % size) * t.strides()[d];
    j /= size;
  }
  Tensor e = make_view(t, {}, {}, offset);
  e.impl()->set_version_counter(make_intrusive<VersionCounter>());
  return e;
}

// The values of t as a flat float64 tensor (complex128 for complex t; a copy).
Tensor flat64(const Tensor& t) {
  return t.detach().to(t.is_complex() ? kComplexDouble : kFloat64).reshape({-1}).clone();
}

bool is_diff_output(const Tensor& t) { return t.defined() && (t.is_floating_point() || t.is_complex()); }

// The dtype of the Jacobian columns of input x: complex128 for a complex input (Note [complex gradcheck]).
DType jacobian_dtype(const Tensor& x) { return x.is_complex() ? kComplexDouble : kFloat64; }

// Note [complex gradcheck]
// As PyTorch's gradcheck: a complex output is checked as two real outputs, its real and imaginary parts (so
// output indices in messages count those), and for a complex input z = x + iy the numerical gradient of a
// real output s is ds/dx + i ds/dy (central differences along x and along iy), which is what backward
// computes with a gradient of 1 under PyTorch's convention (Note [complex gradients]). Complex Jacobians
// compare part by part.
variable_list split_complex(variable_list outs) {
  variable_list r;
  for (Tensor& o : outs) {
    if (o.defined() && o.is_complex()) {
      r.push_back(ember::real(o));
      r.push_back(ember::imag(o));
    } else {
      r.push_back(std::move(o));
    }
  }
  return r;
}

// Numerical Jacobians (Note [gradcheck]): result[i][o] has shape (numel of diff input i, numel of output o).
std::vector<variable_list> numerical_jacobians(const GradcheckFunction& fn, const variable_list& inputs,
                                               const std::vector<size_t>& diff, const variable_list& outputs,
                                               double eps) {
  // Grad mode stays on: gradgradcheck's function differentiates inside.
  std::vector<variable_list> jac(diff.size());
  for (size_t a = 0; a < diff.size(); ++a) {
    const Tensor& x = inputs[diff[a]];
    const bool cplx = x.is_complex();
    for (const Tensor& o : outputs)
      jac[a].push_back(o.defined() ? ember::zeros({x.numel(), o.numel()}, jacobian_dtype(x)) : Tensor());
    for (int64_t j = 0; j < x.numel(); ++j) {
      Tensor e = element(x, j);
      const Scalar orig = e.item();
      // Each evaluation's outputs are copied at once: an output may be a view of the perturbed input (the
      // gradient of a sum is the upstream gradient expanded), which the next fill_ would change.
      auto eval_at = [&](const Scalar& value) {
        e.fill_(value);
        variable_list out = fn(inputs);
        for (Tensor& t : out)
          if (t.defined()) t = flat64(t);
        return out;
      };
      // Central differences along the real axis, and along the imaginary one for a complex input.
      auto shifted = [&](double re, double im) {
        return cplx ? Scalar(orig.to_complex_double() + std::complex<double>(re, im)) : Scalar(orig.to_double() + re);
      };
      variable_list lo = eval_at(shifted(-eps, 0)), hi = eval_at(shifted(eps, 0));
      variable_list lo_i, hi_i;
      if (cplx) {
        lo_i = eval_at(shifted(0, -eps));
        hi_i = eval_at(shifted(0, eps));
      }
      e.fill_(orig);
      for (size_t o = 0; o < outputs.size() && o < lo.size() && o < hi.size(); ++o) {
        if (!jac[a][o].defined() || !lo[o].defined() || !hi[o].defined()) continue;
        Tensor d = (hi[o] - lo[o]) / (2 * eps);
        if (cplx) d = d + (hi_i[o] - lo_i[o]) / (2 * eps) * Scalar(std::complex<double>(0, 1));
        jac[a][o].select(0, j).copy_(d);
      }
    }
  }
  return jac;
}

// Analytical Jacobians of the outputs that require grad, same layout; empty message when reentrant.
std::vector<variable_list> analytical_jacobians(const variable_list& inputs, const std::vector<size_t>& diff,
                                                const variable_list& outputs, double nondet_tol,
                                                std::string* reentrant_error) {
  variable_list diff_inputs;
  for (size_t i : diff) diff_inputs.push_back(inputs[i]);
  std::vector<variable_list> jac(diff.size(), variable_list(outputs.size()));
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    if (!out.defined()) continue;
    for (size_t a = 0; a < diff.size(); ++a)
      jac[a][o] = ember::zeros({inputs[diff[a]].numel(), out.numel()}, jacobian_dtype(inputs[diff[a]]));
    if (!requires_grad(out)) continue;
    for (int64_t k = 0; k < out.numel(); ++k) {
      Tensor v = ember::zeros_like(out, std::nullopt, std::nullopt, MemoryFormat::Contiguous);
      element(v, k).fill_(1);
      variable_list g1 = grad({out}, diff_inputs, {v}, true, false, true);
      variable_list g2 = grad({out}, diff_inputs, {v}, true, false, true);
      for (size_t a = 0; a < diff.size(); ++a) {
        if (!g1[a].defined()) continue;
        Tensor col = flat64(g1[a]);
        if (g2[a].defined() && col.numel() > 0 && reentrant_error->empty()) {
          double d = (col - flat64(g2[a])).abs().max().item<double>();
          if (!(d <= nondet_tol))
            *reentrant_error = fmt::format(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                "times gives different values, although analytical gradient matches numerical gradient.The "
                "tolerance for nondeterminism was {}.",
                nondet_tol);
        }
        jac[a][o].select(1, k).copy_(col);
      }
    }
  }
  return jac;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFunction& user_fn, const variable_list& inputs,
                          const GradcheckOptions& opt) {
  // See Note [complex gradcheck]: complex outputs are checked as their real and imaginary parts.
  GradcheckFunction fn = [&user_fn](const variable_list& xs) { return split_complex(user_fn(xs)); };
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && requires_grad(inputs[i])) diff.push_back(i);
  EMBER_CHECK_VALUE(!diff.empty(),
                    "gradcheck expects at least one input tensor to require gradient, but none of the them have "
                    "requires_grad=True.");
  AutoGradMode grad_on(true);
  variable_list outputs = fn(inputs);
  for (Tensor& o : outputs)
    if (!is_diff_output(o)) o = Tensor();
  std::vector<variable_list> numerical = numerical_jacobians(fn, inputs, diff, outputs, opt.eps);
  std::string reentrant;
  std::vector<variable_list> analytical = analytical_jacobians(inputs, diff, outputs, opt.nondet_tol, &reentrant);
  // As PyTorch's gradcheck: outputs that do not require grad (native_layer_norm's saved statistics) are left out
  // when another one does; only when none does must every numerical gradient be zero.
  const bool any_differentiable = std::any_of(outputs.begin(), outputs.end(),
                                              [](const Tensor& o) { return o.defined() && requires_grad(o); });
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o].defined()) continue;
    if (any_differentiable && !requires_grad(outputs[o])) continue;
    for (size_t a = 0; a < diff.size(); ++a) {
      const Tensor& n = numerical[a][o];
      if (!requires_grad(outputs[o])) {
        if (n.numel() && !n.eq(0).all().item<bool>())
          return {false, "Numerical gradient for function expected to be zero"};
        continue;
      }
      const Tensor& an = analytical[a][o];
      auto parts = [](const Tensor& t) { return t.is_complex() ? ember::view_as_real(t) : t; };
      if (!ember::allclose(parts(an), parts(n), opt.rtol, opt.atol))  // PyTorch's gradcheck compares with allclose too
        return {false, fmt::format("Jacobian mismatch for output {} with respect to input {},\nnumerical:{}\n"
                                   "analytical:{}\n",
                                   o, a, n.str(), an.str())};
    }
  }
  if (!reentrant.empty()) return {false, reentrant};
  return {};
}

GradcheckResult gradgradcheck(const GradcheckFunction& fn, const variable_list& inputs,
                              const variable_list& grad_outputs, const GradcheckOptions& opt) {
  const size_t n = inputs.size();
  variable_list vs = grad_outputs;
  if (vs.empty()) {
    AutoGradMode grad_on(true);
    for (const Tensor& o : fn(inputs)) {
      if (!is_diff_output(o) || !requires_grad(o)) continue;
      Tensor v;
      {
        NoGradGuard no_grad;
        if (o.is_complex()) {  // each part uniform in [-1, 1)
          const DType part = to_real_dtype(o.dtype());
          v = ember::complex(ember::rand(o.sizes(), part) * 2 - 1, ember::rand(o.sizes(), part) * 2 - 1);
        } else {
          v = ember::rand_like(o, std::nullopt, std::nullopt, MemoryFormat::Contiguous) * 2 - 1;
        }
      }
      set_requires_grad(v, true);
      vs.push_back(v);
    }
  }
  GradcheckFunction backward_fn = [&fn, n](const variable_list& args) {
    variable_list xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
    variable_list v(args.begin() + static_cast<std::ptrdiff_t>(n), args.end());
    variable_list outs, diff_inputs;
    for (const Tensor& o : fn(xs))
      if (is_diff_output(o) && requires_grad(o)) outs.push_back(o);
    for (const Tensor& x : xs)
      if (x.defined() && requires_grad(x)) diff_inputs.push_back(x);
    variable_list result;
    if (outs.empty() || diff_inputs.empty()) return result;
    for (Tensor& g : grad(outs, diff_inputs, v, true, true, true))
      if (g.defined()) result.push_back(std::move(g));
    return result;
  };
  variable_list all(inputs);
  all.insert(all.end(), vs.begin(), vs.end());
  return gradcheck(backward_fn, all, opt);
}

}  // namespace ember::autograd
