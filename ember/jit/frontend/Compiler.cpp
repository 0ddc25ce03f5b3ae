// The compiler's entry points (Compiler.h): functions from `def` trees, the compilation unit, running functions.
#include "ember/jit/frontend/Compiler.h"

#include <algorithm>

#include <fmt/format.h>

#include "ember/base/Error.h"
#include "ember/jit/frontend/Emitter.h"
#include "ember/jit/frontend/Parser.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/ir/Verifier.h"
#include "ember/jit/passes/Passes.h"

namespace ember::jit {

using script::Emitter;
using script::Tree;
using script::TreeKind;

namespace script {

Emitter::Emitter(CompilationUnit& cu, std::shared_ptr<Resolver> resolver,
                 const std::map<std::string, std::shared_ptr<GraphFunction>>& functions, std::shared_ptr<Self> self)
    : cu_(cu), resolver_(std::move(resolver)), self_(std::move(self)), functions_(functions) {}

namespace {

// The value of a parameter's default: a literal, a negated number, None, or a tuple / list of those.
IValue default_value(const Tree& t) {
  switch (t.kind) {
    case TreeKind::Int: return IValue(static_cast<int64_t>(t.int_value));
    case TreeKind::Float: return IValue(t.float_value);
    case TreeKind::Str: return IValue(t.text);
    case TreeKind::Const:
      if (t.text == "True") return IValue(true);
      if (t.text == "False") return IValue(false);
      if (t.text == "None") return IValue();
      break;
    case TreeKind::UnaryOp:
      if (t.text == "-" && t.child(0)->kind == TreeKind::Int)
        return IValue(-static_cast<int64_t>(t.child(0)->int_value));
      if (t.text == "-" && t.child(0)->kind == TreeKind::Float) return IValue(-t.child(0)->float_value);
      break;
    case TreeKind::Tuple:
    case TreeKind::List: {
      std::vector<IValue> items;
      for (const TreePtr& c : t.children) items.push_back(default_value(*c));
      return t.kind == TreeKind::Tuple ? IValue::tuple(std::move(items)) : IValue::list(std::move(items));
    }
    default: break;
  }
  Emitter::fail(t.range, "a parameter's default must be a constant (a number, string, bool, None, or a tuple or "
                         "list of those)");
}

}  // namespace

std::shared_ptr<GraphFunction> Emitter::emit_function(const Tree& def) {
  function_name_ = def.text;
  graph_ = std::make_shared<Graph>();
  push_frame();
  const Tree& params = *def.child(1);
  size_t first = 0;
  if (self_) {
    if (params.children.empty()) fail(def.range, fmt::format("method '{}' needs a first parameter (self)", def.text));
    const Tree& p = *params.child(0);
    Value* in = graph_->add_input(p.text, self_->type());
    Binding& b = frame_->vars[p.text];
    b.value = in;
    b.sugared = self_->make(in, *this);
    first = 1;
  }
  std::vector<TypePtr> comment_params;
  TypePtr comment_return;
  if (def.child(3)) std::tie(comment_params, comment_return) = parse_signature_comment(*def.child(3));
  if (def.child(3) && comment_params.size() != params.children.size() - first)
    fail(def.child(3)->range, fmt::format("the type comment gives {} parameter type(s) for {} parameter(s)",
                                          comment_params.size(), params.children.size() - first));
  std::vector<ScriptParameter> sig;
  for (size_t i = first; i < params.children.size(); ++i) {
    const Tree& p = *params.child(i);
    ScriptParameter sp;
    sp.name = p.text;
    sp.kwarg_only = p.kind == TreeKind::KwParam;
    sp.type = p.child(0) ? parse_type(*p.child(0)) : def.child(3) ? comment_params[i - first] : Type::tensor_type();
    if (p.child(1)) {
      IValue d = default_value(*p.child(1));
      if (sp.type->kind() == TypeKind::Float && d.is_int()) d = IValue(d.to_double());
      std::string what;
      IValue check = d;
      if (!fits(check, *sp.type, what))
        fail(p.child(1)->range, fmt::format("the default of parameter '{}' does not fit its type: {}", sp.name, what));
      sp.default_value = check;
    }
    Value* in = graph_->add_input(sp.name, sp.type);
    assign(sp.name, in, p.range);
    sig.push_back(std::move(sp));
  }
  if (def.child(2)) {
    return_type_ = parse_type(*def.child(2));
    return_declared_ = true;
  } else if (comment_return) {
    return_type_ = comment_return;
    return_declared_ = true;
  }
  assign(kReturnFlag, constant(IValue(false)), def.range);
  Exits ex = emit_statements(def.children.back()->children, 0);
  if (!ex.always) {
    // Falling off the end returns None (a function whose every path returns a value ends with ex.always).
    bool none_ok = !return_type_ || return_type_->kind() == TypeKind::None ||
                   return_type_->kind() == TypeKind::Optional;
    if (!none_ok)
      fail(def.range, fmt::format("Function '{}' was annotated (or inferred) as returning {} but does not return "
                                  "along all paths", def.text, return_type_->str()));
    if (!return_type_) return_type_ = Type::none_type();
    if (ex.ret) {
      // Only the paths that did not return yet take None.
      Value* none = constant(IValue());
      Node* n = graph_->insert_if(emit_op(def.range, "aten::__not__", {lookup(kReturnFlag, def.range)}), 1);
      n->blocks()[0]->register_output(none);
      n->blocks()[1]->register_output(lookup(kReturnValue, def.range));
      n->output()->set_type(return_type_);
      assign(kReturnValue, n->output(), def.range);
    } else {
      assign(kReturnValue, constant(IValue()), def.range);
    }
  }
  for (Value* u : untyped_returns_) u->set_type(return_type_);
  Value* result = lookup(kReturnValue, def.range);
  graph_->register_output(result);
  eliminate_dead_code(graph_);  // the exit flags' unused merges (Note [exits as flags]), as PyTorch's DCE
  try {
    verify(*graph_);
  } catch (const Error& e) {
    EMBER_FAIL("TorchScript compiler: internal error: function '{}' compiled to an invalid graph: {}\n{}", def.text,
               e.what(), graph_->str());
  }
  return std::make_shared<GraphFunction>(def.text, graph_, std::move(sig), return_type_);
}

}  // namespace script

// ---- GraphFunction

namespace {

// The Python type of a value, for argument errors ("int", "str", "Tensor", "List[int]").
std::string python_type_name(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return "NoneType";
    case IValue::Tag::Bool: return "bool";
    case IValue::Tag::Int: return "int";
    case IValue::Tag::Double: return "float";
    case IValue::Tag::String: return "str";
    case IValue::Tag::Tensor: return "Tensor";
    case IValue::Tag::IntList: return "List[int]";
    case IValue::Tag::TensorList: return "List[Tensor]";
    case IValue::Tag::List: return "List";
    case IValue::Tag::Tuple: return "Tuple";
    case IValue::Tag::Dict: return "Dict";
    default: return std::string(v.tag_name());
  }
}

}  // namespace

