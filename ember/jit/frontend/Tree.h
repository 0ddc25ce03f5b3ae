#pragma once
// The syntax tree of TorchScript source, as the parser (Parser.h) builds it, and its canonical printed form.
// See Note [TorchScript AST].
//
// Note [TorchScript AST]
// One node type, Tree: a kind, a source range, an optional atom (`text`: a name, an operator, a string's value;
// or a number) and children in a fixed layout per kind. An optional child that is absent is a null pointer.
// The layouts (children in order; `?` optional, `...` any number; blocks hold statements):
//
//   module: stmts...                          body, orelse: stmts... (blocks)
//   def <name>: decorators params returns? typecomment? body
//   decorators, bases, args, targets: exprs... params: (param|kwparam)...   param, kwparam <name>: annotation? default?
//   class <name>: decorators bases body       typecomment "<text>"
//   assign: targets value typecomment?        annassign: target annotation value?     augassign <op>: target value
//   expr: value      if: test body orelse     while: test body      for: target iter body
//   with: withitem... body                    withitem: context_expr optional_vars?
//   break, continue, pass                     return: value?   raise: exception?   assert: test msg?
//   delete: targets...
//
//   name <id>   int <n>   float <x>   str "<value>"   const True|False|None|...
//   attr <name>: value                        subscript: value index  (a multi-dim index is a tuple)
//   slice: lower? upper? step?                call: func args kwargs     kwargs: kw...    kw <name>: value
//   starred: value                            binop <op>: left right     unary <op>: operand  (op: - + ~ not)
//   boolop and|or: values...                  compare: left cmp...       cmp <op>: right  (op: < > == != <= >=
//   ifexp: test body orelse                                                                is is_not in not_in)
//   tuple, list: elts...   dict: item...      item: key value
//   listcomp: elt compfor...                  dictcomp: key value compfor...     compfor: target iter ifs...
//
// elif is an `if` alone in the enclosing orelse; adjacent string literals are one `str`; parentheses leave no
// node. These layouts follow Python's ast module (TorchScript is a subset of Python), so that a test can print
// Python's tree of the same source in the same form (tests/python/test_script_parser.py).
//
// The canonical form (to_sexpr) is `(<kind> [<atom>] <child>...)` with `-` for an absent child; a block prints
// one statement per line, indented two spaces deeper than the line of its parent. Atoms: names and operators
// as written, ints in decimal, floats as Python's repr() writes them, strings quoted with the escapes \\ \" \n
// \t and \xNN for other bytes below 0x20 and 0x7f (other bytes as they are, UTF-8).
//
// Every node records its height (1 + its highest child's), which the parser bounds (ScriptLimits::
// max_tree_height), so that every recursive walk of a tree — printing, destroying, compiling — is bounded.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/jit/frontend/SourceRange.h"

namespace ember::jit::script {

// X(enumerator, head): every kind and the head it prints as (Note [TorchScript AST]).
#define EMBER_SCRIPT_TREE_KINDS(X)                                                                            \
  X(Module, "module") X(Body, "body") X(OrElse, "orelse") X(Def, "def") X(Decorators, "decorators")          \
  X(Params, "params") X(Param, "param") X(KwParam, "kwparam") X(TypeComment, "typecomment") X(Class, "class") \
  X(Bases, "bases") X(Assign, "assign") X(Targets, "targets") X(AnnAssign, "annassign")                      \
  X(AugAssign, "augassign") X(ExprStmt, "expr") X(If, "if") X(While, "while") X(For, "for") X(With, "with")  \
  X(WithItem, "withitem") X(Break, "break") X(Continue, "continue") X(Pass, "pass") X(Return, "return")      \
  X(Raise, "raise") X(Assert, "assert") X(Delete, "delete") X(Name, "name") X(Int, "int") X(Float, "float")  \
  X(Str, "str") X(Const, "const") X(Attribute, "attr") X(Subscript, "subscript") X(Slice, "slice")           \
  X(Call, "call") X(Args, "args") X(Kwargs, "kwargs") X(Keyword, "kw") X(Starred, "starred")                 \
  X(BinOp, "binop") X(UnaryOp, "unary") X(BoolOp, "boolop") X(Compare, "compare") X(CompareOp, "cmp")        \
  X(IfExp, "ifexp") X(Tuple, "tuple") X(List, "list") X(Dict, "dict") X(DictItem, "item")                    \
  X(ListComp, "listcomp") X(DictComp, "dictcomp") X(CompFor, "compfor")

/// The kind of a syntax-tree node (Note [TorchScript AST] gives each kind's children).
enum class TreeKind : uint8_t {
#define EMBER_SCRIPT_X(e, s) e,
  EMBER_SCRIPT_TREE_KINDS(EMBER_SCRIPT_X)
#undef EMBER_SCRIPT_X
};

/// The head a kind prints as: "def", "binop", ...
const char* tree_kind_name(TreeKind kind);

struct Tree;
using TreePtr = std::unique_ptr<Tree>;

/// One node of the syntax tree (Note [TorchScript AST]).
struct Tree {
  Tree(TreeKind kind, SourceRange range) : kind(kind), range(std::move(range)) {}

  TreeKind kind;
  SourceRange range;
  /// The node's atom: a name, an operator, a string's value, a constant's spelling.
  std::string text;
  uint64_t int_value = 0;
  double float_value = 0.0;
  /// 1 + the highest child's height (1 for a leaf); kept by add().
  uint32_t height = 1;
  /// The children in the kind's layout; null for an absent optional child.
  std::vector<TreePtr> children;

  /// Appends a child (null: absent) and updates height.
  Tree& add(TreePtr child);
  /// Child i (null when absent).
  const Tree* child(size_t i) const { return children[i].get(); }
};

/// The canonical printed form of a tree (Note [TorchScript AST]), ending without a newline.
std::string to_sexpr(const Tree& tree);

}  // namespace ember::jit::script
