"""skip_init: a module whose parameters and buffers are left uninitialized (PyTorch's torch.nn.utils.skip_init)."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    r"""An instance of module_cls(*args, **kwargs) whose parameters and buffers hold uninitialized memory (same
    shapes, dtypes and registration, for a caller that overwrites them, e.g. from a checkpoint).

    Ember has no meta device to build the module on without computing, so the module's own initialization runs
    once and its tensors are then replaced by fresh empty ones on ``device`` (``Module.to_empty``).

    Raises:
        RuntimeError: module_cls is no Module class, or its constructor takes no ``device`` argument.
    """
    from ..modules.module import Module

    if not (inspect.isclass(module_cls) and issubclass(module_cls, Module)):
        raise RuntimeError("Expected a Module; got {}".format(module_cls))
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=final_device)
