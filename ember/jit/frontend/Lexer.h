#pragma once
// The lexer of TorchScript source (PyTorch 1.13's language reference; its tokens are Python's): names,
// keywords, numbers, strings, operators, and Python's layout as NEWLINE, INDENT and DEDENT tokens.
// See Note [TorchScript tokens].
//
// Note [TorchScript tokens]
// - Layout: a logical line ends with NEWLINE; a line indented deeper than the one before starts with INDENT, and
//   each indentation level it leaves gives a DEDENT. Blank lines and lines holding only a comment give nothing.
//   Inside (), [] and {} line breaks and indentation are ignored; a backslash at the end of a line joins it to the
//   next. Tabs advance to the next multiple of 8 and, as in Python, indentation whose comparison depends on the
//   tab size (tabs and spaces mixed inconsistently) is an error. The end of input closes the last line and every
//   open indentation level.
// - Numbers: decimal, 0x/0o/0b integers and floats (`1.`, `.5`, `1e-3`) with '_' between digits. Integers are
//   unsigned 64-bit (a minus sign is an operator; 9223372036854775808, 2^63, is allowed so that the int64
//   minimum can be written); leading zeros ("007"), complex literals ("1j") and out-of-range integers are errors.
// - Strings: '...' and "..." and their triple-quoted forms, with the prefixes r and u (any case). Escapes are
//   Python's (\n \t \\ \' \" \xHH \ooo \uXXXX \UXXXXXXXX, backslash-newline; an unknown escape keeps its
//   backslash); \N{name} is refused. f-strings and bytes literals are not TorchScript 1.13 and are refused
//   with an error saying so. Adjacent literals are joined by the parser. The source must be UTF-8 (as Python 3
//   reads it), and so is every string's value (a \u escape of a lone surrogate is refused).
// - Comments run from '#' to the end of the line. A comment "# type: ..." (other than "# type: ignore") is a
//   type comment: kept, with its line, in Lexer::type_comments() for the parser (Note [TorchScript grammar]).
// - Names are ASCII ([A-Za-z_][A-Za-z0-9_]*); Python's keywords are reserved (TorchScript's are a subset, and
//   a name such as `lambda` or `yield` is refused by the parser with a message naming it).
// - Every token has its SourceRange; every error is a script error (Note [script errors]).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/jit/frontend/SourceRange.h"

namespace ember::jit::script {

// X(enumerator, spelling): operators and delimiters, in any order (the lexer matches the longest spelling).
#define EMBER_SCRIPT_OPERATORS(X)                                                                             \
  X(LParen, "(") X(RParen, ")") X(LBracket, "[") X(RBracket, "]") X(LBrace, "{") X(RBrace, "}")             \
  X(Comma, ",") X(Colon, ":") X(Semicolon, ";") X(Dot, ".") X(Ellipsis, "...") X(At, "@") X(Assign, "=")    \
  X(Arrow, "->") X(Plus, "+") X(Minus, "-") X(Star, "*") X(Slash, "/") X(DoubleSlash, "//")                   \
  X(Percent, "%") X(DoubleStar, "**") X(LShift, "<<") X(RShift, ">>") X(Ampersand, "&") X(Pipe, "|")          \
  X(Caret, "^") X(Tilde, "~") X(Less, "<") X(Greater, ">") X(LessEqual, "<=") X(GreaterEqual, ">=")           \
  X(Equal, "==") X(NotEqual, "!=") X(PlusAssign, "+=") X(MinusAssign, "-=") X(StarAssign, "*=")               \
  X(SlashAssign, "/=") X(DoubleSlashAssign, "//=") X(PercentAssign, "%=") X(DoubleStarAssign, "**=")          \
  X(LShiftAssign, "<<=") X(RShiftAssign, ">>=") X(AmpersandAssign, "&=") X(PipeAssign, "|=")                  \
  X(CaretAssign, "^=") X(AtAssign, "@=") X(Walrus, ":=")

// X(enumerator, spelling): Python's keywords.
#define EMBER_SCRIPT_KEYWORDS(X)                                                                               \
  X(False, "False") X(None, "None") X(True, "True") X(And, "and") X(As, "as") X(Assert, "assert")             \
  X(Async, "async") X(Await, "await") X(Break, "break") X(Class, "class") X(Continue, "continue")             \
  X(Def, "def") X(Del, "del") X(Elif, "elif") X(Else, "else") X(Except, "except") X(Finally, "finally")      \
  X(For, "for") X(From, "from") X(Global, "global") X(If, "if") X(Import, "import") X(In, "in") X(Is, "is")  \
  X(Lambda, "lambda") X(Nonlocal, "nonlocal") X(Not, "not") X(Or, "or") X(Pass, "pass") X(Raise, "raise")    \
  X(Return, "return") X(Try, "try") X(While, "while") X(With, "with") X(Yield, "yield")

/// The kind of a token: layout, literals, names, then one kind per operator and per keyword (the keywords last,
/// from KwFalse on).
enum class TokenKind : uint8_t {
  EndOfFile,
  Newline,
  Indent,
  Dedent,
  Name,
  Int,
  Float,
  String,
#define EMBER_SCRIPT_X(e, s) e,
  EMBER_SCRIPT_OPERATORS(EMBER_SCRIPT_X)
#define EMBER_SCRIPT_KW(e, s) Kw##e,
  EMBER_SCRIPT_KEYWORDS(EMBER_SCRIPT_KW)
#undef EMBER_SCRIPT_X
#undef EMBER_SCRIPT_KW
};

/// How a token kind is written in messages: "'('", "'def'", "a name", "end of input", "a new line", ...
std::string kind_description(TokenKind kind);
/// A short stable name of a kind for token dumps: "NAME", "INT", "INDENT", "'('", "'def'", ...
std::string kind_name(TokenKind kind);

/// One token. `text` is the identifier of a Name and the decoded (UTF-8) value of a String; an Int's value is
/// `int_value`, a Float's `float_value`.
struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  SourceRange range;
  std::string text;
  uint64_t int_value = 0;
  double float_value = 0.0;
};

