// The TorchScript lexer (Note [TorchScript tokens]).
#include "ember/jit/frontend/Lexer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "ember/base/Error.h"

namespace ember::jit::script {

namespace {

struct Spelling {
  std::string_view text;
  TokenKind kind;
};

#define EMBER_SCRIPT_X(e, s) Spelling{s, TokenKind::e},
constexpr Spelling kOperators[] = {EMBER_SCRIPT_OPERATORS(EMBER_SCRIPT_X)};
#undef EMBER_SCRIPT_X
#define EMBER_SCRIPT_X(e, s) Spelling{s, TokenKind::Kw##e},
constexpr Spelling kKeywords[] = {EMBER_SCRIPT_KEYWORDS(EMBER_SCRIPT_X)};
#undef EMBER_SCRIPT_X

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// One indentation level: its column with tabs to multiples of 8, and with tabs as one column (Python's check of
// consistent tabs: two lines must compare the same way under both).
struct Indentation {
  size_t col = 0;
  size_t alt_col = 0;
};

}  // namespace

// The lexer's state between calls of next(): reads one piece of text (a token, a line's indentation, a comment)
// per step.
class Lexer::Impl {
 public:
  Impl(const std::shared_ptr<const Source>& source, const ScriptLimits& limits)
      : source_(source), text_(source->text()), limits_(limits) {
    indents_.push_back({});
  }

  Token next() {
    while (pending_.empty()) step();
    Token t = std::move(pending_.front());
    pending_.pop_front();
    return t;
  }

  const std::vector<TypeComment>& type_comments() const { return type_comments_; }

  // See Lexer::check_unclosed_bracket.
  void check_unclosed_bracket() {
    if (brackets_.empty() || done_) return;
    try {
      while (!done_) {
        step();
        pending_.clear();
      }
    } catch (const Error&) {
      if (unclosed_) throw;
    }
  }

 private:
  void step() {
    if (done_) {
      push(TokenKind::EndOfFile, text_.size(), text_.size());
      return;
    }
    if (line_start_ && brackets_.empty()) {
      if (start_line()) line_start_ = false;
      else finish();  // end of input
      return;
    }
    skip_blanks();
    if (pos_ >= text_.size()) {
      finish();
      return;
    }
    char c = text_[pos_];
    if (c == '#') {
      read_comment(false);
    } else if (c == '\n' || c == '\r') {
      size_t start = pos_;
      pos_ += (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
      if (brackets_.empty()) {
        push(TokenKind::Newline, start, pos_);
        line_start_ = true;
      }
    } else if (c == '\\') {
      line_continuation();
    } else {
      read_token();
    }
  }

 private:
  [[noreturn]] void fail(size_t start, size_t end, const std::string& message) const {
    throw_script_error(SourceRange(source_, start, std::max(end, start + 1) > text_.size() ? text_.size() : end),
                       message);
  }

  Token& push(TokenKind kind, size_t start, size_t end) {
    Token t;
    t.kind = kind;
    t.range = SourceRange(source_, start, end);
    last_kind_ = kind;
    pending_.push_back(std::move(t));
    return pending_.back();
  }

  void skip_blanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\f')) ++pos_;
  }

  // A backslash outside strings: it must end the line, which it joins to the next.
  void line_continuation() {
    size_t start = pos_++;
    if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
    else if (pos_ >= text_.size() || text_[pos_ - 1] != '\r')
      fail(start, start + 1, pos_ >= text_.size() ? "unexpected end of input after line continuation character"
                                                  : "unexpected character after line continuation character");
    if (pos_ >= text_.size()) fail(start, start + 1, "unexpected end of input after line continuation character");
  }

