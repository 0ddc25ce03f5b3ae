"""ember.load's restricted unpickler for whole pickled modules (Note [module unpickling]).

Note [module unpickling]
``torch.save(model, path)`` pickles a whole ``nn.Module``; Ember's C++ reader (Note [safe unpickling] in
ember/serialize/Pickle.h) refuses every class outside its allow-list, so by default (``weights_only=None``)
ember.load retries a torch.save file that it refused with this unpickler, which allows besides the safe
reader's names:

(a) subclasses of ``ember.nn.Module`` (a user's ``Net``, Ember's layers) and ``ember.nn.Parameter`` that are
    ALREADY IMPORTED: the class is looked up in ``sys.modules[module]`` through plain attribute dictionaries
    (no ``__getattr__``, no descriptor runs) and no module is ever imported, so ``__main__.Net`` loads only in a
    program that defined ``Net``. A module is rebuilt as pickle does for protocol 2: ``cls.__new__(cls)`` (NEWOBJ,
    or ``copyreg._reconstructor(cls, object, None)`` of protocols 0 and 1; no ``__init__`` runs), then its
    state goes to ``__setstate__`` (Module's updates ``__dict__``). PyTorch's class names map to Ember's
    same-named classes: ``torch.nn.modules.conv.Conv2d`` is ``ember.nn.Conv2d`` (only names that ember.nn has),
    ``torch.nn.functional.relu`` is ``ember.nn.functional.relu``, so a whole PyTorch model file loads as the
    Ember model.
(b) plain data: OrderedDict, set, frozenset, slice, complex, range, bytes, bytearray, ember dtypes, devices and
    Size (torch's too), NumPy arrays and scalars of bool, integer, float and complex dtypes.
(c) functions and classes defined in the ``ember`` package, as values (an activation ``F.relu`` kept on a
    module), but only referenced: the file cannot call them. Modules that read or write files or run
    processes (serialization, jit, hub, cpp_extension, ...) are left out even as references.

Only the tensor rebuild functions and the constructors of (b) are called, each with its arguments checked
(a tensor's geometry against its storage, a range's bounds, ...). The unpickler is Python's own pure-Python
opcode loop (``pickle._Unpickler``) with its calling opcodes replaced: the C ``pickle.Unpickler`` calls whatever
``find_class`` returned when REDUCE names it, so with it a referenced function (``ember.save``, which writes a
file) could be called by the file. REDUCE calls only (b) and the rebuilds; NEWOBJ creates only (a); BUILD sets
state only on modules, OrderedDicts and NumPy arrays; APPENDS / SETITEMS / ADDITEMS act only on plain lists,
dicts and sets; INST, OBJ and extension codes are refused. Everything else raises ``pickle.UnpicklingError``
"global 'os.system' is not allowed" naming what was refused. A user class's own ``__new__`` and
``__setstate__`` run, as they would in the program that imported it; ``weights_only=True`` never gets here.
"""
import _compat_pickle
import builtins
import collections
import copyreg
import math
import pickle
import sys
import types

from . import _unsafe_pickle, _utils

# Modules whose functions read or write files, compile or run code: not even referenced (c).
_DENIED_MODULES = ("ember.serialization", "ember._unsafe_pickle", "ember._module_pickle", "ember.jit",
                   "ember.safetensors", "ember.hub", "ember.utils.cpp_extension", "ember.utils.gguf",
                   "ember.utils.data", "ember.autograd.profiler", "ember.profiler", "ember.multiprocessing",
                   "ember.distributed", "ember.onnx", "ember.package", "ember.utils.tensorboard",
                   "ember.utils.benchmark", "ember.utils.checkpoint")


def load(source, name):
    """The object of a torch.save file (path or bytes) read by the restricted unpickler."""
    return _unsafe_pickle.load(source, name, _RestrictedUnpickler)


def _refuse(what):
    raise pickle.UnpicklingError(what)


def _static_attr(obj, name):
    from .serialization import _static_attr as attr
    return attr(obj, name)


def _lookup(module, qualname):
    """module.qualname found in the already-imported module through attribute dictionaries, or None."""
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        if obj is None or not part.isidentifier():
            return None
        obj = _static_attr(obj, part)
    return obj


def _in_ember(modname):
    return isinstance(modname, str) and (modname == "ember" or modname.startswith("ember."))


def _denied(modname):
    return any(modname == d or modname.startswith(d + ".") for d in _DENIED_MODULES)


# ---- argument checks of the callables ---------------------------------------------------------------------

def _ints(seq):
    return isinstance(seq, (tuple, list)) and all(type(v) is int for v in seq)


