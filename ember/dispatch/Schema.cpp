#include "ember/dispatch/Schema.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace ember {

namespace {

using Kind = SchemaType::Kind;

// A hand-written recursive-descent parser over the schema text; every error names the column.
class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : s_(text) {}

  FunctionSchema parse(std::string_view default_ns) {
    FunctionSchema fs;
    std::string name = ident_path();
    if (name.find("::") == std::string::npos) name = std::string(default_ns) + "::" + name;
    fs.name = std::move(name);
    if (accept('.')) fs.overload = ident();
    expect('(');
    bool kw = false;
    std::unordered_set<std::string_view> names;  // of the arguments so far (views of the text)
    if (!accept(')')) {
      do {
        skip_ws();
        size_t star = pos_;
        if (accept('*')) {
          if (kw) fail_at(star, "'*' given twice");
          kw = true;
          continue;
        }
        SchemaArgument a = argument(/*is_return=*/false);
        a.kwarg_only = kw;
        if (!names.insert(std::string_view(s_).substr(name_pos_, a.name.size())).second)
          fail_at(name_pos_, "duplicate argument name '" + a.name + "'");
        fs.arguments.push_back(std::move(a));
      } while (accept(','));
      expect(')');
    }
    skip_ws();
    if (!consume("->")) fail("expected '->'");
    if (accept('(')) {
      if (!accept(')')) {
        do fs.returns.push_back(argument(/*is_return=*/true));
        while (accept(','));
        expect(')');
      }
    } else {
      fs.returns.push_back(argument(/*is_return=*/true));
    }
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected trailing text");
    return fs;
  }

 private:
  // Errors name the column where the offending token starts (fail: the current position).
  [[noreturn]] void fail(const std::string& what) { fail_at(pos_, what); }
  [[noreturn]] void fail_at(size_t pos, const std::string& what) {
    EMBER_FAIL("schema: {} at column {} in '{}'", what, pos + 1, s_);
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool consume(std::string_view w) {
    skip_ws();
    if (s_.substr(pos_, w.size()) == w) {
      pos_ += w.size();
      return true;
    }
    return false;
  }
  bool peek_ident_char() const {
    return pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_');
  }
  std::string ident() {
    skip_ws();
    size_t b = pos_;
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) fail("expected a name");
    while (peek_ident_char()) ++pos_;
    if (b == pos_) fail("expected a name");
    return std::string(s_.substr(b, pos_ - b));
  }
  std::string ident_path() {  // name or ns::name
    std::string n = ident();
    if (s_.substr(pos_, 2) == "::") {
      pos_ += 2;
      n += "::" + ident();
    }
    return n;
  }

  SchemaType base_type(const std::string& n, size_t col) {
    static const std::pair<const char*, Kind> kTypes[] = {
        {"Tensor", Kind::Tensor}, {"int", Kind::Int}, {"SymInt", Kind::Int}, {"float", Kind::Float},
        {"bool", Kind::Bool}, {"str", Kind::Str}, {"Scalar", Kind::Scalar}, {"ScalarType", Kind::ScalarType},
        {"Device", Kind::Device}, {"Generator", Kind::Generator}, {"Layout", Kind::Layout},
        {"MemoryFormat", Kind::MemoryFormat}, {"Any", Kind::Any}};
    for (auto& [name, k] : kTypes)
      if (n == name) return SchemaType{k, nullptr, -1};
    fail_at(col, "unknown type '" + n + "'");
  }

