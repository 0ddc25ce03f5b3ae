"""RemovableHandle: what register_forward_hook and friends return (PyTorch's torch.utils.hooks)."""
import itertools
import weakref


class RemovableHandle:
    """A handle that removes a hook from the dict it was registered in (``handle.remove()`` or leaving a
    ``with`` block)."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        """Removes the hook (nothing happens when it is already removed)."""
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