def _check(ok, what):
    if not ok:
        _refuse(f"{what}: unexpected arguments")


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None):
    _check(isinstance(storage, (_unsafe_pickle._Storage, _unsafe_pickle._View)) and type(storage_offset) is int
           and _ints(size) and _ints(stride) and len(size) == len(stride) and isinstance(requires_grad, bool),
           "_rebuild_tensor_v2")
    return _utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks=None, state=None):
    from ._tensor import Tensor
    _check(isinstance(data, Tensor) and isinstance(requires_grad, bool), "_rebuild_parameter")
    return _utils._rebuild_parameter(data, requires_grad, backward_hooks)


def _rebuild_from_type_v2(func, new_type, args, state):
    from ._tensor import Tensor
    from .nn import Parameter
    _check(func in (_rebuild_tensor, _rebuild_parameter) and new_type in (Tensor, Parameter)
           and isinstance(args, tuple), "_rebuild_from_type_v2")
    t = func(*args)
    return Parameter(t, t.requires_grad) if new_type is Parameter and not isinstance(t, Parameter) else t


def _size(*args):
    from ._size import Size
    _check(len(args) == 1 and _ints(args[0]), "Size")
    return Size(args[0])


def _device(*args):
    from . import device
    _check(1 <= len(args) <= 2 and isinstance(args[0], str) and (len(args) == 1 or type(args[1]) is int), "device")
    return device(*args)


def _ordered_dict(*args):
    _check(not args or (len(args) == 1 and isinstance(args[0], list)
                        and all(isinstance(kv, tuple) and len(kv) == 2 for kv in args[0])), "OrderedDict")
    return collections.OrderedDict(*args)


def _container(cls):
    def make(*args):
        _check(not args or (len(args) == 1 and type(args[0]) in (list, tuple, set, frozenset)), cls.__name__)
        return cls(*args)
    return make


def _slice(*args):
    _check(1 <= len(args) <= 3 and all(v is None or type(v) is int for v in args), "slice")
    return slice(*args)


def _complex(*args):
    _check(len(args) <= 2 and all(type(v) in (int, float) for v in args), "complex")
    return complex(*args)


def _range(*args):
    _check(1 <= len(args) <= 3 and all(type(v) is int for v in args), "range")
    return range(*args)


def _bytes_like(cls):
    def make(*args):
        ok = (not args or (len(args) == 1 and type(args[0]) is bytes)
              or (len(args) == 2 and type(args[0]) is str and args[1] in ("latin1", "latin-1")))
        _check(ok, cls.__name__)
        return cls(*args)
    return make


def _encode(*args):
    _check(len(args) == 2 and type(args[0]) is str and args[1] in ("latin1", "latin-1"), "_codecs.encode")
    return args[0].encode("latin-1")


def _numeric_dtype(dt):
    import numpy as np
    return isinstance(dt, np.dtype) and dt.kind in "biufc" and dt.fields is None and dt.subdtype is None


def _np_reconstruct(*args):
    import numpy as np
    _check(len(args) == 3 and args[0] is np.ndarray and args[1] == (0,) and args[2] == b"b", "_reconstruct")
    return np.ndarray.__new__(np.ndarray, (0,), "b")


def _np_dtype(*args):
    import numpy as np
    _check(len(args) == 3 and type(args[0]) is str and len(args[0]) <= 8 and all(type(v) is bool for v in args[1:]),
           "numpy.dtype")
    dt = np.dtype(*args)
    _check(_numeric_dtype(dt), f"numpy.dtype({args[0]!r}) (Ember reads bool, integer, float and complex arrays)")
    return dt


def _np_scalar(*args):
    import numpy as np
    _check(len(args) == 2 and _numeric_dtype(args[0]) and type(args[1]) is bytes
           and len(args[1]) == args[0].itemsize, "numpy scalar")
    return np.core.multiarray.scalar(*args)


def _build_ndarray(arr, state):
    import numpy as np
    ok = (type(arr) is np.ndarray and arr.shape == (0,) and isinstance(state, tuple) and len(state) == 5
          and state[0] == 1 and _ints(state[1]) and all(n >= 0 for n in state[1]) and _numeric_dtype(state[2])
          and isinstance(state[3], bool) and type(state[4]) is bytes
          and len(state[4]) == math.prod(state[1]) * state[2].itemsize)
    _check(ok, "numpy.ndarray state")
    arr.__setstate__(state)


def _build_dtype(dt, state):
    _check(isinstance(state, tuple) and len(state) >= 5 and state[2] is None and state[3] is None
           and state[4] is None, "numpy.dtype state")
    dt.__setstate__(state)
    _check(_numeric_dtype(dt), "numpy.dtype state")