/// A "# type: ..." comment: the text after "type:" with leading blanks removed (as Python's ast keeps it).
struct TypeComment {
  size_t line = 0;        // 1-based
  bool own_line = false;  // nothing but blanks before it on its line
  std::string text;
  SourceRange range;
};

/// Limits of one lexer or parser run (Note [reader limits] in STYLE.md: the source may come from an archive).
struct ScriptLimits {
  /// Nesting of brackets, indentation levels, and the parser's nesting of expressions and blocks. A parse at
  /// this depth needs about 640 KB of stack (an optimized build; 250 nested subscripts or calls, the deepest
  /// recursion per level; an ASan build needs about 8 MB): less than a thread's default (8 MB on Linux).
  int max_depth = 256;
  /// Height of the syntax tree (nodes within nodes: Note [TorchScript AST]), which bounds every recursive walk of
  /// it; a chain `a + b + c + ...` is as high as it is long, an elif chain twice as high (if, orelse, if, ...).
  uint32_t max_tree_height = 1024;
  /// Bytes of source text. A tree takes at most about 80 bytes per byte of source (a list of one-letter names),
  /// the lexer's tokens a constant amount (Lexer reads them as the parser asks), so a parse allocates at most
  /// about 700 MB. Real code files are far smaller (the largest of a scripted TransformerEncoderLayer's archive,
  /// its torch/nn/functional.py, is 26 KB).
  size_t max_source_bytes = size_t{8} << 20;
};

/// What tokenize() returns: every token (ending with EndOfFile) and the type comments.
struct LexResult {
  std::vector<Token> tokens;
  std::vector<TypeComment> type_comments;
};

/// Reads the tokens of a source one at a time (Note [TorchScript tokens]), so that a parser never holds all the
/// tokens of a large source. Errors, each a script error showing the place: from the constructor, a source larger
/// than the limit or not UTF-8; from next(), a character outside the language, an unterminated string or bracket,
/// a mismatched closing bracket, inconsistent indentation, a malformed number, an f-string or bytes literal, a
/// nesting limit.
class Lexer {
 public:
  explicit Lexer(const std::shared_ptr<const Source>& source, const ScriptLimits& limits = {});
  ~Lexer();
  Lexer(const Lexer&) = delete;
  Lexer& operator=(const Lexer&) = delete;

  /// The next token: EndOfFile at the end of input, and again on every later call.
  Token next();
  /// The type comments of the text read so far, in source order.
  const std::vector<TypeComment>& type_comments() const;
  /// For a parser about to report a syntax error: when the text read so far leaves a bracket open, reads on, and
  /// raises "'(' was never closed" when the input ends with it still open (as Python does: an unclosed bracket
  /// explains an error inside it better than the token found). Returns otherwise, also on another error.
  void check_unclosed_bracket();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Every token of `source` (ending with EndOfFile) and its type comments, read with a Lexer (same errors).
LexResult tokenize(const std::shared_ptr<const Source>& source, const ScriptLimits& limits = {});

}  // namespace ember::jit::script