  // Reads the indentation of a new logical line and emits INDENT/DEDENT. Skips blank and comment-only lines.
  // Returns false at the end of input.
  bool start_line() {
    while (true) {
      Indentation ind;
      size_t start = pos_;
      while (pos_ < text_.size()) {
        char c = text_[pos_];
        if (c == ' ') {
          ++ind.col;
          ++ind.alt_col;
        } else if (c == '\t') {
          ind.col = (ind.col / 8 + 1) * 8;
          ++ind.alt_col;
        } else if (c == '\f') {
          ind = {};
        } else {
          break;
        }
        ++pos_;
      }
      if (pos_ >= text_.size()) return false;
      char c = text_[pos_];
      if (c == '#') {
        read_comment(true);
        continue;  // the comment stopped at the line break, consumed below on the next round
      }
      if (c == '\n' || c == '\r') {
        pos_ += (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
        continue;
      }
      if (c == '\\') {
        // A line that starts with a continuation joins the next line's text onto this indentation.
        line_continuation();
        // Python treats the joined text as this line's content; fall through with the indentation read so far.
        skip_blanks();
        if (pos_ >= text_.size()) return false;
      }
      set_indentation(ind, start);
      return true;
    }
  }

  void set_indentation(const Indentation& ind, size_t line_start) {
    const Indentation& top = indents_.back();
    auto inconsistent = [&] { fail(line_start, pos_, "inconsistent use of tabs and spaces in indentation"); };
    if (ind.col == top.col) {
      if (ind.alt_col != top.alt_col) inconsistent();
      return;
    }
    if (ind.col > top.col) {
      if (ind.alt_col <= top.alt_col) inconsistent();
      if (static_cast<int>(indents_.size()) > limits_.max_depth)
        fail(line_start, pos_, fmt::format("indentation nested deeper than {} levels (limit)", limits_.max_depth));
      indents_.push_back(ind);
      push(TokenKind::Indent, pos_, pos_);  // shown under the line's first token
      return;
    }
    while (indents_.size() > 1 && ind.col < indents_.back().col) {
      indents_.pop_back();
      push(TokenKind::Dedent, pos_, pos_);
    }
    if (ind.col != indents_.back().col) fail(line_start, pos_, "unindent does not match any outer indentation level");
    if (ind.alt_col != indents_.back().alt_col) inconsistent();
  }

  void read_comment(bool own_line) {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
    std::string_view body = std::string_view(text_).substr(start + 1, pos_ - start - 1);
    size_t i = body.find_first_not_of(" \t\f");
    if (i == std::string_view::npos || body.substr(i, 5) != "type:") return;
    std::string_view rest = body.substr(i + 5);
    size_t j = rest.find_first_not_of(" \t\f");
    rest = j == std::string_view::npos ? std::string_view() : rest.substr(j);
    if (rest.substr(0, 6) == "ignore" && (rest.size() == 6 || !is_name_char(rest[6]))) return;
    TypeComment tc;
    tc.range = SourceRange(source_, start, pos_);
    tc.line = tc.range.line();
    tc.own_line = own_line;
    tc.text = std::string(rest);
    type_comments_.push_back(std::move(tc));
  }

  void read_token() {
    size_t start = pos_;
    char c = text_[pos_];
    if (is_name_start(c)) {
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      std::string_view word = std::string_view(text_).substr(start, pos_ - start);
      if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"') && word.size() <= 2) {
        if (read_prefixed_string(word, start)) return;
      }
      for (const Spelling& k : kKeywords) {
        if (k.text == word) {
          push(k.kind, start, pos_);
          return;
        }
      }
      push(TokenKind::Name, start, pos_).text = std::string(word);
      return;
    }
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
      read_number();
      return;
    }
    if (c == '\'' || c == '"') {
      read_string(start, false);
      return;
    }
    if (static_cast<unsigned char>(c) >= 0x80)
      fail(start, start + 1, "non-ASCII character outside a string or comment (TorchScript names are ASCII)");
    // The longest operator spelled at pos_.
    const Spelling* best = nullptr;
    for (const Spelling& op : kOperators) {
      if (std::string_view(text_).substr(pos_, op.text.size()) == op.text &&
          (!best || op.text.size() > best->text.size()))
        best = &op;
    }
    if (!best) {
      if (c == '!') fail(start, start + 1, "invalid syntax: '!' (TorchScript's 'not' is written not)");
      if (c == '$' || c == '?' || c == '`')
        fail(start, start + 1, fmt::format("invalid character '{}'", c));
      fail(start, start + 1, fmt::format("invalid character (byte 0x{:02x})", static_cast<unsigned char>(c)));
    }
    pos_ += best->text.size();
    TokenKind kind = best->kind;
    if (kind == TokenKind::LParen || kind == TokenKind::LBracket || kind == TokenKind::LBrace) {
      if (static_cast<int>(brackets_.size()) >= limits_.max_depth)
        fail(start, pos_, fmt::format("brackets nested deeper than {} levels (limit)", limits_.max_depth));
      brackets_.push_back(start);
    } else if (kind == TokenKind::RParen || kind == TokenKind::RBracket || kind == TokenKind::RBrace) {
      if (brackets_.empty()) fail(start, pos_, fmt::format("unmatched '{}'", c));
      char open = text_[brackets_.back()];
      char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != expected) {
        SourceRange opened(source_, brackets_.back(), brackets_.back() + 1);
        fail(start, pos_,
             fmt::format("closing parenthesis '{}' does not match opening parenthesis '{}' on line {}", c, open,
                         opened.line()));
      }
      brackets_.pop_back();
    }
    push(kind, start, pos_);
  }

  // Digits (of a base) with single '_' between them; returns them without the underscores.
  std::string read_digits(bool (*accept)(char), size_t token_start, bool leading_underscore_ok) {
    std::string digits;
    bool any = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '_') {
        if (!any && !leading_underscore_ok) break;
        if (pos_ + 1 >= text_.size() || !accept(text_[pos_ + 1]))
          fail(token_start, pos_ + 1, "invalid number literal: '_' must separate digits");
        ++pos_;
        continue;
      }
      if (!accept(c)) break;
      digits += c;
      any = true;
      ++pos_;
    }
    return digits;
  }

  void read_number() {
    size_t start = pos_;
    auto is_dec = +[](char c) { return is_digit(c); };
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        std::string_view("xXoObB").find(text_[pos_ + 1]) != std::string_view::npos) {
      char base_char = static_cast<char>(text_[pos_ + 1] | 0x20);
      pos_ += 2;
      int base = base_char == 'x' ? 16 : base_char == 'o' ? 8 : 2;
      bool (*accept)(char) = base == 16   ? +[](char c) { return is_hex(c); }
                             : base == 8 ? +[](char c) { return c >= '0' && c <= '7'; }
                                         : +[](char c) { return c == '0' || c == '1'; };
      std::string digits = read_digits(accept, start, true);
      if (digits.empty()) fail(start, pos_, fmt::format("invalid {} literal", base == 16 ? "hexadecimal" : base == 8
                                                                                        ? "octal" : "binary"));
      integer_token(start, digits, base);
      return;
    }
    std::string text = read_digits(is_dec, start, false);
    bool is_float = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      is_float = true;
      text += '.';
      if (pos_ < text_.size() && is_digit(text_[pos_])) text += read_digits(is_dec, start, false);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      std::string exponent = "e";
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) exponent += text_[pos_++];
      if (pos_ < text_.size() && is_digit(text_[pos_])) {
        exponent += read_digits(is_dec, start, false);
        text += exponent;
        is_float = true;
      } else {
        pos_ = save;
        fail(start, pos_ + 1, "invalid float literal: exponent without digits");
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'j' || text_[pos_] == 'J'))
      fail(start, pos_ + 1, "complex literals are not supported in TorchScript");
    check_number_end(start);
    if (is_float) {
      double v = std::strtod(text.c_str(), nullptr);
      Token& t = push(TokenKind::Float, start, pos_);
      t.float_value = v;
      return;
    }
    if (text.size() > 1 && text[0] == '0' && text.find_first_not_of('0') != std::string::npos)
      fail(start, pos_,
           "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    integer_token(start, text, 10);
  }

  void check_number_end(size_t start) {
    if (pos_ < text_.size() && is_name_char(text_[pos_]))
      fail(start, pos_ + 1, "invalid number literal (a letter or '_' follows the digits)");
  }

  void integer_token(size_t start, const std::string& digits, int base) {
    check_number_end(start);
    uint64_t value = 0;
    const uint64_t limit = uint64_t{1} << 63;  // see Note [TorchScript tokens]: 2**63 is allowed for -2**63
    for (char d : digits) {
      uint64_t v = static_cast<uint64_t>(hex_value(d));
      if (value > (limit - v) / static_cast<uint64_t>(base))
        fail(start, pos_, "integer literal out of range for a 64-bit int");
      value = value * static_cast<uint64_t>(base) + v;
    }
    push(TokenKind::Int, start, pos_).int_value = value;
  }

  // A name of at most two letters just before a quote: a string prefix when it is one. Returns false when it
  // is an ordinary name (then the quote starts a separate token, a syntax error for the parser).
  bool read_prefixed_string(std::string_view prefix, size_t start) {
    std::string p;
    for (char c : prefix) p += static_cast<char>(c | 0x20);
    if (p == "r" || p == "u") {
      read_string(start, p == "r");
      return true;
    }
    if (p == "f" || p == "rf" || p == "fr")
      fail(start, pos_ + 1, "f-strings are not supported in TorchScript (PyTorch 1.13); use str.format()");
    if (p == "b" || p == "rb" || p == "br") fail(start, pos_ + 1, "bytes literals are not supported in TorchScript");
    return false;
  }

  void read_string(size_t start, bool raw) {
    char quote = text_[pos_];
    bool triple = text_.compare(pos_, 3, std::string(3, quote)) == 0;
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (pos_ >= text_.size())
        fail(start, pos_, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
      char c = text_[pos_];
      if (c == quote) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (text_.compare(pos_, 3, std::string(3, quote)) == 0) {
          pos_ += 3;
          break;
        }
        value += c;
        ++pos_;
        continue;
      }
      if ((c == '\n' || c == '\r') && !triple) fail(start, pos_, "unterminated string literal (line break inside)");
      if (c == '\r') {  // universal newlines: "\r\n" and "\r" are "\n" in the value
        pos_ += (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
        value += '\n';
        continue;
      }
      if (c != '\\') {
        value += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) fail(start, pos_, "unterminated string literal");
      if (raw) {
        // A raw string keeps the backslash and the character after it (which cannot end the string).
        value += c;
        char n = text_[pos_ + 1];
        if (n == '\r') {
          pos_ += 1;  // handled as a line break on the next round
          continue;
        }
        value += n;
        pos_ += 2;
        continue;
      }
      read_escape(value);
    }
    push(TokenKind::String, start, pos_).text = std::move(value);
  }

  void read_escape(std::string& value) {
    size_t esc = pos_;
    char n = text_[pos_ + 1];
    pos_ += 2;
    switch (n) {
      case '\n': return;
      case '\r':
        if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        return;
      case '\\': value += '\\'; return;
      case '\'': value += '\''; return;
      case '"': value += '"'; return;
      case 'a': value += '\a'; return;
      case 'b': value += '\b'; return;
      case 'f': value += '\f'; return;
      case 'n': value += '\n'; return;
      case 'r': value += '\r'; return;
      case 't': value += '\t'; return;
      case 'v': value += '\v'; return;
      case 'x': append_utf8(value, read_hex_escape(esc, 2)); return;
      case 'u': {
        uint32_t cp = read_hex_escape(esc, 4);
        if (cp >= 0xD800 && cp <= 0xDFFF) fail(esc, pos_, "a \\u escape of a lone surrogate is not valid UTF-8");
        append_utf8(value, cp);
        return;
      }
      case 'U': {
        uint32_t cp = read_hex_escape(esc, 8);
        if (cp > 0x10FFFF) fail(esc, pos_, "invalid \\U escape: beyond U+10FFFF");
        if (cp >= 0xD800 && cp <= 0xDFFF) fail(esc, pos_, "a \\U escape of a lone surrogate is not valid UTF-8");
        append_utf8(value, cp);
        return;
      }
      case 'N': fail(esc, pos_, "\\N{...} escapes are not supported in TorchScript strings");
      default: break;
    }
    if (n >= '0' && n <= '7') {
      uint32_t v = static_cast<uint32_t>(n - '0');
      for (int i = 0; i < 2 && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '7'; ++i)
        v = v * 8 + static_cast<uint32_t>(text_[pos_++] - '0');
      append_utf8(value, v);
      return;
    }
    // An unknown escape keeps its backslash, as in Python.
    pos_ -= 1;
    value += '\\';
  }

  uint32_t read_hex_escape(size_t esc, int digits) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      if (pos_ >= text_.size() || !is_hex(text_[pos_]))
        fail(esc, pos_, fmt::format("truncated \\{}{} escape: {} hex digits expected", text_[esc + 1],
                                    std::string(static_cast<size_t>(digits), 'X'), digits));
      v = v * 16 + static_cast<uint32_t>(hex_value(text_[pos_++]));
    }
    return v;
  }

  void finish() {
    if (!brackets_.empty()) {
      unclosed_ = true;
      size_t at = brackets_.back();
      fail(at, at + 1, fmt::format("'{}' was never closed", text_[at]));
    }
    size_t end = text_.size();
    done_ = true;
    if (last_kind_ != TokenKind::EndOfFile && last_kind_ != TokenKind::Newline && last_kind_ != TokenKind::Dedent &&
        last_kind_ != TokenKind::Indent)
      push(TokenKind::Newline, end, end);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::Dedent, end, end);
    }
    push(TokenKind::EndOfFile, end, end);
  }

  std::shared_ptr<const Source> source_;
  const std::string& text_;
  ScriptLimits limits_;
  size_t pos_ = 0;
  std::vector<Indentation> indents_;
  std::vector<size_t> brackets_;  // offsets of the open brackets
  std::deque<Token> pending_;  // tokens read but not yet returned by next()
  std::vector<TypeComment> type_comments_;
  TokenKind last_kind_ = TokenKind::EndOfFile;  // of the last token read; EndOfFile before the first
  bool line_start_ = true;
  bool done_ = false;
  bool unclosed_ = false;  // the end of input was reached inside brackets
};

