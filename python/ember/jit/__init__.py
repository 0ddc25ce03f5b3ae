"""ember.jit: capture a model as a graph, as PyTorch's ``torch.jit.trace``.

``ember.jit.trace(fn_or_module, example_inputs)`` runs the example inputs once with the tracer on (the Tracer
dispatch key: every op call is recorded into a graph, C++ ``ember/jit/frontend``) and returns a traced module
(``TracedModule``) or function (``TracedFunction``) whose ``forward`` runs the graph. Module parameters and
buffers stay attributes of the traced module (the graph reads them with ``prim::GetAttr`` from ``%self``).
Traced modules run on the C++ runtime (ember/jit/runtime); ``ember.jit.save(m, path)`` writes one file that
``ember.jit.load`` (or C++ ``ember::jit::load``) reads back as a RecursiveScriptModule.
"""
from ._module import RecursiveScriptModule, ScriptFunction, ScriptModule, TracedFunction, TracedModule
from ._freeze import freeze, optimize_for_inference
from ._serialization import load, save
from ._trace import TracerWarning, TracingCheckError, is_tracing, trace, trace_module

__all__ = ["trace", "trace_module", "save", "load", "freeze", "optimize_for_inference", "TracedModule",
           "TracedFunction", "ScriptModule", "RecursiveScriptModule", "ScriptFunction",
           "TracerWarning", "TracingCheckError", "is_tracing"]
