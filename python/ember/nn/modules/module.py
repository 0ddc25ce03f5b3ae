"""Module: the base class of every layer (PyTorch 1.13's torch.nn.Module).

A Module keeps its parameters, buffers and submodules in three ordered dicts (``_parameters``, ``_buffers``,
``_modules``); ``__setattr__`` routes Parameters, Modules and assignments to registered buffers into them and
``__getattr__`` finds them there, so ``self.weight = Parameter(...)`` registers a parameter as in PyTorch. The
traversals (``named_parameters``, ``named_modules``, ``state_dict``, ...) walk these dicts in insertion order,
which gives PyTorch's key order.
"""
import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _C
from ..._tensor import Tensor
from ...autograd import no_grad
from ..parameter import Parameter, is_lazy
from ._hooks import BackwardHook, RemovableHandle, WrappedHook

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_hook"]

# Hooks that run for every module, before the module's own (PyTorch's global module hooks).
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None


def register_module_forward_pre_hook(hook):
    """hook(module, input) runs before every module's forward (before the module's own pre-hooks); a non-None
    result replaces the input. Returns a handle whose remove() unregisters it."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook):
    """hook(module, input, output) runs after every module's forward (before the module's own hooks); a non-None
    result replaces the output. Returns a handle."""
    handle = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    """The legacy form of register_module_full_backward_hook (the gradients of the last op of each forward).
    Raises RuntimeError when full global backward hooks are registered."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) runs during backward for every module, as
    Module.register_full_backward_hook. Raises RuntimeError when legacy global backward hooks are registered."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys the module expected but did not find, and the keys it found but
    did not expect."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, num_spaces):
    """s with every line but the first indented by num_spaces (the nested layout of Module.__repr__)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    pad = " " * num_spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _typename(obj):
    """PyTorch's torch.typename: 'ember.FloatTensor' for a tensor, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    return name if module in ("builtins", "__builtin__") else module + "." + name


def _forward_unimplemented(self, *input):
    """Module.forward of a class that does not define one."""
    raise NotImplementedError('Module [{}] is missing the required "forward" function'.format(type(self).__name__))


