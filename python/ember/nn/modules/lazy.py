"""LazyModuleMixin: modules whose parameter shapes are inferred from their first input (PyTorch 1.13's
torch.nn.modules.lazy)."""
import itertools
import warnings

from ...autograd import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    r"""A mixin for modules whose parameters and buffers are UninitializedParameter / UninitializedBuffer until
    the first forward, which infers their shapes from the input ("lazy modules").

    A lazy class lists the mixin first (``class LazyLinear(LazyModuleMixin, Linear)``), defines
    ``initialize_parameters(*input)`` (materialize every uninitialized tensor, then ``reset_parameters()``) and
    names the eager class in ``cls_to_become``. The mixin registers:

    - a forward pre-hook that calls ``initialize_parameters`` with the first input, checks that nothing is left
      uninitialized (RuntimeError otherwise), removes both hooks and turns the module into ``cls_to_become``;
      the initial values are then drawn exactly as the eager module's constructor draws them, so a seeded lazy
      module equals the eager one;
    - a load_state_dict pre-hook that materializes each uninitialized tensor to the shape of the (initialized)
      entry loaded into it, so loading a state dict gives the shapes without a forward (the class changes at
      the first forward).

    ``state_dict()`` keeps uninitialized entries as they are (not detached). Constructing one warns, as
    PyTorch does, that lazy modules are a feature under development.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or "
                      "functionality can happen at any moment.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # As Module's, but an uninitialized tensor is stored itself (it cannot be detached).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """Materializes each uninitialized parameter or buffer whose entry in state_dict is initialized, to that
        entry's shape (the values are then copied by the normal loading)."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes the parameters and buffers from the first input. Each lazy class defines it."""
        raise NotImplementedError("initialize_parameters is not implemented for {}".format(self.__class__.__name__))

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its submodules) is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, input):
        """The forward pre-hook: initializes from the input, then becomes cls_to_become."""
        module.initialize_parameters(*input)
        if module.has_uninitialized_params():
            raise RuntimeError("module {} has not been fully initialized".format(self._get_name()))
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
