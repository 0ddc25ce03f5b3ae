"""ember.jit: capture a model as a graph, as PyTorch's ``torch.jit.trace``.

``ember.jit.trace(fn_or_module, example_inputs)`` runs the example inputs once with the tracer on (the Tracer
dispatch key: every op call is recorded into a graph, C++ ``ember/jit/frontend``) and returns a traced module
(``TracedModule``) or function (``TracedFunction``) whose ``forward`` runs the graph. Module parameters and
buffers stay attributes of the traced module (the graph reads them with ``prim::GetAttr`` from ``%self``).
Traced modules run on the C++ runtime (ember/jit/runtime); ``ember.jit.save(m, path)`` writes one file that
``ember.jit.load`` (or C++ ``ember::jit::load``) reads back as a RecursiveScriptModule. ``ember.jit.script(fn)``
compiles a function's source with Ember's TorchScript compiler (C++, _script.py). The annotations of
TorchScript code (``ignore``, ``unused``, ``export``, ``annotate``, ``Final``, ``isinstance``, ``fork``/``wait``, ...)
have their eager meaning (_annotations.py).
"""
from ._module import RecursiveScriptModule, ScriptFunction, ScriptModule, TracedFunction, TracedModule
from ._freeze import freeze, optimize_for_inference
from ._serialization import load, save
from ._trace import TracerWarning, TracingCheckError, is_tracing, trace, trace_module
from ._script import ScriptedFunction, script
from ._annotations import *  # noqa: F401,F403  (ignore, unused, export, annotate, is_scripting, fork, wait, ...)
from ._annotations import __all__ as _annotations_all

__all__ = ["trace", "trace_module", "script", "ScriptedFunction",
           "save", "load", "freeze", "optimize_for_inference", "TracedModule",
           "TracedFunction", "ScriptModule", "RecursiveScriptModule", "ScriptFunction",
           "TracerWarning", "TracingCheckError", "is_tracing"] + _annotations_all
