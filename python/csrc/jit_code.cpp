// A traced graph as readable Python-like source (ember.jit's `.code`), in the spirit of TorchScript's:
//
//   def forward(self,
//       x: Tensor) -> Tensor:
//     fc = self.fc
//     _0 = torch.linear(x, fc.weight, fc.bias)
//     return _0
//
// Constants are written in place (tensor constants as CONSTANTS.c<k>), single-use attribute reads are
// folded into their use, ops print as torch.<name> (other namespaces as ops.<ns>.<name>). The text is for
// reading; the graph (its IR text) is what runs and what gets saved.
#include <string>
#include <unordered_map>

#include "ember/jit/ir/IR.h"

namespace ember::python {

using namespace ember::jit;

namespace {

std::string py_name(const Value* v) {
  std::string n = v->display_name();
  for (char& c : n)
    if (c == '.') c = '_';
  if (!n.empty() && std::isdigit(static_cast<unsigned char>(n[0]))) n = "_" + n;
  return n;
}

std::string literal(const Value* v, int* tensor_constants) {
  std::optional<IValue> c = constant_value(v);
  const Type& t = *v->type();
  if (!c || c->is_none()) return "None";
  if (c->is_tensor()) return "CONSTANTS.c" + std::to_string((*tensor_constants)++);
  if (t.kind() == TypeKind::Bool) return c->to_bool() ? "True" : "False";
  if (c->is_double()) return format_float(c->to_double());
  if (c->is_string()) return quote_string(c->to_string());
  if (c->is_int_list() || c->is_list()) {
    std::string r = "[";
    std::vector<IValue> elems;
    if (c->is_int_list())
      for (int64_t e : c->to_int_list()) elems.emplace_back(e);
    else
      elems = c->to_list();
    for (size_t i = 0; i < elems.size(); ++i) {
      const IValue& e = elems[i];
      r += i ? ", " : "";
      r += e.is_bool() ? (e.to_bool() ? "True" : "False") : e.is_double() ? format_float(e.to_double()) : e.repr();
    }
    return r + "]";
  }
  return c->repr();
}

}  // namespace

/// The source text of g as a method `name` (Python-like, for reading).
std::string graph_code(const Graph& g, const std::string& name) {
  std::unordered_map<const Value*, std::string> expr;  // values written in place
  int tensor_constants = 0;
  std::string out = "def " + name + "(";
  auto in = g.block()->inputs();
  for (size_t i = 0; i < in.size(); ++i) {
    std::string n = in[i]->type()->kind() == TypeKind::Class ? "self" : py_name(in[i]);
    expr[in[i]] = n;
    out += (i ? ",\n    " : "") + n + (in[i]->type()->kind() == TypeKind::Class ? "" : ": Tensor");
  }
  out += "):\n";
  auto use = [&](const Value* v) { return expr.count(v) ? expr.at(v) : py_name(v); };
  for (const Node* n : g.nodes()) {
    Symbol k = n->kind();
    if (k == prim::Constant) {
      expr[n->output()] = literal(n->output(), &tensor_constants);
      continue;
    }
    std::vector<std::string> args;
    for (const Value* v : n->inputs()) args.push_back(use(v));
    auto join = [&](size_t from, size_t step = 1) {
      std::string r;
      for (size_t i = from; i < args.size(); i += step) r += (i > from ? ", " : "") + args[i];
      return r;
    };
    std::string rhs;
    if (k == prim::GetAttr) {
      const std::string& a = n->s("name");
      bool ident = !a.empty() && !std::isdigit(static_cast<unsigned char>(a[0])) &&
                   a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                       std::string::npos;
      rhs = ident ? args[0] + "." + a : "getattr(" + args[0] + ", " + quote_string(a) + ")";
      if (n->output()->uses().size() <= 1) {  // folded into its single use
        expr[n->output()] = rhs;
        continue;
      }
    } else if (k == prim::ListConstruct) {
      rhs = "[" + join(0) + "]";
    } else if (k == prim::TupleConstruct) {
      rhs = "(" + join(0) + (args.size() == 1 ? ",)" : ")");
    } else if (k == prim::DictConstruct) {
      rhs = "{";
      for (size_t i = 0; i + 1 < args.size(); i += 2) rhs += (i ? ", " : "") + args[i] + ": " + args[i + 1];
      rhs += "}";
    } else if (k == prim::ListUnpack || k == prim::TupleUnpack) {
      rhs = args[0];
    } else {
      std::string ns(k.ns());
      rhs = (ns == "aten" ? "torch." : "ops." + ns + ".") + std::string(k.name()) + "(" + join(0) + ")";
    }
    std::string lhs;
    for (size_t i = 0; i < n->num_outputs(); ++i) lhs += (i ? ", " : "") + py_name(n->output(i));
    if (n->num_outputs() == 1 && (k == prim::ListUnpack || k == prim::TupleUnpack)) lhs += ",";
    out += "  " + (lhs.empty() ? std::string() : lhs + " = ") + rhs + "\n";
  }
  std::string ret;
  auto outs = g.block()->outputs();
  for (size_t i = 0; i < outs.size(); ++i) ret += (i ? ", " : "") + use(outs[i]);
  return out + "  return " + ret + "\n";
}

}  // namespace ember::python
