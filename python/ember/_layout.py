"""ember.layout and ember.strided: the memory layout of a tensor (PyTorch's torch.layout). Ember's tensors are all
dense with strides; PyTorch's sparse layouts are out of Ember's scope."""


class layout:
    """A tensor layout; ``ember.strided`` is the only one (``x.layout``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        return (_layout_by_name, (self._name,))


strided = layout("strided")


def _layout_by_name(name):
    return {"strided": strided}[name]
