"""NVIDIA's cuDNN (PyTorch's torch.backends.cudnn). Ember has no CUDA backend, so ``is_available()`` is False;
the switches programs set for reproducibility or speed (``benchmark``, ``deterministic``, ``enabled``,
``allow_tf32``) are kept as plain settings with PyTorch's defaults and ``flags()`` sets them for a block, so such
programs run unchanged on the CPU.
"""
import builtins
import contextlib
import sys
import types

__all__ = ["is_available", "version", "is_acceptable", "flags"]


def is_available():
    """False: Ember has no cuDNN."""
    return False


def version():
    """None: no cuDNN is loaded (PyTorch's answer without cuDNN)."""
    return None


def is_acceptable(tensor):
    """False: no tensor can go to cuDNN (there is none)."""
    return False


class CudnnModule(types.ModuleType):
    """The module type of ember.backends.cudnn: its switches are properties that accept bools only."""

    _settings = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True,
                 "benchmark_limit": 10}

    def _get(name):
        return property(lambda self: CudnnModule._settings[name], lambda self, v: CudnnModule._set(name, v))

    enabled = _get("enabled")
    benchmark = _get("benchmark")
    deterministic = _get("deterministic")
    allow_tf32 = _get("allow_tf32")
    benchmark_limit = _get("benchmark_limit")
    del _get

    @staticmethod
    def _set(name, value):
        # RuntimeError, as PyTorch's setters: a typo such as "False" must not switch a flag on
        if name == "benchmark_limit":
            if not isinstance(value, builtins.int) or isinstance(value, builtins.bool):
                raise RuntimeError(f"set_cudnn_benchmark_limit expects an int, but got {type(value).__name__}")
        elif not isinstance(value, builtins.bool):
            raise RuntimeError(f"set_{name}_cudnn expects a bool, but got {type(value).__name__}")
        CudnnModule._settings[name] = value


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """A block with the given cuDNN settings (PyTorch's defaults when not given); the previous ones return on
    exit."""
    module = sys.modules[__name__]
    old = dict(CudnnModule._settings)
    new = {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic, "allow_tf32": allow_tf32}
    if benchmark_limit is not None:
        new["benchmark_limit"] = benchmark_limit
    try:
        for k, v in new.items():
            setattr(module, k, v)
        yield
    finally:
        CudnnModule._settings.clear()
        CudnnModule._settings.update(old)


sys.modules[__name__].__class__ = CudnnModule