class Module:
    r"""Base class of all neural-network modules; subclass it and define ``forward``.

    Attributes assigned in ``__init__`` that are Parameters, Modules or (through ``register_buffer``) buffers
    are registered, so that ``parameters()``, ``state_dict()``, ``to()`` and ``train()`` reach them. Call
    ``super().__init__()`` before assigning any of them.
    """

    __module__ = "ember.nn"
    dump_patches = False
    # The version stored in state_dict metadata; a subclass raises it when its state_dict layout changes and
    # reads the version of a loaded state dict in _load_from_state_dict (BatchNorm's num_batches_tracked).
    _version = 1

    def __init__(self):
        s = object.__setattr__
        s(self, "training", True)
        s(self, "_parameters", OrderedDict())
        s(self, "_buffers", OrderedDict())
        s(self, "_non_persistent_buffers_set", set())
        s(self, "_backward_hooks", OrderedDict())
        s(self, "_is_full_backward_hook", None)
        s(self, "_forward_hooks", OrderedDict())
        s(self, "_forward_pre_hooks", OrderedDict())
        s(self, "_state_dict_hooks", OrderedDict())
        s(self, "_state_dict_pre_hooks", OrderedDict())
        s(self, "_load_state_dict_pre_hooks", OrderedDict())
        s(self, "_load_state_dict_post_hooks", OrderedDict())
        s(self, "_modules", OrderedDict())

    forward = _forward_unimplemented

    # ------------------------------------------------------------------------------------------ registration
    def _check_new_name(self, kind, name, registry):
        """The checks register_buffer/register_parameter/add_module make on a name (PyTorch's errors)."""
        if not isinstance(name, str):
            raise TypeError("{} name should be a string. Got {}".format(kind, _typename(name)))
        if "." in name:
            raise KeyError("{} name can't contain \".\"".format(kind) +
                           (", got: {}".format(name) if kind == "module" else ""))
        if name == "":
            raise KeyError("{} name can't be empty string \"\"".format(kind))
        if hasattr(self, name) and name not in registry:
            raise KeyError("attribute '{}' already exists".format(name))

    def register_buffer(self, name, tensor, persistent=True):
        r"""Adds a buffer: module state that is no parameter (BatchNorm's running_mean). A persistent buffer is
        part of state_dict; all buffers follow to()/double().

        Raises:
            AttributeError: before Module.__init__. TypeError: a name that is no str, a value that is no Tensor
            or None. KeyError: a name with '.', an empty name, or one of an existing attribute.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '{}' object to buffer '{}' (ember Tensor or None required)"
                            .format(_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        r"""Adds a parameter (a Parameter, or None for an absent one such as Linear's bias=False).

        Raises:
            AttributeError: before Module.__init__. TypeError: a name that is no str, a value that is no
            Parameter or None. KeyError: a bad or taken name. ValueError: a non-leaf tensor.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError("cannot assign '{}' object to parameter '{}' (ember.nn.Parameter or None required)"
                            .format(_typename(param), name))
        if param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '{0}'. Model parameters must be created "
                             "explicitly. To express '{0}' as a function of another Tensor, compute the value in "
                             "the forward() method.".format(name))
        self._parameters[name] = param

    def add_module(self, name, module):
        r"""Adds a child module (or None), reachable as the attribute name.

        Raises:
            TypeError: a module that is no Module, a name that is no str. KeyError: a bad or taken name.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        self._check_new_name("module", name, self._modules)
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias of add_module."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path target ('' is self). Raises AttributeError naming the missing part."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path target. Raises AttributeError when there is none."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path target. Raises AttributeError when there is none."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ------------------------------------------------------------------------------------------ attributes
    def __getattr__(self, name):
        # only called when normal lookup fails: the registered parameters, buffers and modules
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*names):
            for n in names:
                if n == "__dict__":
                    d.pop(name, None)
                elif n == "_non_persistent_buffers_set":
                    d[n].discard(name)
                else:
                    d[n].pop(name, None)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from("__dict__", "_buffers", "_modules", "_non_persistent_buffers_set")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '{}' as parameter '{}' (ember.nn.Parameter or None expected)"
                                .format(_typename(value), name))
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from("__dict__", "_parameters", "_buffers", "_non_persistent_buffers_set")
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError("cannot assign '{}' as child module '{}' (ember.nn.Module or None expected)"
                                .format(_typename(value), name))
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError("cannot assign '{}' as buffer '{}' (ember.Tensor or None expected)"
                                .format(_typename(value), name))
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(registry, ()):
                del self.__dict__[registry][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters) + list(self._modules) +
                list(self._buffers))
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    # ------------------------------------------------------------------------------------------ traversals
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        """(name, member) over this module (and its submodules when recurse); a member reached twice (shared
        weights) is listed once unless remove_duplicate is False."""
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """The parameters of this module and (recurse) its submodules, each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs, names prefixed with prefix."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """The buffers of this module and (recurse) its submodules."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, buffer) pairs, names prefixed with prefix."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        """The direct submodules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """(name, module) of the direct submodules, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """This module and all its submodules, depth first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) of this module ('' or prefix) and all its submodules, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ------------------------------------------------------------------------------------------ modes, grads
    def train(self, mode=True):
        """Sets training mode (Dropout drops, BatchNorm uses batch statistics) on this module and its
        submodules. Returns self. Raises ValueError for a mode that is no bool."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """train(False)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad of every parameter. Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        """Zeroes the grads of all parameters (PyTorch 1.13's default), or sets them to None."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def share_memory(self):
        """Moves every parameter and buffer (here and in the submodules) into shared memory with
        ``Tensor.share_memory_``, so that processes started afterwards (``ember.multiprocessing``) train the one
        model in place (Hogwild). Gradients that exist already are moved too, as PyTorch's ``_apply`` does;
        those that ``backward`` allocates later are private to each process. Returns self."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------------------------------ conversions
    def _apply(self, fn):
        """Applies fn to every parameter, its grad and every buffer, here and in the submodules. A parameter
        keeps its identity: when fn gives a new tensor, the Parameter takes its data (Tensor.data = ...)."""
        for module in self.children():
            module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            grad = param.grad
            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                if grad_applied is not param.grad:
                    param.grad = None
                    param.grad = grad_applied.detach().requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Calls fn on every submodule (children first) and then on self. Returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        r"""Converts the floating parameters and buffers to a dtype and/or moves everything to a device.

        Forms: ``to(dtype)``, ``to(device, dtype=None)``, ``to(tensor)`` (its dtype and device), with the
        keywords device, dtype, non_blocking and memory_format. Integer tensors keep their dtype. Returns self.

        Raises:
            TypeError: a dtype that is not floating.
        """
        device, dtype, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={}"
                            .format(dtype))

        def convert(t):
            if device is not None:
                t = t.to(device)
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if memory_format is not None and t.dim() in (4, 5):
                # As PyTorch: only 4-d and 5-d tensors take a channels-last format (and any row-major request).
                t = t.to(memory_format=memory_format)
            return t

        return self._apply(convert)

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        """Floating parameters and buffers to float32. Returns self."""
        return self._cast_floating(_C.float32)

    def double(self):
        """Floating parameters and buffers to float64. Returns self."""
        return self._cast_floating(_C.float64)

    def half(self):
        """Floating parameters and buffers to float16. Returns self."""
        return self._cast_floating(_C.float16)

    def bfloat16(self):
        """Floating parameters and buffers to bfloat16. Returns self."""
        return self._cast_floating(_C.bfloat16)

    def type(self, dst_type):
        """All parameters and buffers (integer ones too) to dst_type. Returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        """Everything on the CPU (where Ember's tensors are). Returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Moves everything to a CUDA device: raises, as Tensor.cuda does (Ember has no CUDA backend)."""
        return self._apply(lambda t: t.cuda(device))

    def to_empty(self, *, device):
        """Replaces every parameter and buffer by an uninitialized tensor of the same shape and dtype on device
        (the Parameter objects stay, holding the new storage). Returns self."""
        empty_like = _C._functions["empty_like"]
        return self._apply(lambda t: empty_like(t, device=device))

    # ------------------------------------------------------------------------------------------ calls, hooks
    def register_forward_pre_hook(self, hook):
        r"""hook(module, input) runs before forward; a non-None result (a tuple, or one value that becomes a
        1-tuple) replaces the positional input. Returns a handle whose remove() unregisters it."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        r"""hook(module, input, output) runs after forward; a non-None result replaces the output. Returns a
        handle whose remove() unregisters it."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        r"""The legacy backward hook: hook(module, grad_input, grad_output) with the gradients of the last op
        forward ran (not the module's inputs when forward runs several ops; PyTorch warns then, and so does Ember).
        Prefer register_full_backward_hook.

        Raises:
            RuntimeError: the module already has full backward hooks.
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        r"""hook(module, grad_input, grad_output) runs when the gradients with respect to the module's inputs have
        been computed: grad_input and grad_output are tuples with one entry per positional input and per output
        (None for non-tensors and tensors without gradient). A returned tuple replaces grad_input. The tensors
        forward receives and returns are then views made by an identity autograd function (Note [full backward
        hooks]); modifying them in place is an error in backward.

        Returns:
            A handle whose remove() unregisters the hook.

        Raises:
            RuntimeError: the module already has legacy backward hooks.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _get_backward_hooks(self):
        """(full backward hooks, legacy backward hooks) of this module, the global ones first."""
        full, legacy = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        elif _global_is_full_backward_hook is False:
            legacy += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            legacy += self._backward_hooks.values()
        return full, legacy

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        """Warns when a legacy backward hook will miss gradients (PyTorch's cases and messages)."""
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a "
                              "tuple of Tensors is deprecated and will be removed in future versions. This hook will "
                              "be missing some of the grad_output. Please use register_full_backward_hook to get the "
                              "documented behavior.")
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor "
                              "or a tuple of Tensors is deprecated and will be removed in future versions. This hook "
                              "will be missing some of the grad_input. Please use register_full_backward_hook to get "
                              "the documented behavior.")
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output.")
        elif len(out_grad_fn) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output. Please use register_full_backward_hook to get the documented behavior.")
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                              "deprecated and will be removed in future versions. This hook will be missing some "
                              "grad_input. Please use register_full_backward_hook to get the documented behavior.")

    def _call_impl(self, *input, **kwargs):
        if not (self._backward_hooks or self._forward_hooks or self._forward_pre_hooks or _global_backward_hooks
                or _global_forward_hooks or _global_forward_pre_hooks):
            return self.forward(*input, **kwargs)
        full_backward_hooks, legacy_backward_hooks = [], []
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, legacy_backward_hooks = self._get_backward_hooks()
        for hook in (*_global_forward_pre_hooks.values(), *self._forward_pre_hooks.values()):
            result = hook(self, input)
            if result is not None:
                input = result if isinstance(result, tuple) else (result,)
        bw_hook = None
        if full_backward_hooks:
            bw_hook = BackwardHook(self, full_backward_hooks)
            input = bw_hook.setup_input_hook(input)
        result = self.forward(*input, **kwargs)
        for hook in (*_global_forward_hooks.values(), *self._forward_hooks.values()):
            hook_result = hook(self, input, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook:
            result = bw_hook.setup_output_hook(result)
        if legacy_backward_hooks:
            var = result
            while not isinstance(var, Tensor):
                var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in legacy_backward_hooks:
                    grad_fn.register_hook(WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(input, result, grad_fn)
        return result

    __call__ = _call_impl

    # ------------------------------------------------------------------------------------------ state dict
    def _register_state_dict_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after state_dict collected this module; a
        non-None result replaces the state dict."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before state_dict collects this module (PyTorch 2's API; 1.13 has
        no such hook). Returns a handle."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) runs
        before this module loads its part (with the module as first argument when with_module)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after load_state_dict; it may edit the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def get_extra_state(self):
        """Extra state for state_dict (under '_extra_state'); override with set_extra_state to use it."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue if you see this.")

    def set_extra_state(self, state):
        """Restores the state get_extra_state returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue if you see this.")

    def _has_extra_state(self):
        return type(self).get_extra_state is not Module.get_extra_state

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Puts this module's own parameters and persistent buffers into destination (detached unless
        keep_vars)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_extra_state():
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        r"""An OrderedDict of the parameters and persistent buffers by dotted name (this module's first, then
        each submodule's), detached unless keep_vars; its ``_metadata`` holds each module's ``_version``."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/master/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.")
            if destination is None and len(args) > 0:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        for hook in self.__dict__.get("_state_dict_pre_hooks", {}).values():
            hook(self, prefix, keep_vars)
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        r"""Copies this module's own entries of state_dict (keys prefix + name) into its parameters and
        persistent buffers, appending to missing_keys / unexpected_keys / error_msgs (a key of another shape is
        a size mismatch error). Subclasses override it to convert old layouts (see local_metadata's version)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append('While copying the parameter named "{}", expected ember.Tensor or Tensor-like '
                                  "object from checkpoint but received {}".format(key, type(input_param)))
                continue
            # An uninitialized parameter of a lazy module (one its load hook left so: the entry loaded is
            # uninitialized too) has no shape to compare.
            is_param_lazy = is_lazy(param)
            if not is_param_lazy and param.dim() == 0 and input_param.dim() == 1:
                # old checkpoints stored 0-dim values as 1-element vectors
                input_param = input_param[0]
            if not is_param_lazy and tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append("size mismatch for {}: copying a param with shape {} from checkpoint, the shape in "
                                  "current model is {}.".format(key, input_param.shape, param.shape))
                continue
            try:
                with no_grad():
                    param.copy_(input_param)
            except Exception as ex:
                error_msgs.append('While copying the parameter named "{}", whose dimensions in the model are {} and '
                                  "whose dimensions in the checkpoint are {}, an exception occurred : {}."
                                  .format(key, param.size(), input_param.size(), ex.args))
        extra_state_key = prefix + "_extra_state"
        if self._has_extra_state():
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        r"""Copies parameters and buffers from state_dict into this module and its submodules.

        Args:
            state_dict (Mapping): from state_dict() (of this module or one of the same layout).
            strict (bool): whether keys missing from state_dict or unexpected in it are errors.

        Returns:
            ``_IncompatibleKeys(missing_keys, unexpected_keys)`` (a named tuple; empty lists when strict).

        Raises:
            TypeError: state_dict is no mapping. RuntimeError: ``Error(s) in loading state_dict for <Class>``
            listing missing and unexpected keys (strict) and size mismatches; nothing is rolled back.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError("Expected state_dict to be dict-like, got {}.".format(type(state_dict)))
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not"
                                         "expected to return new values, if incompatible_keys need to be modified,"
                                         "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------------------------------ printing
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The layer's settings for repr (one line, or several); '' by default."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _parse_to(*args, **kwargs):
    """(device, dtype, memory_format) from Module.to's forms (as PyTorch's torch._C._nn._parse_to)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("copy", None)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError("to() got an unexpected keyword argument '{}'".format(next(iter(kwargs))))
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], (str, _C.device)):
        device = rest.pop(0)
        if rest and isinstance(rest[0], _C.dtype):
            dtype = rest.pop(0)
    elif rest and isinstance(rest[0], _C.dtype):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        rest.pop(0)  # non_blocking
    if rest:
        raise TypeError("to() received an invalid combination of arguments: {}".format(args))
    if isinstance(device, str):
        device = _C.device(device)
    return device, dtype, memory_format
