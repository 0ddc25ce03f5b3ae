#include "ember/jit/ir/IRParser.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "ember/base/Error.h"

namespace ember::jit {

namespace {

enum class Tok : uint8_t { Ident, ValueRef, Int, Float, String, Punct, Arrow, End };

struct Token {
  Tok kind;
  std::string text;  // identifier, value name (without %), number text, unescaped string, punctuation
  size_t line, col;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of input";
    case Tok::ValueRef: return "'%" + t.text + "'";
    case Tok::String: return "a string";
    case Tok::Arrow: return "'->'";
    default: return "'" + t.text + "'";
  }
}

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

class IRParser {
 public:
  IRParser(std::string_view text, const ParseOptions& o) : src_(text), opts_(o) {}

  std::shared_ptr<Graph> parse() {
    lex();
    graph_ = std::make_shared<Graph>();
    // Note [parsing value names]: fresh numbers start above every %<number> of the text.
    size_t max_id = 0;
    for (const Token& t : toks_) {
      if (t.kind == Tok::ValueRef && t.text.find_first_not_of("0123456789") == std::string::npos) {
        EMBER_CHECK(t.text.size() < 19, "{}", error_text(t, "a value number below 10^18"));
        max_id = std::max(max_id, static_cast<size_t>(std::stoull(t.text)) + 1);
      }
    }
    graph_->next_unique_ = max_id;
    expect_ident("graph");
    parse_params(graph_->block());
    expect_punct(":");
    parse_stmts(graph_->block());
    expect_ident("return");
    for (Value* v : parse_refs()) graph_->register_output(v);
    if (peek().kind != Tok::End) fail(peek(), "end of input after the return line");
    return std::move(graph_);
  }

 private:
  // ---------------------------------------------------------------- errors
  std::string error_text(const Token& at, const std::string& expected) const {
    return error_at(at.line, at.col, "expected " + expected + " but found " + describe(at));
  }
  std::string error_at(size_t line, size_t col, const std::string& what) const {
    // The offending line with a caret under the column.
    size_t start = 0;
    for (size_t l = 1; l < line && start < src_.size(); ++l) {
      size_t nl = src_.find('\n', start);
      start = nl == std::string_view::npos ? src_.size() : nl + 1;
    }
    size_t end = src_.find('\n', start);
    std::string_view text = src_.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    // A long line is cut to a window around the column (a hostile text's line may be megabytes).
    constexpr size_t kHalf = 60;
    size_t caret = col > 0 ? col - 1 : 0;
    std::string prefix, suffix;
    if (caret > kHalf) {
      text.remove_prefix(std::min(text.size(), caret - kHalf));
      caret = kHalf + 3;
      prefix = "...";
    }
    if (text.size() > 2 * kHalf) {
      text = text.substr(0, 2 * kHalf);
      suffix = "...";
    }
    return fmt::format("IR parse error at line {}, column {}: {}\n  {}{}{}\n  {}^", line, col, what, prefix, text,
                       suffix, std::string(caret, ' '));
  }
  [[noreturn]] void fail(const Token& at, const std::string& expected) const {
    EMBER_FAIL("{}", error_text(at, expected));
  }
  [[noreturn]] void fail_at(const Token& at, const std::string& what) const {
    EMBER_FAIL("{}", error_at(at.line, at.col, what));
  }