std::string kind_name(TokenKind kind) {
  switch (kind) {
    case TokenKind::EndOfFile: return "EOF";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::Name: return "NAME";
    case TokenKind::Int: return "INT";
    case TokenKind::Float: return "FLOAT";
    case TokenKind::String: return "STRING";
    default: break;
  }
  for (const Spelling& s : kOperators)
    if (s.kind == kind) return fmt::format("'{}'", s.text);
  for (const Spelling& s : kKeywords)
    if (s.kind == kind) return fmt::format("'{}'", s.text);
  return "?";
}

std::string kind_description(TokenKind kind) {
  switch (kind) {
    case TokenKind::EndOfFile: return "end of input";
    case TokenKind::Newline: return "a new line";
    case TokenKind::Indent: return "an indented block";
    case TokenKind::Dedent: return "the end of an indented block";
    case TokenKind::Name: return "a name";
    case TokenKind::Int: return "an integer literal";
    case TokenKind::Float: return "a float literal";
    case TokenKind::String: return "a string literal";
    default: return kind_name(kind);
  }
}

Lexer::Lexer(const std::shared_ptr<const Source>& source, const ScriptLimits& limits) {
  if (source->text().size() > limits.max_source_bytes)
    throw_script_error(SourceRange(source, 0, 0),
                       fmt::format("source of {} bytes is larger than {} bytes (limit)", source->text().size(),
                                   limits.max_source_bytes));
  size_t bad = invalid_utf8_offset(source->text());
  if (bad != std::string_view::npos)
    throw_script_error(SourceRange(source, bad, bad + 1),
                       fmt::format("the source is not valid UTF-8 (byte 0x{:02x})",
                                   static_cast<unsigned char>(source->text()[bad])));
  impl_ = std::make_unique<Impl>(source, limits);
}

Lexer::~Lexer() = default;

Token Lexer::next() { return impl_->next(); }

const std::vector<TypeComment>& Lexer::type_comments() const { return impl_->type_comments(); }

void Lexer::check_unclosed_bracket() { impl_->check_unclosed_bracket(); }

LexResult tokenize(const std::shared_ptr<const Source>& source, const ScriptLimits& limits) {
  Lexer lexer(source, limits);
  LexResult result;
  do {
    result.tokens.push_back(lexer.next());
  } while (result.tokens.back().kind != TokenKind::EndOfFile);
  result.type_comments = lexer.type_comments();
  return result;
}

}  // namespace ember::jit::script
