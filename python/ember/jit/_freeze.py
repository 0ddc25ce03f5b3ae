"""ember.jit.freeze and ember.jit.optimize_for_inference, as torch.jit's, over the C++ passes
(ember/jit/passes/Passes.h: freeze(), optimize_for_inference())."""
from .. import _C
from ._module import ScriptModule, _loaded


def _check(mod, what):
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("{} expects a ScriptModule as input. Please use ember.jit.trace (or ember.jit.load) to "
                           "make a script module of your 'nn.Module'.".format(what))
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A frozen copy of the script module mod, in eval mode: its parameters, buffers and attributes become
    constants of the graph (copies: later changes to mod do not reach it), submodule calls are inlined, and
    (optimize_numerics) the frozen-graph optimisations run (Conv/Linear + BatchNorm folding, constant propagation,
    peephole, common subexpressions, dead code). The result has no parameters but the preserved ones; forward takes
    the same arguments. preserved_attrs: names of methods to keep besides forward, and of attributes to keep as
    attributes ("weight", or a submodule's: "fc.weight"; the frozen module shares those tensors with mod, as
    torch's does, Note [preserved attributes] in ember/jit/passes/Freeze.cpp). Raises RuntimeError for a module
    that is not a script module or is in training mode, or a preserved name that is neither a method nor an
    attribute (as PyTorch's)."""
    _check(mod, "Freezing")
    methods, attrs = ["forward"], []
    for name in preserved_attrs or []:
        if mod._c.has_method(name):
            if name not in methods:
                methods.append(name)
        elif name not in attrs:
            attrs.append(name)
    c = _C._jit_freeze(mod._c, methods, attrs, bool(optimize_numerics))
    return _loaded(c, {k: v for k, v in mod._specs.items() if k in methods})


def optimize_for_inference(mod, other_methods=None):
    """freeze(mod) (unless already frozen) followed by the frozen-graph optimisations, as
    torch.jit.optimize_for_inference (which also converts to MKL-DNN layouts: Ember has no such layouts, so
    the graph keeps plain ops). Raises as freeze."""
    if other_methods:
        raise RuntimeError("ember.jit.optimize_for_inference: other_methods is not supported")
    _check(mod, "optimize_for_inference")
    c = _C._jit_optimize_for_inference(mod._c)
    return _loaded(c, dict(mod._specs))
