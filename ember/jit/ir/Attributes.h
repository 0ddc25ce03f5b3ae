#pragma once
// Named attributes of IR nodes: prim::Constant's `value`, prim::GetAttr's `name`, ...
//
// Note [attribute kinds]
// As in TorchScript, an attribute is one of a few kinds: int (i), float (f), string (s), int list (is),
// float list (fs), string list (ss) and tensor (t). Bools are int attributes (0/1) and devices are string
// attributes; the node's output type tells them apart (a prim::Constant of type bool with value=1 is True;
// of type Device with value="cpu" is the CPU device), which is also how the text form prints them.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember::jit {

enum class AttributeKind : uint8_t { i, f, s, is, fs, ss, t };

/// The short kind name ("i", "is", ...), for error messages.
const char* attribute_kind_name(AttributeKind k);

/// One attribute: a name and a value of one of the kinds of Note [attribute kinds].
struct Attribute {
  using Value = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                             std::vector<std::string>, Tensor>;
  std::string name;
  Value value;
  /// The kind, from the variant's index (declared in AttributeKind's order).
  AttributeKind kind() const { return static_cast<AttributeKind>(value.index()); }
};

}  // namespace ember::jit
