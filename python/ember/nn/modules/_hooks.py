"""RemovableHandle: what register_forward_hook and friends return (PyTorch's torch.utils.hooks)."""
import itertools
import weakref
from collections import OrderedDict


class RemovableHandle:
    """A handle that removes a hook from the dict it was registered in (``handle.remove()`` or leaving a
    ``with`` block)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        """Removes the hook (nothing happens when it is already removed)."""
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __getstate__(self):
        # the dict itself, so that a copied or unpickled module's handle refers to the copy's dict
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        hooks_dict, self.id = state
        # a dict already gone gives a dead reference (remove() does nothing)
        self.hooks_dict_ref = weakref.ref(hooks_dict if hooks_dict is not None else OrderedDict())
        # ids restored from a pickle must not be handed out again in this process
        RemovableHandle._next_id = itertools.count(max(next(RemovableHandle._next_id), self.id + 1))

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


# Note [full backward hooks]
# Module.register_full_backward_hook's hook(module, grad_input, grad_output) sees the gradients with respect to
# the module's tensor inputs and outputs, however many ops forward runs (PyTorch 1.13's semantics). Both ends
# of forward are wrapped in an identity custom function (BackwardHookFunction): the node on the outputs records
# grad_output when backward passes it, and a hook on the node on the inputs runs the user hooks with the
# gradients leaving it (grad_input), whose tuple, when a hook returns one, replaces them. Non-tensor arguments
# appear as None in both tuples. When no input requires grad, the user hooks run from the output node with
# grad_input all None.


def _backward_hook_function():
    """The identity custom function whose nodes mark a module's inputs and outputs (made on first use: the
    autograd package imports nn)."""
    global _BackwardHookFunction
    if _BackwardHookFunction is None:
        from ...autograd.function import Function

        class BackwardHookFunction(Function):
            @staticmethod
            def forward(ctx, *args):
                ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                return args

            @staticmethod
            def backward(ctx, *grads):
                return grads

        _BackwardHookFunction = BackwardHookFunction
    return _BackwardHookFunction


_BackwardHookFunction = None


class BackwardHook:
    """The full backward hooks of one module call (Note [full backward hooks])."""

    def __init__(self, module, user_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _spread(indices, values, size):
        """values placed at indices of a size-long tuple of Nones."""
        out = [None] * size
        for i, v in zip(indices, values):
            out[i] = v
        return tuple(out)

    def _wrap(self, args, on_node):
        """args with their tensors passed through BackwardHookFunction (when any requires grad and grad mode
        is on), on_node called with the node; returns (args, tensor positions or None)."""
        from ... import _C

        positions = [i for i, a in enumerate(args) if isinstance(a, _C._TensorBase)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and _C.is_grad_enabled()):
            return args, None
        wrapped = _backward_hook_function().apply(*tensors)
        nodes = [t.grad_fn for t in wrapped if t.grad_fn is not None]
        on_node(nodes[0])
        out = list(args)
        for i, t in zip(positions, wrapped):
            out[i] = t
        return tuple(out), positions

    def setup_input_hook(self, args):
        def on_node(node):
            def hook(grad_input, _):
                if self.grad_outputs is None:
                    return None  # the gradient reached the inputs without passing the outputs (double backward)
                res = self._spread(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of grad_input, got {}, but "
                                           "expected {}".format(len(out), len(res)))
                    res = out
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_tensors_index)

            node.register_hook(hook)

        res, self.input_tensors_index = self._wrap(args, on_node)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        def on_node(node):
            def hook(_, grad_output):
                self.grad_outputs = self._spread(self.output_tensors_index, grad_output, self.n_outputs)
                if self.input_tensors_index is None:  # no input requires grad: call the user hooks from here
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        out = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None

            node.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._wrap(args, on_node)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]


class WrappedHook:
    """A module's legacy backward hook as a grad_fn hook: hook(module, grad_input, grad_output). Holds the
    module weakly, as PyTorch's _WrappedHook."""

    def __init__(self, hook, module):
        import weakref

        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, grad_input, grad_output):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, grad_input, grad_output)