  // ---------------------------------------------------------------- lexer
  void lex() {
    size_t i = 0, line = 1, line_start = 0;
    auto push = [&](Tok k, std::string text, size_t at) {
      toks_.push_back({k, std::move(text), line, at - line_start + 1});
    };
    while (i < src_.size()) {
      char c = src_[i];
      if (c == '\n') {
        ++i, ++line, line_start = i;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        while (i < src_.size() && src_[i] != '\n') ++i;
      } else if (ident_start(c)) {
        size_t s = i;
        while (true) {
          while (i < src_.size() && ident_char(src_[i])) ++i;
          // Qualified names: aten::add, __torch__.torch.nn.Conv2d, and scopes such as __module.0.
          if (i + 2 < src_.size() && src_.compare(i, 2, "::") == 0 && ident_start(src_[i + 2])) {
            i += 2;
          } else if (i + 1 < src_.size() && src_[i] == '.' && ident_char(src_[i + 1])) {
            i += 1;
          } else {
            break;
          }
        }
        push(Tok::Ident, std::string(src_.substr(s, i - s)), s);
      } else if (c == '%') {
        size_t s = i++;
        while (i < src_.size() && (ident_char(src_[i]) || src_[i] == '.')) ++i;
        if (i == s + 1) {
          Token t{Tok::Punct, "%", line, s - line_start + 1};
          fail_at(t, "expected a value name after '%'");
        }
        push(Tok::ValueRef, std::string(src_.substr(s + 1, i - s - 1)), s);
      } else if (digit(c)) {
        size_t s = i;
        bool is_float = false;
        while (i < src_.size() && digit(src_[i])) ++i;
        if (i < src_.size() && src_[i] == '.') {
          is_float = true;
          ++i;
          while (i < src_.size() && digit(src_[i])) ++i;
        }
        if (i < src_.size() && (src_[i] == 'e' || src_[i] == 'E')) {
          size_t e = i + 1;
          if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
          if (e < src_.size() && digit(src_[e])) {
            is_float = true;
            i = e;
            while (i < src_.size() && digit(src_[i])) ++i;
          }
        }
        push(is_float ? Tok::Float : Tok::Int, std::string(src_.substr(s, i - s)), s);
      } else if (c == '"') {
        size_t s = i++;
        std::string v;
        while (true) {
          if (i >= src_.size() || src_[i] == '\n') {
            Token t{Tok::End, "", line, s - line_start + 1};
            fail_at(t, "unterminated string literal");
          }
          char d = src_[i++];
          if (d == '"') break;
          if (d != '\\') {
            v += d;
            continue;
          }
          char e = i < src_.size() ? src_[i++] : '\0';
          switch (e) {
            case 'n': v += '\n'; break;
            case 't': v += '\t'; break;
            case 'r': v += '\r'; break;
            case '"': v += '"'; break;
            case '\'': v += '\''; break;
            case '\\': v += '\\'; break;
            case 'x': {
              int x = 0;
              bool ok = i + 2 <= src_.size();
              for (size_t k = 0; ok && k < 2; ++k) {
                char h = src_[i + k];
                int d2 = digit(h)                 ? h - '0'
                         : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                         : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                  : -1;
                ok = d2 >= 0;
                x = x * 16 + d2;
              }
              if (!ok) {
                Token t{Tok::String, "", line, i - 1 - line_start};
                fail_at(t, "expected two hex digits after \\x");
              }
              i += 2;
              v += static_cast<char>(x);
              break;
            }
            default: {
              Token t{Tok::String, "", line, i - 1 - line_start};
              fail_at(t, std::string("unknown escape sequence in string literal"));
            }
          }
        }
        push(Tok::String, std::move(v), s);
      } else if (c == '-' && i + 1 < src_.size() && src_[i + 1] == '>') {
        push(Tok::Arrow, "->", i);
        i += 2;
      } else if (std::string_view("()[],:=?*<>-").find(c) != std::string_view::npos) {
        push(Tok::Punct, std::string(1, c), i);
        ++i;
      } else {
        Token t{Tok::Punct, std::string(1, c), line, i - line_start + 1};
        fail_at(t, fmt::format("unexpected character '{}'", c));
      }
    }
    toks_.push_back({Tok::End, "", line, i - line_start + 1});
  }

  // Runs f, turning an ember::Error it raises (a malformed name) into a parse error at token t.
  template <class F>
  auto at_token(const Token& t, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const Error& e) {
      fail_at(t, e.what());
    }
  }

  // ---------------------------------------------------------------- token helpers
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool is_punct(const Token& t, std::string_view p) const { return t.kind == Tok::Punct && t.text == p; }
  bool accept_punct(std::string_view p) {
    if (!is_punct(peek(), p)) return false;
    next();
    return true;
  }
  void expect_punct(std::string_view p) {
    if (!accept_punct(p)) fail(peek(), "'" + std::string(p) + "'");
  }
  void expect_ident(std::string_view word) {
    if (peek().kind != Tok::Ident || peek().text != word) fail(peek(), "'" + std::string(word) + "'");
    next();
  }