  SchemaArgument argument(bool is_return) {
    SchemaArgument a;
    skip_ws();
    size_t type_col = pos_;
    SchemaType t = base_type(ident(), type_col);
    skip_ws();
    size_t paren = pos_;
    if (accept('(')) {  // alias annotation
      if (t.kind != Kind::Tensor) fail_at(paren, "alias annotations apply to Tensor only");
      AliasInfo ai;
      ai.set = ident();
      ai.is_write = accept('!');
      if (consume("->")) {  // Tensor(a -> *): the views of a list result
        expect('*');
        ai.to_wildcard = true;
      }
      expect(')');
      a.alias = ai;
    }
    // Suffixes: [] / [N] (list), ? (optional), in any order PyTorch writes them (Tensor?[] , int[]?). Their
    // number is bounded (Note [schema type depth]).
    for (int depth = 0;; ++depth) {
      skip_ws();
      const bool suffix = pos_ < s_.size() && (s_[pos_] == '[' || s_[pos_] == '?');
      if (suffix && depth >= kMaxSchemaTypeDepth)
        fail("the type nests more than " + std::to_string(kMaxSchemaTypeDepth) + " list/optional suffixes");
      if (accept('[')) {
        int64_t n = -1;
        skip_ws();
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
          const size_t at = pos_;
          n = integer();
          if (n > kMaxSchemaFixedSize)
            fail_at(at, "list size " + std::to_string(n) + " is above the limit of " +
                            std::to_string(kMaxSchemaFixedSize));
        }
        expect(']');
        auto elem = std::make_shared<const SchemaType>(std::move(t));
        t = SchemaType{Kind::List, elem, n};
      } else if (pos_ < s_.size() && s_[pos_] == '?') {
        ++pos_;
        auto elem = std::make_shared<const SchemaType>(std::move(t));
        t = SchemaType{Kind::Optional, elem, -1};
      } else {
        break;
      }
    }
    a.type = std::move(t);
    skip_ws();
    name_pos_ = pos_;
    if (peek_ident_char()) a.name = ident();
    else if (!is_return) fail("expected an argument name");
    if (!is_return && accept('=')) a.default_value = default_value(a.type);
    return a;
  }

  int64_t integer() {
    skip_ws();
    size_t b = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s_.data() + b + (b < s_.size() && s_[b] == '+'), s_.data() + pos_, v);
    if (ec != std::errc() || p != s_.data() + pos_) {
      pos_ = b;
      fail("expected an integer");
    }
    return v;
  }

  // A number literal: int when it has no '.', 'e' or inf; else double.
  IValue number() {
    skip_ws();
    size_t b = pos_;
    if (consume("-inf")) return IValue(-std::numeric_limits<double>::infinity());
    if (consume("inf")) return IValue(std::numeric_limits<double>::infinity());
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    bool is_float = false;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') && (s_[pos_ - 1] == 'e')))) {
      if (s_[pos_] == '.' || s_[pos_] == 'e') is_float = true;
      ++pos_;
    }
    std::string_view lit = s_.substr(b, pos_ - b);
    if (lit.empty()) fail("expected a default value");
    if (lit[0] == '+') lit.remove_prefix(1);
    if (is_float) {
      double d = 0;
      auto [p, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), d);
      if (ec != std::errc() || p != lit.data() + lit.size()) {
        pos_ = b;
        fail("malformed number");
      }
      return IValue(d);
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(lit.data(), lit.data() + lit.size(), v);
    if (ec != std::errc() || p != lit.data() + lit.size()) {
      pos_ = b;
      fail("malformed number");
    }
    return IValue(v);
  }

  IValue default_value(const SchemaType& t) {
    skip_ws();
    const size_t start = pos_;  // errors name the start of the default
    if (consume("None")) {
      if (t.kind != Kind::Optional && t.kind != Kind::Any) fail_at(start, "None default for a non-optional argument");
      return IValue();
    }
    const SchemaType& u = t.kind == Kind::Optional ? *t.elem : t;
    switch (u.kind) {
      case Kind::Bool:
        if (consume("True")) return IValue(true);
        if (consume("False")) return IValue(false);
        fail_at(start, "expected True or False");
      case Kind::Int: {
        // PyTorch writes loss reductions as enum names (at::Reduction: None = 0, Mean = 1, Sum = 2); None
        // is not accepted for a non-optional int, as in PyTorch's parser.
        if (consume("Mean")) return IValue(int64_t{1});
        if (consume("Sum")) return IValue(int64_t{2});
        IValue v = number();
        if (!v.is_int()) fail_at(start, "expected an integer default");
        return v;
      }
      case Kind::Float:
        return IValue(number().to_double());
      case Kind::Scalar: {
        if (consume("True")) return IValue(true);
        if (consume("False")) return IValue(false);
        return number();
      }
      case Kind::Str: {
        char q = pos_ < s_.size() ? s_[pos_] : 0;
        if (q != '"' && q != '\'') fail_at(start, "expected a string default");
        size_t e = s_.find(q, pos_ + 1);
        if (e == std::string_view::npos) fail_at(start, "unterminated string");
        std::string v(s_.substr(pos_ + 1, e - pos_ - 1));
        pos_ = e + 1;
        return IValue(std::move(v));
      }
      case Kind::MemoryFormat: {
        std::string n = ident();
        if (n == "contiguous_format") return IValue(MemoryFormat::Contiguous);
        if (n == "preserve_format") return IValue(MemoryFormat::Preserve);
        fail_at(start, "unknown memory format '" + n + "'");
      }
      case Kind::ScalarType: {
        std::string n = ident();
#define EMBER_DT(T, name, id, py) \
  if (n == #name || n == #py) return IValue(DType::name);
        EMBER_FORALL_DTYPES(EMBER_DT)
#undef EMBER_DT
        // PyTorch's short spellings (randperm's `ScalarType? dtype=long`).
        static const std::pair<const char*, DType> kAliases[] = {{"float", kFloat32}, {"double", kFloat64},
                                                                  {"half", kFloat16}, {"long", kInt64},
                                                                  {"int", kInt32},    {"short", kInt16}};
        for (auto& [alias, dt] : kAliases)
          if (n == alias) return IValue(dt);
        fail_at(start, "unknown dtype '" + n + "'");
      }
      case Kind::List: {
        if (u.elem->kind != Kind::Int) {
          if (accept('[')) {
            expect(']');
            return IValue::list({});
          }
          fail_at(start, "only empty defaults are supported for lists of " + u.elem->str());
        }
        std::vector<int64_t> v;
        if (accept('[')) {
          if (!accept(']')) {
            do v.push_back(integer());
            while (accept(','));
            expect(']');
          }
        } else {  // int[2] stride=1 broadcasts
          int64_t x = integer();
          if (u.fixed_size < 0) fail_at(start, "a scalar default needs a fixed-size list type");
          v.assign(static_cast<size_t>(u.fixed_size), x);
        }
        return IValue(std::move(v));
      }
      default:
        fail_at(start, "no default values for type " + u.str());
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  size_t name_pos_ = 0;  // where the last argument's name starts (for the duplicate-name error)
};

}  // namespace

std::string SchemaType::str() const {
  switch (kind) {
    case Kind::Tensor: return "Tensor";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Bool: return "bool";
    case Kind::Str: return "str";
    case Kind::Scalar: return "Scalar";
    case Kind::ScalarType: return "ScalarType";
    case Kind::Device: return "Device";
    case Kind::Generator: return "Generator";
    case Kind::Layout: return "Layout";
    case Kind::MemoryFormat: return "MemoryFormat";
    case Kind::Any: return "Any";
    case Kind::List: return elem->str() + (fixed_size >= 0 ? "[" + std::to_string(fixed_size) + "]" : "[]");
    case Kind::Optional: return elem->str() + "?";
  }
  return "?";
}

std::string_view FunctionSchema::base_name() const {
  std::string_view n = name;
  size_t p = n.find("::");
  return p == std::string_view::npos ? n : n.substr(p + 2);
}

bool FunctionSchema::is_mutable() const {
  for (const auto& a : arguments)
    if (a.alias && a.alias->is_write) return true;
  return false;
}

namespace {
std::string type_with_alias(const SchemaArgument& a) {
  std::string t = a.type.str();
  if (a.alias) {
    // The annotation sits right after the innermost "Tensor".
    std::string ann = "(" + a.alias->set + (a.alias->is_write ? "!" : "") + (a.alias->to_wildcard ? " -> *" : "") + ")";
    t.insert(6, ann);
  }
  return t;
}
std::string default_str(const IValue& v, const SchemaType& t) {
  const SchemaType& u = t.kind == SchemaType::Kind::Optional ? *t.elem : t;
  if (v.is_none()) return "None";
  if (u.kind == SchemaType::Kind::MemoryFormat)
    return v.to_int() == 0 ? "contiguous_format" : "preserve_format";
  if (v.is_double()) {
    double d = v.to_double();
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    std::string s = fmt::format("{}", d);
    if (s.find_first_of(".e") == std::string::npos) s += ".";
    return s;
  }
  if (v.is_list()) return "[]";
  if (v.is_string()) return "\"" + v.to_string() + "\"";
  return v.repr();
}
}  // namespace

std::string FunctionSchema::str() const {
  std::string s = full_name().substr(0) + "(";
  bool kw = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const auto& a = arguments[i];
    if (i) s += ", ";
    if (a.kwarg_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += type_with_alias(a) + " " + a.name;
    if (a.default_value) s += "=" + default_str(*a.default_value, a.type);
  }
  s += ") -> ";
  auto ret = [](const SchemaArgument& r) { return type_with_alias(r) + (r.name.empty() ? "" : " " + r.name); };
  if (returns.size() == 1) {
    s += ret(returns[0]);
  } else {
    s += "(";
    for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + ret(returns[i]);
    s += ")";
  }
  return s;
}

FunctionSchema parse_schema(std::string_view text, std::string_view default_ns) {
  return SchemaParser(text).parse(default_ns);
}

}  // namespace ember
