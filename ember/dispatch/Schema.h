#pragma once
// Operator schemas in PyTorch's grammar, e.g.
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
//   max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
// Parsed once at registration; a malformed schema raises an Error naming the column.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/dispatch/IValue.h"

namespace ember {

/// The type of a schema argument or return.
// Note [schema type depth]
// A type is a chain of list and optional suffixes around a base type (Tensor?[]); PyTorch's schemas nest at most
// two. The parser refuses more than kMaxSchemaTypeDepth, so a hostile schema ("Tensor" and a million "[]")
// cannot build a chain whose printing or recursive destruction would overflow the stack.
inline constexpr int kMaxSchemaTypeDepth = 16;
/// The largest fixed list size a schema type may state (int[N]); PyTorch's schemas use at most 6. A default of
/// such a list may be one int that broadcasts to N copies (int[2] stride=1), so N bounds what parsing allocates.
inline constexpr int64_t kMaxSchemaFixedSize = 64;

struct SchemaType {
  enum class Kind : uint8_t {
    Tensor, Int, Float, Bool, Str, Scalar, ScalarType, Device, Generator, Layout, MemoryFormat, List, Optional,
    Any
  };
  Kind kind = Kind::Tensor;
  std::shared_ptr<const SchemaType> elem;  // for List and Optional
  int64_t fixed_size = -1;                 // int[2]: a list of this length (a single int broadcasts)

  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_optional() const { return kind == Kind::Optional; }
  /// The schema spelling: "Tensor", "int[2]", "Tensor?", "ScalarType?", "Tensor[]".
  std::string str() const;
};

/// Alias annotation of a Tensor argument: `Tensor(a)` (aliases set a), `Tensor(a!)` (also writes it) or
/// `Tensor(a -> *)` (set a flows into the wildcard set: results such as split's list of views alias it).
struct AliasInfo {
  std::string set;
  bool is_write = false;
  bool to_wildcard = false;
};

struct SchemaArgument {
  std::string name;
  SchemaType type;
  std::optional<IValue> default_value;
  bool kwarg_only = false;
  std::optional<AliasInfo> alias;
};

/// A parsed operator schema. name is "ns::op"; overload may be empty.
struct FunctionSchema {
  std::string name;
  std::string overload;
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaArgument> returns;

  /// "ns::op.overload" (or "ns::op" without an overload).
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
  /// The op name without namespace: "add".
  std::string_view base_name() const;
  /// True when some argument carries a write annotation (in-place or out= ops).
  bool is_mutable() const;
  /// The schema text (parses back to an equal schema).
  std::string str() const;
};

/// Parses a schema. default_ns is used when the name has no "ns::" prefix. Errors: RuntimeError
/// "schema: ... at column C in '<text>'" for malformed text.
FunctionSchema parse_schema(std::string_view text, std::string_view default_ns = "aten");

}  // namespace ember
