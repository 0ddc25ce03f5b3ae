"""Custom ops (issue 7): libraries compiled at run time with ember.utils.cpp_extension, loaded with
ember.ops.load_library, called from Python with schema-checked arguments, differentiated, and the errors of
each step. PyTorch has no Ember extensions, so values are compared with the same computation written with
PyTorch's plain ops."""
import os
import stat
import sys

import pytest
import torch

import ember
from ember.utils import cpp_extension

HERE = os.path.dirname(os.path.abspath(__file__))
MYOPS = os.path.join(HERE, "..", "extensions", "myops.cpp")


@pytest.fixture(scope="module")
def ext_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ember_extensions")
    old = os.environ.get("EMBER_EXTENSIONS_DIR")
    os.environ["EMBER_EXTENSIONS_DIR"] = str(root)
    yield root
    if old is None:
        del os.environ["EMBER_EXTENSIONS_DIR"]
    else:
        os.environ["EMBER_EXTENSIONS_DIR"] = old


@pytest.fixture(scope="module")
def myops(ext_root):
    return cpp_extension.load("myops", [MYOPS])


def torch_fused_act(x, alpha=1.0):
    return x * torch.sigmoid(alpha * x)


def to_torch(t):
    return torch.tensor(t.tolist(), dtype=getattr(torch, str(t.dtype).split(".")[1]))


def test_load_gives_library_path(myops):
    assert os.path.isfile(myops.__file__) and myops.__file__.endswith("libmyops.so")
    assert myops.__file__ in ember.ops.loaded_libraries
    assert myops.__file__ in ember._C._loaded_libraries()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_act_values(myops, dtype):
    x = ember.tensor([[-3.0, -0.5, 0.0], [0.25, 2.0, float("nan")]], dtype=getattr(ember, dtype))
    tx = to_torch(x)
    for args, kwargs in [((), {}), ((0.5,), {}), ((), {"alpha": 2.5})]:
        got = ember.ops.myops.fused_act(x, *args, **kwargs)
        want = torch_fused_act(tx, *args, **kwargs)
        assert got.dtype == x.dtype and tuple(got.shape) == tuple(want.shape)
        torch.testing.assert_close(to_torch(got), want, equal_nan=True)


def test_fused_act_noncontiguous_and_empty(myops):
    x = ember.arange(12.0).reshape(3, 4).t()
    torch.testing.assert_close(to_torch(ember.ops.myops.fused_act(x, 0.3)), torch_fused_act(to_torch(x), 0.3))
    e = ember.ops.myops.fused_act(ember.zeros(0, 3))
    assert tuple(e.shape) == (0, 3)
    z = ember.ops.myops.fused_act(ember.tensor(1.5))
    assert z.dim() == 0 and abs(z.item() - torch_fused_act(torch.tensor(1.5)).item()) < 1e-6


def test_fused_act_gradient(myops):
    x = ember.tensor([-2.0, -0.1, 0.0, 0.7, 3.0], dtype=ember.float64, requires_grad=True)
    y = ember.ops.myops.fused_act(x, 0.8)
    assert y.grad_fn is not None
    y.sum().backward()
    tx = torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
    torch_fused_act(tx, 0.8).sum().backward()
    torch.testing.assert_close(to_torch(x.grad), tx.grad)
    assert ember.autograd.gradcheck(lambda t: ember.ops.myops.fused_act(t, 1.3), (x.detach().requires_grad_(),))


def test_overloads_and_mutation(myops):
    x = ember.tensor([1.0, 2.0])
    assert ember.ops.myops.scale(x, 1.5).tolist() == [1.5, 3.0]
    # As torch.ops: the first overload in definition order that accepts the arguments wins, and a Python int
    # is a valid float, so scale(Tensor, float) takes it (torch.library gives the same with these schemas).
    r = ember.ops.myops.scale(ember.tensor([1, 2]), 3)
    assert r.dtype == ember.float32 and r.tolist() == [3.0, 6.0]
    assert len(ember.ops.myops.scale._schemas) == 2
    y = ember.tensor([1.0, -2.0])
    out = ember.ops.myops.scale_(y, 2.0)
    assert y.tolist() == [2.0, -4.0] and out.tolist() == [2.0, -4.0]


def test_wrong_arguments_raise_type_error(myops):
    x = ember.tensor([1.0])
    with pytest.raises(TypeError, match="alpha"):
        ember.ops.myops.fused_act(x, alpha="big")
    with pytest.raises(TypeError, match=r"argument .x.*fused_act\(Tensor x, float alpha=1"):
        ember.ops.myops.fused_act(1.0)
    with pytest.raises(TypeError):
        ember.ops.myops.fused_act(x, 1.0, 2.0)
    with pytest.raises(TypeError):
        ember.ops.myops.fused_act(x, beta=1.0)
    with pytest.raises(RuntimeError, match="float32 or float64"):
        ember.ops.myops.fused_act(ember.tensor([1, 2]))


