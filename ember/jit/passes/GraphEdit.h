#pragma once
// Graph edits shared by the graph passes (Passes.h): copying a graph into another (inlining), naming values,
// verifying between passes.
#include <span>
#include <string>
#include <vector>

#include "ember/jit/ir/Graph.h"

namespace ember::jit::passes {

/// Names `v` after `name` when no other value of its graph has that name (names are graph-wide; taking a name
/// would rename its owner, Note [value names]).
void name_if_free(Value* v, const std::string& name);

/// Verifies the graph after a pass, prefixing errors with the pass's name.
void verify_after(const Graph& g, const char* pass);

/// Copies the nodes of `callee` (recursively, with their blocks) to g's insertion point, its inputs bound to
/// `inputs`; returns the values that correspond to callee's outputs. Debug names are kept where free in g.
/// Errors: inputs.size() differs from callee's input count.
std::vector<Value*> insert_graph_copy(Graph& g, const Graph& callee, std::span<Value* const> inputs);

}  // namespace ember::jit::passes
