"""ember.load(f, weights_only=False) for torch.save's files: Python's pickle module, which runs whatever the file
names (so only for trusted files; ember.load warns). The same readers of the zip and legacy formats serve the
restricted unpickler of ember/_module_pickle.py, and dumps writes what ember.save pickles. PyTorch's names map
to Ember's: torch._utils' rebuild functions, the storage classes, torch.Size, dtypes, torch.device, and
``torch.<module>.<name>`` to ``ember.<module>.<name>`` when Ember has that name
(``torch.nn.modules.linear.Linear`` -> Ember's Linear), so pickled PyTorch modules load as Ember modules where
the classes match. Storages are read from the file's raw bytes (zip entries, or the legacy format's trailing
records: Note [torch.save formats] in ember/serialize/TorchCheckpoint.h)."""
import collections
import importlib
import io
import pickle
import struct
import zipfile

import numpy as np

from . import _utils

_STORAGE_DTYPES = {
    "ByteStorage": "uint8", "CharStorage": "int8", "ShortStorage": "int16", "IntStorage": "int32",
    "LongStorage": "int64", "HalfStorage": "float16", "FloatStorage": "float32", "DoubleStorage": "float64",
    "BoolStorage": "bool", "BFloat16Storage": "bfloat16", "UntypedStorage": "uint8",
}


class _StorageType:
    """Stands for torch.<T>Storage while unpickling."""

    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


class _Storage:
    """A loaded storage: a flat ember tensor of its elements."""

    def __init__(self, flat):
        self.flat = flat


def _dtype_name(storage_type):
    """The dtype a storage class of the file stands for (torch's, or ember._utils' own)."""
    return storage_type.dtype_name