def _fixed_names():
    """'module.name' -> the object find_class gives for the names that do not depend on what is imported."""
    import ember
    from ._size import Size
    from ._tensor import Tensor
    from .nn import Parameter
    names = {}
    for prefix in ("torch._utils.", "ember._utils."):
        names.update({prefix + "_rebuild_tensor_v2": _rebuild_tensor, prefix + "_rebuild_tensor": _rebuild_tensor,
                      prefix + "_rebuild_parameter": _rebuild_parameter,
                      prefix + "_rebuild_parameter_with_state": _rebuild_parameter})
    for prefix in ("torch._tensor.", "ember._utils."):
        names[prefix + "_rebuild_from_type_v2"] = _rebuild_from_type_v2
    names.update({"torch.Size": Size, "ember._size.Size": Size, "ember.Size": Size,
                  "torch.device": ember.device, "ember.device": ember.device,
                  "torch.Tensor": Tensor, "torch._tensor.Tensor": Tensor,
                  "torch.nn.parameter.Parameter": Parameter,
                  "collections.OrderedDict": collections.OrderedDict, "_codecs.encode": _encode,
                  "copyreg._reconstructor": copyreg._reconstructor})
    for n in ("set", "frozenset", "slice", "complex", "range", "bytes", "bytearray"):
        names["builtins." + n] = getattr(builtins, n)
    for storage_name, dtype_name in _unsafe_pickle._STORAGE_DTYPES.items():
        names["torch." + storage_name] = names["torch.storage." + storage_name] = _unsafe_pickle._StorageType(
            dtype_name)
    for cls in _utils.STORAGE_CLASSES.values():
        names["ember._utils." + cls.__name__] = cls
    if "numpy" in sys.modules:
        import numpy as np
        for mod in ("numpy.core.multiarray.", "numpy._core.multiarray."):
            names[mod + "_reconstruct"] = np.core.multiarray._reconstruct
            names[mod + "scalar"] = np.core.multiarray.scalar
        names["numpy.ndarray"] = np.ndarray
        names["numpy.dtype"] = np.dtype
    return names


def _calls():
    """id(object) -> (object, checked function) for what REDUCE may call."""
    import ember
    from ._size import Size
    table = [(_rebuild_tensor, _rebuild_tensor), (_rebuild_parameter, _rebuild_parameter),
             (_rebuild_from_type_v2, _rebuild_from_type_v2), (Size, _size), (ember.device, _device),
             (collections.OrderedDict, _ordered_dict), (set, _container(set)), (frozenset, _container(frozenset)),
             (slice, _slice), (complex, _complex), (range, _range), (bytes, _bytes_like(bytes)),
             (bytearray, _bytes_like(bytearray)), (_encode, _encode)]
    if "numpy" in sys.modules:
        import numpy as np
        table += [(np.core.multiarray._reconstruct, _np_reconstruct), (np.dtype, _np_dtype),
                  (np.core.multiarray.scalar, _np_scalar)]
    return {id(obj): (obj, fn) for obj, fn in table}


