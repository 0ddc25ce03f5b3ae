"""Autograd (issue 4): tensor hooks, custom autograd.Function, inference_mode, grad-mode decorators, anomaly mode,
gradcheck and gradgradcheck. Each scenario is one function run with `ember` and with `torch` (the APIs are the
same), and the results, raised error types and key message parts are compared."""
import warnings

import pytest

import ember
import torch
from conftest import assert_same


def run_both(scenario):
    """scenario(lib) -> result (nested tuples/lists of tensors and plain values), compared between the two."""
    e, t = scenario(ember), scenario(torch)
    _compare(e, t)
    return e, t


def _compare(e, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"expected a tensor, got {e!r}"
        assert_same(e, t)
    elif isinstance(t, (tuple, list)):
        assert len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            _compare(a, b)
    elif t is None:
        assert e is None, e
    else:
        assert e == t, (e, t)


def raises_both(scenario, exc, *parts):
    """scenario(lib) raises `exc` with both libraries, with every message part in ember's (and torch's) text."""
    with pytest.raises(exc) as te:
        scenario(torch)
    with pytest.raises(exc) as ee:
        scenario(ember)
    for p in parts:
        assert p in str(te.value), f"reference message changed: {te.value}"
        assert p in str(ee.value), f"'{p}' not in '{ee.value}'"


def ones(lib, *shape, rg=True, dtype=None):
    dtype = dtype or lib.float64
    return lib.ones(*shape, dtype=dtype, requires_grad=rg) if rg else lib.ones(*shape, dtype=dtype)


def leaf(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float64).requires_grad_()


# ------------------------------------------------------------------------------------------------- hooks
def test_leaf_hook_runs_once_before_accumulation():
    def sc(lib):
        x = leaf(lib, [1.0, 2.0])
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        x.register_hook(lambda g: g * 3)
        (x * 2 + x * 5).sum().backward()
        return seen, x.grad
    run_both(sc)


def test_nonleaf_hook_and_retain_grad_order():
    def sc(lib, first_hook):
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        if first_hook:
            y.register_hook(lambda g: g * 3)
            y.retain_grad()
        else:
            y.retain_grad()
            y.register_hook(lambda g: g * 3)
        (y * y).sum().backward()
        return y.grad, x.grad
    run_both(lambda lib: sc(lib, True))
    run_both(lambda lib: sc(lib, False))


def test_hook_on_view_and_multiple_outputs_of_graph():
    def sc(lib):
        x = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        v = x.t()
        v.register_hook(lambda g: g * lib.tensor([[1.0, 10.0], [100.0, 1000.0]], dtype=lib.float64))
        (v * v).sum().backward()
        return x.grad
    run_both(sc)


def test_hook_remove_and_none_result():
    def sc(lib):
        x = leaf(lib, [1.0])
        calls = []
        h = x.register_hook(lambda g: g * 100)
        x.register_hook(lambda g: calls.append(1))
        h.remove()
        h.remove()
        (x * 2).sum().backward()
        return len(calls), x.grad
    run_both(sc)


def test_hooks_with_grad_and_backward_inputs():
    def sc(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: g * 3)
        y = x * 2
        y.register_hook(lambda g: g * 5)
        g_leaf = lib.autograd.grad((x * 2).sum(), x)  # captured before the leaf's hook
        g_y = lib.autograd.grad((y * 2).sum(), y, retain_graph=True)  # captured before y's hook
        g_x = lib.autograd.grad((y * 2).sum(), x)  # y's hook runs on the way
        z = x * 2
        z.register_hook(lambda g: g * 7)
        (z * 2).sum().backward(inputs=[z])  # backward(inputs=) runs the hook first
        (x * 2).sum().backward(inputs=[x])
        return g_leaf, g_y, g_x, z.grad, x.grad
    run_both(sc)


def test_hook_in_create_graph():
    def sc(lib):
        x = leaf(lib, [1.5, -2.0])
        y = x * x
        y.register_hook(lambda g: g * x)  # differentiable replacement
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), gg
    run_both(sc)


