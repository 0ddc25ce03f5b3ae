"""nn.Module's hook and state API against PyTorch 1.13: full and legacy backward hooks (grad_input, grad_output,
replacement, call order), global module hooks, state-dict hooks, _load_from_state_dict overrides, get_submodule
and friends, to_empty, requires_grad_, zero_grad, apply and dtype casts. Each scenario runs once with ember and
once with torch and logs what the hooks saw; the two logs must be equal."""
import warnings
from collections import OrderedDict

import pytest
import torch

import ember


def vals(grads):
    return tuple(None if g is None else [round(v, 5) for v in g.reshape(-1).tolist()] for g in grads)


def both(scenario):
    """scenario(T) run with ember and with torch; their logs (lists) must be equal."""
    got, expected = scenario(ember), scenario(torch)
    assert got == expected


def two_layer(T):
    nn = T.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)
            with T.no_grad():
                for p, v in zip(self.parameters(), [0.1, 0.2, 0.3, 0.4]):
                    p.copy_(T.arange(p.numel(), dtype=T.float32).reshape(p.shape) * v - 0.1)

        def forward(self, x, k, y):
            return self.b(self.a(x)).relu() * k + y, x * 2

    return Two()


def test_full_backward_hooks_order_values_and_replacement():
    def scenario(T):
        log = []
        m = two_layer(T)
        m.register_forward_pre_hook(lambda mod, inp: log.append(("pre", len(inp))))
        m.register_forward_hook(lambda mod, inp, out: log.append(("fwd", len(out))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", vals(gi), vals(go))))

        def scale_first(mod, gi, go):
            log.append(("full2",))
            return (gi[0] * 10,) + gi[1:]

        m.register_full_backward_hook(scale_first)
        m.a.register_full_backward_hook(lambda mod, gi, go: log.append(("a", vals(gi), vals(go))))
        x = T.tensor([[1., -2.]], requires_grad=True)
        y = T.tensor([[0.5, 0.5]], requires_grad=True)
        o1, o2 = m(x, 3, y)
        (o1.sum() + o2.sum()).backward()
        log.append(("grads", vals((x.grad, y.grad))))
        return log

    both(scenario)


def test_full_backward_hook_without_input_grad_and_removal():
    def scenario(T):
        log = []
        m = T.nn.Linear(2, 1)
        h = m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", gi, len(go))))
        m(T.ones(1, 2)).sum().backward()
        h.remove()
        m(T.ones(1, 2)).sum().backward()
        log.append(len(log))
        return log

    both(scenario)


def test_backward_hook_kinds_cannot_mix():
    def scenario(T):
        m = T.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda *a: None)
        try:
            m.register_backward_hook(lambda *a: None)
        except RuntimeError as e:
            return [str(e)]
        return []

    both(scenario)


def test_legacy_backward_hook_and_warning():
    def scenario(T):
        log = []
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Tanh())
        with T.no_grad():
            m[0].weight.copy_(T.tensor([[1., 2.], [3., 4.]]) / 10)
            m[0].bias.copy_(T.tensor([0.5, -0.5]))
        m[0].register_backward_hook(lambda mod, gi, go: log.append(("legacy", len(gi), vals(go))))
        m.register_backward_hook(lambda mod, gi, go: log.append(("seq", vals(gi), vals(go))))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(T.ones(1, 2, requires_grad=True)).sum().backward()
        log.append(sorted(str(x.message)[:60] for x in w))
        return log

    both(scenario)


def test_global_module_hooks():
    def scenario(T):
        import importlib

        log = []
        mm = importlib.import_module(T.__name__ + ".nn.modules.module")
        handles = [mm.register_module_forward_pre_hook(lambda mod, inp: log.append(("gpre", type(mod).__name__))),
                   mm.register_module_forward_hook(lambda mod, inp, out: log.append(("gfwd", type(mod).__name__))),
                   mm.register_module_full_backward_hook(
                       lambda mod, gi, go: log.append(("gbwd", type(mod).__name__, vals(gi))))]
        try:
            seq = T.nn.Sequential(T.nn.ReLU(), T.nn.Sigmoid())
            seq[1].register_forward_pre_hook(lambda mod, inp: log.append(("own", type(mod).__name__)))
            seq(T.tensor([1.0, -1.0], requires_grad=True)).sum().backward()
        finally:
            for h in handles:
                h.remove()
        T.nn.ReLU()(T.ones(1))
        return log

    both(scenario)