def _flat_tensor(raw, dtype_name):
    import ember
    u8 = ember.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())
    return u8.view(getattr(ember, dtype_name))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, load_storage):
        super().__init__(file, encoding="utf-8")
        self._load_storage = load_storage

    def find_class(self, module, name):
        import ember
        full = f"{module}.{name}"
        special = {
            "torch._utils._rebuild_tensor_v2": _utils._rebuild_tensor_v2,
            "torch._utils._rebuild_tensor": _utils._rebuild_tensor,
            "torch._utils._rebuild_parameter": _utils._rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": _utils._rebuild_parameter,
            "torch._tensor._rebuild_from_type_v2": _utils._rebuild_from_type_v2,
            "torch.Size": ember.Size,
            "torch.device": ember.device,
            "torch.nn.parameter.Parameter": ember.nn.Parameter,
            "torch.Tensor": ember.Tensor,
            "torch._tensor.Tensor": ember.Tensor,
        }
        if full in special:
            return special[full]
        if module in ("torch", "torch.storage") and name in _STORAGE_DTYPES:
            return _StorageType(_STORAGE_DTYPES[name])
        if module == "torch" and isinstance(getattr(ember, name, None), ember.dtype):
            return getattr(ember, name)
        if module == "torch" or module.startswith("torch."):
            try:
                return getattr(importlib.import_module("ember" + module[5:]), name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(f"ember.load: the file names {full}, which Ember does not have")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return persistent_load(pid, self._load_storage)


def persistent_load(pid, load_storage):
    """A storage for ('storage', ...); the legacy format's ('module', class, source file, source) of every pickled
    module class (for PyTorch's source-change warnings) gives the class, which the pickle named already."""
    if isinstance(pid, tuple) and len(pid) == 4 and pid[0] == "module" and isinstance(pid[1], type):
        return pid[1]
    if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
        raise pickle.UnpicklingError(f"ember.load: unsupported persistent id {repr(pid)[:200]}")
    return load_storage(pid)


def load(source, name, unpickler=None):
    """The object of a torch.save file (path or bytes) unpickled by Python: by `unpickler` (a class taking
    (file, load_storage)), Python's own unrestricted one (_Unpickler) unless given."""
    unpickler = unpickler or _Unpickler
    data = source if isinstance(source, bytes) else open(source, "rb").read()
    if data[:4] == b"PK\x03\x04":
        return _load_zip(data, name, unpickler)
    return _load_legacy(data, name, unpickler)


def _no_storage(pid):
    raise pickle.UnpicklingError(f"ember.load: unexpected persistent id {pid!r}")


def _check_storage_pid(pid, n, name):
    if not (isinstance(pid, tuple) and len(pid) == n and isinstance(pid[1], (_StorageType, _utils._StorageClass))
            and isinstance(pid[2], str) and isinstance(pid[4], int) and pid[4] >= 0):
        raise pickle.UnpicklingError(f"ember.load: {name}: malformed storage persistent id {pid!r}")


def _load_zip(data, name, unpickler):
    zf = zipfile.ZipFile(io.BytesIO(data))
    prefix = zf.namelist()[0].split("/")[0]
    cache = {}

    def load_storage(pid):
        _check_storage_pid(pid, 5, name)
        _, storage_type, key, _location, _numel = pid
        if key not in cache:
            info = zf.getinfo(f"{prefix}/data/{key}")
            if info.file_size > len(data):  # a compressed entry claiming more than the file holds
                raise RuntimeError(f"ember.load: {name}: storage {key} claims {info.file_size} bytes")
            cache[key] = _Storage(_flat_tensor(zf.read(info), _dtype_name(storage_type)))
        return cache[key]

    return unpickler(io.BytesIO(zf.read(f"{prefix}/data.pkl")), load_storage).load()


def _load_legacy(data, name, unpickler):
    f = io.BytesIO(data)
    for _ in range(3):  # magic number, protocol version, sys_info
        unpickler(f, _no_storage).load()
    pending = collections.OrderedDict()

    def load_storage(pid):
        _check_storage_pid(pid, 6, name)
        _, storage_type, key, _location, numel, view = pid
        import ember
        if key not in pending:  # its bytes follow the object: filled in below
            dtype = getattr(ember, _dtype_name(storage_type))
            if numel * dtype.itemsize > len(data):
                raise RuntimeError(f"ember.load: {name}: storage {key} claims {numel} elements, more than the "
                                   f"file holds")
            flat = ember.empty(numel, dtype=dtype)
            pending[key] = (_dtype_name(storage_type), numel, _Storage(flat))
        storage = pending[key][2]
        if view is not None:
            view_key, offset, view_numel = view
            return _View(storage, offset, view_numel)
        return storage

    obj = unpickler(f, load_storage).load()
    keys = unpickler(f, _no_storage).load()
    for key in keys:
        numel, = struct.unpack("<q", f.read(8))
        dtype_name, _, storage = pending[key]
        nbytes = numel * storage.flat.element_size()
        storage.flat.copy_(_flat_tensor(f.read(nbytes), dtype_name))
    return obj


class _View:
    def __init__(self, storage, offset, numel):
        self._storage, self._offset, self._numel = storage, offset, numel

    @property
    def flat(self):
        return self._storage.flat[self._offset:self._offset + self._numel]


class _StorageRef:
    """A storage while pickling: persistent_id writes it as ('storage', <storage class>, key, 'cpu', numel)."""

    def __init__(self, key, dtype_name, numel):
        self.key, self.dtype_name, self.numel = key, dtype_name, numel


def dumps(obj):
    """obj written with Python's pickle into torch.save's zip format (the archive's bytes): tensors as
    _rebuild_tensor_v2 of storages (ember._utils' names), each storage's bytes once in archive/data/<key>, devices
    as torch.device pickles, so that ember.load's safe reader can still list and read the tensors
    (checkpoint_tensors), its restricted unpickler rebuilds whole modules (ember/_module_pickle.py) and
    weights_only=False any object."""
    import ember
    from .nn import Parameter
    storages = {}  # storage identity -> (_StorageRef, tensor holding it)

    class Pickler(pickle.Pickler):
        def reducer_override(self, o):
            if isinstance(o, Parameter):
                return (_utils._rebuild_parameter, (o.detach(), o.requires_grad, _utils.empty_hooks()))
            if isinstance(o, ember.device):  # as torch.device pickles: device('cpu') or device('cuda', 0)
                return (ember.device, (o.type,) if o.index is None else (o.type, o.index))
            if isinstance(o, ember.Tensor):
                ident, nbytes = ember._C._storage_info(o)
                dtype_name = str(o.dtype).split(".")[-1]
                if ident not in storages:
                    ref = _StorageRef(str(len(storages)), dtype_name, nbytes // o.element_size())
                    storages[ident] = (ref, o)
                ref = storages[ident][0]
                if ref.dtype_name != dtype_name:
                    raise TypeError("ember.save: tensors of two dtypes share one storage; save a copy of one")
                return (_utils._rebuild_tensor_v2, (ref, o.storage_offset(), tuple(o.shape), o.stride(),
                                                    o.requires_grad, _utils.empty_hooks()))
            return NotImplemented

        def persistent_id(self, o):
            if isinstance(o, _StorageRef):
                return ("storage", _utils.STORAGE_CLASSES[o.dtype_name], o.key, "cpu", o.numel)
            return None

    buf = io.BytesIO()
    Pickler(buf, protocol=2).dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        for ref, t in storages.values():
            z.writestr(f"archive/data/{ref.key}", ember._C._storage_bytes(t))
        z.writestr("archive/version", "3\n")
    return out.getvalue()