def test_hook_errors():
    raises_both(lambda lib: lib.ones(2).register_hook(lambda g: g), RuntimeError,
                "cannot register a hook on a tensor that doesn't require gradient")
    raises_both(lambda lib: (leaf(lib, [1.0, 2.0]) * 2).detach().register_hook(lambda g: g), RuntimeError,
                "cannot register a hook on a tensor that doesn't require gradient")

    def resize(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: lib.ones(3, dtype=lib.float64))
        (x * 2).sum().backward()
    raises_both(resize, RuntimeError, "hook '<lambda>' has changed the size of value")

    def retype(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: g.float())
        (x * 2).sum().backward()
    raises_both(retype, RuntimeError, "hook '<lambda>' has changed the type of value")

    def not_a_tensor(lib):
        x = leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: 5)
        (x * 2).sum().backward()
    raises_both(not_a_tensor, TypeError, "expected Variable, but hook returned 'int'")

    def raising(lib):
        x = leaf(lib, [1.0])

        def hook(g):
            raise ValueError("from the hook")
        x.register_hook(hook)
        (x * 2).sum().backward()
    raises_both(raising, ValueError, "from the hook")


def test_removable_handle_type():
    h = leaf(ember, [1.0]).register_hook(lambda g: g)
    assert type(h).__name__ == "RemovableHandle"
    assert isinstance(h, ember.utils.hooks.RemovableHandle)


