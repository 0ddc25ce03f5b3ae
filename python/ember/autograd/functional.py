"""Higher-level differentiation (PyTorch 1.13's torch.autograd.functional): vector-Jacobian and Jacobian-vector
products, full Jacobians and Hessians, and Hessian-vector products of a function of tensors, all built on
``ember.autograd.grad``. Forward-mode products (jvp, hvp) use the double-backward trick: the vjp is linear in its
vector u, so differentiating ``u -> J^T u`` once more with respect to u gives ``J v``.

Each function takes ``func`` (tensors -> a tensor or a tuple of tensors), ``inputs`` (a tensor or a tuple) and
answers in the same tuple-or-not shape. ``create_graph`` keeps the result differentiable; ``strict`` raises
instead of filling in zeros where a result does not depend on an input.
"""
from .. import _C
from .grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, arg_name, fn_name):
    """(whether x was a tuple, x as a tuple); raises TypeError when an item is no tensor."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, _C._TensorBase):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(item)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(item)}.")
    return is_tuple, items


def _unpack(result, was_tuple):
    """result (a tuple, or a tuple of tuples for (outputs, inputs) flags) back in the caller's shapes."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(r[0] for r in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _prepare(tensors, create_graph, need_graph):
    """Inputs to differentiate with respect to: a view when the graph is kept (so the caller's tensors are not
    the ones differentiated), else detached copies that require grad when need_graph."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(tensors, create_graph):
    """The results detached unless create_graph (nested tuples too)."""
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, _C._TensorBase) else (None if t is None else _finish(t, False))
                 for t in tensors)


def _check_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.shape} but got {a.shape}.")


_NO_GRAD_MESSAGES = {
    "outputs": "Output {} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect "
                "to input {} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                "would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MESSAGES[kind].format(i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """ember.autograd.grad over the outputs that require grad (None for every input when none does)."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """grads with zeros (of refs' shapes) where None; in strict mode, an error instead."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i))
            g = _C._functions["zeros_like"](refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _single_element_v_error(condition):
    return RuntimeError(f"The vector v can only be None if the {condition} a single Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    r"""(func(inputs), v^T J): the outputs and the vector-Jacobian product with v (shaped as the outputs; may be
    None when func returns one single-element tensor).

    Raises:
        RuntimeError: v of the wrong count or shapes; v None for a non-scalar output; in strict mode an output
            that does not depend on an input. TypeError: inputs or outputs that are not tensors.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, need_graph=False)
            _check_v(v, outputs, outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise _single_element_v_error("user-provided function returns")
        with set_grad_enabled(create_graph or _C.is_grad_enabled()):
            grads = _zeros_for_none(_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                                    create_graph, "back")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph), inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""(func(inputs), J v): the outputs and the Jacobian-vector product with v (shaped as the inputs; may be None
    for one single-element input), by the double-backward trick.

    Raises:
        RuntimeError: as vjp, for v against the inputs.
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, need_graph=False)
            _check_v(v, inputs, inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise _single_element_v_error("input to the user-provided function is")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u -> J^T u is linear in u; its gradient with respect to u, weighted by v, is J v
        u = tuple(_C._functions["zeros_like"](o).requires_grad_(True) for o in outputs)
        vjps = _grad(outputs, inputs, u, create_graph=True)
        _check_requires_grad(vjps, "grad_inputs", strict)
        with set_grad_enabled(True) if create_graph else _nullcontext():
            grads = _zeros_for_none(_grad(vjps, u, v, create_graph=create_graph), outputs, strict, create_graph,
                                    "back_trick")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph), outputs_tuple)


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    r"""The Jacobian of func at inputs: for output i and input j a tensor of shape out_i.shape + in_j.shape
    (d out_i / d in_j), nested as tuples when func returns or takes tuples. Computed one output element at a time
    by reverse mode; vectorize is accepted and computes the same.

    Raises:
        NotImplementedError: strategy other than "reverse-mode" (Ember has no forward-mode AD).
        RuntimeError: in strict mode, an output independent of an input.
    """
    if strategy != "reverse-mode":
        if strategy == "forward-mode":
            raise NotImplementedError("torch.autograd.functional.jacobian: strategy='forward-mode' needs forward-mode "
                                      "AD, which Ember does not have")
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                         'has outputs that do not depend on inputs, the default "reverse-mode" strategy is required.')
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        stack = _C._functions["stack"]
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{j}. This is not allowed in strict mode.")
                        g = _C._functions["zeros_like"](inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is not differentiable with "
                                           f"respect to input {i}. This is not allowed in strict mode when "
                                           "create_graph=True.")
                    rows[j].append(g)
            result.append(tuple(
                (stack(rows[j], 0) if rows[j] else inputs[j].new_zeros((0,) + tuple(inputs[j].shape)))
                .reshape(tuple(out.shape) + tuple(inputs[j].shape)) for j in range(len(inputs))))
        return _unpack(_finish(tuple(result), create_graph), (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    r"""The Hessian of a scalar func at inputs: for inputs i and j a tensor of shape in_i.shape + in_j.shape,
    nested as tuples when inputs is a tuple.

    Raises:
        RuntimeError: func returns a tuple or a tensor of more than one element; strict-mode independence.
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, _C._TensorBase):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (inputs_tuple, inputs_tuple))


def _scalar_output(func, inputs, v, create_graph, strict, name):
    """Shared start of vhp and hvp: prepared inputs and v, the single-element output and its gradient."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _prepare(v, create_graph, need_graph=False)
        _check_v(v, inputs, inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise _single_element_v_error("input to the user-provided function is")
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], _C._TensorBase):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    r"""(func(inputs), v^T H): the scalar output and the vector-Hessian product with v (shaped as the inputs).

    Raises:
        RuntimeError: func's output is not one single-element tensor; v of the wrong count or shapes.
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_output(func, inputs, v, create_graph, strict,
                                                                               "vhp")
    with set_grad_enabled(create_graph or _C.is_grad_enabled()):
        res = _zeros_for_none(_grad(jac, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                              "double_back")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(res, create_graph), inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""(func(inputs), H v): the scalar output and the Hessian-vector product with v, by the double-backward
    trick (equal to vhp for a symmetric Hessian).

    Raises:
        RuntimeError: as vhp.
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_output(func, inputs, v, create_graph, strict,
                                                                               "hvp")
        u = tuple(_C._functions["zeros_like"](t).requires_grad_(True) for t in inputs)
        double_back = _grad(jac, inputs, u, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(create_graph or _C.is_grad_enabled()):
        res = _zeros_for_none(_grad(double_back, u, v, create_graph=create_graph), inputs, strict, create_graph,
                              "double_back_trick")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(res, create_graph), inputs_tuple)
