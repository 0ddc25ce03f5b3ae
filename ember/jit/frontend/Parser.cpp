// The TorchScript parser: recursive descent over the lexer's tokens (Note [TorchScript grammar]).
#include "ember/jit/frontend/Parser.h"

#include <algorithm>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "ember/base/Error.h"

namespace ember::jit::script {

namespace {

bool starts_expression(TokenKind k) {
  switch (k) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String:
    case TokenKind::LParen:
    case TokenKind::LBracket:
    case TokenKind::LBrace:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Tilde:
    case TokenKind::Star:
    case TokenKind::Ellipsis:
    case TokenKind::KwNot:
    case TokenKind::KwNone:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwLambda:
    case TokenKind::KwAwait:
    case TokenKind::KwYield: return true;
    default: return false;
  }
}

// Binary operators from `|` (1) to `*` `/` `//` `%` `@` (6); 0 for other tokens.
int binary_precedence(TokenKind k) {
  switch (k) {
    case TokenKind::Pipe: return 1;
    case TokenKind::Caret: return 2;
    case TokenKind::Ampersand: return 3;
    case TokenKind::LShift:
    case TokenKind::RShift: return 4;
    case TokenKind::Plus:
    case TokenKind::Minus: return 5;
    case TokenKind::Star:
    case TokenKind::Slash:
    case TokenKind::DoubleSlash:
    case TokenKind::Percent:
    case TokenKind::At: return 6;
    default: return 0;
  }
}

// The operator of an augmented assignment ("+" for "+="), or null.
const char* augmented_operator(TokenKind k) {
  switch (k) {
    case TokenKind::PlusAssign: return "+";
    case TokenKind::MinusAssign: return "-";
    case TokenKind::StarAssign: return "*";
    case TokenKind::SlashAssign: return "/";
    case TokenKind::DoubleSlashAssign: return "//";
    case TokenKind::PercentAssign: return "%";
    case TokenKind::DoubleStarAssign: return "**";
    case TokenKind::LShiftAssign: return "<<";
    case TokenKind::RShiftAssign: return ">>";
    case TokenKind::AmpersandAssign: return "&";
    case TokenKind::PipeAssign: return "|";
    case TokenKind::CaretAssign: return "^";
    case TokenKind::AtAssign: return "@";
    default: return nullptr;
  }
}

// What an expression is, for "cannot assign to ..." (Python's words).
const char* expression_description(TreeKind k) {
  switch (k) {
    case TreeKind::Call: return "function call";
    case TreeKind::Int:
    case TreeKind::Float:
    case TreeKind::Str: return "literal";
    case TreeKind::Const: return "constant";
    case TreeKind::BinOp:
    case TreeKind::UnaryOp: return "expression";
    case TreeKind::BoolOp: return "boolean operation";
    case TreeKind::Compare: return "comparison";
    case TreeKind::IfExp: return "conditional expression";
    case TreeKind::Dict: return "dict literal";
    case TreeKind::ListComp: return "list comprehension";
    case TreeKind::DictComp: return "dict comprehension";
    case TreeKind::Slice: return "slice";
    default: return "expression";
  }
}

class Parser {
 public:
  Parser(const std::shared_ptr<const Source>& source, const ScriptLimits& limits)
      : source_(source), limits_(limits), lexer_(source, limits) {
    ahead_.push_back(lexer_.next());
  }

  TreePtr parse_module() {
    TreePtr module = make(TreeKind::Module, SourceRange(source_, 0, source_->text().size()));
    while (!at(TokenKind::EndOfFile)) parse_statement(*module);
    return module;
  }

