#pragma once
// Graph passes (ember/jit/passes): each rewrites a graph in place and leaves it valid for the verifier.
#include <memory>

#include "ember/jit/ir/IR.h"

namespace ember::jit {

/// Fuses groups of two or more elementwise nodes (add/sub with alpha 1, mul, div, maximum, minimum and the
/// unary ops of Note [fused elementwise programs]) whose intermediate results are used only inside the group
/// and whose tensors are all known to be float32, or all float64, into one aten::_fused_elementwise node that
/// makes one pass over memory. Nodes of unknown dtype are left as they are. For inference graphs: the fused op
/// has no derivative. Returns whether anything changed. See Note [elementwise fusion] in FuseElementwise.cpp.
bool FuseElementwise(std::shared_ptr<Graph>& graph);

}  // namespace ember::jit