GraphFunction::GraphFunction(std::string name, std::shared_ptr<Graph> graph, std::vector<ScriptParameter> params,
                             TypePtr return_type)
    : name_(std::move(name)), graph_(std::move(graph)), params_(std::move(params)),
      return_type_(std::move(return_type)) {
  bool method = !graph_->inputs().empty() && graph_->inputs()[0]->type()->kind() == TypeKind::Class;
  if (!method) code_ = jit::compile(*graph_, name_);
}

std::string GraphFunction::schema_str() const {
  std::string r = name_ + "(";
  bool star = false;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ScriptParameter& p = params_[i];
    if (p.kwarg_only && !star) {
      r += i ? ", *" : "*";
      star = true;
    }
    r += (i ? ", " : "") + p.type->str() + " " + p.name;
    if (p.default_value) {
      const IValue& d = *p.default_value;
      r += "=" + (d.is_bool() ? std::string(d.to_bool() ? "True" : "False")
                   : d.is_double() ? format_float(d.to_double())
                   : d.is_string() ? quote_string(d.to_string()) : d.repr());
    }
  }
  return r + ") -> " + return_type_->str();
}

IValue GraphFunction::operator()(std::vector<IValue> stack, const std::map<std::string, IValue>& kwargs) const {
  EMBER_CHECK(code_ != nullptr, "{} is a method: run it through its module", name_);
  const size_t n = params_.size();
  EMBER_CHECK(stack.size() <= n, "{}() expected at most {} argument(s) but received {} argument(s). Declaration: {}",
              name_, n, stack.size(), schema_str());
  std::vector<std::optional<IValue>> args(n);
  for (size_t i = 0; i < stack.size(); ++i) {
    EMBER_CHECK(!params_[i].kwarg_only, "{}() takes {} positional argument(s) but {} were given", name_, i,
                     stack.size());
    args[i] = std::move(stack[i]);
  }
  for (const auto& [k, v] : kwargs) {
    size_t i = 0;
    while (i < n && params_[i].name != k) ++i;
    EMBER_CHECK(i < n, "{}() got an unexpected keyword argument '{}'", name_, k);
    EMBER_CHECK(!args[i], "{}() got multiple values for argument '{}'", name_, k);
    args[i] = v;
  }
  std::vector<IValue> inputs;
  inputs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!args[i]) {
      EMBER_CHECK(params_[i].default_value.has_value(), "{}() is missing value for argument '{}'. Declaration: {}",
                       name_, params_[i].name, schema_str());
      args[i] = *params_[i].default_value;
    }
    std::string what;
    EMBER_CHECK(fits(*args[i], *params_[i].type, what), "{}() Expected a value of type '{}' for argument '{}' "
                "but instead found type '{}'.\nPosition: {}\nValue: {}\nDeclaration: {}", name_,
                params_[i].type->str(), params_[i].name, python_type_name(*args[i]), i, args[i]->repr(), schema_str());
    inputs.push_back(std::move(*args[i]));
  }
  return run(*code_, std::move(inputs));
}

