#pragma once
// The text form of graphs, as TorchScript prints them:
//
//   graph(%self : __torch__.Net,
//         %x.1 : Tensor,
//         %flag : bool):
//     %2 : int = prim::Constant[value=1]()
//     %y.1 : Tensor = aten::add(%x.1, %x.1, %2)
//     %y : Tensor = prim::If(%flag)
//       block0():
//         %4 : Tensor = aten::neg(%y.1)
//         -> (%4)
//       block1():
//         -> (%y.1)
//     return (%y)
//
// Node lines are "outputs = kind[attributes](inputs)" (a node without outputs starts with " = "), nested
// blocks are indented by two more spaces under their node, values print as %<debug name> or %<unique number>.
// Attribute values: ints (bools as 0/1), floats (shortest text that reads back to the same double, always with
// a '.' or an exponent: 1., 2.5, 1e-05, inf, -inf, nan), double-quoted strings with C escapes (\" \\ \n \t \r,
// \xNN for other control bytes), lists of these ([1, 2], [1., 2.5], ["a"]), and tensors as <Tensor> (or
// <Tensor:k>, the index into a tensor table, see PrintOptions). IRParser.h reads this text back.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/jit/ir/Graph.h"

namespace ember::jit {

struct PrintOptions {
  /// When set, tensor attributes print as <Tensor:k> with k their index in this table (appended to), so
  /// that the text plus the table hold the whole graph (the archive stores the table beside the text).
  /// When null, they print as <Tensor> and their data is not part of the text.
  std::vector<Tensor>* tensor_table = nullptr;
};

/// The graph's text (ends with a newline).
std::string to_string(const Graph& g, const PrintOptions& options = {});
std::ostream& operator<<(std::ostream& os, const Graph& g);
/// One node's line without indentation or nested blocks (error messages, Node::str()).
std::string node_line(const Node* n);
/// A float in the text form (shortest round-trip digits, always marked as a float: "1.", "1e-05", "nan").
std::string format_float(double v);
/// A string literal with quotes and escapes: a"b -> "a\"b".
std::string quote_string(std::string_view s);

}  // namespace ember::jit
