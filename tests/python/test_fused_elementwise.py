"""ember._fused_elementwise (Note [fused elementwise programs]) against the unfused computation: PyTorch 1.13's
ops (the oracle, within float rounding) and Ember's own unfused ops (bit for bit on contiguous data, since the
fused kernel runs the same vectorized loops)."""
import math
import struct

import numpy as np
import pytest
import torch

import ember
from conftest import assert_same, make_tensor, to_ember, to_torch

OPCODES = {"input": 0, "constant": 1, "neg": 10, "abs": 11, "relu": 12, "sigmoid": 13, "tanh": 14, "exp": 15,
           "log": 16, "sqrt": 17, "rsqrt": 18, "reciprocal": 19, "gelu": 20, "gelu_tanh": 21, "silu": 22,
           "erf": 23, "sin": 24, "cos": 25, "log1p": 26, "expm1": 27, "square": 28,
           "add": 40, "sub": 41, "mul": 42, "div": 43, "maximum": 44, "minimum": 45}


def bits(c):
    """The int that carries the float constant c (its binary64 bit pattern)."""
    return struct.unpack("<q", struct.pack("<d", c))[0]


def program(*instrs):
    """Flattens instructions given as (name, a[, b])."""
    out = []
    for ins in instrs:
        name, a, b = (ins + (0,))[:3]
        out += [OPCODES[name], a, b]
    return out


# x * sigmoid(x) + b and relu(a * b + c), the chains of the benchmark.
SWISH_BIAS = program(("input", 0), ("sigmoid", 0), ("mul", 0, 1), ("input", 1), ("add", 2, 3))
RELU_MAD = program(("input", 0), ("input", 1), ("mul", 0, 1), ("input", 2), ("add", 2, 3), ("relu", 4))


def swish_bias(lib, x, b):
    return lib.add(lib.mul(x, lib.sigmoid(x)), b)


def relu_mad(lib, a, b, c):
    return lib.relu(lib.add(lib.mul(a, b), c))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [[(3, 5), (3, 5)], [(4, 1, 3), (5, 1)], [(), ()], [(0, 4), (4,)], [(7,), ()],
                                    [(1000, 37), (37,)]])