class _RestrictedUnpickler(pickle._Unpickler):
    """Python's pure-Python unpickler with find_class and the calling opcodes restricted (Note [module
    unpickling])."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, load_storage):
        super().__init__(file, encoding="utf-8")
        self._load_storage = load_storage
        self._names = _fixed_names()
        self._calls = _calls()
        self._seen = {}  # id(object) -> (object, 'module.name') of what find_class gave, for messages

    def persistent_load(self, pid):
        return _unsafe_pickle.persistent_load(pid, self._load_storage)

    # ---- names -----------------------------------------------------------------------------------------
    def find_class(self, module, name):
        if not isinstance(module, str) or not isinstance(name, str):
            _refuse("a global whose name is not a str")
        if self.proto < 3 and (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif self.proto < 3 and module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        obj = self._names.get(full)
        if obj is None:
            obj, why = self._resolve(module, name)
            if obj is None:
                _refuse(f"global '{full}' is not allowed" + (f" ({why})" if why else ""))
        self._seen[id(obj)] = (obj, full)
        return obj

    def _resolve(self, module, name):
        """(object, None) for names of (a) and (c) of Note [module unpickling], else (None, why)."""
        import ember
        from .nn import Module, Parameter
        if module == "torch" or module.startswith("torch."):
            if module == "torch" and isinstance(getattr(ember, name, None), ember.dtype):
                return getattr(ember, name), None
            candidates = ["ember" + module[5:]]
            if module.startswith("torch.nn."):
                candidates.append("ember.nn")
            for cand in candidates:
                obj = _lookup(cand, name)
                if obj is not None and self._allowed_value(obj, Module, Parameter):
                    return obj, None
            return None, "Ember has no such class or function"
        if module not in sys.modules:
            return None, "its module is not imported: ember.load imports nothing"
        obj = _lookup(module, name)
        if obj is None:
            return None, "not found in its module"
        if isinstance(obj, type) and issubclass(obj, (Module, Parameter)):
            return obj, None
        if _in_ember(module) and self._allowed_value(obj, Module, Parameter):
            return obj, None
        return None, None

    @staticmethod
    def _allowed_value(obj, module_cls, parameter_cls):
        import ember
        if isinstance(obj, type) and issubclass(obj, (module_cls, parameter_cls)):
            return True
        if isinstance(obj, ember.dtype):
            return True
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            defined_in = getattr(obj, "__module__", None)
            return _in_ember(defined_in) and not _denied(defined_in)
        return False

    def _name(self, obj):
        seen = self._seen.get(id(obj))
        if seen is not None and seen[0] is obj:
            return seen[1]
        return type(obj).__name__ + " object"

    # ---- opcodes that call ---------------------------------------------------------------------------
    def load_reduce(self):
        stack = self.stack
        args = stack.pop()
        func = stack[-1]
        entry = self._calls.get(id(func))
        if not isinstance(args, tuple):
            _refuse("REDUCE with arguments that are not a tuple")
        if entry is not None and entry[0] is func:
            stack[-1] = entry[1](*args)
        elif func is copyreg._reconstructor:
            cls = args[0] if len(args) == 3 else None
            if not (self._is_module_class(cls) and args[1] is object and args[2] is None):
                _refuse(f"copyreg._reconstructor of {self._name(cls)} is not allowed")
            stack[-1] = object.__new__(cls)
        else:
            _refuse(f"calling '{self._name(func)}' is not allowed (Ember's loader only references it)")

    dispatch[pickle.REDUCE[0]] = load_reduce

    def _is_module_class(self, cls):
        from .nn import Module
        seen = self._seen.get(id(cls))
        return isinstance(cls, type) and issubclass(cls, Module) and seen is not None and seen[0] is cls

    def _new(self, cls, args, kwargs):
        if not self._is_module_class(cls) or args != () or kwargs:
            _refuse(f"creating an instance of {self._name(cls)} is not allowed (only already-imported "
                    f"ember.nn.Module subclasses, without arguments)")
        self.append(cls.__new__(cls))

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self._new(cls, args, None)

    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self._new(cls, args, kwargs)

    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self):
        from .nn import Module
        state = self.stack.pop()
        inst = self.stack[-1]
        plain = isinstance(state, dict) and all(type(k) is str for k in state)
        if isinstance(inst, Module) and plain:
            setstate = getattr(type(inst), "__setstate__", None)
            if setstate is not None:
                setstate(inst, state)
            else:
                inst.__dict__.update(state)
        elif type(inst) is collections.OrderedDict and plain:
            inst.__dict__.update(state)  # a state dict's _metadata
        elif "numpy" in sys.modules and type(inst) is sys.modules["numpy"].ndarray:
            _build_ndarray(inst, state)
        elif "numpy" in sys.modules and isinstance(inst, sys.modules["numpy"].dtype):
            _build_dtype(inst, state)
        else:
            _refuse(f"setting the state of a {type(inst).__name__} is not allowed")

    dispatch[pickle.BUILD[0]] = load_build

    # ---- opcodes that add items: plain containers only --------------------------------------------------
    def _target(self, kinds, what):
        target = self.stack[-1]
        if type(target) not in kinds:
            _refuse(f"{what} on a {type(target).__name__} is not allowed")
        return target

    def load_append(self):
        value = self.stack.pop()
        self._target((list,), "APPEND").append(value)

    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        self._target((list,), "APPENDS").extend(items)

    dispatch[pickle.APPENDS[0]] = load_appends

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._target((dict, collections.OrderedDict), "SETITEM")[key] = value

    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        target = self._target((dict, collections.OrderedDict), "SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_additems(self):
        items = self.pop_mark()
        self._target((set,), "ADDITEMS").update(items)

    dispatch[pickle.ADDITEMS[0]] = load_additems

    def _refused_opcode(self):
        _refuse("protocol 0's INST / OBJ and extension codes are not allowed")

    for _op in (pickle.INST, pickle.OBJ, pickle.EXT1, pickle.EXT2, pickle.EXT4):
        dispatch[_op[0]] = _refused_opcode
    del _op
