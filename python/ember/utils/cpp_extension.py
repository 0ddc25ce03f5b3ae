"""Compiling C++ op libraries at run time (PyTorch's torch.utils.cpp_extension.load / load_inline).

The sources register ops with ``EMBER_LIBRARY`` / ``EMBER_LIBRARY_IMPL`` (``#include <ember/ember.h>``); they
are compiled with the system C++ compiler into one shared library that links ``libember.so``, which is then
loaded with ``ember.ops.load_library``, so its ops are ``ember.ops.<ns>.<op>`` in Python, reachable from C++
through the dispatcher, and recorded by traces. The returned module's ``__file__`` is the library's path: a C++
program that runs a saved model using the ops loads that file with ``ember::load_library``.

Note [extension build cache]
Each build lives in ``<root>/<name>_<key>/`` where root is ``EMBER_EXTENSIONS_DIR`` (default
``~/.cache/ember_extensions``) and key hashes everything the result depends on: the name, the sources' paths
and contents, the flags, the compiler, Ember's version and the identity (path, size, modification time) of
the libember.so it links, so a rebuilt Ember or an edited source gives a new folder and nothing stale is
loaded. The library is compiled to a temporary name and renamed into place, under a file lock, so concurrent
processes build it once and never load a half-written file; a later call with the same inputs finds the
library and does not run the compiler.
"""
import fcntl
import hashlib
import os
import re
import shlex
import subprocess
import sys
import types

import ember

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ember_paths():
    """(include directory, directory of libember.so) of the Ember this process runs: the installed package's
    own copies, or the source tree and the library the extension module loaded."""
    pkg = os.path.dirname(os.path.abspath(ember.__file__))
    installed_include = os.path.join(pkg, "include")
    if os.path.exists(os.path.join(installed_include, "ember", "ember.h")):
        return installed_include, os.path.join(pkg, "lib")
    include = os.path.dirname(os.path.dirname(pkg))  # python/ember -> the repository
    if not os.path.exists(os.path.join(include, "ember", "ember.h")):
        raise RuntimeError("cpp_extension: cannot find Ember's headers (looked in {} and {})".format(
            installed_include, include))
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if os.path.basename(path).startswith("libember.so"):
                return include, os.path.dirname(path)
    raise RuntimeError("cpp_extension: cannot find the libember.so this process loaded")


def include_paths():
    """The include directories an extension needs (Ember's headers)."""
    return [_ember_paths()[0]]


def library_paths():
    """The directories holding libember.so."""
    return [_ember_paths()[1]]


def _default_root():
    return os.environ.get("EMBER_EXTENSIONS_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ember_extensions")


def _compiler():
    return os.environ.get("CXX") or "c++"