def test_swish_bias_against_torch(dtype, shapes):
    x, b = make_tensor(shapes[0], dtype, seed=1), make_tensor(shapes[1], dtype, seed=2)
    got = ember._fused_elementwise([x, b], SWISH_BIAS)
    assert_same(got, swish_bias(torch, to_torch(x), to_torch(b)))
    # bit for bit against Ember's unfused ops
    assert ember.equal(got, swish_bias(ember, x, b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_non_contiguous_inputs(dtype, layout):
    a = make_tensor((6, 9), dtype, layout=layout, seed=1)
    b = make_tensor((6, 9), dtype, seed=2)
    c = make_tensor((9,), dtype, layout="strided", seed=3)
    got = ember._fused_elementwise([a, b, c], RELU_MAD)
    assert got.is_contiguous()
    assert_same(got, relu_mad(torch, to_torch(a), to_torch(b), to_torch(c)))
    assert ember.equal(got, relu_mad(ember, a.contiguous(), b, c.contiguous()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_many_blocks_and_threads_match_unfused_bit_for_bit(dtype):
    # More elements than one block (512) and than the parallel grain; an odd size leaves a partial block.
    a, b, c = (make_tensor((300_007,), dtype, seed=s) for s in (1, 2, 3))
    got = ember._fused_elementwise([a, b, c], RELU_MAD)
    assert ember.equal(got, relu_mad(ember, a, b, c))
    got = ember._fused_elementwise([a, b], SWISH_BIAS)
    assert ember.equal(got, swish_bias(ember, a, b))


UNARY = ["neg", "abs", "relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "reciprocal", "silu", "erf",
         "sin", "cos", "log1p", "expm1", "square"]


def torch_unary(name, t):
    if name == "silu":
        return torch.nn.functional.silu(t)
    return getattr(torch, name)(t)


def ember_unary(name, t):
    if name == "silu":
        return ember.nn.functional.silu(t)
    return getattr(ember, name)(t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY + ["gelu", "gelu_tanh"])
def test_each_unary_opcode(dtype, name):
    # Values in [-4, 4]: negative ones take log, sqrt and rsqrt to NaN, in the same places as the unfused ops.
    x = make_tensor((1037,), dtype, low=-4, high=4, seed=5)
    prog = program(("input", 0), (name, 0))
    got = ember._fused_elementwise([x], prog)
    tx = to_torch(x)
    if name == "gelu":
        want, mine = torch.nn.functional.gelu(tx), ember.nn.functional.gelu(x)
    elif name == "gelu_tanh":
        want = torch.nn.functional.gelu(tx, approximate="tanh")
        mine = ember.nn.functional.gelu(x, approximate="tanh")
    else:
        want, mine = torch_unary(name, tx), ember_unary(name, x)
    assert_same(got, want)
    np.testing.assert_array_equal(to_torch(got).numpy(), to_torch(mine).numpy())  # NaNs in the same places


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "minimum"])
def test_each_binary_opcode_with_tensor_and_constant(dtype, name):
    x = make_tensor((5, 7), dtype, seed=1)
    y = make_tensor((7,), dtype, seed=2, nonzero=True)
    got = ember._fused_elementwise([x, y], program(("input", 0), ("input", 1), (name, 0, 1)))
    assert_same(got, getattr(torch, name)(to_torch(x), to_torch(y)))
    np.testing.assert_array_equal(to_torch(got).numpy(), to_torch(getattr(ember, name)(x, y)).numpy())
    # a constant on either side, rounded to the dtype as a Python number is
    c = 0.1
    got = ember._fused_elementwise([x], program(("input", 0), ("constant", 0), (name, 0, 1)), [bits(c)])
    tc = torch.tensor(c, dtype=to_torch(x).dtype)
    assert_same(got, getattr(torch, name)(to_torch(x), tc))
    if name in ("add", "sub", "mul", "div"):  # the same bits as the op with a Python number
        np.testing.assert_array_equal(to_torch(got).numpy(), to_torch(getattr(ember, name)(x, c)).numpy())
    got = ember._fused_elementwise([x], program(("constant", 0), ("input", 0), (name, 0, 1)), [bits(c)])
    assert_same(got, getattr(torch, name)(tc, to_torch(x)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf(dtype):
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -2.5, 1e30]
    x = ember.tensor(vals, dtype=getattr(ember, dtype))
    y = ember.tensor(list(reversed(vals)), dtype=getattr(ember, dtype))
    tx, ty = to_torch(x), to_torch(y)
    cases = [
        (program(("input", 0), ("relu", 0), ("input", 1), ("maximum", 1, 2)), torch.maximum(torch.relu(tx), ty)),
        (program(("input", 0), ("exp", 0), ("input", 1), ("div", 1, 2), ("log", 3)), torch.log(torch.exp(tx) / ty)),
        (program(("input", 0), ("input", 1), ("minimum", 0, 1), ("tanh", 2), ("sub", 3, 0)),
         torch.tanh(torch.minimum(tx, ty)) - tx),
    ]
    for prog, want in cases:
        assert_same(ember._fused_elementwise([x, y], prog), want)


def test_constant_only_operands_and_a_copy_program():
    x = make_tensor((4, 3), "float32", seed=1)
    # exp(2) * x: a unary op of a constant is one value for the whole tensor
    prog = program(("constant", 0), ("exp", 0), ("input", 0), ("mul", 1, 2))
    assert_same(ember._fused_elementwise([x], prog, [bits(2.0)]), torch.exp(torch.tensor(2.0)) * to_torch(x))
    # the result is a constant: broadcast to the inputs' shape
    got = ember._fused_elementwise([x], program(("constant", 0), ("constant", 1), ("add", 0, 1)),
                                   [bits(1.5), bits(2.0)])
    assert_same(got, torch.full((4, 3), 3.5))
    # a program that only loads its input copies it (made contiguous)
    xt = make_tensor((3, 4), "float64", layout="transposed", seed=2)
    got = ember._fused_elementwise([xt], program(("input", 0)))
    assert got.is_contiguous()
    assert_same(got, to_torch(xt))


def test_dtype_and_shape_errors_name_the_op():
    f32 = make_tensor((2, 3), "float32")
    f64 = make_tensor((2, 3), "float64")
    add = program(("input", 0), ("input", 1), ("add", 0, 1))
    with pytest.raises(RuntimeError, match="_fused_elementwise: all inputs must have one dtype"):
        ember._fused_elementwise([f32, f64], add)
    with pytest.raises(RuntimeError, match="_fused_elementwise: supports float32 and float64 inputs only"):
        ember._fused_elementwise([make_tensor((2, 3), "int64")] * 2, add)
    with pytest.raises(RuntimeError, match="_fused_elementwise: supports float32 and float64"):
        ember._fused_elementwise([make_tensor((2, 3), "float16")] * 2, add)
    with pytest.raises(RuntimeError, match=r"_fused_elementwise: input 1 of shape \[4\] does not broadcast with the "
                                           r"shape \[2, 3\] of the inputs before it: The size of tensor a \(3\) must "
                                           r"match the size of tensor b \(4\)"):
        ember._fused_elementwise([f32, make_tensor((4,), "float32")], add)
    with pytest.raises(RuntimeError, match="at least one input"):
        ember._fused_elementwise([], program(("constant", 0)), [bits(1.0)])


@pytest.mark.parametrize("prog, constants, message", [
    ([], [], "the program is empty"),
    ([0, 0], [], "the program's length \\(2\\) is not a multiple of 3"),
    ([0, 0, 0, 99, 0, 0], [], "instruction 1 has unknown opcode 99"),
    ([0, 2, 0], [], "instruction 0 \\(input 2, 0\\): input index out of range"),
    ([0, -1, 0], [], "instruction 0 \\(input -1, 0\\): input index out of range"),
    ([1, 0, 0], [], "instruction 0 \\(constant 0, 0\\): constant index out of range"),
    ([0, 0, 1], [], "instruction 0 \\(input 0, 1\\): the unused operand must be 0"),
    ([0, 0, 0, 12, 1, 0], [], "instruction 1 \\(relu 1, 0\\): the operand must be an earlier register"),
    ([0, 0, 0, 12, 0, 5], [], "instruction 1 \\(relu 0, 5\\): the unused operand must be 0"),
    ([0, 0, 0, 40, 0, 2], [], "instruction 1 \\(add 0, 2\\): the operands must be earlier registers"),
    ([0, 0, 0, 40, -1, 0], [], "instruction 1 \\(add -1, 0\\): the operands must be earlier registers"),
    ([0, 0, 0] * 1025, [], "the program has 1025 instructions, more than the limit of 1024"),
])
def test_malformed_programs_raise(prog, constants, message):
    # As read from a saved model: checked before anything runs, never a crash.
    x = make_tensor((3,), "float32")
    with pytest.raises(RuntimeError, match="_fused_elementwise: " + message):
        ember._fused_elementwise([x, x], prog, constants)


def test_not_differentiable():
    x = make_tensor((3,), "float32").requires_grad_()
    prog = program(("input", 0), ("exp", 0))
    with pytest.raises(RuntimeError, match="'_fused_elementwise' is not differentiable with respect to argument "
                                           "'inputs'"):
        ember._fused_elementwise([x], prog)
    with ember.no_grad():
        got = ember._fused_elementwise([x], prog)
    assert not got.requires_grad
    assert_same(got, torch.exp(to_torch(x.detach())))
