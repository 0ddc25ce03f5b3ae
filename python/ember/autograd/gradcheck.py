"""gradcheck and gradgradcheck (PyTorch's torch.autograd.gradcheck): finite differences against autograd.
The algorithm is C++'s ember::autograd::gradcheck (Note [gradcheck] in ember/autograd/Gradcheck.h); this
module adapts PyTorch's Python signature (any callable, tuples with non-tensor items, keyword options)."""
import warnings

from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when the gradients do not match (a RuntimeError)."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _adapt(func, inputs):
    """The tensors of inputs, and a function of those tensors alone returning a list of tensors."""
    positions = [i for i, x in enumerate(inputs) if isinstance(x, _C._TensorBase)]

    def fn(tensors):
        args = list(inputs)
        for i, t in zip(positions, tensors):
            args[i] = t
        return [o if isinstance(o, _C._TensorBase) else None for o in _as_tuple(func(*args))]

    return [inputs[i] for i in positions], fn


def _check_inputs(inputs):
    for i, x in enumerate(inputs):
        if isinstance(x, _C._TensorBase) and x.requires_grad and x.dtype not in (_C.float64, _C.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or "
                          "complex. This check will likely fail if all the inputs are not of double precision "
                          "floating point or complex. ")


def _finish(ok_message, raise_exception):
    ok, message = ok_message
    if ok:
        return True
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_sparse_nnz=False,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False):
    """Checks the gradients of ``func`` at ``inputs`` against finite differences (central differences with
    step ``eps``): for each input that requires grad and each floating output, the analytical Jacobian
    must satisfy ``|analytical - numerical| <= atol + rtol * |numerical|``, and backward must be
    reentrant (two runs agree within ``nondet_tol``). Use float64 inputs.

    Args:
        func: a function of ``inputs`` returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of arguments (tensors that require grad are checked).
        eps, atol, rtol, nondet_tol: as described above.
        raise_exception: raise GradcheckError on failure (else return False).

    The options for sparse, batched and forward-mode checks are accepted for PyTorch compatibility and
    ignored (no sparse tensors, vmap or forward AD in Ember yet); ``fast_mode`` runs the full check.

    Returns:
        True when the check passes.

    Raises:
        GradcheckError (a RuntimeError): a Jacobian mismatch (the message shows both Jacobians), a
            non-reentrant backward, or a non-zero numerical gradient of an output that does not require grad.
        ValueError: no input requires grad.
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    tensors, fn = _adapt(func, inputs)
    return _finish(_C._gradcheck(fn, tensors, eps, atol, rtol, nondet_tol), raise_exception)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """Checks second derivatives: gradcheck of ``(inputs, v) -> autograd.grad(func(inputs), inputs, v,
    create_graph=True)``. ``grad_outputs`` (one per output that requires grad) default to random values
    in [-1, 1) that require grad. Arguments, return value and errors as gradcheck.
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    tensors, fn = _adapt(func, inputs)
    grads = [] if grad_outputs is None else list(_as_tuple(grad_outputs))
    return _finish(_C._gradgradcheck(fn, tensors, grads, eps, atol, rtol, nondet_tol), raise_exception)