def test_unknown_op_and_namespace(myops):
    with pytest.raises(AttributeError, match="nothere"):
        ember.ops.myops.nothere
    with pytest.raises(AttributeError, match="load_library"):
        ember.ops.no_such_namespace.op
    # aten ops are reachable the same way, as torch.ops.aten.
    assert ember.ops.aten.relu(ember.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]


def test_load_library_errors(tmp_path):
    with pytest.raises(OSError, match="no such file"):
        ember.ops.load_library(str(tmp_path / "missing.so"))
    junk = tmp_path / "junk.so"
    junk.write_text("not an ELF file")
    with pytest.raises(OSError, match="junk.so"):
        ember.ops.load_library(str(junk))
    with pytest.raises(RuntimeError, match="empty"):
        ember.ops.load_library("")


def test_undefined_symbol_is_named(ext_root):
    src = "#include <ember/ember.h>\nextern int ember_test_not_defined_anywhere();\n" \
          "int use_it() { return ember_test_not_defined_anywhere(); }\n"
    with pytest.raises(OSError, match="ember_test_not_defined_anywhere"):
        cpp_extension.load_inline("undef_sym", src)


def test_bad_schema_and_duplicate_definition(myops, ext_root):
    bad = 'EMBER_LIBRARY(badschema, m) { m.def("broken(Tensor x -> Tensor"); }\n'
    with pytest.raises(RuntimeError, match="failed to register"):
        cpp_extension.load_inline("badschema", bad)
    dup = 'EMBER_LIBRARY_FRAGMENT(myops, m) { m.def("fused_act(Tensor x, float alpha=1.0) -> Tensor"); }\n'
    with pytest.raises(RuntimeError, match="fused_act"):
        cpp_extension.load_inline("dupops", dup)


def test_compile_error_raises_with_compiler_message(ext_root):
    with pytest.raises(RuntimeError, match=r"(?s)Error building extension 'broken'.*undeclared_thing"):
        cpp_extension.load_inline("broken", "int f() { return undeclared_thing; }")


def test_load_inline_functions(ext_root):
    src = """
ember::Tensor add_twice(ember::Tensor a, ember::Tensor b) { return ember::add(a, ember::mul(b, ember::Scalar(2))); }
int64_t count(const ember::Tensor& a) { return a.numel(); }
"""
    mod = cpp_extension.load_inline("inline_fns", src, functions=["add_twice", "count"])
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0], requires_grad=True)
    y = mod.add_twice(a, b)
    assert y.tolist() == [7.0, 10.0]
    y.sum().backward()  # autograd through the Ember ops the function calls
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [2.0, 2.0]
    assert mod.count(ember.zeros(2, 3)) == 6
    assert ember.ops.inline_fns.add_twice is not None
    with pytest.raises(TypeError):
        mod.add_twice(a)
    with pytest.raises(ValueError):
        cpp_extension.load_inline("inline_fns2", src, functions=["not a name"])


def test_compile_cache_does_not_recompile(tmp_path, monkeypatch):
    # A compiler wrapper that logs each call: the second load with the same inputs must not run it.
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "cxx"
    wrapper.write_text("#!/bin/sh\necho call >> {}\nexec c++ \"$@\"\n".format(log))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CXX", str(wrapper))
    monkeypatch.setenv("EMBER_EXTENSIONS_DIR", str(tmp_path / "cache"))
    src = "ember::Tensor triple(ember::Tensor a) { return ember::mul(a, ember::Scalar(3)); }\n"
    m1 = cpp_extension.load_inline("cached_ext", src, functions=["triple"])
    assert log.read_text().count("call") == 1
    m2 = cpp_extension.load_inline("cached_ext", src, functions=["triple"])
    assert log.read_text().count("call") == 1
    assert m1.__file__ == m2.__file__
    assert m2.triple(ember.tensor([1.0])).tolist() == [3.0]
    # Another flag is another build (whose library then defines the same op again: loading it must say so).
    with pytest.raises(RuntimeError, match="duplicate definition of op cached_ext::triple"):
        cpp_extension.load_inline("cached_ext", src, functions=["triple"], extra_cflags=["-O1"])
    assert log.read_text().count("call") == 2


def test_bad_extension_arguments(ext_root, tmp_path):
    with pytest.raises(ValueError):
        cpp_extension.load("not-an-identifier", [MYOPS])
    with pytest.raises(FileNotFoundError):
        cpp_extension.load("missing_src", [str(tmp_path / "nope.cpp")])
    with pytest.raises(ValueError):
        cpp_extension.load("no_sources", [])