  // Nesting of types and blocks is bounded, so hostile text (an archive's) cannot exhaust the stack of this
  // recursive parser, nor of the printer and verifier afterwards.
  static constexpr int kMaxDepth = 256;
  // A node's attributes are a list that setting one searches (Node::set_attribute), so their number is bounded
  // too: nodes carry one or two (value=, name=), and thousands on one node would make parsing quadratic.
  static constexpr size_t kMaxAttributes = 64;
  struct DepthGuard {
    IRParser& p;
    DepthGuard(IRParser& parser, const Token& at) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail_at(at, fmt::format("nesting deeper than {} levels", kMaxDepth));
    }
    ~DepthGuard() { --p.depth_; }
  };

  // ---------------------------------------------------------------- values
  void define(const Token& t, Value* v) {
    if (values_.count(t.text)) fail_at(t, "value %" + t.text + " is defined twice");
    if (t.text.find_first_not_of("0123456789") == std::string::npos) {
      if (t.text.size() > 1 && t.text[0] == '0') fail_at(t, "a value number with a leading zero: %" + t.text);
      v->unique_ = static_cast<size_t>(std::stoull(t.text));
    } else {
      v->set_debug_name(t.text);
    }
    values_.emplace(t.text, v);
  }

  Value* lookup(const Token& t) {
    auto it = values_.find(t.text);
    if (it == values_.end()) fail_at(t, "use of undefined value %" + t.text);
    return it->second;
  }

  // '(' [%v (',' %v)*] ')'
  std::vector<Value*> parse_refs() {
    std::vector<Value*> r;
    expect_punct("(");
    if (accept_punct(")")) return r;
    while (true) {
      if (peek().kind != Tok::ValueRef) fail(peek(), "a value ('%name')");
      r.push_back(lookup(next()));
      if (accept_punct(")")) return r;
      if (!accept_punct(",")) fail(peek(), "',' or ')'");
    }
  }

  // '(' [%v ':' type (',' ...)*] ')' defining block inputs.
  void parse_params(Block* b) {
    expect_punct("(");
    if (accept_punct(")")) return;
    while (true) {
      if (peek().kind != Tok::ValueRef) fail(peek(), "a value ('%name')");
      const Token& name = next();
      expect_punct(":");
      TypePtr t = parse_type();
      define(name, b->add_input("", t));
      if (accept_punct(")")) return;
      if (!accept_punct(",")) fail(peek(), "',' or ')'");
    }
  }

  // ---------------------------------------------------------------- types
  TypePtr parse_type() {
    DepthGuard guard(*this, peek());
    TypePtr t = parse_base_type();
    // List and optional suffixes nest the type as deeply as brackets do (and printing or destroying the chain
    // recurses), so they count against the same limit.
    for (int suffixes = depth_;; ++suffixes) {
      const bool suffix = (is_punct(peek(), "[") && is_punct(peek(1), "]")) || is_punct(peek(), "?");
      if (suffix && suffixes >= kMaxDepth)
        fail_at(peek(), fmt::format("a type nesting deeper than {} levels", kMaxDepth));
      if (is_punct(peek(), "[") && is_punct(peek(1), "]")) {
        next(), next();
        t = ListType::create(t);
      } else if (accept_punct("?")) {
        t = OptionalType::create(t);
      } else {
        return t;
      }
    }
  }

  TypePtr parse_base_type() {
    if (accept_punct("(")) {
      std::vector<TypePtr> elems;
      if (!accept_punct(")")) {
        while (true) {
          elems.push_back(parse_type());
          if (accept_punct(")")) break;
          if (!accept_punct(",")) fail(peek(), "',' or ')' in a tuple type");
        }
      }
      return TupleType::create(std::move(elems));
    }
    if (peek().kind != Tok::Ident) fail(peek(), "a type");
    const Token& t = next();
    const std::string& n = t.text;
    if (n == "int") return Type::int_type();
    if (n == "float") return Type::float_type();
    if (n == "bool") return Type::bool_type();
    if (n == "str") return Type::str_type();
    if (n == "NoneType") return Type::none_type();
    if (n == "Device") return Type::device_type();
    if (n == "Scalar") return Type::number_type();
    if (n == "Any") return Type::any_type();
    if (n == "Dict") {
      expect_punct("(");
      const Token& at = peek();
      TypePtr k = parse_type();
      expect_punct(",");
      TypePtr v = parse_type();
      expect_punct(")");
      if (k->kind() != TypeKind::Str && k->kind() != TypeKind::Int && k->kind() != TypeKind::Tensor)
        fail_at(at, "dict keys must be str, int or Tensor, not " + k->str());
      return DictType::create(k, v);
    }
    std::optional<DType> dtype = dtype_from_type_name(n);
    if (n == "Tensor" || dtype) {
      std::optional<TensorType::Sizes> sizes;
      if (accept_punct("(")) {
        sizes.emplace();
        bool keywords = false;
        if (!accept_punct(")")) {
          while (true) {
            if (peek().kind == Tok::Ident && is_punct(peek(1), "=")) {
              skip_tensor_type_keyword();
              keywords = true;
            } else if (accept_punct("*")) {
              sizes->push_back(std::nullopt);
            } else if (peek().kind == Tok::Int) {
              sizes->push_back(parse_int(next(), false));
            } else {
              fail(peek(), "a size or '*'");
            }
            if (accept_punct(")")) break;
            if (!accept_punct(",")) fail(peek(), "',' or ')' in tensor sizes");
          }
        }
        // TorchScript's Float(requires_grad=0, device=cpu) says nothing about the rank.
        if (keywords && sizes->empty()) sizes.reset();
      }
      return TensorType::create(dtype, std::move(sizes));
    }
    if (n.find('.') != std::string::npos) return at_token(t, [&] { return class_type(n); });
    fail_at(t, "unknown type '" + n + "'");
  }

  // TorchScript's tensor types carry strides=[...], requires_grad=0|1 and device=cpu (or cuda:0) after the
  // sizes; Ember's types do not keep them (Note [parsing TorchScript text]).
  void skip_tensor_type_keyword() {
    const Token& key = next();
    expect_punct("=");
    if (key.text == "strides") {
      expect_punct("[");
      if (!accept_punct("]")) {
        while (true) {
          if (peek().kind != Tok::Int) fail(peek(), "a stride");
          next();
          if (accept_punct("]")) break;
          if (!accept_punct(",")) fail(peek(), "',' or ']'");
        }
      }
    } else if (key.text == "requires_grad") {
      if (peek().kind != Tok::Int) fail(peek(), "0 or 1");
      next();
    } else if (key.text == "device") {
      if (peek().kind != Tok::Ident) fail(peek(), "a device such as cpu");
      next();
      if (accept_punct(":") && peek().kind == Tok::Int) next();
    } else {
      fail_at(key, "unknown tensor type keyword '" + key.text + "' (strides, requires_grad or device)");
    }
  }

  TypePtr class_type(const std::string& name) {
    if (opts_.class_types) {
      auto it = opts_.class_types->find(name);
      if (it != opts_.class_types->end()) return it->second;
    }
    auto it = classes_.find(name);
    if (it != classes_.end()) return it->second;
    auto c = ClassType::create(name);
    classes_.emplace(name, c);
    if (opts_.class_types) opts_.class_types->emplace(name, c);
    return c;
  }

  // ---------------------------------------------------------------- literals
  int64_t parse_int(const Token& t, bool negative) {
    std::string s = (negative ? "-" : "") + t.text;
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail_at(t, "integer " + s + " out of range of int64");
    return v;
  }

  double parse_float(const Token& t, bool negative) {
    if (t.kind == Tok::Ident) {
      double v = t.text == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      return negative ? -v : v;
    }
    std::string s = (negative ? "-" : "") + t.text;
    double v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail_at(t, "float " + s + " out of range");
    return v;
  }

  // A number: optional '-', then an int, a float, inf or nan.
  std::variant<int64_t, double> parse_number() {
    bool neg = accept_punct("-");
    const Token& t = peek();
    if (t.kind == Tok::Int) return parse_int(next(), neg);
    if (t.kind == Tok::Float || (t.kind == Tok::Ident && (t.text == "inf" || t.text == "nan")))
      return parse_float(next(), neg);
    fail(t, neg ? "a number after '-'" : "an attribute value (number, string, list or <Tensor>)");
  }

  Attribute::Value parse_attribute_value() {
    if (peek().kind == Tok::String) return next().text;
    if (accept_punct("<")) {
      expect_ident("Tensor");
      Tensor t;
      if (accept_punct(":")) {
        if (peek().kind != Tok::Int) fail(peek(), "a tensor table index");
        const Token& idx = next();
        int64_t k = parse_int(idx, false);
        if (!opts_.tensor_table) fail_at(idx, "<Tensor:" + idx.text + "> needs a tensor table (ParseOptions)");
        if (k >= static_cast<int64_t>(opts_.tensor_table->size()))
          fail_at(idx, fmt::format("tensor table index {} out of range (the table has {} tensors)", k,
                                   opts_.tensor_table->size()));
        t = (*opts_.tensor_table)[static_cast<size_t>(k)];
      }
      expect_punct(">");
      return t;
    }
    if (accept_punct("[")) {
      std::vector<int64_t> ints;
      std::vector<double> floats;
      std::vector<std::string> strs;
      bool any_float = false;
      if (!accept_punct("]")) {
        while (true) {
          if (peek().kind == Tok::String) {
            if (!ints.empty() || any_float) fail(peek(), "a number (lists hold one kind of value)");
            strs.push_back(next().text);
          } else {
            if (!strs.empty()) fail(peek(), "a string (lists hold one kind of value)");
            auto n = parse_number();
            if (std::holds_alternative<double>(n)) any_float = true;
            floats.push_back(std::holds_alternative<double>(n) ? std::get<double>(n)
                                                              : static_cast<double>(std::get<int64_t>(n)));
            if (std::holds_alternative<int64_t>(n)) ints.push_back(std::get<int64_t>(n));
            else ints.push_back(0);
          }
          if (accept_punct("]")) break;
          if (!accept_punct(",")) fail(peek(), "',' or ']'");
        }
      }
      if (!strs.empty()) return strs;
      if (any_float) return floats;
      return ints;
    }
    auto n = parse_number();
    if (std::holds_alternative<double>(n)) return std::get<double>(n);
    return std::get<int64_t>(n);
  }

  // ---------------------------------------------------------------- statements
  void parse_stmts(Block* b) {
    while (true) {
      const Token& t = peek();
      if ((t.kind == Tok::Ident && t.text == "return") || t.kind == Tok::Arrow) return;
      if (t.kind == Tok::ValueRef || is_punct(t, "=")) {
        parse_node(b);
        continue;
      }
      fail(t, "a node ('%name : Type = ns::op(...)'), '->' or 'return'");
    }
  }

  void parse_node(Block* b) {
    std::vector<std::pair<Token, TypePtr>> outs;
    if (peek().kind == Tok::ValueRef) {
      while (true) {
        if (peek().kind != Tok::ValueRef) fail(peek(), "a value ('%name')");
        Token name = next();
        expect_punct(":");
        outs.emplace_back(std::move(name), parse_type());
        if (!accept_punct(",")) break;
      }
    }
    expect_punct("=");
    const Token& kt = peek();
    if (kt.kind != Tok::Ident || kt.text.find("::") == std::string::npos)
      fail(kt, "an operator name such as aten::add or prim::Constant");
    next();
    Symbol kind = at_token(kt, [&] { return Symbol::from_qual_string(kt.text); });
    if (kind == prim::Param || kind == prim::Return) fail_at(kt, kt.text + " nodes are implicit in blocks");
    std::vector<Attribute> attrs;
    if (accept_punct("[")) {
      while (true) {
        if (attrs.size() == kMaxAttributes)
          fail_at(peek(), fmt::format("a node with more than {} attributes", kMaxAttributes));
        if (peek().kind != Tok::Ident) fail(peek(), "an attribute name");
        std::string name = next().text;
        expect_punct("=");
        attrs.push_back({std::move(name), parse_attribute_value()});
        if (accept_punct("]")) break;
        if (!accept_punct(",")) fail(peek(), "',' or ']'");
      }
    }
    std::vector<Value*> ins = parse_refs();
    // TorchScript's traced graphs end node lines with ", scope: __module.0" (Note [parsing TorchScript text]).
    if (is_punct(peek(), ",") && peek(1).kind == Tok::Ident && peek(1).text == "scope" && is_punct(peek(2), ":")) {
      next(), next(), next();
      if (peek().kind != Tok::Ident) fail(peek(), "a scope name");
      next();
    }
    Node* n = graph_->create(kind, ins, 0);
    b->append_node(n);
    for (auto& [tok, type] : outs) define(tok, n->add_output()->set_type(type));
    for (Attribute& a : attrs) n->set_attribute(std::move(a.name), std::move(a.value));
    if (kind == prim::Constant && n->num_outputs() == 1) retype_empty_list(n);
    while (peek().kind == Tok::Ident && peek().text.rfind("block", 0) == 0) {
      std::string want = "block" + std::to_string(n->blocks().size());
      if (peek().text != want) fail(peek(), "'" + want + "'");
      DepthGuard guard(*this, next());
      Block* sub = n->add_block();
      parse_params(sub);
      expect_punct(":");
      parse_stmts(sub);
      if (peek().kind != Tok::Arrow) fail(peek(), "'->' ending the block");
      next();
      for (Value* v : parse_refs()) sub->register_output(v);
    }
  }

  // `[]` reads as an int list; a constant of type float[] or str[] needs the list of its own kind.
  static void retype_empty_list(Node* n) {
    const Attribute* a = n->find_attribute("value");
    const auto* lt = n->output()->type()->cast<ListType>();
    if (!a || !lt || a->kind() != AttributeKind::is || !std::get<std::vector<int64_t>>(a->value).empty()) return;
    if (lt->elem()->kind() == TypeKind::Float) n->fs_("value", {});
    if (lt->elem()->kind() == TypeKind::Str) n->ss_("value", {});
  }

  std::string_view src_;
  const ParseOptions& opts_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::shared_ptr<Graph> graph_;
  std::unordered_map<std::string, Value*> values_;
  std::unordered_map<std::string, std::shared_ptr<ClassType>> classes_;
};

std::shared_ptr<Graph> parse_ir(std::string_view text, const ParseOptions& options) {
  return IRParser(text, options).parse();
}

}  // namespace ember::jit
