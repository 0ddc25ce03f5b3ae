"""ember.jit: capture a model as a graph, as PyTorch's ``torch.jit.trace``.

``ember.jit.trace(fn_or_module, example_inputs)`` runs the example inputs once with the tracer on (the Tracer
dispatch key: every op call is recorded into a graph, C++ ``ember/jit/frontend``) and returns a traced module
(``TracedModule``) or function (``TracedFunction``) whose ``forward`` runs the graph. Module parameters and
buffers stay attributes of the traced module (the graph reads them with ``prim::GetAttr`` from ``%self``).
"""
from ._module import ScriptFunction, ScriptModule, TracedFunction, TracedModule
from ._trace import TracerWarning, TracingCheckError, is_tracing, trace, trace_module

__all__ = ["trace", "trace_module", "TracedModule", "TracedFunction", "ScriptModule", "ScriptFunction",
           "TracerWarning", "TracingCheckError", "is_tracing"]
