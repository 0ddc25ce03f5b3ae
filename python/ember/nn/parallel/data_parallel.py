"""nn.DataParallel and nn.parallel.data_parallel (PyTorch's torch/nn/parallel/data_parallel.py).

Data parallelism splits a batch over accelerator devices. Ember runs on the CPU only, so these are the forms
PyTorch takes on a machine without accelerators: the module runs on the whole batch in the calling thread. Code
written for several GPUs (``nn.DataParallel(model)``, ``if input.is_cuda and ngpu > 1: data_parallel(...)``) runs
unchanged; asking for device ids raises, as no device exists.
"""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _check_no_devices(fn, device_ids, output_device):
    """Raises AssertionError (as PyTorch built without CUDA) when devices are named: Ember has none."""
    ids = [] if device_ids is None else list(device_ids)
    if ids or output_device is not None:
        raise AssertionError(f"{fn}: device_ids={ids!r}, output_device={output_device!r} name accelerator devices, "
                             "and this build of Ember supports only cpu; pass device_ids=None")


class DataParallel(Module):
    r"""Wraps ``module`` for data parallelism (PyTorch's ``nn.DataParallel``).

    Without accelerators (always, in Ember) ``forward(*inputs, **kwargs)`` is ``module(*inputs, **kwargs)``; the
    wrapped module is ``self.module``, so the state_dict keys are prefixed ``module.`` as in PyTorch.

    Args:
        module (Module): the module to run.
        device_ids (list of int or devices, optional): must be None or empty (no accelerators).
        output_device (int or device, optional): must be None.
        dim (int): the dimension a batch would be scattered along (default 0; unused without devices).

    Raises:
        AssertionError: device_ids or output_device name a device.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        _check_no_devices("DataParallel", device_ids, output_device)
        self.module = module
        # As PyTorch's DataParallel on a machine without accelerators: only the module and empty device_ids.
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        """Runs the wrapped module on the inputs unchanged."""
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    r"""Evaluates ``module(*inputs, **module_kwargs)`` data-parallel over device_ids (PyTorch's
    ``nn.parallel.data_parallel``); without accelerators (Ember) the module runs once on the whole input.

    Args:
        module (Module): the module to evaluate.
        inputs (Tensor or tuple): its positional input(s); a single tensor counts as one input.
        device_ids, output_device: must be None/empty (no accelerators).
        dim (int): the scatter dimension (unused without devices).
        module_kwargs (dict, optional): keyword arguments for the module.

    Raises:
        AssertionError: device_ids or output_device name a device.
    """
    _check_no_devices("data_parallel", device_ids, output_device)
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