def test_paths_point_at_this_ember():
    (inc,) = cpp_extension.include_paths()
    (lib,) = cpp_extension.library_paths()
    assert os.path.isfile(os.path.join(inc, "ember", "ember.h"))
    assert os.path.isfile(os.path.join(lib, "libember.so"))
    assert sys.modules["ember"] is ember


# ---- ops defined in Python (ember.library.custom_op; PyTorch 2.x's signature, compared with plain torch ops)

import ember.library as elib  # noqa: E402
from typing import List, Optional, Tuple  # noqa: E402


@elib.custom_op("pyops::scaled_tanh", mutates_args=())
def scaled_tanh(x: ember.Tensor, scale: float = 1.0) -> ember.Tensor:
    return ember.tanh(x) * scale


def _setup(ctx, inputs, output):
    x, scale = inputs
    ctx.save_for_backward(x)
    ctx.scale = scale


def _backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * ctx.scale * (1 - ember.tanh(x) ** 2), None


scaled_tanh.register_autograd(_backward, setup_context=_setup)


@elib.custom_op("pyops::add_into", mutates_args=("out",))
def add_into(a: ember.Tensor, b: ember.Tensor, out: ember.Tensor) -> None:
    out.copy_(a + b)


@elib.custom_op("pyops::split_sign", mutates_args=())
def split_sign(x: ember.Tensor, dims: List[int],
               bias: Optional[ember.Tensor] = None) -> Tuple[ember.Tensor, ember.Tensor]:
    y = x if bias is None else x + bias
    return ember.relu(y).sum(dims), ember.relu(-y).sum(dims)


def test_python_custom_op_values_and_schema():
    x = ember.tensor([[-1.0, 0.5], [2.0, 0.0]])
    tx = to_torch(x)
    torch.testing.assert_close(to_torch(scaled_tanh(x, 2.0)), torch.tanh(tx) * 2.0)
    torch.testing.assert_close(to_torch(ember.ops.pyops.scaled_tanh(x)), torch.tanh(tx))
    torch.testing.assert_close(to_torch(scaled_tanh(x, scale=0.5)), torch.tanh(tx) * 0.5)
    assert ember.ops.pyops.scaled_tanh._schemas == ["pyops::scaled_tanh(Tensor x, float scale=1.) -> Tensor"] or \
        "scaled_tanh(Tensor x, float scale=1" in ember.ops.pyops.scaled_tanh._schemas[0]
    pos, neg = split_sign(x, [1])
    torch.testing.assert_close(to_torch(pos), torch.relu(tx).sum(1))
    torch.testing.assert_close(to_torch(neg), torch.relu(-tx).sum(1))
    pos, _ = split_sign(x, [0, 1], bias=ember.tensor(1.0))
    assert abs(pos.item() - torch.relu(tx + 1).sum().item()) < 1e-6
    assert "Tensor(a!) out" in ember.ops.pyops.add_into._schemas[0]
    o = ember.zeros(2)
    assert add_into(ember.ones(2), ember.ones(2), o) is None
    assert o.tolist() == [2.0, 2.0]


def test_python_custom_op_autograd():
    x = ember.tensor([-1.0, 0.3, 2.0], dtype=ember.float64, requires_grad=True)
    y = scaled_tanh(x, 1.5)
    assert y.grad_fn is not None
    y.sum().backward()
    tx = torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
    (torch.tanh(tx) * 1.5).sum().backward()
    torch.testing.assert_close(to_torch(x.grad), tx.grad)
    assert ember.autograd.gradcheck(lambda t: scaled_tanh(t, 0.7), (x.detach().requires_grad_(),))
    # Without a backward, differentiating through the op is refused, not silently zero.
    with pytest.raises((NotImplementedError, RuntimeError)):
        split_sign(x, [0])[0].backward()


