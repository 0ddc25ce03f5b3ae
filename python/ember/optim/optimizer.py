"""The base class of Ember's optimizers (PyTorch 1.13's torch.optim.Optimizer): parameter groups, per-parameter
state, state dicts and zero_grad. The update rules live in the subclasses (sgd.py, adam.py, rmsprop.py)."""
import functools
import warnings
from collections import abc, defaultdict
from copy import deepcopy
from itertools import chain

from .. import _C
from ..autograd import set_grad_enabled

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of an option a parameter group must give itself (SGD's lr)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    # torch.typename: 'torch.FloatTensor' for tensors, the qualified class name for other objects.
    if isinstance(obj, _C._TensorBase):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else module + "." + cls.__qualname__


def _check_option(ok, message):
    """Raises ValueError(message) unless ok: the argument checks of the optimizers' constructors."""
    if not ok:
        raise ValueError(message)


def _reject_unsupported(*, capturable=False, differentiable=False):
    # Note [optimizer options Ember lacks]
    # PyTorch 1.13's constructors take foreach, capturable, differentiable (and Adam's fused). Ember keeps them
    # as group options so state dicts have PyTorch's keys, and accepts foreach (the single-tensor update runs
    # either way: its results are those of PyTorch's foreach=False path). capturable is for CUDA graphs and
    # differentiable for gradients through the update itself; neither exists in Ember, so asking for them is
    # an error at construction rather than a silently different step.
    if capturable:
        raise RuntimeError("capturable=True needs CUDA graph capture, which Ember does not have")
    if differentiable:
        raise NotImplementedError("differentiable=True (gradients through the optimizer step) is not "
                                  "supported by Ember's optimizers")


def _zeros_like(p):
    """Zeros of p's shape, dtype and layout: the initial value of a state tensor."""
    return _C._functions["zeros_like"](p, memory_format=_C.preserve_format)


def _step_without_grad(step):
    """Runs an optimizer's step with gradient recording disabled (the in-place updates of leaf parameters must
    not be recorded), as PyTorch's step with differentiable=False."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(False):
            return step(self, *args, **kwargs)
    return wrapper


# The option names of Ember's optimizers: only these count as another optimizer's (a group may hold extras of any
# name, such as a scheduler's initial_lr). Note [loading another optimizer's state] in ember/optim/Optimizer.cpp.
_KNOWN_OPTION_NAMES = frozenset([
    "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable", "betas",
    "eps", "amsgrad", "capturable", "fused", "alpha", "centered", "lr_decay", "initial_accumulator_value", "rho",
    "momentum_decay", "lambd", "t0", "etas", "step_sizes", "max_iter", "max_eval", "tolerance_grad",
    "tolerance_change", "history_size", "line_search_fn"])

# (an option only that optimizer has, its name) for _guess_optimizer, most specific first.
_TELLTALE_OPTIONS = [
    ("max_iter", "LBFGS"), ("lr_decay", "Adagrad"), ("rho", "Adadelta"), ("momentum_decay", "NAdam"),
    ("lambd", "ASGD"), ("etas", "Rprop"), ("alpha", "RMSprop"), ("betas", "Adam or AdamW"),
    ("nesterov", "SGD"), ("dampening", "SGD")]


def _guess_optimizer(foreign_keys):
    for key, name in _TELLTALE_OPTIONS:
        if key in foreign_keys:
            return name
    return "another optimizer"


def _quoted(keys):
    return ", ".join(f"'{k}'" for k in keys)


def _check_state_shapes(param, state, group, position, has_param_shape):
    for name, value in state.items():
        if (has_param_shape(name) and isinstance(value, _C._TensorBase)
                and tuple(value.shape) != tuple(param.shape)):
            raise ValueError(f"load_state_dict: the state '{name}' of parameter {position} in group {group} has "
                             f"shape [{', '.join(map(str, value.shape))}] but the parameter has shape "
                             f"[{', '.join(map(str, param.shape))}]")


class Optimizer:
    r"""Base class of all optimizers.

    Parameters should be given in an order that is the same between runs (a list, not a set): state dicts
    refer to parameters by their position.

    Args:
        params (iterable): tensors to optimize, or dicts defining parameter groups (each with a ``'params'``
            entry and options that override ``defaults``).
        defaults (dict): the default values of the optimization options.

    Attributes:
        param_groups (list of dict): the groups, each with its ``'params'`` list and all options.
        state (defaultdict of dict): per-parameter state, keyed by the parameter tensor.

    Raises:
        TypeError: params is a single tensor, or holds something other than tensors.
        ValueError: params is empty; a parameter is not a leaf; a parameter is in more than one group.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _C._TensorBase):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # Group options an optimizer gained after its first release: a state from an older pickle or state_dict
    # gets them with these values (each subclass lists its own).
    _group_defaults = {}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_defaults.items():
                group.setdefault(key, value)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append("Parameter Group {0}".format(i))
            lines.extend("    {0}: {1}".format(key, group[key]) for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def state_dict(self):
        r"""The optimizer's state as a dict with two entries:

        * ``state``: the per-parameter state, keyed by the parameter's index (counting through the groups in
          order). The state tensors themselves, not copies.
        * ``param_groups``: a list with one dict per group: its options, and ``'params'`` as those indices.
        """
        index_of = {}
        packed_groups = []
        start = 0
        for group in self.param_groups:
            # A parameter seen in an earlier group keeps its index; one listed twice in this group takes the
            # later position (PyTorch 1.13's numbering, so state dicts agree).
            index_of.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index_of})
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            packed_groups.append(packed)
            start += len(group["params"])
        state = {(index_of[id(k)] if isinstance(k, _C._TensorBase) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict):
        r"""Loads a state dict made by :meth:`state_dict` (of an optimizer of the same kind over parameters of
        the same shapes, grouped the same way). The state is deep-copied; its floating tensors are converted
        to the dtype of the parameter they belong to, except ``step``.

        Raises:
            ValueError: a different number of groups, or a group with a different number of parameters; the state
                of another optimizer type (a group with options this one does not have and without some of its
                own); a state tensor (other than ``step``) whose shape is not its parameter's (naming the group,
                the parameter's position and both shapes). PyTorch loads the last two and fails at ``step()``.
        """
        state_dict = deepcopy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        for index, saved in enumerate(saved_groups):
            self._check_group_options(saved, index)
        param_of = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))
        position_of = {k: (g, i) for g, s in enumerate(saved_groups) for i, k in enumerate(s["params"])}
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                _check_state_shapes(param_of[key], value, *position_of[key], self._state_has_param_shape)
                state[param_of[key]] = _cast_state(param_of[key], value)
            else:  # state not attached to a parameter is kept as it is
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    def _state_has_param_shape(self, key):
        """Whether the per-parameter state entry key has its parameter's shape (load_state_dict checks it):
        every tensor but the step count, unless an optimizer keeps other 0-dim or global state."""
        return key != "step"

    def _check_group_options(self, saved, index):
        # Note [loading another optimizer's state] (ember/optim/Optimizer.cpp): the same rule as the C++ side.
        own = list(self.defaults)
        keys = [k for k in saved if k != "params"]
        foreign = [k for k in keys if k not in own and k in _KNOWN_OPTION_NAMES]
        missing = [k for k in own if k not in keys]
        if foreign and missing:
            name = type(self).__name__
            raise ValueError(
                f"load_state_dict: the state dict is not the state of a {name} optimizer (it looks like the state "
                f"of {_guess_optimizer(foreign)}): parameter group {index} has options {_quoted(foreign)} that "
                f"{name} does not have and lacks {name}'s options {_quoted(missing)}")

    def zero_grad(self, set_to_none=False):
        r"""Resets the gradients of all optimized tensors.

        Args:
            set_to_none (bool): set ``.grad`` to None instead of filling it with zeros (PyTorch 1.13's default
                is False: zeros). A parameter whose grad is None is skipped by ``step()``, while a zero grad
                still takes part in it (weight decay and momentum still move the parameter).
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                # The gradient leaves any graph (create_graph=True backward) before it is reused.
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure):
        r"""Performs one update of the parameters.

        Args:
            closure (callable): re-evaluates the model and returns the loss (optional for most optimizers).
        """
        raise NotImplementedError

    def add_param_group(self, param_group):
        r"""Adds a parameter group (a dict with ``'params'`` and options; missing options take the defaults).

        Raises:
            TypeError: params is a set, or holds something other than tensors.
            ValueError: a parameter is not a leaf; a required option is missing; a parameter is already in
                another group. A parameter listed twice in the group itself gives a warning (as PyTorch 1.13).
        """
        assert isinstance(param_group, dict), "param group must be a dict"
        params = param_group["params"]
        if isinstance(params, _C._TensorBase):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, _C._TensorBase):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                 + name)
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if not taken.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    @staticmethod
    def _evaluate(closure):
        """The loss from closure, evaluated with gradient recording on (None without a closure)."""
        if closure is None:
            return None
        with set_grad_enabled(True):
            return closure()

    def _params_with_grad(self, group):
        """The parameters of group that have a gradient, in order (a parameter without one is left alone)."""
        return [p for p in group["params"] if p.grad is not None]


def _cast_state(param, value, key=None):
    # A deep copy has been made already; tensors of the state follow the parameter's dtype when both are
    # floating (state dicts saved in another precision), except the step count.
    if isinstance(value, _C._TensorBase):
        if key != "step" and param.dtype.is_floating_point:
            value = value.to(param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, key=k) for k, v in value.items()}
    if isinstance(value, abc.Iterable) and not isinstance(value, str):
        return type(value)(_cast_state(param, v) for v in value)
    return value
