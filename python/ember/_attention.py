"""Torch-level activation and dropout functions written in Python over Ember's ops, as PyTorch 1.13 has them in
its top-level namespace: ``prelu``, ``rrelu``/``rrelu_``, and the dropout family ``alpha_dropout``,
``feature_dropout`` and ``feature_alpha_dropout`` with their in-place forms. ``ember.nn.functional`` builds its
functions of the same names on these.

Random draws follow PyTorch's CPU generator (``notes/pytorch-cpu-rng.md`` of the project's shared notes), so a
seed gives PyTorch's masks and slopes:

- Dropout family: one scalar-p Bernoulli draw ``bernoulli_(1 - p)`` per element of the noise tensor, which is
  the input's shape, or ``(N, C, 1, ..., 1)`` for the feature (channel-wise) forms.
- rrelu in training: one double uniform in [lower, upper) per element that is <= 0, in the element order of
  the contiguous input; positive elements draw nothing.
"""
import math

__all__ = ["prelu", "rrelu", "rrelu_", "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_"]

# SELU's alpha * scale (Klambauer et al., "Self-Normalizing Neural Networks", 2017): the negative saturation
# value -_SELU_SAT that alpha dropout sets dropped activations to.
_SELU_SAT = 1.7580993408473766


def _ember():
    import ember
    return ember


