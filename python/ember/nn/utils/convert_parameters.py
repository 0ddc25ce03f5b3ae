"""parameters_to_vector and vector_to_parameters."""
from ... import _C
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-D tensor (part of the autograd graph)."""
    return _C._functions["cat"]([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Makes each parameter's data the next slice of the 1-D tensor vec (the inverse of
    parameters_to_vector). Raises TypeError when vec is no Tensor."""
    if not isinstance(vec, Tensor):
        raise TypeError("expected ember.Tensor, but got: {}".format(type(vec).__name__))
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
