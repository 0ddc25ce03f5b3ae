"""Custom autograd functions (PyTorch's torch.autograd.Function). The graph node is C++'s FunctionNode (Note
[custom functions] in ember/autograd/CustomFunction.h); this module gives it PyTorch's Python API."""
import functools
import warnings

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom function's forward and backward share. Attributes set on it in forward are
    available in backward."""

    def save_for_backward(self, *tensors):
        """Saves tensors (or None) for backward, where ``ctx.saved_tensors`` returns them; an in-place change
        of a saved tensor in between is detected (RuntimeError on access)."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _C._TensorBase):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def mark_dirty(self, *args):
        """Marks tensors that forward modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Marks outputs that are not differentiable (they will not require grad; their gradient reaching
        backward is zero)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether undefined output gradients reach backward as zero tensors (True, the default) or None."""
        self.materialize_grads = value

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward. Raises RuntimeError after the graph was freed (a backward
        without retain_graph) or when one was modified in place since."""
        ref = getattr(self, "_node_ref", None)
        if ref is None or not self._recorded:
            return tuple(getattr(self, "to_save", ()))
        return ref.saved_tensors()

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx):
    """The class of a custom function's ``grad_fn`` (``<Name>Backward``): it is the ctx object."""

    def apply(self, *args):
        return self._forward_cls.backward(self, *args)

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        ref = getattr(self, "_node_ref", None)
        return ref.next_functions() if ref is not None and self._recorded else ()

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node's backward; a returned tuple replaces grad_inputs.
        Returns a handle whose remove() unregisters it. Raises RuntimeError when the node was not recorded."""
        return self._recorded_node("register_hook").register_hook(fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node's backward; a returned tuple replaces grad_outputs."""
        return self._recorded_node("register_prehook").register_prehook(fn)

    def _recorded_node(self, what):
        ref = getattr(self, "_node_ref", None)
        if ref is None or not self._recorded:
            raise RuntimeError(f"{what}: this custom function's call was not recorded by autograd (no input "
                               "requires grad, or grad mode was off)")
        return ref

    def _do_backward(self, grads):
        # Called by the C++ node (Note [custom functions]); the node checks the count and the shapes.
        cls = self._forward_cls
        if cls.backward is Function.backward:
            raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                      "autograd.Function to use it with backward mode AD.")
        result = cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        for r in result:
            if r is not None and not isinstance(r, _C._TensorBase):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        return result


class FunctionMeta(type):
    """Gives each Function subclass its backward class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd functions (PyTorch's torch.autograd.Function)::

        class Exp(ember.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                y, = ctx.saved_tensors
                return grad * y

        y = Exp.apply(x)

    forward runs with grad mode off and returns a tensor or a tuple (non-tensor items pass through);
    backward gets one gradient per output and returns one per forward argument (None for non-tensors and
    inputs that need none). Under ``create_graph=True`` the backward is recorded like any code, so a
    backward written with differentiable ops gives higher-order gradients.

    Raises (during backward, RuntimeError): a wrong number of gradients ("function XBackward returned an
    incorrect number of gradients (expected n, got m)"); a gradient for a non-tensor argument; a gradient
    whose shape does not broadcast to its input's.
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        ctx = cls._backward_cls()
        is_tensor = [isinstance(a, _C._TensorBase) for a in args]
        tensor_inputs = [a for a in args if isinstance(a, _C._TensorBase)]
        node, ctx._node_ref, recorded = _C._function_node(ctx, cls._backward_cls.__name__, is_tensor, tensor_inputs)
        ctx._recorded = recorded
        ctx.needs_input_grad = tuple(recorded and t and a.requires_grad for a, t in zip(args, is_tensor))
        ctx.to_save = ()
        ctx.dirty_tensors = ()
        ctx.non_differentiable = ()
        ctx.materialize_grads = True
        with no_grad():
            outputs = cls.forward(ctx, *args)
        is_tuple = isinstance(outputs, tuple)
        items = list(outputs) if is_tuple else [outputs]
        positions = [i for i, o in enumerate(items) if isinstance(o, _C._TensorBase)]
        wrapped = _C._function_wrap(node, tensor_inputs, [items[i] for i in positions], ctx.to_save,
                                    ctx.dirty_tensors, ctx.non_differentiable, bool(ctx.materialize_grads))
        for i, w in zip(positions, wrapped):
            items[i] = w
        if recorded:
            ctx.to_save = ()  # now held by the node, with version checks
        return tuple(items) if is_tuple else items[0]


def once_differentiable(fn):
    """Decorates a custom function's backward that is not itself differentiable: it runs with grad mode
    off, and when a double backward reaches it, raises RuntimeError ("trying to differentiate twice a
    function that was marked with @once_differentiable")."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        tensor_args = [a for a in args if isinstance(a, _C._TensorBase)]
        if not any(a.requires_grad for a in tensor_args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        items = list(outputs) if is_tuple else [outputs]
        positions = [i for i, o in enumerate(items) if isinstance(o, _C._TensorBase)]
        wrapped = _C._delayed_error("trying to differentiate twice a function that was marked with "
                                    "@once_differentiable", tensor_args, [items[i] for i in positions])
        for i, w in zip(positions, wrapped):
            items[i] = w
        return tuple(items) if is_tuple else items[0]

    return wrapper