// ---- CompilationUnit

namespace {

class DefaultResolver : public script::Resolver {
 public:
  script::SugaredPtr resolve(const std::string&, const script::SourceRange&, script::Emitter&) override {
    return nullptr;
  }
};

}  // namespace

void CompilationUnit::define(const std::string& source, const std::shared_ptr<script::Resolver>& resolver,
                             const std::string& filename, const std::shared_ptr<script::Self>& self) {
  script::TreePtr module = script::parse_script(source, filename);
  std::map<std::string, std::shared_ptr<GraphFunction>> visible;
  for (const auto& f : functions_) visible[f->name()] = f;
  std::vector<std::shared_ptr<GraphFunction>> fresh;
  for (const script::TreePtr& s : module->children) {
    if (s->kind == TreeKind::ExprStmt && s->child(0)->kind == TreeKind::Str) continue;  // a docstring
    if (s->kind != TreeKind::Def)
      script::throw_script_error(s->range, fmt::format("only function definitions may appear at the top level of "
                                                       "a compilation unit, not {}", tree_kind_name(s->kind)));
    if (std::any_of(fresh.begin(), fresh.end(), [&](auto& f) { return f->name() == s->text; }))
      script::throw_script_error(s->range, fmt::format("function '{}' is defined twice", s->text));
    Emitter e(*this, resolver ? resolver : std::make_shared<DefaultResolver>(), visible, self);
    std::shared_ptr<GraphFunction> fn = e.emit_function(*s);
    visible[fn->name()] = fn;
    fresh.push_back(fn);
  }
  for (auto& f : fresh) {  // only once all compiled: a failed define leaves the unit as it was
    auto it = index_.find(f->name());
    if (it != index_.end()) {
      functions_[it->second] = f;
    } else {
      index_.emplace(f->name(), functions_.size());
      functions_.push_back(f);
    }
  }
}

const GraphFunction* CompilationUnit::find_function(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : functions_[it->second].get();
}

std::shared_ptr<GraphFunction> CompilationUnit::function_ptr(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : functions_[it->second];
}

const GraphFunction& CompilationUnit::get_function(std::string_view name) const {
  if (const GraphFunction* f = find_function(name)) return *f;
  std::string names;
  for (const auto& f : functions_) names += (names.empty() ? "" : ", ") + f->name();
  EMBER_FAIL("CompilationUnit: no function named '{}' (functions: {})", name, names.empty() ? "none" : names);
}

std::vector<const GraphFunction*> CompilationUnit::get_functions() const {
  std::vector<const GraphFunction*> r;
  for (const auto& f : functions_) r.push_back(f.get());
  return r;
}

IValue CompilationUnit::run_method(std::string_view name, std::vector<IValue> args) const {
  return get_function(name)(std::move(args));
}

std::shared_ptr<CompilationUnit> compile(const std::string& source) {
  auto cu = std::make_shared<CompilationUnit>();
  cu->define(source);
  return cu;
}

}  // namespace ember::jit
