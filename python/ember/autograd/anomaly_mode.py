"""Anomaly detection (PyTorch's torch.autograd.detect_anomaly and set_detect_anomaly). See Note [anomaly
mode] in ember/autograd/AnomalyMode.h: nodes remember the Python stack of their forward call, and a backward
node returning NaN raises RuntimeError "Function 'XBackward0' returned nan values in its 0th output."."""
import warnings

from .. import _C
from .grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly(_DecoratorContextManager):
    """Context manager (or decorator) that turns anomaly detection on in its scope.

    Args:
        check_nan (bool): raise when a backward node returns NaN. Default: True.
    """

    def __init__(self, check_nan=True):
        self.prev = _C.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)

    def _args(self):
        return (self.check_nan,)

    def __enter__(self):
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


class set_detect_anomaly:
    """Turns anomaly detection on or off immediately; used as a context manager, restores the previous
    setting on exit.

    Args:
        mode (bool): on or off.
        check_nan (bool): raise when a backward node returns NaN. Default: True.
    """

    def __init__(self, mode, check_nan=True):
        self.prev = _C.is_anomaly_enabled()
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()
        _C._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False