def test_custom_function_grad_fn_hooks():
    def scenario(T):
        log = []

        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = Double.apply(x)
        y.grad_fn.register_prehook(lambda go: log.append(("pre", vals(go))))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
        y.sum().backward()
        log.append(vals((x.grad,)))
        return log

    both(scenario)


# ---------------------------------------------------------------------------------------------- state dict
def test_state_dict_hooks_and_load_override():
    def scenario(T):
        log = []
        nn = T.nn

        class Old(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(2, 2)

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs):
                # an old layout stored "lin.w"; rename it before the default loading
                if prefix + "lin.w" in state_dict:
                    state_dict[prefix + "lin.weight"] = state_dict.pop(prefix + "lin.w")
                log.append(("override", prefix, sorted(state_dict)))
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                              unexpected_keys, error_msgs)

        outer = nn.Sequential(Old())
        outer[0]._register_state_dict_hook(lambda mod, sd, prefix, meta: log.append(("sd_hook", prefix,
                                                                                        sorted(sd))))
        outer[0].lin._register_load_state_dict_pre_hook(
            lambda sd, prefix, meta, strict, missing, unexpected, errors: log.append(("pre", prefix, strict)))
        outer.register_load_state_dict_post_hook(lambda mod, keys: log.append(("post", list(keys.missing_keys))))
        sd = outer.state_dict()
        log.append(list(sd))
        sd["0.lin.w"] = sd.pop("0.lin.weight")
        result = outer.load_state_dict(sd)
        log.append(repr(result))
        del sd["0.lin.bias"]
        sd["0.extra"] = T.ones(1)
        r = outer.load_state_dict(sd, strict=False)
        log.append((r.missing_keys, r.unexpected_keys))
        try:
            outer.load_state_dict(sd)
        except RuntimeError as e:
            log.append(str(e).replace("torch", "X").replace("ember", "X"))
        return log

    both(scenario)


def test_extra_state_round_trip():
    def scenario(T):
        class WithExtra(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.counter = 3

            def get_extra_state(self):
                return {"counter": self.counter}

            def set_extra_state(self, state):
                self.counter = state["counter"]

        a, b = WithExtra(), WithExtra()
        b.counter = 0
        sd = a.state_dict()
        b.load_state_dict(sd)
        return [list(sd), b.counter]

    both(scenario)


def test_get_submodule_parameter_buffer():
    def scenario(T):
        nn = T.nn
        net = nn.Sequential(OrderedDict([("block", nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))]))
        log = [type(net.get_submodule("block.1")).__name__, tuple(net.get_parameter("block.0.bias").shape),
               tuple(net.get_buffer("block.1.running_mean").shape)]
        for call in (lambda: net.get_submodule("block.9"), lambda: net.get_submodule("block.0.weight"),
                     lambda: net.get_parameter("block.1.running_mean"), lambda: net.get_buffer("block.0.weight"),
                     lambda: net.get_parameter("block.0.nothing")):
            try:
                call()
            except AttributeError as e:
                log.append(str(e))
        return log

    both(scenario)


def test_to_empty_requires_grad_zero_grad_apply_casts():
    def scenario(T):
        nn = T.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
        w = m[0].weight
        m.to_empty(device="cpu")
        log = [m[0].weight is w, tuple(m[0].weight.shape), m[1].running_mean.dtype == T.float32]
        m.requires_grad_(False)
        log.append([p.requires_grad for p in m.parameters()])
        m.requires_grad_()
        m(T.ones(3, 2)).sum().backward()
        m.zero_grad()
        log.append([None if p.grad is None else p.grad.abs().sum().item() for p in m.parameters()])
        m.zero_grad(set_to_none=True)
        log.append([p.grad is None for p in m.parameters()])
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        log.append(seen)
        for cast, name in ((m.double, "float64"), (m.half, "float16"), (m.bfloat16, "bfloat16"),
                           (m.float, "float32")):
            cast()
            log.append((name, str(m[0].weight.dtype).split(".")[1], str(m[1].num_batches_tracked.dtype)
                        .split(".")[1]))
        m.register_module("extra", nn.ReLU())
        log.append(list(dict(m.named_children())))
        try:
            m.to_empty("cpu")
        except TypeError:
            log.append("to_empty takes device by keyword")
        return log

    both(scenario)
