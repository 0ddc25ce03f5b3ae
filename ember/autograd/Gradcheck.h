#pragma once
// gradcheck / gradgradcheck: compare the gradients autograd computes with finite differences (PyTorch's
// torch.autograd.gradcheck, slow mode). The Python functions of ember.autograd are thin wrappers of these.
//
// Note [gradcheck]
// For every input that requires grad and every output, the numerical Jacobian is built column by column
// with central differences, (f(x + eps e_j) - f(x - eps e_j)) / (2 eps), each element of the input being
// set through a 0-dim alias of it (so non-contiguous inputs work and the value is restored exactly); the
// analytical Jacobian row by row with autograd::grad on one-hot output gradients, twice, to check that
// backward is reentrant (the two results may differ by at most nondet_tol). They must satisfy
// |analytical - numerical| <= atol + rtol * |numerical| element-wise. Outputs that do not require grad
// must have a zero numerical Jacobian. Use float64 inputs: float32 differences are too coarse for the
// default tolerances. gradgradcheck runs gradcheck on the function (inputs, v) -> autograd::grad(f(inputs),
// inputs, v, create_graph=true), i.e. it checks the derivatives of the backward pass.
#include <functional>
#include <string>

#include "ember/autograd/Node.h"

namespace ember::autograd {

/// The function under test: tensors in, tensors out (outputs that are not floating point are ignored).
using GradcheckFunction = std::function<variable_list(const variable_list&)>;

/// Tolerances of gradcheck (PyTorch's defaults).
struct GradcheckOptions {
  double eps = 1e-6;         // finite-difference step
  double atol = 1e-5;        // absolute tolerance
  double rtol = 1e-3;        // relative tolerance
  double nondet_tol = 0.0;   // allowed difference between two backward passes on the same input
};

/// What gradcheck found: ok, or the reason it failed (PyTorch's GradcheckError message, e.g. "Jacobian
/// mismatch for output 0 with respect to input 0,\nnumerical:...\nanalytical:...").
struct GradcheckResult {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};

/// Checks the gradients of fn at `inputs` against finite differences (Note [gradcheck]). "input i" in
/// messages counts the inputs that require grad. Errors (ValueError): no input requires grad. Errors of
/// fn itself propagate.
GradcheckResult gradcheck(const GradcheckFunction& fn, const variable_list& inputs,
                          const GradcheckOptions& options = {});

/// Checks the second derivatives of fn at `inputs` (gradcheck of fn's backward). `grad_outputs` are the
/// vectors the backward is applied to, one per output that requires grad; when empty they are drawn
/// uniformly from [-1, 1) in each output's dtype (from the default generator). Errors as gradcheck.
GradcheckResult gradgradcheck(const GradcheckFunction& fn, const variable_list& inputs,
                              const variable_list& grad_outputs = {}, const GradcheckOptions& options = {});

}  // namespace ember::autograd
