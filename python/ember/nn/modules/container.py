"""Containers of modules and parameters: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
(PyTorch 1.13's). The modules and parameters are registered under their index ('0', '1', ...) or key, so they
appear in parameters() and state_dict() with those names."""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _abs_index(idx, size):
    """idx (an int or __index__ object) in [0, size); IndexError as PyTorch's containers raise it."""
    idx = operator.index(idx)
    if not (-size <= idx < size):
        raise IndexError("index {} is out of range".format(idx))
    return idx % size if size else idx


def _renumber(module):
    """Re-keys module._modules as '0', '1', ... after a deletion (the containers keep contiguous indices)."""
    module._modules = OrderedDict((str(i), m) for i, m in enumerate(module._modules.values()))


class Sequential(Module):
    r"""Modules called in order, each on the previous one's output.

    ``Sequential(m0, m1, ...)`` names them '0', '1', ...; ``Sequential(OrderedDict(name=module, ...))`` uses
    the keys. Supports indexing (an int gives the module, a slice a new Sequential), ``len``, iteration,
    ``append``/``extend``/``insert``/``pop``, ``+`` and ``*``.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx):
        keys = list(self._modules.keys())
        return keys[_abs_index(idx, len(keys))]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        size = len(self._modules)
        return next(islice(iter(self._modules.values()), _abs_index(idx, size), None))

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but {} is given."
                             .format(str(type(other))))

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __add__(self, other):
        self._check_sequential(other)
        return Sequential(*self, *other)

    def __iadd__(self, other):
        self._check_sequential(other)
        return self.extend(list(other))

    def __mul__(self, other):
        self._check_factor(other)
        return Sequential(*(list(self) * other))

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        return self.extend(list(self) * (other - 1))

    def append(self, module):
        """Adds module at the end. Returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        """Appends every module of sequential. Returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index, module):
        """Inserts module before position index (-len <= index <= len). Returns self."""
        if not isinstance(module, Module):
            raise AssertionError("module should be of type: {}".format(Module))
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError("Index out of range: {}".format(index))
        index = index + n if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(modules))
        return self

    def pop(self, key):
        """Removes and returns the module (or Sequential of a slice) at key."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    r"""A list of modules registered as '0', '1', ... (indexing, slicing to a new ModuleList, len, iteration,
    append, extend, insert, pop, ``+`` and ``+=``). It has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_abs_index(idx, len(self))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self))))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(list(self) + list(other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def insert(self, index, module):
        """Inserts module before position index."""
        modules = list(self._modules.values())
        modules.insert(index, module)
        for m in modules:
            if m is not None and not isinstance(m, Module):
                raise TypeError("{} is not a Module subclass".format(_typename(m)))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(modules))

    def append(self, module):
        """Adds module at the end. Returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Removes and returns the module at key."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        """Appends the modules of an iterable. Returns self. Raises TypeError for a non-iterable."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    r"""An ordered dict of modules registered under their keys (``[]``, ``in``, len, iteration over keys,
    keys/items/values, update, pop, clear). It has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Removes every module."""
        self._modules.clear()

    def pop(self, key):
        """Removes and returns the module under key."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        r"""Adds the (key, module) pairs of a mapping or of an iterable of pairs.

        Raises:
            TypeError: modules is not iterable, or an element is not. ValueError: an element is no pair.
        """
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got " +
                            type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, m in enumerate(modules):
            if not isinstance(m, Iterable):
                raise TypeError("ModuleDict update sequence element #" + str(j) + " should be Iterable; is" +
                                type(m).__name__)
            if not len(m) == 2:
                raise ValueError("ModuleDict update sequence element #" + str(j) + " has length " + str(len(m)) +
                                 "; 2 is required")
            self[m[0]] = m[1]


def _param_line(key, p, type_name):
    """One line of ParameterList/ParameterDict's repr."""
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return "  ({}): {} containing: [{} of size {}]".format(key, kind, type_name(p), size)
    return "  ({}): Object of type: {}".format(key, type(p).__name__)


def _as_parameter(value):
    """A plain tensor stored in a ParameterList/Dict becomes a Parameter (as PyTorch's)."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


class ParameterList(Module):
    r"""A list of parameters registered as '0', '1', ... (a plain tensor becomes a Parameter; other objects
    are kept as attributes). Indexing, slicing, len, iteration, append, extend, ``+=``."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_abs_index(idx, len(self))))

    def __setitem__(self, idx, param):
        setattr(self, str(_abs_index(idx, len(self))), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        """Adds value at the end. Returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Appends the values of an iterable. Returns self. Raises TypeError for a tensor or a non-iterable."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: t.dtype) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    r"""An ordered dict of parameters registered under their (str) keys (a plain tensor becomes a
    Parameter). ``[]``, ``in``, len, iteration over keys, keys/items/values, get, pop, popitem, setdefault,
    update, copy, fromkeys, clear, and ``|`` / ``|=`` (merge, the right side winning)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        """The attribute a key is stored under: the key itself, which must be a str (TypeError otherwise)."""
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            "'{}'). Open an issue on github if you need non-string keys.".format(type(key).__name__))
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        self._keys[key] = None
        setattr(self, attr, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A new ParameterDict with the same parameters (not copies of them)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self._keys.popitem()
        self._keys[k] = None  # __delitem__ removes it again
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict(((k, default) for k in keys))

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        r"""Adds the (key, value) pairs of a mapping (a plain dict's keys in sorted order, as PyTorch's) or of
        an iterable of pairs.

        Raises:
            TypeError: parameters is not iterable, or an element is not. ValueError: an element is no pair.
        """
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got " +
                            type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, Iterable):
                    raise TypeError("ParameterDict update sequence element #" + str(j) + " should be Iterable; is" +
                                    type(p).__name__)
                if not len(p) == 2:
                    raise ValueError("ParameterDict update sequence element #" + str(j) + " has length " +
                                     str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self):
        return "\n".join(_param_line(k, p, _typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        """A new ParameterDict: self's entries updated with other's."""
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        """A new ParameterDict: other's entries updated with self's."""
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        """Updates self with other's entries; returns self."""
        self.update(other)
        return self
