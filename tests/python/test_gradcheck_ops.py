"""Issue 4: every differentiable op passes Ember's own gradcheck and gradgradcheck (finite differences in float64)
where PyTorch's does. Each case runs both frameworks' checks on the same inputs: the op must pass in Ember when
it passes in PyTorch. (The gradients themselves are compared with PyTorch's in the test_autograd_*.py files.)"""
import numpy as np
import pytest
import torch

import ember


def leaf(m, shape, seed, low=-1.0, high=1.0):
    v = np.random.default_rng(seed).uniform(low, high, size=shape)
    return m.tensor(v, dtype=m.float64).requires_grad_()


def conv(m, x, w):
    return m.nn.functional.conv2d(x, w, stride=1, padding=1)


# (name, fn(m, *inputs), input specs [(shape, low, high)]). Inputs avoid kinks (ties, 0 for abs/relu) so finite
# differences are meaningful.
CASES = [
    ("exp", lambda m, x: x.exp(), [((3, 4), -1, 1)]),
    ("log", lambda m, x: x.log(), [((3, 4), 0.5, 2)]),
    ("tanh", lambda m, x: x.tanh(), [((3, 4), -1, 1)]),
    ("sigmoid", lambda m, x: x.sigmoid(), [((3, 4), -1, 1)]),
    ("gelu", lambda m, x: m.nn.functional.gelu(x), [((3, 4), -1, 1)]),
    ("silu", lambda m, x: m.nn.functional.silu(x), [((3, 4), -1, 1)]),
    ("erf", lambda m, x: m.erf(x), [((3, 4), -1, 1)]),
    ("atan2", lambda m, x, y: m.atan2(x, y), [((3, 4), 0.5, 1), ((4,), 0.5, 1)]),
    ("pow", lambda m, x, y: m.pow(x, y), [((3, 4), 0.5, 2), ((3, 4), -1, 1)]),
    ("div_broadcast", lambda m, x, y: x / y, [((3, 4), -1, 1), ((3, 1), 0.5, 2)]),
    ("addcmul", lambda m, a, b, c: m.addcmul(a, b, c, value=0.5), [((3, 4), -1, 1)] * 3),
    ("lerp", lambda m, a, b, w: m.lerp(a, b, w), [((3, 4), -1, 1), ((3, 4), -1, 1), ((3, 4), 0, 1)]),
    ("where", lambda m, a, b: m.where(a > 0, a, b), [((3, 4), -1, 1), ((3, 4), -1, 1)]),
    ("sum_dim", lambda m, x: x.sum(1), [((3, 4), -1, 1)]),
    ("prod", lambda m, x: x.prod(1), [((3, 4), 0.5, 2)]),
    ("var", lambda m, x: x.var(0), [((3, 4), -1, 1)]),
    ("std_mean", lambda m, x: m.std_mean(x, 1)[0], [((3, 4), -1, 1)]),
    ("norm", lambda m, x: m.linalg.vector_norm(x, 3, dim=1), [((3, 4), 0.5, 1)]),
    ("logsumexp", lambda m, x: m.logsumexp(x, 1), [((3, 4), -1, 1)]),
    ("cumprod", lambda m, x: m.cumprod(x, 1), [((3, 4), 0.5, 2)]),
    ("softmax", lambda m, x: m.softmax(x, 1), [((3, 4), -1, 1)]),
    ("log_softmax", lambda m, x: m.log_softmax(x, 0), [((3, 4), -1, 1)]),
    ("amax", lambda m, x: x.amax(1), [((3, 4), -1, 1)]),
    ("matmul", lambda m, a, b: a @ b, [((2, 3, 4), -1, 1), ((4, 2), -1, 1)]),
    ("addmm", lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=2.0),
     [((3, 2), -1, 1), ((3, 4), -1, 1), ((4, 2), -1, 1)]),
    ("cat", lambda m, a, b: m.cat([a, b], 1), [((3, 2), -1, 1), ((3, 4), -1, 1)]),
    ("stack_select", lambda m, a, b: m.stack([a, b])[1, :, 1:], [((3, 4), -1, 1), ((3, 4), -1, 1)]),
    ("gather", lambda m, x: x.gather(1, m.tensor([[0, 2], [1, 1], [3, 0]])), [((3, 4), -1, 1)]),
    ("index", lambda m, x: x[m.tensor([2, 0, 2])], [((3, 4), -1, 1)]),
    ("index_put", lambda m, x, v: x.index_put((m.tensor([0, 2]),), v, accumulate=True),
     [((3, 4), -1, 1), ((2, 4), -1, 1)]),
    ("masked_fill", lambda m, x: x.masked_fill(x > 0.5, 2.0), [((3, 4), -1, 1)]),
    ("sort_values", lambda m, x: x.sort(1)[0], [((3, 4), -1, 1)]),
    ("topk", lambda m, x: x.topk(2, 1)[0], [((3, 4), -1, 1)]),
    ("pad_reflect", lambda m, x: m.nn.functional.pad(x, (1, 2), mode="reflect"), [((2, 3, 4), -1, 1)]),
    ("flip_tril", lambda m, x: x.flip(0).tril(), [((3, 4), -1, 1)]),
    ("conv2d", lambda m, x, w: conv(m, x, w), [((1, 2, 4, 4), -1, 1), ((3, 2, 3, 3), -1, 1)]),
    ("max_pool2d", lambda m, x: m.nn.functional.max_pool2d(x, 2), [((1, 2, 4, 4), -1, 1)]),
    ("avg_pool2d", lambda m, x: m.nn.functional.avg_pool2d(x, 2, ceil_mode=True), [((1, 2, 5, 5), -1, 1)]),
    ("batch_norm", lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
     [((4, 3, 2), -1, 1), ((3,), 0.5, 1), ((3,), -1, 1)]),
    ("layer_norm", lambda m, x, w, b: m.nn.functional.layer_norm(x, (4,), w, b),
     [((3, 4), -1, 1), ((4,), 0.5, 1), ((4,), -1, 1)]),
    ("group_norm", lambda m, x: m.nn.functional.group_norm(x, 2), [((2, 4, 3), -1, 1)]),
    ("cross_entropy", lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([1, 0, 3]), label_smoothing=0.1),
     [((3, 4), -1, 1)]),
    ("mse_loss", lambda m, a, b: m.nn.functional.mse_loss(a, b), [((3, 4), -1, 1), ((3, 4), -1, 1)]),
    ("bce_logits", lambda m, a, b: m.nn.functional.binary_cross_entropy_with_logits(a, b),
     [((3, 4), -1, 1), ((3, 4), 0, 1)]),
    ("smooth_l1", lambda m, a, b: m.nn.functional.smooth_l1_loss(a, b), [((3, 4), -1, 1), ((3, 4), -1, 1)]),
    ("elu", lambda m, x: m.nn.functional.elu(x), [((3, 4), 0.1, 1)]),
    ("softplus", lambda m, x: m.nn.functional.softplus(x, beta=2.0), [((3, 4), -1, 1)]),
    ("embedding", lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2], [3, 2]]), w), [((4, 3), -1, 1)]),
]


@pytest.mark.parametrize("name,fn,specs", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck(name, fn, specs):
    for m in (torch, ember):
        inputs = tuple(leaf(m, shape, i, low, high) for i, (shape, low, high) in enumerate(specs))
        f = lambda *xs: fn(m, *xs)  # noqa: E731
        assert m.autograd.gradcheck(f, inputs), (m.__name__, name)
        assert m.autograd.gradgradcheck(f, inputs), (m.__name__, name)


def test_gradcheck_reports_a_wrong_derivative():
    # A custom function whose backward is off by a factor: both frameworks' gradcheck raise GradcheckError.
    for m in (torch, ember):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * g

        x = leaf(m, (3,), 0)
        with pytest.raises(m.autograd.gradcheck.GradcheckError if hasattr(m.autograd.gradcheck, "GradcheckError")
                           else RuntimeError):
            m.autograd.gradcheck(Bad.apply, (x,))
        assert m.autograd.gradcheck(Bad.apply, (x,), raise_exception=False) is False
