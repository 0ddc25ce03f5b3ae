// The TorchScript syntax tree and its canonical printed form (Note [TorchScript AST]).
#include "ember/jit/frontend/Tree.h"

#include <algorithm>

#include <fmt/format.h>

namespace ember::jit::script {

const char* tree_kind_name(TreeKind kind) {
  switch (kind) {
#define EMBER_SCRIPT_X(e, s) \
  case TreeKind::e: return s;
    EMBER_SCRIPT_TREE_KINDS(EMBER_SCRIPT_X)
#undef EMBER_SCRIPT_X
  }
  return "?";
}

Tree& Tree::add(TreePtr child) {
  if (child) height = std::max<uint32_t>(height, child->height + 1);
  children.push_back(std::move(child));
  return *this;
}

namespace {

bool is_block(TreeKind k) { return k == TreeKind::Module || k == TreeKind::Body || k == TreeKind::OrElse; }

void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  out += '"';
}

// Python's repr() of a float: the shortest text that reads back to the same double (fmt's default, which
// follows Python's rules for switching to exponents), with ".0" when that text is an integer.
std::string float_repr(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_not_of("-0123456789") == std::string::npos) s += ".0";
  return s;
}

void print(std::string& out, const Tree& t, size_t indent) {
  out += '(';
  out += tree_kind_name(t.kind);
  switch (t.kind) {
    case TreeKind::Int: out += fmt::format(" {}", t.int_value); break;
    case TreeKind::Float: out += ' ' + float_repr(t.float_value); break;
    case TreeKind::Str:
    case TreeKind::TypeComment:
      out += ' ';
      append_quoted(out, t.text);
      break;
    default:
      if (!t.text.empty()) out += ' ' + t.text;
  }
  bool block = is_block(t.kind);
  for (const TreePtr& c : t.children) {
    if (block) {
      out += '\n';
      out.append(indent + 2, ' ');
    } else {
      out += ' ';
    }
    if (c) print(out, *c, block ? indent + 2 : indent);
    else out += '-';
  }
  out += ')';
}

}  // namespace

std::string to_sexpr(const Tree& tree) {
  std::string out;
  print(out, tree, 0);
  return out;
}

}  // namespace ember::jit::script
