"""functional_call: a module called with other parameters and buffers (PyTorch 1.13's
torch.nn.utils.stateless), e.g. for per-sample gradients or meta-learning, without changing the module.

While the call runs, each submodule that has a replaced name gets a class of its own
(``StatelessReplacer<Class>``) whose attribute reads of those names return the given tensors and whose writes go
into the given dict; the classes are restored afterwards, also when the call raises.
"""
import contextlib
import warnings

__all__ = ["functional_call"]


def _redirect(module, routes, values):
    """Makes module read and write the names in routes (name -> key of values) from and to values."""
    cls = module.__class__

    def getattribute(self, name):
        if name in routes:
            return values[routes[name]]
        return cls.__getattribute__(self, name)

    def setattr_(self, name, value):
        if name in routes:
            values[routes[name]] = value
        else:
            cls.__setattr__(self, name, value)

    module.__class__ = type(f"StatelessReplacer{cls.__name__}", (cls,),
                            {"__getattribute__": getattribute, "__setattr__": setattr_})
    return cls


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers):
    """A block in which module's (dotted) names in parameters_and_buffers read the given tensors."""
    routes = {}  # submodule -> {attribute name: dotted key}
    owners = {}
    replaced = {}  # id of an original tensor -> its replacement (tied weights given twice warn)
    for key, tensor in parameters_and_buffers.items():
        *path, name = key.split(".")
        owner = module
        for part in path:
            owner = getattr(owner, part)
        if hasattr(owner, name):
            old = getattr(owner, name)
            if id(old) not in replaced:
                replaced[id(old)] = (old, tensor)
            elif replaced[id(old)][1] is not tensor:
                warnings.warn("functional_call was passed multiple values for tied weights. This behavior is "
                              "deprecated and will be an error in future versions")
        owners[id(owner)] = owner
        routes.setdefault(id(owner), {})[name] = key
    original_classes = {}
    try:
        for oid, owner in owners.items():
            original_classes[oid] = _redirect(owner, routes[oid], parameters_and_buffers)
        yield
    finally:
        for oid, cls in original_classes.items():
            owners[oid].__class__ = cls


def functional_call(module, parameters_and_buffers, args, kwargs=None):
    r"""Calls module(*args, **kwargs) with the tensors of parameters_and_buffers in place of its parameters and
    buffers of the same (dotted) names; the module itself is unchanged afterwards. Assignments the forward makes
    to those names (a buffer update such as ``self.count = self.count + 1``) go into parameters_and_buffers, and
    in-place changes reach the given tensors.

    Args:
        module (Module): the module to call.
        parameters_and_buffers (dict of str to Tensor): the replacements, by state-dict name; names not given
            keep the module's own tensors.
        args: the positional arguments (a tuple, or one value).
        kwargs (dict): the keyword arguments.

    Returns:
        What the module returns.

    Raises:
        AttributeError: a dotted name whose submodule does not exist.
    """
    if kwargs is None:
        kwargs = {}
    with _reparametrize_module(module, parameters_and_buffers):
        if isinstance(args, tuple):
            return module(*args, **kwargs)
        return module(args, **kwargs)
