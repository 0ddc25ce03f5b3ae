"""Hook handles (PyTorch's torch.utils.hooks)."""

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Returned by Tensor.register_hook: ``remove()`` unregisters the hook (a second call does nothing).
    Also a context manager that removes the hook on exit."""

    _next_id = 0

    def __init__(self, handle):
        self._handle = handle
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        self._handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