 private:
  // Every recursion of the parser passes one of these (Note [TorchScript grammar]: limits).
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > p_.limits_.max_depth)
        p_.fail(p_.cur(), fmt::format("expressions and blocks nested deeper than {} levels (limit)",
                                      p_.limits_.max_depth));
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& p_;
  };

  // ---- tokens

  // Tokens come from the lexer as the parser needs them: ahead_ holds the current token and the few read ahead.
  const Token& cur() const { return ahead_.front(); }
  const Token& peek(size_t k) {
    while (ahead_.size() <= k && ahead_.back().kind != TokenKind::EndOfFile) ahead_.push_back(lexer_.next());
    return ahead_[std::min(k, ahead_.size() - 1)];
  }
  bool at(TokenKind k) const { return cur().kind == k; }
  // Consumes the current token (EndOfFile stays current) and returns it.
  Token advance() {
    prev_end_ = cur().range.end();
    if (cur().kind == TokenKind::EndOfFile) return cur();
    Token t = std::move(ahead_.front());
    ahead_.pop_front();
    if (ahead_.empty()) ahead_.push_back(lexer_.next());
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  Token expect(TokenKind k, const std::string& what = {}) {
    if (!at(k)) fail(cur(), fmt::format("expected {} but found {}", what.empty() ? kind_description(k) : what,
                                        found(cur())));
    return advance();
  }
  std::string expect_name(const char* what) {
    if (at(TokenKind::Name)) return advance().text;
    if (cur().kind >= TokenKind::KwFalse)  // keywords are the last kinds (Lexer.h)
      fail(cur(), fmt::format("expected {} but found the keyword {}", what, kind_name(cur().kind)));
    fail(cur(), fmt::format("expected {} but found {}", what, found(cur())));
  }

  static std::string found(const Token& t) {
    switch (t.kind) {
      case TokenKind::Name: return fmt::format("name '{}'", t.text);
      case TokenKind::Indent: return "an unexpected indent";
      default: return kind_description(t.kind);
    }
  }

  [[noreturn]] void fail(const Token& t, const std::string& message) { fail(t.range, message); }
  [[noreturn]] void fail(const SourceRange& r, const std::string& message) {
    lexer_.check_unclosed_bracket();
    throw_script_error(r, message);
  }

  // ---- nodes

  static TreePtr make(TreeKind kind, SourceRange range, std::string text = {}) {
    TreePtr t = std::make_unique<Tree>(kind, std::move(range));
    t->text = std::move(text);
    return t;
  }
  // Appends child to parent, refusing a tree higher than the limit (Note [TorchScript AST]).
  void add(Tree& parent, TreePtr child) {
    if (child && child->height + 1 > limits_.max_tree_height)
      fail(child->range, fmt::format("syntax tree nested deeper than {} levels (limit)", limits_.max_tree_height));
    parent.add(std::move(child));
  }
  // The range from offset `start` to the end of the last token consumed.
  SourceRange range_from(size_t start) const {
    return SourceRange(source_, start, std::max(start, prev_end_));
  }
  size_t start() const { return cur().range.start(); }

  // ---- type comments (Note [TorchScript tokens])

  const TypeComment* type_comment_between(size_t first_line, size_t last_line, bool own_line) const {
    const std::vector<TypeComment>& comments = lexer_.type_comments();
    auto it = std::lower_bound(comments.begin(), comments.end(), first_line,
                               [](const TypeComment& c, size_t line) { return c.line < line; });
    for (; it != comments.end() && it->line <= last_line; ++it)
      if (it->own_line == own_line) return &*it;
    return nullptr;
  }
  TreePtr type_comment_node(const TypeComment* c) {
    if (!c) return nullptr;
    return make(TreeKind::TypeComment, c->range, c->text);
  }

  // ---- statements

  void parse_statement(Tree& block) {
    switch (cur().kind) {
      case TokenKind::KwDef: add(block, parse_def(make(TreeKind::Decorators, cur().range))); return;
      case TokenKind::KwClass: add(block, parse_class(make(TreeKind::Decorators, cur().range))); return;
      case TokenKind::At: parse_decorated(block); return;
      case TokenKind::KwIf: add(block, parse_if()); return;
      case TokenKind::KwWhile: add(block, parse_while()); return;
      case TokenKind::KwFor: add(block, parse_for()); return;
      case TokenKind::KwWith: add(block, parse_with()); return;
      case TokenKind::KwTry:
      case TokenKind::KwExcept:
      case TokenKind::KwFinally: fail(cur(), "try/except/finally is not supported in TorchScript");
      case TokenKind::KwAsync: fail(cur(), "async functions and statements are not supported in TorchScript");
      case TokenKind::Indent: fail(cur(), "unexpected indent");
      default: parse_simple_line(block);
    }
  }

  // Simple statements separated by ';' up to the end of the line.
  void parse_simple_line(Tree& block) {
    while (true) {
      add(block, parse_small_statement());
      if (!accept(TokenKind::Semicolon)) break;
      if (at(TokenKind::Newline)) break;
    }
    expect(TokenKind::Newline, "the end of the statement (a new line or ';')");
  }

  // ':' then a block: an indented suite or simple statements on the same line.
  TreePtr parse_block(TreeKind kind) {
    DepthGuard guard(*this);
    size_t begin = start();
    TreePtr block = make(kind, cur().range);
    if (accept(TokenKind::Newline)) {
      if (!at(TokenKind::Indent)) fail(cur(), fmt::format("expected an indented block but found {}", found(cur())));
      advance();
      while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) parse_statement(*block);
      expect(TokenKind::Dedent);
    } else {
      parse_simple_line(*block);
    }
    block->range = range_from(begin);
    return block;
  }

  void parse_decorated(Tree& block) {
    TreePtr decorators = make(TreeKind::Decorators, cur().range);
    size_t begin = start();
    while (accept(TokenKind::At)) {
      add(*decorators, parse_expression());
      expect(TokenKind::Newline, "a new line after the decorator");
    }
    decorators->range = range_from(begin);
    if (at(TokenKind::KwDef)) add(block, parse_def(std::move(decorators)));
    else if (at(TokenKind::KwClass)) add(block, parse_class(std::move(decorators)));
    else fail(cur(), fmt::format("expected 'def' or 'class' after decorators but found {}", found(cur())));
  }

  TreePtr parse_def(TreePtr decorators) {
    size_t begin = start();
    expect(TokenKind::KwDef);
    std::string name = expect_name("a function name");
    expect(TokenKind::LParen, "'(' after the function's name");
    TreePtr params = parse_params();
    expect(TokenKind::RParen, "')' or ',' in the parameter list");
    TreePtr returns = accept(TokenKind::Arrow) ? parse_expression() : nullptr;
    Token colon = expect(TokenKind::Colon, "':' after the function's signature");
    // Note [TorchScript tokens]: "# type: ..." on the def's line, or alone before the body.
    size_t colon_line = colon.range.line();
    const TypeComment* comment = type_comment_between(colon_line, colon_line, false);
    if (!comment && at(TokenKind::Newline)) comment = type_comment_between(colon_line + 1, peek(1).range.line(), true);
    TreePtr type_comment = type_comment_node(comment);
    TreePtr body = parse_block(TreeKind::Body);
    TreePtr def = make(TreeKind::Def, range_from(begin), std::move(name));
    add(*def, std::move(decorators));
    add(*def, std::move(params));
    add(*def, std::move(returns));
    add(*def, std::move(type_comment));
    add(*def, std::move(body));
    return def;
  }

  TreePtr parse_params() {
    size_t begin = start();
    TreePtr params = make(TreeKind::Params, cur().range);
    bool keyword_only = false, seen_default = false;
    std::optional<SourceRange> bare_star;
    bool named_after_star = false;
    while (!at(TokenKind::RParen)) {
      if (at(TokenKind::Star)) {
        Token star = advance();
        if (at(TokenKind::Name)) fail(star, "*args parameters are not supported in TorchScript");
        if (keyword_only) fail(star, "'*' may appear only once in a parameter list");
        keyword_only = true;
        bare_star = star.range;
      } else if (at(TokenKind::DoubleStar)) {
        fail(cur(), "**kwargs parameters are not supported in TorchScript");
      } else if (at(TokenKind::Slash)) {
        fail(cur(), "positional-only parameters ('/') are not supported in TorchScript");
      } else {
        size_t param_begin = start();
        SourceRange name_range = cur().range;
        std::string name = expect_name("a parameter name");
        TreePtr annotation = accept(TokenKind::Colon) ? parse_expression() : nullptr;
        TreePtr default_value = accept(TokenKind::Assign) ? parse_expression() : nullptr;
        if (!keyword_only) {
          if (default_value) seen_default = true;
          else if (seen_default) fail(name_range, "non-default argument follows default argument");
        } else {
          named_after_star = true;
        }
        TreePtr param =
            make(keyword_only ? TreeKind::KwParam : TreeKind::Param, range_from(param_begin), std::move(name));
        add(*param, std::move(annotation));
        add(*param, std::move(default_value));
        add(*params, std::move(param));
      }
      if (!accept(TokenKind::Comma)) break;
    }
    if (bare_star && !named_after_star) fail(*bare_star, "named arguments must follow bare *");
    params->range = range_from(begin);
    return params;
  }

  TreePtr parse_class(TreePtr decorators) {
    size_t begin = start();
    expect(TokenKind::KwClass);
    std::string name = expect_name("a class name");
    TreePtr bases = make(TreeKind::Bases, cur().range);
    if (accept(TokenKind::LParen)) {
      while (!at(TokenKind::RParen)) {
        if (at(TokenKind::Name) && peek(1).kind == TokenKind::Assign)
          fail(cur(), "class keyword arguments (such as metaclass=) are not supported in TorchScript");
        if (at(TokenKind::Star) || at(TokenKind::DoubleStar))
          fail(cur(), "unpacking in a class's bases is not supported in TorchScript");
        add(*bases, parse_expression());
        if (!accept(TokenKind::Comma)) break;
      }
      expect(TokenKind::RParen, "')' or ',' after the class's bases");
    }
    expect(TokenKind::Colon, "':' after the class's name");
    TreePtr body = parse_block(TreeKind::Body);
    TreePtr cls = make(TreeKind::Class, range_from(begin), std::move(name));
    add(*cls, std::move(decorators));
    add(*cls, std::move(bases));
    add(*cls, std::move(body));
    return cls;
  }

  // if/elif/else: the elif chain is read in a loop and nested from its end (no recursion per elif).
  TreePtr parse_if() {
    struct Branch {
      size_t begin;
      TreePtr test, body;
    };
    std::vector<Branch> branches;
    do {
      size_t begin = start();
      advance();  // 'if' or 'elif'
      TreePtr test = parse_expression();
      expect(TokenKind::Colon, "':' after the condition");
      branches.push_back({begin, std::move(test), parse_block(TreeKind::Body)});
    } while (at(TokenKind::KwElif));
    size_t else_begin = start();
    TreePtr orelse;
    if (accept(TokenKind::KwElse)) {
      expect(TokenKind::Colon, "':' after 'else'");
      orelse = parse_block(TreeKind::OrElse);
    } else {
      orelse = make(TreeKind::OrElse, SourceRange(source_, else_begin, else_begin));
    }
    size_t end = prev_end_;
    for (size_t i = branches.size(); i-- > 0;) {
      TreePtr node = make(TreeKind::If, SourceRange(source_, branches[i].begin,
                                                    std::max(branches[i].begin, end)));
      add(*node, std::move(branches[i].test));
      add(*node, std::move(branches[i].body));
      add(*node, std::move(orelse));
      if (i == 0) return node;
      orelse = make(TreeKind::OrElse, node->range);
      add(*orelse, std::move(node));
    }
    return nullptr;  // not reached: there is at least one branch
  }

  void refuse_loop_else(const char* loop) {
    if (at(TokenKind::KwElse)) fail(cur(), fmt::format("'else' after a {} loop is not supported in TorchScript", loop));
  }

  TreePtr parse_while() {
    size_t begin = start();
    advance();
    TreePtr test = parse_expression();
    expect(TokenKind::Colon, "':' after the loop's condition");
    TreePtr body = parse_block(TreeKind::Body);
    refuse_loop_else("while");
    TreePtr node = make(TreeKind::While, range_from(begin));
    add(*node, std::move(test));
    add(*node, std::move(body));
    return node;
  }

  TreePtr parse_for() {
    size_t begin = start();
    advance();
    TreePtr target = parse_target_list();
    expect(TokenKind::KwIn, "'in' after the loop's target");
    TreePtr iter = parse_expression_list();
    expect(TokenKind::Colon, "':' after the loop's iterable");
    TreePtr body = parse_block(TreeKind::Body);
    refuse_loop_else("for");
    TreePtr node = make(TreeKind::For, range_from(begin));
    add(*node, std::move(target));
    add(*node, std::move(iter));
    add(*node, std::move(body));
    return node;
  }

  TreePtr parse_with() {
    size_t begin = start();
    advance();
    TreePtr node = make(TreeKind::With, cur().range);
    do {
      size_t item_begin = start();
      TreePtr context = parse_expression();
      TreePtr vars;
      if (accept(TokenKind::KwAs)) {
        vars = parse_target_item();
        check_target(*vars, "assign to");
      }
      TreePtr item = make(TreeKind::WithItem, range_from(item_begin));
      add(*item, std::move(context));
      add(*item, std::move(vars));
      add(*node, std::move(item));
    } while (accept(TokenKind::Comma));
    expect(TokenKind::Colon, "':' after the with statement's items");
    add(*node, parse_block(TreeKind::Body));
    node->range = range_from(begin);
    return node;
  }

  bool at_statement_end() const {
    return at(TokenKind::Newline) || at(TokenKind::Semicolon) || at(TokenKind::EndOfFile);
  }

  TreePtr parse_small_statement() {
    size_t begin = start();
    const Token t = cur();
    switch (t.kind) {
      case TokenKind::KwPass: advance(); return make(TreeKind::Pass, t.range);
      case TokenKind::KwBreak: advance(); return make(TreeKind::Break, t.range);
      case TokenKind::KwContinue: advance(); return make(TreeKind::Continue, t.range);
      case TokenKind::KwReturn: {
        advance();
        TreePtr value = at_statement_end() ? nullptr : parse_expression_list();
        TreePtr node = make(TreeKind::Return, range_from(begin));
        add(*node, std::move(value));
        return node;
      }
      case TokenKind::KwRaise: {
        advance();
        TreePtr exception = at_statement_end() ? nullptr : parse_expression();
        if (at(TokenKind::KwFrom)) fail(cur(), "'raise ... from ...' is not supported in TorchScript");
        TreePtr node = make(TreeKind::Raise, range_from(begin));
        add(*node, std::move(exception));
        return node;
      }
      case TokenKind::KwAssert: {
        advance();
        TreePtr test = parse_expression();
        TreePtr message = accept(TokenKind::Comma) ? parse_expression() : nullptr;
        TreePtr node = make(TreeKind::Assert, range_from(begin));
        add(*node, std::move(test));
        add(*node, std::move(message));
        return node;
      }
      case TokenKind::KwDel: {
        advance();
        TreePtr node = make(TreeKind::Delete, t.range);
        do {
          if (at_statement_end()) break;
          TreePtr target = parse_binary(1);
          check_target(*target, "delete");
          add(*node, std::move(target));
        } while (accept(TokenKind::Comma));
        if (node->children.empty())
          fail(cur(), fmt::format("expected a target after 'del' but found {}", found(cur())));
        node->range = range_from(begin);
        return node;
      }
      case TokenKind::KwGlobal:
      case TokenKind::KwNonlocal:
        fail(t, fmt::format("{} statements are not supported in TorchScript", kind_name(t.kind)));
      case TokenKind::KwImport:
      case TokenKind::KwFrom: fail(t, "import statements are not supported in TorchScript");
      default: break;
    }
    return parse_expression_statement();
  }

  TreePtr parse_expression_statement() {
    size_t begin = start();
    TreePtr first = parse_expression_list();
    if (at(TokenKind::Colon)) {
      if (first->kind == TreeKind::Tuple || first->kind == TreeKind::List)
        fail(first->range, "only single target (not tuple) can be annotated");
      if (first->kind != TreeKind::Name && first->kind != TreeKind::Attribute && first->kind != TreeKind::Subscript)
        fail(first->range, "illegal target for annotation");
      advance();
      TreePtr annotation = parse_expression();
      TreePtr value = accept(TokenKind::Assign) ? parse_expression_list() : nullptr;
      TreePtr node = make(TreeKind::AnnAssign, range_from(begin));
      add(*node, std::move(first));
      add(*node, std::move(annotation));
      add(*node, std::move(value));
      return node;
    }
    if (const char* op = augmented_operator(cur().kind)) {
      if (first->kind != TreeKind::Name && first->kind != TreeKind::Attribute && first->kind != TreeKind::Subscript)
        fail(first->range, fmt::format("'{}' is an illegal expression for augmented assignment",
                                       tree_kind_name(first->kind)));
      advance();
      TreePtr value = parse_expression_list();
      TreePtr node = make(TreeKind::AugAssign, range_from(begin), op);
      add(*node, std::move(first));
      add(*node, std::move(value));
      return node;
    }
    if (at(TokenKind::Assign)) {
      std::vector<TreePtr> parts;
      parts.push_back(std::move(first));
      while (accept(TokenKind::Assign)) parts.push_back(parse_expression_list());
      TreePtr targets = make(TreeKind::Targets, SourceRange(source_, begin, parts[parts.size() - 2]->range.end()));
      TreePtr value = std::move(parts.back());
      parts.pop_back();
      for (TreePtr& target : parts) {
        check_target(*target, "assign to");
        add(*targets, std::move(target));
      }
      TreePtr type_comment;
      if (at(TokenKind::Newline)) {
        size_t line = cur().range.line();
        type_comment = type_comment_node(type_comment_between(line, line, false));
      }
      TreePtr node = make(TreeKind::Assign, range_from(begin));
      add(*node, std::move(targets));
      add(*node, std::move(value));
      add(*node, std::move(type_comment));
      return node;
    }
    TreePtr node = make(TreeKind::ExprStmt, range_from(begin));
    add(*node, std::move(first));
    return node;
  }

  // Names, attributes and subscripts, and tuples and lists of them (with starred items) may be assigned to.
  void check_target(const Tree& t, const char* verb) {
    switch (t.kind) {
      case TreeKind::Name:
      case TreeKind::Attribute:
      case TreeKind::Subscript: return;
      case TreeKind::Tuple:
      case TreeKind::List:
        for (const TreePtr& c : t.children) check_target(*c, verb);
        return;
      case TreeKind::Starred:
        if (std::string_view(verb) == "delete") break;
        check_target(*t.child(0), verb);
        return;
      default: break;
    }
    fail(t.range, fmt::format("cannot {} {}", verb, expression_description(t.kind)));
  }

  // ---- expressions

  // Expressions separated by commas (a tuple when there is a comma), with starred items: Python's
  // star_expressions.
  TreePtr parse_expression_list() {
    size_t begin = start();
    TreePtr first = parse_star_or_expression();
    if (!at(TokenKind::Comma)) return first;
    TreePtr tuple = make(TreeKind::Tuple, first->range);
    add(*tuple, std::move(first));
    while (accept(TokenKind::Comma)) {
      if (!starts_expression(cur().kind)) break;
      add(*tuple, parse_star_or_expression());
    }
    tuple->range = range_from(begin);
    return tuple;
  }

  TreePtr parse_star_or_expression() {
    if (!at(TokenKind::Star)) return parse_expression();
    size_t begin = start();
    advance();
    TreePtr value = parse_binary(1);
    TreePtr node = make(TreeKind::Starred, range_from(begin));
    add(*node, std::move(value));
    return node;
  }

  // The target of a for loop or comprehension: or-expressions (so that `in` ends it) and starred ones.
  TreePtr parse_target_list() {
    size_t begin = start();
    TreePtr first = parse_target_item();
    if (at(TokenKind::Comma)) {
      TreePtr tuple = make(TreeKind::Tuple, first->range);
      add(*tuple, std::move(first));
      while (accept(TokenKind::Comma)) {
        if (at(TokenKind::KwIn) || !starts_expression(cur().kind)) break;
        add(*tuple, parse_target_item());
      }
      tuple->range = range_from(begin);
      first = std::move(tuple);
    }
    check_target(*first, "assign to");
    return first;
  }

  TreePtr parse_target_item() {
    if (!at(TokenKind::Star)) return parse_binary(1);
    return parse_star_or_expression();
  }

  // Python's `expression`: a conditional expression or anything below it.
  TreePtr parse_expression() {
    DepthGuard guard(*this);
    switch (cur().kind) {
      case TokenKind::KwLambda:
        fail(cur(), "lambda expressions are not supported in TorchScript; define the function with def");
      case TokenKind::KwYield: fail(cur(), "yield (generators) is not supported in TorchScript");
      case TokenKind::KwAwait: fail(cur(), "await is not supported in TorchScript");
      default: break;
    }
    size_t begin = start();
    TreePtr body = parse_disjunction();
    if (at(TokenKind::KwIf)) {
      advance();
      TreePtr test = parse_disjunction();
      expect(TokenKind::KwElse, "'else' in the conditional expression");
      TreePtr orelse = parse_expression();
      TreePtr node = make(TreeKind::IfExp, range_from(begin));
      add(*node, std::move(test));
      add(*node, std::move(body));
      add(*node, std::move(orelse));
      body = std::move(node);
    }
    if (at(TokenKind::Walrus)) fail(cur(), "assignment expressions (:=) are not supported in TorchScript");
    return body;
  }

  TreePtr parse_bool_chain(TokenKind op, const char* name, TreePtr (Parser::*operand)()) {
    size_t begin = start();
    TreePtr first = (this->*operand)();
    if (!at(op)) return first;
    TreePtr node = make(TreeKind::BoolOp, first->range, name);
    add(*node, std::move(first));
    while (accept(op)) add(*node, (this->*operand)());
    node->range = range_from(begin);
    return node;
  }
  TreePtr parse_disjunction() { return parse_bool_chain(TokenKind::KwOr, "or", &Parser::parse_conjunction); }
  TreePtr parse_conjunction() { return parse_bool_chain(TokenKind::KwAnd, "and", &Parser::parse_inversion); }

  TreePtr parse_inversion() {
    if (!at(TokenKind::KwNot)) return parse_comparison();
    DepthGuard guard(*this);
    size_t begin = start();
    advance();
    TreePtr operand = parse_inversion();
    TreePtr node = make(TreeKind::UnaryOp, range_from(begin), "not");
    add(*node, std::move(operand));
    return node;
  }

  // The comparison operator at the cursor ("not_in", "is_not", ...) and its token count, or null.
  const char* comparison_operator(size_t* tokens) {
    *tokens = 1;
    switch (cur().kind) {
      case TokenKind::Less: return "<";
      case TokenKind::Greater: return ">";
      case TokenKind::Equal: return "==";
      case TokenKind::NotEqual: return "!=";
      case TokenKind::LessEqual: return "<=";
      case TokenKind::GreaterEqual: return ">=";
      case TokenKind::KwIn: return "in";
      case TokenKind::KwIs:
        if (peek(1).kind == TokenKind::KwNot) {
          *tokens = 2;
          return "is_not";
        }
        return "is";
      case TokenKind::KwNot:
        if (peek(1).kind == TokenKind::KwIn) {
          *tokens = 2;
          return "not_in";
        }
        return nullptr;
      default: return nullptr;
    }
  }

  TreePtr parse_comparison() {
    size_t begin = start();
    TreePtr left = parse_binary(1);
    size_t n = 0;
    const char* op = comparison_operator(&n);
    if (!op) return left;
    TreePtr node = make(TreeKind::Compare, left->range);
    add(*node, std::move(left));
    while (op) {
      size_t op_begin = start();
      for (size_t i = 0; i < n; ++i) advance();
      TreePtr right = parse_binary(1);
      TreePtr cmp = make(TreeKind::CompareOp, range_from(op_begin), op);
      add(*cmp, std::move(right));
      add(*node, std::move(cmp));
      op = comparison_operator(&n);
    }
    node->range = range_from(begin);
    return node;
  }

  // Binary operators of precedence min_precedence and higher, left-associative (precedence climbing: one
  // frame per precedence level, not per operator).
  TreePtr parse_binary(int min_precedence) {
    size_t begin = start();
    TreePtr left = parse_factor();
    while (true) {
      int precedence = binary_precedence(cur().kind);
      if (precedence == 0 || precedence < min_precedence) break;
      std::string op = kind_name(advance().kind);
      op = op.substr(1, op.size() - 2);  // kind_name quotes operators
      TreePtr right = parse_binary(precedence + 1);
      TreePtr node = make(TreeKind::BinOp, range_from(begin), std::move(op));
      add(*node, std::move(left));
      add(*node, std::move(right));
      left = std::move(node);
    }
    return left;
  }

  TreePtr parse_factor() {
    const char* op = at(TokenKind::Minus) ? "-" : at(TokenKind::Plus) ? "+" : at(TokenKind::Tilde) ? "~" : nullptr;
    if (!op) return parse_power();
    DepthGuard guard(*this);
    size_t begin = start();
    advance();
    TreePtr operand = parse_factor();
    TreePtr node = make(TreeKind::UnaryOp, range_from(begin), op);
    add(*node, std::move(operand));
    return node;
  }

  TreePtr parse_power() {
    size_t begin = start();
    TreePtr base = parse_primary();
    if (!at(TokenKind::DoubleStar)) return base;
    DepthGuard guard(*this);
    advance();
    TreePtr exponent = parse_factor();
    TreePtr node = make(TreeKind::BinOp, range_from(begin), "**");
    add(*node, std::move(base));
    add(*node, std::move(exponent));
    return node;
  }

  TreePtr parse_primary() {
    size_t begin = start();
    TreePtr value = parse_atom();
    while (true) {
      if (accept(TokenKind::Dot)) {
        std::string name = expect_name("an attribute name after '.'");
        TreePtr node = make(TreeKind::Attribute, range_from(begin), std::move(name));
        add(*node, std::move(value));
        value = std::move(node);
      } else if (accept(TokenKind::LParen)) {
        TreePtr node = make(TreeKind::Call, value->range);
        add(*node, std::move(value));
        parse_call_arguments(*node);
        expect(TokenKind::RParen, "')' or ',' in the call's arguments");
        node->range = range_from(begin);
        value = std::move(node);
      } else if (accept(TokenKind::LBracket)) {
        TreePtr index = parse_subscript_index();
        expect(TokenKind::RBracket, "']' or ',' in the subscript");
        TreePtr node = make(TreeKind::Subscript, range_from(begin));
        add(*node, std::move(value));
        add(*node, std::move(index));
        value = std::move(node);
      } else {
        return value;
      }
    }
  }

  void parse_call_arguments(Tree& call) {
    TreePtr args = make(TreeKind::Args, cur().range);
    TreePtr kwargs = make(TreeKind::Kwargs, cur().range);
    bool seen_keyword = false;
    while (!at(TokenKind::RParen)) {
      size_t begin = start();
      if (at(TokenKind::Star)) {
        advance();
        TreePtr value = parse_expression();
        TreePtr node = make(TreeKind::Starred, range_from(begin));
        add(*node, std::move(value));
        add(*args, std::move(node));
      } else if (at(TokenKind::DoubleStar)) {
        fail(cur(), "**kwargs unpacking in calls is not supported in TorchScript");
      } else if (at(TokenKind::Name) && peek(1).kind == TokenKind::Assign) {
        std::string name = advance().text;
        advance();
        TreePtr value = parse_expression();
        TreePtr node = make(TreeKind::Keyword, range_from(begin), std::move(name));
        add(*node, std::move(value));
        add(*kwargs, std::move(node));
        seen_keyword = true;
      } else {
        if (seen_keyword) fail(cur(), "positional argument follows keyword argument");
        TreePtr value = parse_expression();
        refuse_generator();
        add(*args, std::move(value));
      }
      if (!accept(TokenKind::Comma)) break;
    }
    add(call, std::move(args));
    add(call, std::move(kwargs));
  }

  void refuse_generator() {
    if (at(TokenKind::KwFor))
      fail(cur(), "generator expressions are not supported in TorchScript; use a list comprehension");
  }

  // The index of a subscript: one item, or a tuple of items when there is a comma.
  TreePtr parse_subscript_index() {
    size_t begin = start();
    TreePtr first = parse_slice_item();
    if (!at(TokenKind::Comma)) return first;
    TreePtr tuple = make(TreeKind::Tuple, first->range);
    add(*tuple, std::move(first));
    while (accept(TokenKind::Comma)) {
      if (at(TokenKind::RBracket)) break;
      add(*tuple, parse_slice_item());
    }
    tuple->range = range_from(begin);
    return tuple;
  }

  TreePtr parse_slice_item() {
    size_t begin = start();
    TreePtr lower;
    if (!at(TokenKind::Colon)) {
      if (at(TokenKind::Star)) fail(cur(), "starred expressions in subscripts are not supported in TorchScript");
      lower = parse_expression();
      if (!at(TokenKind::Colon)) return lower;
    }
    advance();  // ':'
    auto slice_part_ends = [&] { return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RBracket); };
    TreePtr upper = slice_part_ends() ? nullptr : parse_expression();
    TreePtr step;
    if (accept(TokenKind::Colon)) step = slice_part_ends() ? nullptr : parse_expression();
    TreePtr node = make(TreeKind::Slice, range_from(begin));
    add(*node, std::move(lower));
    add(*node, std::move(upper));
    add(*node, std::move(step));
    return node;
  }

  TreePtr parse_atom() {
    const Token t = cur();
    size_t begin = start();
    switch (t.kind) {
      case TokenKind::Name: advance(); return make(TreeKind::Name, t.range, t.text);
      case TokenKind::Int: {
        advance();
        TreePtr node = make(TreeKind::Int, t.range);
        node->int_value = t.int_value;
        return node;
      }
      case TokenKind::Float: {
        advance();
        TreePtr node = make(TreeKind::Float, t.range);
        node->float_value = t.float_value;
        return node;
      }
      case TokenKind::String: {
        std::string value;
        while (at(TokenKind::String)) value += advance().text;  // adjacent literals are one string
        return make(TreeKind::Str, range_from(begin), std::move(value));
      }
      case TokenKind::KwNone: advance(); return make(TreeKind::Const, t.range, "None");
      case TokenKind::KwTrue: advance(); return make(TreeKind::Const, t.range, "True");
      case TokenKind::KwFalse: advance(); return make(TreeKind::Const, t.range, "False");
      case TokenKind::Ellipsis: advance(); return make(TreeKind::Const, t.range, "...");
      case TokenKind::LParen: return parse_parenthesized();
      case TokenKind::LBracket: return parse_list();
      case TokenKind::LBrace: return parse_dict();
      case TokenKind::KwLambda:
      case TokenKind::KwYield:
      case TokenKind::KwAwait: return parse_expression();  // refuses them with their message
      default: fail(t, fmt::format("expected an expression but found {}", found(t)));
    }
  }

  TreePtr parse_parenthesized() {
    size_t begin = start();
    advance();
    if (accept(TokenKind::RParen)) return make(TreeKind::Tuple, range_from(begin));
    TreePtr first = parse_star_or_expression();
    refuse_generator();
    if (!at(TokenKind::Comma)) {
      expect(TokenKind::RParen, "')'");
      return first;  // parentheses leave no node (Note [TorchScript AST])
    }
    TreePtr tuple = make(TreeKind::Tuple, first->range);
    add(*tuple, std::move(first));
    while (accept(TokenKind::Comma)) {
      if (at(TokenKind::RParen)) break;
      add(*tuple, parse_star_or_expression());
    }
    expect(TokenKind::RParen, "')' or ',' in the tuple");
    tuple->range = range_from(begin);
    return tuple;
  }

  TreePtr parse_list() {
    size_t begin = start();
    advance();
    TreePtr list = make(TreeKind::List, cur().range);
    if (!at(TokenKind::RBracket)) {
      TreePtr first = parse_star_or_expression();
      if (at(TokenKind::KwFor)) {
        TreePtr comp = make(TreeKind::ListComp, first->range);
        add(*comp, std::move(first));
        parse_comprehension_clauses(*comp);
        expect(TokenKind::RBracket, "']' after the list comprehension");
        comp->range = range_from(begin);
        return comp;
      }
      add(*list, std::move(first));
      while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RBracket)) break;
        add(*list, parse_star_or_expression());
      }
    }
    expect(TokenKind::RBracket, "']' or ',' in the list");
    list->range = range_from(begin);
    return list;
  }

  TreePtr parse_dict() {
    size_t begin = start();
    const Token brace = advance();
    TreePtr dict = make(TreeKind::Dict, brace.range);
    auto refuse_unpacking = [&] {
      if (at(TokenKind::DoubleStar)) fail(cur(), "dict unpacking (**) is not supported in TorchScript");
    };
    if (!at(TokenKind::RBrace)) {
      refuse_unpacking();
      TreePtr key = at(TokenKind::Star) ? parse_star_or_expression() : parse_expression();
      if (!at(TokenKind::Colon)) fail(brace, "set literals and set comprehensions are not supported in TorchScript");
      advance();
      TreePtr value = parse_expression();
      if (at(TokenKind::KwFor)) {
        TreePtr comp = make(TreeKind::DictComp, key->range);
        add(*comp, std::move(key));
        add(*comp, std::move(value));
        parse_comprehension_clauses(*comp);
        expect(TokenKind::RBrace, "'}' after the dict comprehension");
        comp->range = range_from(begin);
        return comp;
      }
      add_dict_item(*dict, std::move(key), std::move(value));
      while (accept(TokenKind::Comma)) {
        if (at(TokenKind::RBrace)) break;
        refuse_unpacking();
        key = parse_expression();
        expect(TokenKind::Colon, "':' after the dict key");
        add_dict_item(*dict, std::move(key), parse_expression());
      }
    }
    expect(TokenKind::RBrace, "'}' or ',' in the dict");
    dict->range = range_from(begin);
    return dict;
  }

  void add_dict_item(Tree& dict, TreePtr key, TreePtr value) {
    TreePtr item = make(TreeKind::DictItem, key->range.merge(value->range));
    add(*item, std::move(key));
    add(*item, std::move(value));
    add(dict, std::move(item));
  }

  // ('for' targets 'in' disjunction ('if' disjunction)*)+
  void parse_comprehension_clauses(Tree& comp) {
    while (at(TokenKind::KwFor)) {
      size_t begin = start();
      advance();
      TreePtr target = parse_target_list();
      expect(TokenKind::KwIn, "'in' in the comprehension");
      TreePtr clause = make(TreeKind::CompFor, cur().range);
      add(*clause, std::move(target));
      add(*clause, parse_disjunction());
      while (accept(TokenKind::KwIf)) add(*clause, parse_disjunction());
      clause->range = range_from(begin);
      add(comp, std::move(clause));
    }
    if (at(TokenKind::KwAsync)) fail(cur(), "async comprehensions are not supported in TorchScript");
  }

  std::shared_ptr<const Source> source_;
  ScriptLimits limits_;
  Lexer lexer_;
  std::deque<Token> ahead_;
  size_t prev_end_ = 0;  // end of the last token consumed
  int depth_ = 0;
};

}  // namespace

TreePtr parse_script(const std::shared_ptr<const Source>& source, const ScriptLimits& limits) {
  return Parser(source, limits).parse_module();
}

TreePtr parse_script(std::string_view text, const std::string& filename, const ScriptLimits& limits) {
  if (text.size() > limits.max_source_bytes)
    detail::throw_error(ErrorKind::Runtime,
                        fmt::format("TorchScript: {}: source of {} bytes is larger than {} bytes (limit)", filename,
                                    text.size(), limits.max_source_bytes));
  return parse_script(std::make_shared<const Source>(std::string(text), filename), limits);
}

}  // namespace ember::jit::script
