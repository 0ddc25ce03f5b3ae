#include "ember/jit/ir/IRPrinter.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace ember::jit {

std::string format_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);  // shortest text that parses back to v
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".";  // TorchScript's "3." marks a float
  return s;
}

std::string quote_string(std::string_view s) {
  std::string r = "\"";
  for (char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      case '\r': r += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          r += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else
          r += c;
    }
  }
  return r + "\"";
}

namespace {

class Printer {
 public:
  explicit Printer(const PrintOptions& o) : opts_(o) {}

  std::string value(const Value* v) { return "%" + v->display_name(); }

  std::string typed(const Value* v) { return value(v) + " : " + v->type()->str(); }

  template <class T, class F>
  static std::string join(const T& xs, F&& f) {
    std::string r;
    bool first = true;
    for (const auto& x : xs) {
      if (!first) r += ", ";
      first = false;
      r += f(x);
    }
    return r;
  }

  std::string attribute_value(const Attribute& a) {
    switch (a.kind()) {
      case AttributeKind::i: return std::to_string(std::get<int64_t>(a.value));
      case AttributeKind::f: return format_float(std::get<double>(a.value));
      case AttributeKind::s: return quote_string(std::get<std::string>(a.value));
      case AttributeKind::is:
        return "[" + join(std::get<std::vector<int64_t>>(a.value), [](int64_t i) { return std::to_string(i); }) + "]";
      case AttributeKind::fs: return "[" + join(std::get<std::vector<double>>(a.value), format_float) + "]";
      case AttributeKind::ss:
        return "[" + join(std::get<std::vector<std::string>>(a.value), [](const std::string& s) {
                 return quote_string(s);
               }) + "]";
      case AttributeKind::t:
        if (!opts_.tensor_table) return "<Tensor>";
        opts_.tensor_table->push_back(std::get<Tensor>(a.value));
        return "<Tensor:" + std::to_string(opts_.tensor_table->size() - 1) + ">";
    }
    return "?";
  }

  std::string line(const Node* n) {
    std::string r = join(n->outputs(), [&](const Value* v) { return typed(v); });
    r += " = ";
    r += n->kind().qual_string();
    if (!n->attributes().empty()) {
      r += "[" + join(n->attributes(), [&](const Attribute& a) { return a.name + "=" + attribute_value(a); }) + "]";
    }
    r += "(" + join(n->inputs(), [&](const Value* v) { return value(v); }) + ")";
    return r;
  }

  void block(std::string& out, const Block* b, int indent) {
    std::string pad(static_cast<size_t>(indent), ' ');
    for (const Node* n : b->nodes()) {
      out += pad + line(n) + "\n";
      for (size_t i = 0; i < n->blocks().size(); ++i) {
        const Block* sub = n->blocks()[i];
        out += pad + "  block" + std::to_string(i) + "(" +
               join(sub->inputs(), [&](const Value* v) { return typed(v); }) + "):\n";
        block(out, sub, indent + 4);
        out += pad + "    -> (" + join(sub->outputs(), [&](const Value* v) { return value(v); }) + ")\n";
      }
    }
  }

  std::string graph(const Graph& g) {
    std::string out = "graph(";
    bool first = true;
    for (const Value* v : g.inputs()) {
      if (!first) out += ",\n      ";
      first = false;
      out += typed(v);
    }
    out += "):\n";
    block(out, g.block(), 2);
    out += "  return (" + join(g.outputs(), [&](const Value* v) { return value(v); }) + ")\n";
    return out;
  }

 private:
  PrintOptions opts_;
};

}  // namespace

std::string to_string(const Graph& g, const PrintOptions& options) { return Printer(options).graph(g); }

std::ostream& operator<<(std::ostream& os, const Graph& g) { return os << to_string(g); }

std::string node_line(const Node* n) { return Printer(PrintOptions{}).line(n); }

}  // namespace ember::jit
