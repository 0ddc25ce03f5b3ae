"""Switches for the optional libraries that provide faster kernels (Note [providers] in
ember/kernels/cpu/Provider.h), as ``torch.backends``: ``ember.backends.blas.enabled = False`` makes every
matrix product run Ember's reference kernel instead of OpenBLAS.
"""
import contextlib
import sys
import types

from .. import _C


def providers():
    """Every provider of this build and whether it is on, e.g. ``{'blas': True}``."""
    return dict(_C._providers())


class _ProviderModule(types.ModuleType):
    """A module whose ``enabled`` attribute reads and writes the run-time switch of one provider."""

    _provider = None  # the provider's name in the C++ registry

    @property
    def enabled(self):
        return _C._get_provider_enabled(self._provider)

    @enabled.setter
    def enabled(self, value):
        if not isinstance(value, bool):  # as torch.backends: a typo such as "False" must not switch it on
            raise TypeError(f"ember.backends.{self._provider}.enabled expects a bool, got {type(value).__name__}")
        _C._set_provider_enabled(self._provider, value)

    def is_available(self):
        """Whether this build has the provider."""
        return self._provider in _C._providers()

    @contextlib.contextmanager
    def flags(self, enabled=False):
        """A context in which the provider is on or off; the previous state returns on exit."""
        old = self.enabled
        self.enabled = enabled
        try:
            yield
        finally:
            self.enabled = old


def _install(module_name, provider):
    """Turns the module module_name into a _ProviderModule for provider (as torch.backends does)."""
    module = sys.modules[module_name]
    module.__class__ = type(f"{provider.capitalize()}Module", (_ProviderModule,), {"_provider": provider})


from . import blas, mkldnn, onednn  # noqa: E402,F401  (after the helpers they use)
from . import cudnn, mps  # noqa: E402,F401  (absent backends: is_available() is False)
