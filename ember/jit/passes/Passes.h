#pragma once
// Graph passes (issue 6): dead code and common subexpression elimination, constant propagation, peephole
// simplifications, inlining of submodule calls, freezing, Conv2d/Linear + BatchNorm folding, and the
// inference pipeline that chains them. Every pass keeps the graph valid (Verifier.h) and changes nothing the
// graph computes; each is a no-op on a graph that offers it nothing to do.
//
// Note [what passes may assume]
// The passes reason only from the IR: node kinds, operator schemas (their alias annotations `Tensor(a)` /
// `Tensor(a!)`), value types and constants. An op whose schema writes an argument (`Tensor(a!)`: in-place and
// out= ops), prim::SetAttr, prim::RaiseException, method/function calls and ops that draw random numbers are
// effects that are never removed, duplicated or merged (Note [side effects] in Analysis.h), and values that
// may alias a written tensor are never folded or merged (Note [alias classes] in Analysis.h).
#include <memory>
#include <string>
#include <vector>

#include "ember/jit/ir/Graph.h"
#include "ember/jit/runtime/Module.h"

namespace ember::jit {

/// Removes nodes whose outputs are all unused and that have no side effects (Note [side effects]), from the
/// innermost blocks out; unused outputs of prim::If and unused carried values of prim::Loop are removed too.
/// Graph inputs and outputs are kept. Returns whether anything changed.
bool eliminate_dead_code(std::shared_ptr<Graph>& graph);

/// Replaces a node by an earlier node of the same kind, inputs, attributes and output types that dominates
/// it (defined earlier in its block or an enclosing one). Nodes with blocks, side effects or random draws,
/// and nodes touching tensors that may be written in place, are never merged. Returns whether anything changed.
bool eliminate_common_subexpression(std::shared_ptr<Graph>& graph);

/// Evaluates op nodes whose inputs are all constants (deterministic, no side effects, no value that may be
/// written in place) through the dispatcher and replaces them with prim::Constant; folds prim::ListConstruct
/// of constants into a list constant, prim::If on a constant condition into the taken branch, and prim::Loop
/// that runs zero times. A node whose evaluation raises is left for run time (the error shows there). Returns
/// whether anything changed.
bool propagate_constants(std::shared_ptr<Graph>& graph);

/// Local rewrites that are exact for every input (Note [peephole rules] in Peephole.cpp):
/// TupleConstruct -> TupleUnpack / TupleIndex and ListConstruct -> ListUnpack forward the elements;
/// x - 0, x * 1, x / 1 (and x + 0 for integer x) become x where x's dtype is known and the scalar cannot
/// change it; dropout(x, p, train=False) becomes x. Returns whether anything changed.
bool peephole_optimize(std::shared_ptr<Graph>& graph);

/// Inlines every prim::CallMethod on a submodule of `self` (the module whose method `graph` is; its first
/// input is %self): the callee's graph (recursively inlined) replaces the call, its %self being the caller's
/// value for the submodule, so the callee's attribute reads become prim::GetAttr chains from the caller's
/// %self. Errors: a call on a module object not reached from %self by prim::GetAttr; a missing method.
/// Returns whether anything changed.
bool inline_method_calls(std::shared_ptr<Graph>& graph, const Module& self);

/// Options of freeze().
struct FreezeOptions {
  /// Methods to keep (each frozen); the frozen module has only these.
  std::vector<std::string> preserved_methods{"forward"};
  /// Attributes to keep as attributes (torch.jit.freeze's preserved_attrs that are not methods): "weight", or a
  /// submodule's by its dotted path, "fc.weight". Reads of them stay prim::GetAttr, and the frozen module holds
  /// the original's tensors, not copies (as torch's), so changing them changes what the frozen module computes.
  std::vector<std::string> preserved_attrs;
  /// Run the optimisations of optimize_frozen_graph() after freezing (torch.jit.freeze's default).
  bool optimize = true;
};

/// Freezes a module for inference, as torch.jit.freeze: each preserved method gets its submodule calls
/// inlined, reads of parameters, buffers and plain attributes (prim::GetAttr) become constants (copies of the
/// tensors, so later changes to the original do not reach the frozen module), reads of `training` become
/// False, and the graph is cleaned up (propagate_constants, peephole_optimize, eliminate_dead_code, then
/// optimize_frozen_graph() when options.optimize). Returns a new module (of a class with the same name)
/// holding the frozen methods and only the attributes they still read (an attribute the graph writes in
/// place stays an attribute, Note [freezing mutated attributes] in Freeze.cpp). The input module is not
/// changed. Errors: the module (or a submodule) is in training mode ("call eval() first"); a preserved
/// method or attribute that does not exist.
Module freeze(const Module& module, const FreezeOptions& options = {});

/// Folds aten::batch_norm in eval form (training=False, constant running stats, weight and bias constant or
/// None) into the aten::conv2d or aten::linear whose result it alone consumes, when that op's weight and bias
/// are constants (Note [batch norm folding] in FoldBatchNorm.cpp). Returns whether anything changed.
bool fold_batch_norm(std::shared_ptr<Graph>& graph);

/// Options of the pipelines below.
struct PipelineOptions {
  /// Run the verifier after every pass (a pass that breaks the graph then fails naming the pass).
  bool verify = true;
};

/// The passes for a frozen graph, in order: fold_batch_norm, propagate_constants, peephole_optimize,
/// eliminate_common_subexpression, eliminate_dead_code, verifying after each (options.verify).
void optimize_frozen_graph(std::shared_ptr<Graph>& graph, const PipelineOptions& options = {});

/// Fuses groups of two or more elementwise nodes (add/sub with alpha 1, mul, div, maximum, minimum and the
/// unary ops of Note [fused elementwise programs]) whose intermediate results are used only inside the group
/// and whose tensors are all known to be float32, or all float64, into one aten::_fused_elementwise node that
/// makes one pass over memory. Nodes of unknown dtype are left as they are. For inference graphs: the fused op
/// has no derivative. Returns whether anything changed. See Note [elementwise fusion] in FuseElementwise.cpp.
bool fuse_elementwise(std::shared_ptr<Graph>& graph);

/// torch.jit.optimize_for_inference: freeze (the module must be in eval mode), optimize_frozen_graph, then
/// fuse_elementwise (the fused op has no derivative, so only this inference pipeline fuses, not freeze()).
Module optimize_for_inference(const Module& module, const PipelineOptions& options = {});

}  // namespace ember::jit
