#pragma once
// Reads the text form of IRPrinter.h back into a Graph; print(parse(print(g))) == print(g).
//
// Note [parsing value names]
// Value names are kept: %x.1 becomes the debug name "x.1" and %7 (a value without debug name) gets unique
// number 7, so a parsed graph prints with the same names (fresh values created later are numbered above every
// number of the text). Values must be defined before they are used in the text; a definition inside a block
// is visible by name afterwards, which the parser allows and the verifier (Verifier.h) rejects as a
// dominance error. Comments from '#' to the end of a line (TorchScript's source locations) are skipped.
//
// Note [parsing TorchScript text]
// The parser also reads the graphs PyTorch 1.13 prints (torch.jit.script(m).graph, traced graphs), so real
// TorchScript dumps can be loaded and compared: source comments are skipped, as are the ", scope: ..." suffix
// of traced node lines and the strides=, requires_grad= and device= parts of tensor types
// ("Float(1, 3, strides=[3, 1], requires_grad=0, device=cpu)" reads as Float(1, 3)). Such text reprints in
// Ember's own form, without those parts.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/jit/ir/Graph.h"

namespace ember::jit {

struct ParseOptions {
  /// Resolves <Tensor:k> attributes (see PrintOptions::tensor_table). Without it, <Tensor:k> is an error and
  /// <Tensor> gives an undefined tensor (a placeholder the verifier rejects).
  const std::vector<Tensor>* tensor_table = nullptr;
  /// Class types by name, for the types of module objects (__torch__.Net): names found here resolve to these
  /// types; others are created (and added here when the map is given).
  std::unordered_map<std::string, std::shared_ptr<ClassType>>* class_types = nullptr;
};

/// Parses graph text. Errors: malformed text raises RuntimeError "IR parse error at line L, column C:
/// expected <what> but found <token>" followed by the line and a caret under the column; also undefined or
/// redefined values, unknown types and a <Tensor:k> outside the tensor table, each at their position.
std::shared_ptr<Graph> parse_ir(std::string_view text, const ParseOptions& options = {});

}  // namespace ember::jit