# ------------------------------------------------------------------------------------------ custom Function
def make_functions(lib):
    class MulConst(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.save_for_backward(x)
            ctx.grad_enabled_in_forward = lib.is_grad_enabled()
            return x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False)
            return g * ctx.k, None

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class SplitTwo(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y, x + y, "label"

        @staticmethod
        def backward(ctx, ga, gb, gc=None):
            return ga * 2 + gb, ga * 3 + gb

    return MulConst, Exp, SplitTwo


def test_function_forward_backward_and_ctx():
    def sc(lib):
        MulConst, Exp, SplitTwo = make_functions(lib)
        x = leaf(lib, [1.0, -2.0, 0.5])
        y = MulConst.apply(x, 3.0)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        e = Exp.apply(x)
        (gx,) = lib.autograd.grad((e * e).sum(), x, retain_graph=True)
        a, b, label = SplitTwo.apply(x, leaf(lib, [2.0, 2.0, 2.0]))
        (ga, gb) = lib.autograd.grad((a + b * 2).sum(), [a.grad_fn.next_functions[0][0].variable, x])
        return y.detach(), name, x.grad, y.grad_fn.name(), gx, label, ga, gb, e.grad_fn.saved_tensors[0].detach()
    run_both(sc)


def test_function_runs_forward_without_grad_and_needs_input_grad():
    def sc(lib):
        MulConst, _, _ = make_functions(lib)
        x = leaf(lib, [1.0])
        y = MulConst.apply(x, 2.0)
        plain = MulConst.apply(lib.ones(1, dtype=lib.float64), 2.0)
        with lib.no_grad():
            z = MulConst.apply(x, 2.0)
        return y.requires_grad, y.grad_fn.grad_enabled_in_forward, plain.requires_grad, plain.grad_fn, \
            z.requires_grad, y.grad_fn.needs_input_grad, len(y.grad_fn.next_functions)
    run_both(sc)


def test_function_double_backward_through_differentiable_backward():
    def sc(lib):
        _, Exp, _ = make_functions(lib)
        x = leaf(lib, [0.0, 1.0, -0.5])
        (g,) = lib.autograd.grad(Exp.apply(x * x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), gg
    run_both(sc)


def test_function_returning_input_dirty_and_non_differentiable():
    def sc(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class WithIndex(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x.argmax()
                ctx.mark_non_differentiable(idx)
                return x * 2, idx

            @staticmethod
            def backward(ctx, g, gi):
                ctx.gi_seen = gi.clone()
                return g * 2

        x = leaf(lib, [1.0, 3.0])
        y = Identity.apply(x)
        same = y is x
        y.sum().backward()
        a = x * 1
        b = Double_.apply(a)
        b_is_a = b is a
        b.sum().backward()
        r, i = WithIndex.apply(x)
        r.sum().backward()
        return same, x.is_leaf, b_is_a, type(a.grad_fn).__name__, x.grad, i.requires_grad, r.grad_fn.gi_seen
    run_both(sc)


def test_function_materialize_grads():
    def sc(lib, materialize):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                ctx.seen = (g1 is None, g2 is None, None if g2 is None else g2.clone())
                return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

        x = leaf(lib, [1.0, 2.0])
        a, b = Two.apply(x)
        a.sum().backward()
        return a.grad_fn.seen, x.grad
    run_both(lambda lib: sc(lib, True))
    run_both(lambda lib: sc(lib, False))


def test_function_backward_errors():
    def wrong_count(lib):
        MulConst, _, _ = make_functions(lib)

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(leaf(lib, [1.0]), 2).sum().backward()
    raises_both(wrong_count, RuntimeError,
                "function FBackward returned an incorrect number of gradients (expected 2, got 1)")

    def grad_for_number(lib):
        class G(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g
        G.apply(leaf(lib, [1.0]), 2).sum().backward()
    raises_both(grad_for_number, RuntimeError, "function GBackward returned a gradient different than None at "
                "position 2, but the corresponding forward input was not a Variable")

    def bad_shape(lib):
        class H(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return lib.ones(3, dtype=lib.float64)
        H.apply(leaf(lib, [1.0, 2.0])).sum().backward()
    raises_both(bad_shape, RuntimeError, "Function HBackward returned an invalid gradient at index 0 - got [3] but "
                "expected shape compatible with [2]")

    def not_a_tensor(lib):
        class S(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return "a"
        S.apply(leaf(lib, [1.0])).sum().backward()
    raises_both(not_a_tensor, RuntimeError, "expected Variable or None (got str)")

    def dirty_leaf(lib):
        class D(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        D.apply(leaf(lib, [1.0]))
    raises_both(dirty_leaf, RuntimeError, "a leaf Variable that requires grad has been used in an in-place operation.")

    def save_number(lib):
        class A(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        A.apply(lib.ones(2).requires_grad_())
    raises_both(save_number, TypeError, "save_for_backward can only save variables, but argument 1 is of type int")

    def dirty_not_returned(lib, x):
        class B(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        B.apply(x)
    for make in (lambda lib: lib.ones(1).requires_grad_() * 1, lambda lib: lib.ones(1)):
        raises_both(lambda lib: dirty_not_returned(lib, make(lib)), RuntimeError,
                    "Some elements marked as dirty during the forward method were not returned as output.")

    def legacy(lib):
        MulConst, _, _ = make_functions(lib)
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            f = MulConst()
        f(leaf(lib, [1.0]), 2)
    raises_both(legacy, RuntimeError, "Legacy autograd function with non-static forward method is deprecated")

    def no_forward(lib):
        class N(lib.autograd.Function):
            pass
        N.apply(leaf(lib, [1.0]))
    raises_both(no_forward, NotImplementedError,
                "You must implement the forward function for custom autograd.Function.")

    def no_backward(lib):
        class NB(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        NB.apply(leaf(lib, [1.0])).sum().backward()
    raises_both(no_backward, NotImplementedError, "You must implement either the backward or vjp method")

    def saved_after_free(lib):
        MulConst, _, _ = make_functions(lib)
        y = MulConst.apply(leaf(lib, [1.0]), 2.0)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    raises_both(saved_after_free, RuntimeError, "Trying to backward through the graph a second time")

    def saved_modified(lib):
        MulConst, _, _ = make_functions(lib)
        x = leaf(lib, [1.0]) * 1
        y = MulConst.apply(x, 2.0)
        x.add_(1)
        y.sum().backward()
    raises_both(saved_modified, RuntimeError, "one of the variables needed for gradient computation has been "
                "modified by an inplace operation")


def test_once_differentiable():
    def sc(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2 * x

        x = leaf(lib, [1.0, 2.0])
        (g,) = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
        y = Sq.apply(x)
        (g2,) = lib.autograd.grad(y, x, grad_outputs=lib.ones(2, dtype=lib.float64).requires_grad_(),
                                  create_graph=True)
        return g, g.requires_grad, g2.requires_grad, g2.detach(), g2
    e, t = sc(ember), sc(torch)
    _compare(e[:4], t[:4])
    raises_both(lambda lib: sc(lib)[4].sum().backward(), RuntimeError,
                "trying to differentiate twice a function that was marked with @once_differentiable")


# ---------------------------------------------------------------------------------- grad modes, inference
def test_grad_mode_decorators():
    def sc(lib):
        @lib.no_grad()
        def f(x):
            return x * 2

        @lib.enable_grad()
        def g(x):
            return x * 2

        @lib.no_grad()
        def gen(x):
            yield lib.is_grad_enabled()
            yield (x * 2).requires_grad

        x = leaf(lib, [1.0])
        with lib.no_grad():
            inner = g(x).requires_grad
        with lib.set_grad_enabled(False):
            off = (x * 2).requires_grad
        return f(x).requires_grad, inner, off, lib.is_grad_enabled(), list(gen(x)), lib.is_grad_enabled()
    run_both(sc)


def test_inference_mode_tensors():
    def sc(lib):
        normal = lib.ones(2)
        w = leaf(lib, [1.0, 2.0], dtype=lib.float32)
        with lib.inference_mode():
            enabled = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
            t = lib.ones(2)
            view_normal = normal.view(2)
            normal.add_(1)  # allowed: a normal tensor updated in inference mode
            y = w * 2
            t.add_(1)
            with lib.enable_grad():
                enable_inside = (lib.is_grad_enabled(), (w * 2).requires_grad)
            with lib.inference_mode(False):
                off = (lib.is_inference_mode_enabled(), lib.is_grad_enabled(), lib.ones(1).is_inference())
        sum_ok = (w + t).requires_grad  # add saves nothing
        return enabled, t.is_inference(), t.view(2).is_inference(), view_normal.is_inference(), \
            y.requires_grad, y.is_inference(), enable_inside, off, lib.is_inference_mode_enabled(), sum_ok, t, \
            t.clone().is_inference(), normal.is_inference()
    run_both(sc)


def test_inference_mode_decorator_and_disabled():
    def sc(lib):
        @lib.inference_mode()
        def f():
            return lib.ones(1)

        @lib.inference_mode(mode=False)
        def g():
            return lib.ones(1)

        with lib.inference_mode(mode=False):
            inside = lib.ones(1).is_inference()
        return f().is_inference(), g().is_inference(), inside
    run_both(sc)


def test_inference_tensor_errors():
    def make(lib):
        with lib.inference_mode():
            return lib.ones(2)
    for op in [lambda t: t.add_(1), lambda t: t.zero_(), lambda t: t.view(2).mul_(2),
               lambda t: t.copy_(t.clone())]:
        raises_both(lambda lib: op(make(lib)), RuntimeError,
                    "Inplace update to inference tensor outside InferenceMode is not allowed")
    raises_both(lambda lib: make(lib) * leaf(lib, [1.0, 2.0], dtype=lib.float32), RuntimeError,
                "Inference tensors cannot be saved for backward. To work around you can make a clone")
    raises_both(lambda lib: make(lib).requires_grad_(), RuntimeError,
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
    raises_both(lambda lib: make(lib)._version, RuntimeError, "Inference tensors do not track version counter.")


# ---------------------------------------------------------------------------------------------- anomaly
def test_detect_anomaly_nan():
    def sc(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                on = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
                y = x.sqrt() * 0
                try:
                    y.sum().backward()
                    err = None
                except RuntimeError as e:
                    err = str(e)
        messages = [str(m.message) for m in w]
        return on, err, messages[0], messages[1].split(".")[0], "y = x.sqrt() * 0" in messages[1], \
            lib.is_anomaly_enabled()
    run_both(sc)


def test_set_detect_anomaly_and_check_nan_off():
    def sc(lib):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            state = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
            (x.sqrt() * 0).sum().backward()
        return state, lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled(), x.grad.isnan()
    run_both(sc)


def test_anomaly_in_custom_function_and_off_by_default():
    def sc(lib):
        class NanGrad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")

        x = leaf(lib, [1.0])
        NanGrad.apply(x).sum().backward()  # off: no check
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                try:
                    NanGrad.apply(x).sum().backward()
                    return None
                except RuntimeError as e:
                    return str(e), x.grad.isnan()
    run_both(sc)


# ------------------------------------------------------------------------------------------------ gradcheck
def test_gradcheck_passes_on_ops():
    def sc(lib):
        x = lib.tensor([[0.5, -1.25, 2.0], [0.1, 0.2, 0.3]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([1.5, 0.25, -0.75], dtype=lib.float64, requires_grad=True)
        f = lambda a, b, k: ((a * b).sin() * k + a.exp(), (a @ b).tanh())  # noqa: E731
        return (lib.autograd.gradcheck(f, (x, w, 2.0)), lib.autograd.gradgradcheck(f, (x, w, 2.0)),
                lib.autograd.gradcheck(lambda a: a.t().exp(), x.t()),
                lib.autograd.gradcheck(lambda a: a.sum(), lib.zeros(0, dtype=lib.float64).requires_grad_()),
                lib.autograd.gradgradcheck(lambda a: a.softmax(0), (w,), (lib.ones(3, dtype=lib.float64),)))
    run_both(sc)


def test_gradcheck_failures():
    def wrong(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3
        return F

    def sc(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        return lib.autograd.gradcheck(wrong(lib).apply, (x,), raise_exception=False)
    run_both(sc)

    def raising(lib):
        lib.autograd.gradcheck(wrong(lib).apply, (lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True),))
    raises_both(raising, RuntimeError, "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:",
                "analytical:")
    from ember.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError):
        raising(ember)
    raises_both(lambda lib: lib.autograd.gradcheck(lambda a: a * 2, (lib.ones(2, dtype=lib.float64),)), ValueError,
                "gradcheck expects at least one input tensor to require gradient")

    def cube(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x.detach() ** 2  # right first derivative, not differentiable
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        return (lib.autograd.gradcheck(Cube.apply, (x,)),
                lib.autograd.gradgradcheck(Cube.apply, (x,), raise_exception=False))
    run_both(cube)


def test_gradcheck_leaves_inputs_untouched_and_warns_for_float32():
    def sc(lib):
        x = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
        y = x * x  # a graph that saved x before the check
        ok = lib.autograd.gradcheck(lambda a: a.exp(), (x,))
        y.sum().backward()
        return ok, x._version, x.grad
    run_both(sc)

    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
            lib.autograd.gradcheck(lambda a: a * 2, (lib.ones(2).requires_grad_(),), atol=1e-2, rtol=1e-2,
                                   eps=1e-3)


def test_api_names():
    for name in ["Function", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly", "inference_mode"]:
        assert hasattr(ember.autograd, name) and hasattr(torch.autograd, name), name
    for name in ["inference_mode", "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]:
        assert hasattr(ember, name) and hasattr(torch, name), name


def test_function_gradient_is_summed_to_shape_and_cast_to_dtype():
    def sc(lib):
        class Spread(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2, y * 1

            @staticmethod
            def backward(ctx, gx, gy):
                # a broadcast (2, 3) gradient for a (1, 3) input, and a float32 one for a float64 input
                return gx.expand(2, 3) * 1, gy.float() * 2

        x = leaf(lib, [[1.0, 2.0, 3.0]])
        y = leaf(lib, [1.0, 2.0])
        a, b = Spread.apply(x, y)
        (a.sum() + b.sum()).backward()
        return x.grad, y.grad
    run_both(sc)
