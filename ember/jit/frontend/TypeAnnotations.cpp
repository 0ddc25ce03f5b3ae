// Type annotations of TorchScript source -> IR types (Note [TorchScript compiler] in Emitter.h).
#include <fmt/format.h>

#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/frontend/Parser.h"

namespace ember::jit::script {

namespace {

// The dotted name of a name / attribute chain ("torch.Tensor", "typing.List"), or "" for other trees.
std::string dotted_name(const Tree& t) {
  if (t.kind == TreeKind::Name) return t.text;
  if (t.kind == TreeKind::Attribute && t.child(0)) {
    std::string base = dotted_name(*t.child(0));
    return base.empty() ? "" : base + "." + t.text;
  }
  return "";
}

// "typing.List" -> "List", "torch.Tensor" -> "Tensor", "t.Optional" -> "Optional".
std::string last_part(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

}  // namespace

TypePtr Emitter::parse_type(const Tree& a) {
  if (a.kind == TreeKind::Const && a.text == "None") return Type::none_type();
  if (a.kind == TreeKind::Str) {  // a forward reference: "Tensor"
    TreePtr m = parse_script("__t: " + a.text, "<annotation>");
    return parse_type(*m->child(0)->child(1));
  }
  if (a.kind == TreeKind::Subscript) {
    std::string head = last_part(dotted_name(*a.child(0)));
    std::vector<const Tree*> params;
    const Tree* idx = a.child(1);
    if (idx->kind == TreeKind::Tuple)
      for (const TreePtr& c : idx->children) params.push_back(c.get());
    else
      params.push_back(idx);
    auto want = [&](size_t n) {
      if (params.size() != n)
        fail(a.range, fmt::format("{}[...] takes {} type argument{}, not {}", head, n, n == 1 ? "" : "s",
                                  params.size()));
    };
    if (head == "List" || head == "list") {
      want(1);
      return ListType::create(parse_type(*params[0]));
    }
    if (head == "Optional") {
      want(1);
      TypePtr e = parse_type(*params[0]);
      if (e->kind() == TypeKind::Optional || e->kind() == TypeKind::None) return e;
      return OptionalType::create(e);
    }
    if (head == "Dict" || head == "dict") {
      want(2);
      TypePtr k = parse_type(*params[0]);
      if (k->kind() != TypeKind::Str && k->kind() != TypeKind::Int && k->kind() != TypeKind::Tensor)
        fail(params[0]->range, "a Dict's keys must be str, int or Tensor, not " + k->str());
      return DictType::create(k, parse_type(*params[1]));
    }
    if (head == "Tuple" || head == "tuple") {
      std::vector<TypePtr> elems;
      if (!(params.size() == 1 && params[0]->kind == TreeKind::Tuple && params[0]->children.empty()))
        for (const Tree* p : params) elems.push_back(parse_type(*p));
      return TupleType::create(std::move(elems));
    }
    if (head == "Final") {
      want(1);
      return parse_type(*params[0]);
    }
    fail(a.range, fmt::format("unknown type constructor {}", head.empty() ? "in annotation" : head));
  }
  std::string name = dotted_name(a);
  std::string last = last_part(name);
  if (last == "Tensor") return Type::tensor_type();
  if (name == "int") return Type::int_type();
  if (name == "float") return Type::float_type();
  if (name == "bool") return Type::bool_type();
  if (name == "str") return Type::str_type();
  if (last == "Any") return Type::any_type();
  if (last == "device") return Type::device_type();
  if (last == "number" || last == "Number") return Type::number_type();
  if (name == "NoneType") return Type::none_type();
  if (last == "List" || last == "Dict" || last == "Tuple" || last == "Optional")
    fail(a.range, fmt::format("{} needs type arguments ({}[...])", last, last));
  fail(a.range, fmt::format("unknown type name '{}'", name.empty() ? std::string(a.range.text()) : name));
}

std::pair<std::vector<TypePtr>, TypePtr> Emitter::parse_signature_comment(const Tree& comment) {
  // "(int, Tensor) -> Tensor": parsed as the annotations of a def written for the purpose.
  const std::string& text = comment.text;
  size_t arrow = text.rfind("->");
  if (arrow == std::string::npos) fail(comment.range, "a function's type comment has the form (T1, T2) -> R");
  std::string params = text.substr(0, arrow), ret = text.substr(arrow + 2);
  size_t open = params.find('('), close = params.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    fail(comment.range, "a function's type comment has the form (T1, T2) -> R");
  std::string inner = params.substr(open + 1, close - open - 1);
  bool none = inner.find_first_not_of(" \t") == std::string::npos;
  TreePtr m;
  try {
    // One int more than the parameters, so that one parameter still makes a tuple (and none makes none).
    m = parse_script("__t: Tuple[" + (none ? std::string() : inner + ", ") + "int]\n__r: " + ret, "<type comment>");
  } catch (const Error& e) {
    fail(comment.range, std::string("cannot parse the type comment: ") + e.what());
  }
  const Tree* tuple = m->child(0)->child(1)->child(1);
  std::vector<TypePtr> types;
  if (tuple->kind == TreeKind::Tuple)
    for (size_t i = 0; i + 1 < tuple->children.size(); ++i) types.push_back(parse_type(*tuple->child(i)));
  return {types, parse_type(*m->child(1)->child(1))};
}

TypePtr Emitter::parse_type_comment(const Tree& comment) {
  TreePtr m;
  try {
    m = parse_script("__t: " + comment.text, "<type comment>");
  } catch (const Error& e) {
    fail(comment.range, std::string("cannot parse the type comment: ") + e.what());
  }
  return parse_type(*m->child(0)->child(1));
}

TypePtr unify_types(const TypePtr& a, const TypePtr& b) {
  if (a->equals(*b)) return a;
  if (a->kind() == TypeKind::Tensor && b->kind() == TypeKind::Tensor) return Type::tensor_type();
  if (a->kind() == TypeKind::None && b->kind() == TypeKind::Optional) return b;
  if (b->kind() == TypeKind::None && a->kind() == TypeKind::Optional) return a;
  if (a->kind() == TypeKind::None) return OptionalType::create(b);
  if (b->kind() == TypeKind::None) return OptionalType::create(a);
  if (const auto* o = a->cast<OptionalType>(); o && b->is_subtype_of(*o->elem())) return a;
  if (const auto* o = b->cast<OptionalType>(); o && a->is_subtype_of(*o->elem())) return b;
  if (a->kind() == TypeKind::Any || b->kind() == TypeKind::Any) return Type::any_type();
  return nullptr;
}

}  // namespace ember::jit::script
