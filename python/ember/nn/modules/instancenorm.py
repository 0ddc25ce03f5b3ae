"""The instance norms InstanceNorm1d/2d/3d and their lazy forms (PyTorch 1.13's)."""
from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """The shared part of the instance norms: unbatched input, the choice between the instance statistics and
    the running ones, and the loading of state dicts saved before running statistics became optional."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _get_no_batch_dim(self):
        raise NotImplementedError

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats, self.momentum, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A state dict without a version (before PyTorch 0.4) may hold running statistics that a module without
        # track_running_stats does not have: an error naming them, and they are dropped.
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    "state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does not "
                    "track running stats by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True in {klass} to enable "
                    "them. See the documentation of {klass} for details."
                    .format(names=" and ".join('"{}"'.format(k) for k in keys), klass=self.__class__.__name__))
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    r"""Instance normalization (Ulyanov et al., 2016, "Instance Normalization: The Missing Ingredient for Fast
    Stylization") of (N, C, L) or unbatched (C, L) input: each channel of each sample is normalized over L,
    y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias, with the biased variance.

    Args:
        num_features: C.
        eps: added to the variance. Default: 1e-5.
        momentum: of the running statistics (see BatchNorm1d). Default: 0.1.
        affine: learnable weight (1) and bias (0) of shape (C). Default: False.
        track_running_stats: keep running_mean and running_var (the instance statistics averaged over the
            batch), used instead of the instance statistics in eval mode. Default: False.

    With neither affine nor track_running_stats, num_features is not checked against C (PyTorch 1.13 does not
    either); with them, a C other than num_features raises RuntimeError from the batch norm underneath.

    Raises:
        ValueError: input that is not 2-D or 3-D; a single spatial element when using instance statistics.
    """

    def _get_no_batch_dim(self):
        return 2

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError("expected 2D or 3D input (got {}D input)".format(input.dim()))


class InstanceNorm2d(_InstanceNorm):
    r"""Instance normalization of (N, C, H, W) or unbatched (C, H, W) input over H and W per sample and channel
    (arguments and errors as InstanceNorm1d's; input must be 3-D or 4-D)."""

    def _get_no_batch_dim(self):
        return 3

    def _check_input_dim(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("expected 3D or 4D input (got {}D input)".format(input.dim()))


class InstanceNorm3d(_InstanceNorm):
    r"""Instance normalization of (N, C, D, H, W) or unbatched (C, D, H, W) input over D, H and W per sample
    and channel (arguments and errors as InstanceNorm1d's; input must be 4-D or 5-D)."""

    def _get_no_batch_dim(self):
        return 4

    def _check_input_dim(self, input):
        if input.dim() not in (4, 5):
            raise ValueError("expected 4D or 5D input (got {}D input)".format(input.dim()))


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    r"""InstanceNorm1d whose num_features is inferred from input.size(1) at the first forward (see
    LazyModuleMixin). As PyTorch 1.13's, its defaults are affine=True and track_running_stats=True."""

    cls_to_become = InstanceNorm1d

    def _get_no_batch_dim(self):
        return 2

    def _check_input_dim(self, input):
        InstanceNorm1d._check_input_dim(self, input)


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    r"""InstanceNorm2d whose num_features is inferred from input.size(1) at the first forward (affine=True and
    track_running_stats=True by default, as PyTorch 1.13's)."""

    cls_to_become = InstanceNorm2d

    def _get_no_batch_dim(self):
        return 3

    def _check_input_dim(self, input):
        InstanceNorm2d._check_input_dim(self, input)


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    r"""InstanceNorm3d whose num_features is inferred from input.size(1) at the first forward (affine=True and
    track_running_stats=True by default, as PyTorch 1.13's)."""

    cls_to_become = InstanceNorm3d

    def _get_no_batch_dim(self):
        return 4

    def _check_input_dim(self, input):
        InstanceNorm3d._check_input_dim(self, input)
