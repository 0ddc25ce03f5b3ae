"""The batch norms (PyTorch 1.13's running statistics and num_batches_tracked): BatchNorm1d/2d/3d, their lazy
forms LazyBatchNorm1d/2d/3d and SyncBatchNorm."""
from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .linear import _empty
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d"]


class _NormBase(Module):
    """Parameters (weight, bias when affine) and buffers (running_mean, running_var, num_batches_tracked when
    track_running_stats; registered as None otherwise) of the batch norms."""

    # version 2 added num_batches_tracked; loading an older state dict fills it with 0
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_empty(num_features, device, dtype))
            self.bias = Parameter(_empty(num_features, device, dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            fns = _C._functions
            kwargs = {} if dtype is None else {"dtype": dtype}
            self.register_buffer("running_mean", fns["zeros"](num_features, **kwargs))
            self.register_buffer("running_var", fns["ones"](num_features, **kwargs))
            self.register_buffer("num_batches_tracked", _C.tensor(0, dtype=_C.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """running_mean 0, running_var 1, num_batches_tracked 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return "{}, eps={}, momentum={}, affine={}, track_running_stats={}".format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = _C.tensor(0, dtype=_C.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """The lazy batch and instance norms: num_features is input.size(1) of the first forward; until then weight
    and bias are UninitializedParameters and running_mean/running_var UninitializedBuffers (num_batches_tracked
    is a 0 at once). Materializing draws nothing: weight 1, bias 0, running_mean 0, running_var 1."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        # affine and track_running_stats False here, so that no tensor is made only to be replaced
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum None: the running statistics are the cumulative average over the batches seen
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # in eval mode without running statistics the batch statistics are used
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    r"""Batch normalization (Ioffe & Szegedy, 2015) of (N, C) or (N, C, L) input over N (and L) per channel C:
    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias.

    Args:
        num_features: C. eps: added to the variance. Default: 1e-5.
        momentum: running = (1 - momentum) * running + momentum * batch statistic (running_var takes the
            unbiased variance); None for the cumulative average over the batches seen. Default: 0.1.
        affine: learnable weight (1) and bias (0) of shape (C). Default: True.
        track_running_stats: keep running_mean (0), running_var (1) and num_batches_tracked, used in eval mode;
            without them the batch statistics are used in eval mode too. Default: True.

    Raises:
        ValueError: input that is not 2-D or 3-D; one value per channel when training.
    """

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError("expected 2D or 3D input (got {}D input)".format(input.dim()))


class BatchNorm2d(_BatchNorm):
    r"""Batch normalization of (N, C, H, W) input over N, H and W per channel C (arguments as BatchNorm1d's).
    Raises ValueError for input that is not 4-D."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError("expected 4D input (got {}D input)".format(input.dim()))


class BatchNorm3d(_BatchNorm):
    r"""Batch normalization of (N, C, D, H, W) input over N, D, H and W per channel C (arguments as
    BatchNorm1d's). Raises ValueError for input that is not 5-D."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError("expected 5D input (got {}D input)".format(input.dim()))


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    r"""BatchNorm1d whose num_features is inferred from input.size(1) at the first forward (see
    LazyModuleMixin); it then becomes a BatchNorm1d. Args as BatchNorm1d's without num_features."""

    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input):
        BatchNorm1d._check_input_dim(self, input)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    r"""BatchNorm2d whose num_features is inferred from input.size(1) at the first forward."""

    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input):
        BatchNorm2d._check_input_dim(self, input)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    r"""BatchNorm3d whose num_features is inferred from input.size(1) at the first forward."""

    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input):
        BatchNorm3d._check_input_dim(self, input)


class SyncBatchNorm(_BatchNorm):
    r"""Batch normalization of (N, C, *) input whose batch statistics are meant to be gathered over the
    processes of ``process_group`` (PyTorch's SyncBatchNorm).

    Ember's Python package runs on one process (it has no Python collectives), where synchronizing is not
    needed: as PyTorch does then, it computes exactly what BatchNorm does, on the CPU (PyTorch itself accepts
    only GPU input). ``process_group`` is kept for code that passes one.

    Args: as BatchNorm1d's, and process_group (default: None, the whole world).

    Raises:
        ValueError: input of fewer than 2 dims, or with 0 channels.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        r"""module with every batch norm in it (the module itself included) replaced by a SyncBatchNorm sharing
        its parameters and buffers (weight, bias, running statistics, num_batches_tracked; qconfig when set).

        Returns:
            The converted module (module itself when it is no batch norm; its children are replaced in it).
        """
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module_output
