"""Folding an eval-mode BatchNorm into the convolution or linear layer before it (PyTorch's
torch.nn.utils.fusion): y = bn(conv(x)) becomes one conv with w' = w * gamma / sqrt(var + eps) (per output
channel) and b' = (b - mean) * gamma / sqrt(var + eps) + beta."""
import copy

from ... import _C
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of conv whose weight and bias include bn's normalization (both in eval mode); transpose for a
    transposed convolution (output channels in dim 1 of the weight). Raises AssertionError in training mode."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) Parameters of the convolution that computes bn(conv(x)); a None conv bias counts as zeros,
    a None bn weight as ones and a None bn bias as zeros."""
    fns = _C._functions
    conv_b = fns["zeros_like"](bn_rm) if conv_b is None else conv_b
    bn_w = fns["ones_like"](bn_rm) if bn_w is None else bn_w
    bn_b = fns["zeros_like"](bn_rm) if bn_b is None else bn_b
    inv_std = (bn_rv + bn_eps).rsqrt()
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    fused_w = conv_w * (bn_w * inv_std).reshape(shape)
    fused_b = (conv_b - bn_rm) * inv_std * bn_w + bn_b
    return Parameter(fused_w), Parameter(fused_b)


def fuse_linear_bn_eval(linear, bn):
    """A copy of linear whose weight and bias include bn's normalization (both in eval mode). Raises
    AssertionError in training mode."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) Parameters of the linear layer that computes bn(linear(x)); they require grad as the
    linear layer's did. A None linear bias counts as zeros."""
    linear_b = _C._functions["zeros_like"](bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1)
    fused_b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
