#pragma once
// The IR verifier, run after building or parsing a graph and between passes.
#include "ember/jit/ir/Graph.h"

namespace ember::jit {

/// Checks a graph's invariants and raises RuntimeError "verify: <problem>" naming the offending node by its
/// printed line ("in: %3 : Tensor = aten::add(%1, %2)") on the first violation:
/// - structure: block lists are linked both ways, in increasing order, each node's block and each block's
///   owner agree, Param/Return nodes only at block ends;
/// - use-lists (Note [use lists]): each input is recorded once in its value's uses, each use points back at
///   that input, each value's node and offset agree with the node's outputs;
/// - SSA dominance: every use is dominated by the definition: defined earlier in the same block or in an
///   enclosing one (block inputs dominate their block), never in a sibling or nested block;
/// - constants: a prim::Constant has no inputs, one output, and a `value` of the kind its type needs
///   (int/bool: i with bool 0 or 1, float: f, str: s, Device: s naming a device, int[]/bool[]: is, float[]:
///   fs, str[]: ss, Tensor: t holding data) or none for NoneType;
/// - op nodes: the op exists and an overload accepts the inputs (count and types, Note [schema matching]),
///   with as many outputs as the schema has returns, each of a type the return fits (a refined Tensor for
///   Tensor, int or float for Scalar);
/// - primitives: prim::If takes one bool and has two parameterless blocks each returning one value per
///   output; prim::Loop takes (int, bool, carried...) and has one block with inputs (int, carried...) and
///   outputs (bool, carried...), one node output per carried value; ListConstruct/ListUnpack,
///   TupleConstruct/TupleUnpack, DictConstruct and GetAttr have inputs and outputs of fitting types and count.
void verify(const Graph& g);

}  // namespace ember::jit
