"""ember.jit.trace and trace_module: run example inputs with the tracer on and wrap the graph.

Note [trace checks]
As PyTorch's check_trace, after tracing the function is traced again on each check input set (the example
inputs by default, cloned) and the two graphs are compared with their tensor types erased: a difference
(a Python branch on tensor data, for example) raises TracingCheckError with a diff. Then the traced object
and the Python function run on the same check inputs and their outputs are compared (rtol and atol
check_tolerance): nondeterministic ops in the graph (dropout in training mode, random sampling) are named in a
TracerWarning, and differing outputs give a TracerWarning, as PyTorch's do (a trace may legitimately differ
in those cases).
"""
import difflib
import inspect
import warnings

from .. import _C
from .._tensor import Tensor
from ..autograd import no_grad
from ..nn.modules.module import Module
from ._module import TracedFunction, TracedModule, _traced, flatten


class TracerWarning(Warning):
    """A Python value derived from a traced tensor (item(), bool(), ...) or an unknown tensor: the trace treats
    it as a constant and may not generalize to other inputs."""


# As PyTorch's: the warnings are for the user's code. Ember's own layers read sizes and iterate over tensors
# knowingly (a shape check in nn, the time steps of an RNN), so warnings attributed to ember's modules other than
# the JIT itself are not shown.
warnings.filterwarnings("ignore", category=TracerWarning, module=r"ember\.(?!jit)")


class TracingCheckError(Exception):
    """check_trace found that tracing again gives another graph (Note [trace checks])."""

    def __init__(self, graph_diff_error, tensor_compare_error=None, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += tensor_compare_error
        super().__init__(self.message)


def is_tracing():
    """Whether this thread is tracing (code may take another path while traced)."""
    return _C._jit_is_tracing()


def _class_name(obj, used):
    cls = type(obj)
    name = "__torch__." + ".".join(
        "".join(c if c.isalnum() or c == "_" else "_" for c in part) or "_"
        for part in (cls.__module__ + "." + cls.__qualname__).split("."))
    n = used.get(name, 0)
    used[name] = n + 1
    return name if n == 0 else "{}.___torch_mangle_{}".format(name, n)


def _input_names(fn, count):
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i].name if i < len(params) else "input_{}".format(i) for i in range(count)]


def _check_outputs(out, strict):
    """As PyTorch's: under strict, a dict output raises and a list output warns (their structure is frozen)."""
    if strict and isinstance(out, (list, dict)):
        kind = "list" if isinstance(out, list) else "dict"
        msg = ("Encountering a {} at the output of the tracer might cause the trace to be incorrect, this is only "
               "valid if the container structure does not change based on the module's inputs. Consider using a "
               "constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` "
               "instead). If you absolutely need this and know the side effects, pass strict=False to trace() to "
               "allow this behavior.".format(kind))
        if kind == "dict":
            raise RuntimeError(msg)
        warnings.warn(msg, TracerWarning, stacklevel=4)


def _trace_graph(fn, args, module, strict):
    """Traces fn(*args) (fn is module's bound forward path when module is given); returns (graph, signature,
    class_names): signature is (input structure, argument names); class_names maps each module path ("" for
    the root, "features.0") to the class name the graph gives it."""
    if not isinstance(args, tuple):
        args = (args,)
    names = _input_names(module.forward if module is not None else fn, len(args))
    args = _distinct_inputs(args)
    state = _C._TracingState()
    tensors, flat_names = [], []
    spec = []
    for a, n in zip(args, names):
        t, fn_names, s = flatten(a, n)
        tensors += t
        flat_names += fn_names
        spec.append(s)
    for t, n in zip(tensors, flat_names):
        state.add_input(t, n)
    class_names = {}
    if module is not None:
        used = {}
        class_names[""] = _class_name(module, used)
        state.add_self(class_names[""])
        for path, sub in module.named_modules():
            if path:
                class_names[path] = _class_name(sub, used)
                state.register_submodule(path, class_names[path])
        for path, p in module.named_parameters(remove_duplicate=False):
            state.register_attribute(p, path)
        for path, b in module.named_buffers(remove_duplicate=False):
            if b is not None:
                state.register_attribute(b, path)
    scope = _C._TracingScope(state)
    try:
        out = fn(*args)
    finally:
        scope.close()
    _check_outputs(out, strict)
    state.register_output(out)
    state.finish()
    graph = state.graph
    return graph, (("tuple", tuple(spec)), tuple(names)), class_names


def _map_tensors(obj, fn):
    """obj with every tensor t of its (nested) tuples, lists and dicts replaced by fn(t)."""
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_map_tensors(e, fn) for e in obj)
    if isinstance(obj, dict):
        return {k: _map_tensors(v, fn) for k, v in obj.items()}
    return obj