# ---------------------------------------------------------------------------------------------- prelu
def prelu(input, weight):
    r"""Parametric ReLU (He et al., "Delving Deep into Rectifiers", 2015): ``x`` where ``x > 0``, else
    ``weight * x``, with one learnt slope shared by every element or one per channel.

    Args:
        input (Tensor): floating, any shape; the channel dim is dim 1 (dim 0 of a 1-D input has 1 channel).
        weight (Tensor): floating, of 1 element (shared) or of ``input.size(1)`` elements (one per channel).

    Returns:
        Tensor: input's shape and dtype; NaN stays NaN.

    Raises:
        RuntimeError: weight of more than 1 dim, or whose number of elements is neither 1 nor the channel count;
            a per-channel weight with a 0-dim input; a non-floating input; mismatched dtypes.
    """
    n = weight.numel()
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}".format(
            weight.dim()))
    if not input.dtype.is_floating_point:
        raise RuntimeError("prelu: expected a floating-point input, but got {}".format(input.dtype))
    if input.dtype != weight.dtype:
        raise RuntimeError("prelu: expected input and weight of the same dtype, but got {} and {}".format(
            input.dtype, weight.dtype))
    if n == 1:
        w = weight.reshape(())
    else:
        if input.dim() == 0:
            raise RuntimeError("prelu: Not allow zero-dim input tensor with a weight of {} elements; a 0-dim "
                               "input takes a weight of 1 element.".format(n))
        channels = input.size(1) if input.dim() > 1 else 1
        if channels != n:
            raise RuntimeError("prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                               "numbers = {} and channel size = {}.".format(n, channels))
        w = weight.reshape([n] + [1] * (input.dim() - 2))
    return _ember().where(input > 0, input, w * input)


# ---------------------------------------------------------------------------------------------- rrelu
def _rrelu_noise(input, lower, upper, generator):
    """The multiplier of each element of input in training: 1 where x > 0 (and for NaN), else a draw of
    U(lower, upper), taken in the order of the contiguous input."""
    ember = _ember()
    x = input.detach().contiguous()
    neg = (x <= 0).reshape(-1)
    count = int(neg.sum().item())
    noise = ember.ones(x.numel(), dtype=input.dtype)
    if count:
        # PyTorch's kernel holds the bounds in the input's dtype and draws a double u from 53 random bits:
        # r = u * (upper - lower) + lower in double, rounded to the input's dtype.
        lower, upper = (ember.tensor(b, dtype=input.dtype).item() for b in (lower, upper))
        u = ember.empty(count, dtype=ember.float64).uniform_(0.0, 1.0, generator=generator)
        noise[neg] = (u * (upper - lower) + lower).to(input.dtype)
    return noise.reshape(input.shape)


def _rrelu_check(input, lower, upper, training):
    ember = _ember()
    if lower > upper:
        raise RuntimeError("rrelu: Lower bound should be less than or equal to the upper bound (got lower={}, "
                           "upper={})".format(lower, upper))
    if training and input.dtype not in (ember.float32, ember.float64, ember.bfloat16):
        raise RuntimeError("rrelu: training mode supports float32, float64 and bfloat16 inputs (as PyTorch's CPU "
                           "kernel), but got {}".format(input.dtype))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    r"""Randomized leaky ReLU (Xu et al., "Empirical Evaluation of Rectified Activations in Convolutional
    Network", 2015): ``x`` where ``x > 0``, else ``a * x``.

    In training ``a`` is drawn per element from U(lower, upper) (PyTorch's draws under the same seed); in
    evaluation it is ``(lower + upper) / 2`` for every element (a leaky ReLU).

    Args:
        input (Tensor): floating, any shape.
        lower, upper (float): the bounds of the slope. Default: 1/8 and 1/3.
        training (bool): draw the slopes. Default: False.
        generator (Generator, optional): the generator of the draws (the default generator otherwise).

    Returns:
        Tensor: input's shape and dtype. Its gradient is the slope used for each element.

    Raises:
        RuntimeError: lower > upper; in training, an input other than float32, float64 or bfloat16.
    """
    _rrelu_check(input, lower, upper, training)
    if not training:
        from .nn.functional import leaky_relu
        return leaky_relu(input, (lower + upper) / 2)
    return input * _rrelu_noise(input, lower, upper, generator)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu in place: input is overwritten and returned."""
    _rrelu_check(input, lower, upper, training)
    if not training:
        from .nn.functional import leaky_relu_
        return leaky_relu_(input, (lower + upper) / 2)
    return input.mul_(_rrelu_noise(input, lower, upper, generator))


# ---------------------------------------------------------------------------------------------- dropout family
# Note [dropout family]
# The four dropouts differ in two choices: the noise has the input's shape, or one value per (sample, channel)
# broadcast over the remaining dims ("feature"); dropped elements become 0 and kept ones are scaled by 1/(1-p),
# or ("alpha", Klambauer et al. 2017, section "New Dropout Technique") dropped elements become SELU's negative
# saturation -s and the whole is mapped affinely, out = a * (x * m - s * (1 - m)) + a * s * p with
# a = ((1 - p) * (1 + p * s^2))^(-1/2), which keeps a unit-variance, zero-mean input so. The mask m is one
# scalar-p Bernoulli draw bernoulli_(1 - p) per noise element, as PyTorch's CPU kernel draws it, and the
# arithmetic follows PyTorch's order of operations in the input's dtype so that results are equal, not only
# close. p == 0, evaluation or an empty input returns the input itself; p == 1 multiplies by 0 (NaN stays NaN).
def _dropout_family(input, p, train, feature, alpha, inplace):
    ember = _ember()
    if not 0 <= p <= 1:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if p == 0 or not train or input.numel() == 0:
        return input
    zero = ember.zeros((), dtype=input.dtype)
    if p == 1:
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input, but got a {}-D "
                               "input of shape {}".format(input.dim(), tuple(input.shape)))
        noise = input.new_empty([input.size(0), input.size(1)] + [1] * (input.dim() - 2))
    else:
        noise = ember.empty(tuple(input.shape), dtype=input.dtype)
    noise.bernoulli_(1 - p)
    if not alpha:
        noise.div_(1 - p)
        return input.mul_(noise) if inplace else input * noise
    a = 1.0 / math.sqrt((_SELU_SAT * _SELU_SAT * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_SELU_SAT * a).add_(_SELU_SAT * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def alpha_dropout(input, p, train):
    r"""Alpha dropout (Klambauer et al., 2017): in training, sets each element with probability p to SELU's
    negative saturation and maps the result affinely so that a zero-mean, unit-variance input keeps its mean
    and variance; the input itself when not training or p == 0. See Note [dropout family].

    Raises:
        RuntimeError: p outside [0, 1].
    """
    return _dropout_family(input, p, train, feature=False, alpha=True, inplace=False)


def alpha_dropout_(input, p, train):
    """alpha_dropout in place."""
    return _dropout_family(input, p, train, feature=False, alpha=True, inplace=True)


def feature_dropout(input, p, train):
    r"""Channel-wise dropout of (N, C, *) input: in training each channel input[n, c] is zeroed with probability
    p and the others are scaled by 1 / (1 - p). See Note [dropout family].

    Raises:
        RuntimeError: p outside [0, 1]; an input of fewer than 2 dims (when a mask is drawn).
    """
    return _dropout_family(input, p, train, feature=True, alpha=False, inplace=False)


def feature_dropout_(input, p, train):
    """feature_dropout in place."""
    return _dropout_family(input, p, train, feature=True, alpha=False, inplace=True)


def feature_alpha_dropout(input, p, train):
    r"""Channel-wise alpha dropout of (N, C, *) input: whole channels are set to SELU's negative saturation
    with probability p, then the affine map of alpha_dropout. See Note [dropout family].

    Raises:
        RuntimeError: p outside [0, 1]; an input of fewer than 2 dims (when a mask is drawn).
    """
    return _dropout_family(input, p, train, feature=True, alpha=True, inplace=False)


def feature_alpha_dropout_(input, p, train):
    """feature_alpha_dropout in place."""
    return _dropout_family(input, p, train, feature=True, alpha=True, inplace=True)