def test_python_custom_op_errors():
    with pytest.raises(ValueError, match="qualified"):
        elib.custom_op("noqualifier", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError, match="reserved"):
        elib.custom_op("aten::mine", mutates_args=())
    with pytest.raises(ValueError, match="annotation"):
        @elib.custom_op("pyops::unannotated", mutates_args=())
        def unannotated(x):
            return x
    with pytest.raises(ValueError, match="not an argument"):
        @elib.custom_op("pyops::badmut", mutates_args=("y",))
        def badmut(x: ember.Tensor) -> ember.Tensor:
            return x
    with pytest.raises(RuntimeError, match="duplicate definition of op pyops::scaled_tanh"):
        @elib.custom_op("pyops::scaled_tanh", mutates_args=())
        def again(x: ember.Tensor) -> ember.Tensor:
            return x
    with pytest.raises(TypeError, match="scale"):
        scaled_tanh(ember.ones(1), scale="x")
    # An exception inside the Python kernel comes back as itself.

    @elib.custom_op("pyops::raises", mutates_args=())
    def raises(x: ember.Tensor) -> ember.Tensor:
        raise KeyError("from the kernel")

    with pytest.raises(KeyError, match="from the kernel"):
        raises(ember.ones(1))

    @elib.custom_op("pyops::wrong_return", mutates_args=())
    def wrong_return(x: ember.Tensor) -> ember.Tensor:
        return 3

    with pytest.raises(TypeError, match="returned int where the schema says Tensor"):
        wrong_return(ember.ones(1))
    with pytest.raises(RuntimeError, match="already has a backward"):
        scaled_tanh.register_autograd(_backward, setup_context=_setup)


def test_torch113_library_api_matches_torch():
    # PyTorch 1.13's torch.library.Library: define + impl, side by side with torch.
    results = []
    for mod, lib_mod, T in ((ember, elib, ember.tensor), (torch, torch.library, torch.tensor)):
        lib = lib_mod.Library("libapi_" + mod.__name__, "DEF")
        lib.define("scale(Tensor x, float s) -> Tensor")
        lib.define("scale.int(Tensor x, int n) -> Tensor")
        lib.impl("scale", lambda x, s: x * s + 0.5, "CPU")
        lib.impl("scale.int", lambda x, n: x * n, "CPU")
        op = getattr(getattr(mod.ops, "libapi_" + mod.__name__), "scale")
        results.append((op(T([1.0, 2.0]), 3).tolist(), op(T([1.0, 2.0]), 1.5).tolist()))
    assert results[0] == results[1]


def test_python_custom_op_is_traced_as_one_node():
    def f(x):
        return scaled_tanh(x, 2.0) + 1

    traced = ember.jit.trace(f, (ember.ones(3),))
    assert "pyops::scaled_tanh" in str(traced.graph)
    assert "aten::tanh" not in str(traced.graph)
    x = ember.tensor([0.1, -0.2, 0.3])
    torch.testing.assert_close(to_torch(traced(x)), torch.tanh(to_torch(x)) * 2 + 1)


# ---- custom ops in saved graphs (Note [op sources])

import subprocess  # noqa: E402
import textwrap  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


def _run_fresh(code):
    """Runs code in a fresh Python (no libraries loaded, no Python ops defined); returns (rc, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


class _UsesMyops(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = ember.nn.Linear(3, 4)

    def forward(self, x):
        return ember.ops.myops.fused_act(self.fc(x), 0.5).sum(1)


def test_traced_custom_op_saves_and_loads(myops, tmp_path):
    ember.manual_seed(0)
    m = _UsesMyops().eval()
    x = ember.randn(5, 3)
    traced = ember.jit.trace(m, (x,))
    assert "myops::fused_act" in str(traced.graph)
    path = str(tmp_path / "uses_myops.pt")
    ember.jit.save(traced, path)
    loaded = ember.jit.load(path)
    assert loaded(x).tolist() == m(x).tolist()
    x2 = ember.randn(7, 3)  # another batch size
    assert loaded(x2).tolist() == m(x2).tolist()
    # A fresh process: without the library the load names it; after load_library the model runs.
    rc, out = _run_fresh("""
        import ember
        try:
            ember.jit.load({path!r})
        except RuntimeError as e:
            print("ERROR", e)
        ember.ops.load_library({lib!r})
        m = ember.jit.load({path!r})
        print("OUT", m(ember.ones(2, 3)).shape)
    """.format(path=path, lib=myops.__file__))
    assert rc == 0, out
    assert "ERROR" in out and "myops::fused_act" in out and myops.__file__ in out and "load_library" in out
    assert "OUT ember.Size([2])" in out


class _UsesPyop(ember.nn.Module):
    def forward(self, x):
        return scaled_tanh(x, 2.0) * 3


def test_saved_python_op_says_it_needs_python(tmp_path):
    traced = ember.jit.trace(_UsesPyop(), (ember.ones(3),))
    path = str(tmp_path / "pyop.pt")
    ember.jit.save(traced, path)
    torch.testing.assert_close(to_torch(ember.jit.load(path)(ember.ones(2))), torch.tanh(torch.ones(2)) * 6)
    rc, out = _run_fresh("""
        import ember
        try:
            ember.jit.load({path!r})
        except RuntimeError as e:
            print("ERROR", e)
    """.format(path=path))
    assert rc == 0, out
    assert "pyops::scaled_tanh" in out and "defined in Python" in out and "without Python" in out