def _clone(obj):
    """A deep copy of the tensors of a structure; a tensor that appears twice is cloned once."""
    memo = {}

    def clone(t):
        if id(t) not in memo:
            memo[id(t)] = t.clone()
        return memo[id(t)]

    return _map_tensors(obj, clone)


def _distinct_inputs(args):
    """args with a fresh alias (a view sharing the memory) for each repeated occurrence of a tensor, so that every
    graph input is its own value: tracing f(x, x) must give a graph of f(a, b), not of f(a, a)."""
    seen = set()

    def distinct(t):
        if id(t) in seen:
            return t.view_as(t)
        seen.add(id(t))
        return t

    return _map_tensors(args, distinct)


def _flat_outputs(out):
    return flatten(out, "output", "an output")[0]


def _close(a, b, tol):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    if a.dtype.is_floating_point:
        nan_a, nan_b = a.isnan(), b.isnan()
        if not bool((nan_a == nan_b).all()):
            return False
        diff = (a - b).abs().masked_fill(nan_a, 0)
        bound = (b.abs() * tol + tol).masked_fill(nan_a, 0)
        return bool((diff <= bound).all())
    return bool((a == b).all())


def _check_trace(fn, module, traced, check_inputs, tolerance, strict):
    """Note [trace checks]."""
    graph = traced.graph
    for inputs in check_inputs:
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        again = _trace_graph(fn, _clone(inputs), module, strict)[0]
        a, b = graph._erased_str(), again._erased_str()
        if a != b:
            diff = "\n".join("\t\t" + line.rstrip("\n") for line in difflib.ndiff(a.splitlines(), b.splitlines()))
            raise TracingCheckError("\tGraph diff:\n" + diff)
        kinds = graph._nondeterministic_nodes()
        if kinds:
            warnings.warn("Trace had nondeterministic nodes. Did you forget call .eval() on your model? Nodes:\n\t"
                          + "\n\t".join(kinds) + "\nThis may cause errors in trace checking. To disable trace "
                          "checking, pass check_trace=False to torch.jit.trace()", TracerWarning, stacklevel=4)
        with no_grad():
            traced_out = _flat_outputs(traced(*_clone(inputs)))
            eager_out = _flat_outputs(fn(*_clone(inputs)))
        for i, (x, y) in enumerate(zip(traced_out, eager_out)):
            if not _close(x, y, tolerance):
                warnings.warn("Output nr {}. of the traced function does not match the corresponding output of the "
                              "Python function.".format(i + 1), TracerWarning, stacklevel=4)
                break


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None):
    """Traces func (a function or a Module) on example_inputs (a tensor or a tuple of inputs: tensors, or
    tuples, lists and dicts of them) and returns a TracedFunction, or a TracedModule for a Module. Every op
    call is recorded; Python control flow and Python numbers taken from tensors are frozen at their example
    values (a TracerWarning names the line converting a tensor). check_trace re-traces on check_inputs (the
    example inputs by default) and compares (Note [trace checks]). strict=False allows list and dict
    outputs. Errors: inputs that are not tensors or containers of tensors (RuntimeError, as PyTorch's)."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect.", DeprecationWarning)
    if isinstance(func, Module):
        return trace_module(func, {"forward": example_inputs}, None, check_trace,
                            None if check_inputs is None else [{"forward": c} for c in check_inputs],
                            check_tolerance, strict)
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    graph, spec, _ = _trace_graph(func, example_inputs, None, strict)
    traced = TracedFunction(func, graph, spec)
    if check_trace:
        _check_trace(func, None, traced, check_inputs or [example_inputs], check_tolerance, strict)
    return traced


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None):
    """Traces the methods of mod named in inputs ({"forward": example_inputs}); returns a TracedModule
    (Note [traced module layout]). Only forward is supported so far. See trace for the other arguments."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    if set(inputs) != {"forward"}:
        raise NotImplementedError("ember.jit.trace_module traces forward only, got methods {}".format(
            sorted(inputs)))
    example = inputs["forward"]
    if not isinstance(example, tuple):
        example = (example,)
    graph, spec, class_names = _trace_graph(mod, example, mod, strict)
    c = TracedModule._build(mod, class_names)
    c.define_method("forward", graph)
    traced = _traced(mod, c, {"forward": spec})
    if check_trace:
        checks = [c["forward"] for c in check_inputs] if check_inputs else [example]
        _check_trace(mod, mod, traced, checks, check_tolerance, strict)
    return traced
