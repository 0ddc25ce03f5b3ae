"""ember.autograd: reverse-mode automatic differentiation (PyTorch's torch.autograd). The engine and the graph
are in C++ (ember/autograd); this module gives them PyTorch's Python API."""
from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function
from .gradcheck import gradcheck, gradgradcheck
from . import function  # noqa: F401  (ember.autograd.function.once_differentiable, as PyTorch's)
from . import profiler  # noqa: F401  (ember.autograd.profiler.profile, record_function)
from .variable import Variable  # noqa: F401  (deprecated, as torch.autograd.Variable)
from . import functional  # noqa: F401  (ember.autograd.functional.jacobian, hessian, vjp, jvp, hvp, vhp)

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "Function",
           "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly", "Variable"]


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _C._TensorBase):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates into .grad of the graph's leaves the gradients of `tensors` (weighted by `grad_tensors`,
    which may be omitted for scalar outputs). Frees the graph unless retain_graph (default: create_graph).

    Raises:
        RuntimeError: a tensor does not require grad; an implicit gradient for a non-scalar output; a second
            backward through a freed graph; a saved tensor modified in place; inputs given but empty.
    """
    if inputs is not None and not isinstance(inputs, _C._TensorBase) and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")  # as PyTorch's
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or []
    inputs = _as_list(inputs) or []
    _C._backward(tensors, grads, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """Returns the gradients of `outputs` w.r.t. `inputs` (a tuple, one per input) without touching .grad.

    Raises:
        RuntimeError: an input was not used in the graph and allow_unused is False; as backward().
    """
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    grads = _as_list(grad_outputs) or []
    return _C._grad_of(outputs, inputs, grads, retain_graph, create_graph, allow_unused)
