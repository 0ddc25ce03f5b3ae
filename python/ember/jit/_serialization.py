"""ember.jit.save and ember.jit.load: a script module as one file, the C++ runtime's saved-module file
(ember/jit/runtime/SavedModule.h, Note [saved-module format]).

Note [saved modules from python]
The file is the one the C++ runtime writes and reads, so ``ember::jit::load`` reads what Python saves and the
reverse. Python adds one thing: the structure and names of the root's method inputs (Note [flattened inputs]
in _module.py), as the extra file ``.ember/input_spec/<method>`` holding the Python literal of the pair, so
that a loaded module accepts tuples, lists, dicts and keyword arguments as the traced one did (C++ callers
pass the flat tensors). Extra files whose names start with ``.ember/`` are reserved; user extra files may be
any other name, with str or bytes contents, read back as bytes (as PyTorch's); unlike PyTorch's, the contents
must be UTF-8 text (the C++ saved-module file keeps extra files as strings, which C++ readers get as std::string).
Writing is atomic (the C++ writer writes a temporary file and renames it). A file object is written through
a temporary file (and read likewise), which the C++ reader needs to seek in.
"""
import ast
import os
import tempfile

from .. import _C
from ._module import ScriptModule, TracedFunction, _loaded

_SPEC_PREFIX = ".ember/input_spec/"


def _extra_to_native(extra):
    out = {}
    for k, v in (extra or {}).items():
        if not isinstance(k, str):
            raise TypeError("ember.jit.save: extra file names must be str, got {}".format(type(k).__name__))
        if k.startswith(".ember/"):
            raise RuntimeError("ember.jit.save: extra file names starting with '.ember/' are reserved, got "
                               "'{}'".format(k))
        if isinstance(v, str):
            v = v.encode("utf-8")
        if not isinstance(v, (bytes, bytearray)):
            raise TypeError("ember.jit.save: extra file '{}' must be str or bytes, got {}".format(
                k, type(v).__name__))
        try:
            bytes(v).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError("ember.jit.save: extra file '{}' is not UTF-8 text ({}); the archive stores extra "
                             "files as text (encode binary data, e.g. with base64)".format(k, e.reason)) from None
        out[k] = bytes(v)
    return out


def _valid_spec(s):
    """Whether s is an input structure as flatten() makes it."""
    if s == "T":
        return True
    if not isinstance(s, tuple):
        return False
    if len(s) == 2 and s[0] in ("tuple", "list") and isinstance(s[1], tuple):
        return all(_valid_spec(e) for e in s[1])
    if len(s) == 3 and s[0] == "dict" and isinstance(s[1], tuple) and isinstance(s[2], tuple):
        return len(s[1]) == len(s[2]) and all(_valid_spec(e) for e in s[2])
    return False


def save(m, f, _extra_files=None):
    """Saves the script module m (traced or loaded), or the traced function m, to f, a path or a writable binary
    file object, as one file (Note [saved modules from python]): its module hierarchy, parameters, buffers, method
    graphs, and _extra_files ({name: str or bytes}). A traced function is saved as a module whose forward runs it
    (as PyTorch's): loading gives a RecursiveScriptModule, not a function. Raises AttributeError for an object that
    is not a script module (as PyTorch's, which has no save method), RuntimeError naming the file for I/O
    failures."""
    if isinstance(m, TracedFunction):
        m = m._as_module()  # saved as PyTorch saves a traced function: a module whose forward runs it
    if not isinstance(m, ScriptModule):
        raise AttributeError("'{}' object has no attribute 'save' (ember.jit.save takes a module made by "
                             "ember.jit.trace or ember.jit.load)".format(type(m).__name__))
    extra = _extra_to_native(_extra_files)
    for name, spec in m._specs.items():
        extra[_SPEC_PREFIX + name] = repr(spec).encode("utf-8")
    if isinstance(f, (str, bytes, os.PathLike)):
        m._c.save(os.fsdecode(f), extra)
        return
    if not hasattr(f, "write"):
        raise TypeError("ember.jit.save: f must be a path or a writable binary file object, got {}".format(
            type(f).__name__))
    with tempfile.TemporaryDirectory(prefix="ember_jit_") as d:
        tmp = os.path.join(d, "module.pt")
        m._c.save(tmp, extra)
        with open(tmp, "rb") as src:
            f.write(src.read())


def load(f, map_location=None, _extra_files=None):
    """Loads a module saved by ember.jit.save (or by C++ ``ember::jit::save``) from f, a path or a readable
    binary file object, as a RecursiveScriptModule: forward, methods, parameters, buffers, state_dict,
    train/eval and submodule attributes work without the original Python classes. _extra_files, a dict
    {name: anything}, gets the stored contents (bytes) of the names it holds (b"" when absent, as PyTorch).
    map_location: only None or "cpu". Raises ValueError for a missing path or a directory (as PyTorch's),
    RuntimeError naming the file for a corrupt, truncated or foreign archive or an unknown op."""
    if map_location is not None and str(map_location) != "cpu":
        raise RuntimeError("ember.jit.load: map_location {!r} is not supported (CPU only)".format(map_location))
    source = os.fsdecode(f) if isinstance(f, (str, bytes, os.PathLike)) else getattr(f, "name", repr(f))
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
        if not os.path.exists(path):
            raise ValueError("The provided filename {} does not exist".format(path))
        if os.path.isdir(path):
            raise ValueError("The provided filename {} is a directory".format(path))
        c, extra = _C._jit_load(path)
    elif hasattr(f, "read"):
        with tempfile.TemporaryDirectory(prefix="ember_jit_") as d:
            tmp = os.path.join(d, "module.pt")
            with open(tmp, "wb") as dst:
                dst.write(f.read())
            c, extra = _C._jit_load(tmp)
    else:
        raise TypeError("ember.jit.load: f must be a path or a readable binary file object, got {}".format(
            type(f).__name__))
    specs = {}
    for name, data in extra.items():
        if name.startswith(_SPEC_PREFIX):
            try:  # any error of a hostile literal ({[1]: 2} is a TypeError) is the file's fault
                spec = ast.literal_eval(data.decode("utf-8"))
                ok = (isinstance(spec, tuple) and len(spec) == 2 and _valid_spec(spec[0])
                      and spec[0][0] == "tuple" and isinstance(spec[1], tuple) and len(spec[1]) == len(spec[0][1])
                      and all(isinstance(n, str) for n in spec[1]))
            except (ValueError, TypeError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
                ok = False
            if not ok:
                raise RuntimeError("ember.jit.load: '{}': the input structure of method '{}' in the archive is "
                                   "malformed".format(source, name[len(_SPEC_PREFIX):])) from None
            specs[name[len(_SPEC_PREFIX):]] = spec
    if _extra_files is not None:
        for k in _extra_files:
            _extra_files[k] = extra.get(k, b"")
    return _loaded(c, specs)
