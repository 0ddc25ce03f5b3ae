#pragma once
// Interned qualified names ("aten::add", "prim::Constant") used as the kinds of IR nodes.
//
// Note [node kinds]
// A node's kind is a Symbol "ns::name". Namespace `prim` holds the IR's own primitives (constants, lists,
// tuples, control flow, attribute access); every other namespace names operators of the dispatcher's table:
// built-in ops are registered under `aten` with PyTorch's names (DESIGN.md), so `aten::conv2d` in a graph is
// exactly the dispatcher's `aten::conv2d` and no renaming is needed; custom ops keep their own namespace
// (`myops::fused_act`). A kind carries no overload name, as in TorchScript: the overload is chosen from the
// input types when the node's schema is first asked for (Note [schema matching] in Graph.h).
//
// Symbols compare by id. The built-in primitives have fixed ids (constexpr, usable in static initializers);
// other names are interned on first use in a process-wide table (thread-safe).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ember::jit {

// The built-in primitives, X(name). Param and Return are the pseudo-nodes that hold a block's inputs and
// outputs (Note [block params and returns] in Graph.h).
#define EMBER_JIT_FORALL_PRIMS(X)                                                                          \
  X(Param) X(Return) X(Constant) X(ListConstruct) X(ListUnpack) X(TupleConstruct) X(TupleUnpack)           \
  X(TupleIndex) X(DictConstruct) X(GetAttr) X(SetAttr) X(If) X(Loop) X(CallMethod) X(CallFunction)         \
  X(Uninitialized) X(RaiseException) X(Print) X(unchecked_cast)

/// An interned "namespace::name". The default Symbol is the empty, invalid one.
class Symbol {
 public:
  constexpr Symbol() = default;
  /// Interns "ns::name". Errors: no "::", or an empty namespace or name (RuntimeError quoting the text).
  static Symbol from_qual_string(std::string_view qual);
  /// Interns "prim::<name>" / "aten::<name>".
  static Symbol prim(std::string_view name) { return from_ns("prim", name); }
  static Symbol aten(std::string_view name) { return from_ns("aten", name); }
  static Symbol from_ns(std::string_view ns, std::string_view name);

  /// "aten::add".
  std::string_view qual_string() const;
  /// "aten".
  std::string_view ns() const;
  /// "add".
  std::string_view name() const;
  bool is_prim() const { return ns() == "prim"; }
  bool valid() const { return id_ != 0; }
  uint32_t id() const { return id_; }

  constexpr bool operator==(const Symbol& o) const { return id_ == o.id_; }
  constexpr bool operator!=(const Symbol& o) const { return id_ != o.id_; }

  /// The Symbol with a given id (the built-ins' constexpr constants use it).
  static constexpr Symbol from_id(uint32_t id) {
    Symbol s;
    s.id_ = id;
    return s;
  }

 private:
  uint32_t id_ = 0;
};

namespace detail {
enum class BuiltinSymbol : uint32_t {
  Invalid = 0,
#define EMBER_JIT_PRIM_ENUM(n) prim_##n,
  EMBER_JIT_FORALL_PRIMS(EMBER_JIT_PRIM_ENUM)
#undef EMBER_JIT_PRIM_ENUM
  NumBuiltins
};
}  // namespace detail

/// prim::Constant, prim::If, ... as constants.
namespace prim {
#define EMBER_JIT_PRIM_CONST(n) \
  inline constexpr Symbol n = Symbol::from_id(static_cast<uint32_t>(detail::BuiltinSymbol::prim_##n));
EMBER_JIT_FORALL_PRIMS(EMBER_JIT_PRIM_CONST)
#undef EMBER_JIT_PRIM_CONST
}  // namespace prim

}  // namespace ember::jit

template <>
struct std::hash<ember::jit::Symbol> {
  size_t operator()(ember::jit::Symbol s) const noexcept { return std::hash<uint32_t>()(s.id()); }
};