def _build(name, sources, extra_cflags, extra_ldflags, extra_include_paths, build_directory, verbose):
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError("cpp_extension: name must be a C++ identifier (it is the op namespace), got {!r}".format(name))
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    sources = [os.path.abspath(os.fspath(s)) for s in sources]
    if not sources:
        raise ValueError("cpp_extension: expected at least one source file")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError("cpp_extension: no such source file '{}'".format(s))
    include, libdir = _ember_paths()
    libember = os.path.join(libdir, "libember.so")
    st = os.stat(libember)
    cflags = list(extra_cflags or [])
    ldflags = list(extra_ldflags or [])
    incs = [os.path.abspath(p) for p in (extra_include_paths or [])]
    compiler = _compiler()

    key = hashlib.sha256()
    for part in [name, compiler, ember.__version__, libember, str(st.st_size), str(st.st_mtime_ns), *cflags, "|",
                 *ldflags, "|", *incs]:
        key.update(part.encode() + b"\0")
    for s in sources:
        key.update(s.encode() + b"\0")
        with open(s, "rb") as f:
            key.update(hashlib.sha256(f.read()).digest())
    folder = build_directory or os.path.join(_default_root(), "{}_{}".format(name, key.hexdigest()[:16]))
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, "lib{}.so".format(name))
    stamp = os.path.join(folder, "key")
    with open(os.path.join(folder, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # Note [extension build cache]
        if os.path.exists(target) and os.path.exists(stamp) and open(stamp).read() == key.hexdigest():
            if verbose:
                print("cpp_extension: {} is up to date ({})".format(name, target), file=sys.stderr)
            return target
        tmp = target + ".tmp{}".format(os.getpid())
        cmd = [compiler, "-std=c++20", "-O2", "-fPIC", "-shared", "-DEMBER_EXTENSION_NAME=" + name,
               "-I" + include, *("-I" + p for p in incs), *cflags, *sources, "-o", tmp,
               "-L" + libdir, "-Wl,-rpath," + libdir, "-lember", "-lfmt", *ldflags]
        if verbose:
            print("cpp_extension: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        try:
            proc = subprocess.run(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as e:
            raise RuntimeError("Error building extension '{}': cannot run the compiler {!r}: {}".format(
                name, compiler, e)) from None
        if proc.returncode != 0:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise RuntimeError("Error building extension '{}' (exit {}):\n{}".format(name, proc.returncode,
                                                                                 proc.stdout))
        if verbose and proc.stdout:
            print(proc.stdout, file=sys.stderr)
        os.replace(tmp, target)
        with open(stamp + ".tmp", "w") as f:
            f.write(key.hexdigest())
        os.replace(stamp + ".tmp", stamp)
    return target


def _module(name, path, functions=()):
    ember.ops.load_library(path)
    mod = types.ModuleType(name, "Ember extension {} ({})".format(name, path))
    mod.__file__ = path
    ns = getattr(ember.ops, name)
    for fn in functions:
        setattr(mod, fn, getattr(ns, fn))
    return mod


def load(name, sources, extra_cflags=None, extra_ldflags=None, extra_include_paths=None, build_directory=None,
         verbose=False):
    """Compiles C++ sources that register ops (EMBER_LIBRARY) into a shared library, loads it, and returns a
    module whose ``__file__`` is the library's path; the ops are ``ember.ops.<namespace>.<op>``.

    Args:
        name (str): the extension's name (a C++ identifier; also the library's file name and build folder).
        sources (str or list of str): C++ source files.
        extra_cflags, extra_ldflags (list of str): more compiler / linker flags.
        extra_include_paths (list of str): more include directories.
        build_directory (str): where to build; default a folder under ``EMBER_EXTENSIONS_DIR`` keyed by a hash
            of the inputs (Note [extension build cache]), so a second call does not recompile.
        verbose (bool): print the compiler command and output.

    Raises:
        ValueError: a name that is not an identifier; no sources.
        FileNotFoundError: a missing source file.
        RuntimeError: the compiler failed ("Error building extension ..." with its messages) or cannot run.
        OSError / RuntimeError: loading the built library failed (ember.ops.load_library).
    """
    path = _build(name, sources, extra_cflags, extra_ldflags, extra_include_paths, build_directory, verbose)
    return _module(name, path)


def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None, extra_ldflags=None,
                extra_include_paths=None, build_directory=None, verbose=False):
    """As load(), from source strings; the arguments are in torch.utils.cpp_extension.load_inline's order.
    ``functions`` names plain C++ functions of the sources to bind: each becomes the op ``<name>::<function>``
    and an attribute of the returned module, callable with positional arguments, with autograd through the
    Ember ops it calls. Their parameter types must be those of Note [inferred schemas]
    (ember/dispatch/InferSchema.h): ``ember::Tensor`` (by value or const&), ``int64_t``, ``double``, ``bool``,
    ``std::string_view``, ``ember::IntArrayRef``, ``ember::TensorList``, ``ember::Scalar`` and their
    ``std::optional``; results ``ember::Tensor``, ``std::tuple`` of Tensors, ``std::vector<ember::Tensor>``,
    ``int64_t``, ``double``, ``bool`` or ``void``. Other types (``int``, ``float``, ``std::string``,
    ``std::vector<int64_t>``) fail to compile naming ``ember::boxing::Arg``.

    Args:
        name (str): the extension's name and the namespace of the bound functions.
        cpp_sources (str or list of str): C++ source text; ``#include <ember/ember.h>`` is added in front.
        cuda_sources: accepted for torch's argument order; must be empty (Ember runs on the CPU).
        functions (str, list of str or dict of name to docstring): the functions to bind.
        other arguments: as load().

    Raises: as load().
    """
    if isinstance(cpp_sources, str):
        cpp_sources = [cpp_sources]
    if cuda_sources:
        raise ValueError("load_inline: Ember has no CUDA; cuda_sources must be empty")
    if functions is None:
        functions = []
    elif isinstance(functions, str):
        functions = [functions]
    functions = list(functions)  # a dict gives its keys; docstrings are not kept
    for fn in functions:
        if not isinstance(fn, str) or not _IDENTIFIER.match(fn):
            raise ValueError("load_inline: function names must be C++ identifiers, got {!r}".format(fn))
    text = "#include <ember/ember.h>\n\n" + "\n".join(cpp_sources) + "\n"
    if functions:
        text += "\nEMBER_LIBRARY_FRAGMENT({}, m) {{\n".format(name)
        text += "".join('  ember::def_function<&{0}>(m, "{0}");\n'.format(fn) for fn in functions)
        text += "}\n"
    folder = build_directory or os.path.join(
        _default_root(), "{}_inline_{}".format(name, hashlib.sha256(text.encode()).hexdigest()[:16]))
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(folder, "main.cpp")
    if not os.path.exists(source) or open(source).read() != text:
        with open(source + ".tmp", "w") as f:
            f.write(text)
        os.replace(source + ".tmp", source)
    path = _build(name, [source], extra_cflags, extra_ldflags, extra_include_paths, build_directory, verbose)
    return _module(name, path, functions)
