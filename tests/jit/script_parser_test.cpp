// The TorchScript lexer and parser (ember/jit/frontend): tokens and their ranges, Python's layout as INDENT and
// DEDENT, literals, type comments, the canonical tree, errors with the highlighted place, and the limits of
// Note [TorchScript grammar]. tests/python/test_script_parser.py compares the trees of real TorchScript with
// Python's ast.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/jit/frontend/Parser.h"

namespace {

using namespace ember;
using namespace ember::jit::script;
using ember::testing::contains;
using ember::testing::expect_error;

std::shared_ptr<const Source> source_of(const std::string& text) {
  return std::make_shared<const Source>(text, "test.py");
}

// The kinds of text's tokens, as kind_name() spells them, separated by spaces.
std::string kinds(const std::string& text) {
  std::string out;
  for (const Token& t : tokenize(source_of(text)).tokens) {
    if (!out.empty()) out += ' ';
    out += kind_name(t.kind);
    if (t.kind == TokenKind::Name) out += ":" + t.text;
  }
  return out;
}

std::string parse(const std::string& text) { return to_sexpr(*parse_script(text, "test.py")); }

std::string error_of(const std::string& text, const ScriptLimits& limits = {}) {
  return expect_error([&] { parse_script(text, "test.py", limits); }).what();
}

TEST(ScriptLexer, TokensOfAStatement) {
  EXPECT_EQ(kinds("x = f(a, b=1) ** 2 // 3 -> ...\n"),
            "NAME:x '=' NAME:f '(' NAME:a ',' NAME:b '=' INT ')' '**' INT '//' INT '->' '...' NEWLINE EOF");
  EXPECT_EQ(kinds("a <<= b >>= c != d <= e := f"),
            "NAME:a '<<=' NAME:b '>>=' NAME:c '!=' NAME:d '<=' NAME:e ':=' NAME:f NEWLINE EOF");
  EXPECT_EQ(kinds("if not x is None: pass"), "'if' 'not' NAME:x 'is' 'None' ':' 'pass' NEWLINE EOF");
  EXPECT_EQ(kinds(""), "EOF");
  EXPECT_EQ(kinds("\n\n   \n# comment\n"), "EOF");
}

TEST(ScriptLexer, TokensHaveSourceRanges) {
  LexResult r = tokenize(source_of("def f(x):\n    return x.y\n"));
  const Token& ret = r.tokens[8];  // def f ( x ) : NEWLINE INDENT return
  ASSERT_EQ(r.tokens[7].kind, TokenKind::Indent);
  ASSERT_EQ(ret.kind, TokenKind::KwReturn);
  EXPECT_EQ(ret.range.line(), 2u);
  EXPECT_EQ(ret.range.column(), 5u);
  EXPECT_EQ(ret.range.text(), "return");
  EXPECT_EQ(r.tokens[11].range.text(), "y");
  EXPECT_EQ(r.tokens[11].range.column(), 14u);
}

TEST(ScriptLexer, IndentationBecomesIndentAndDedent) {
  EXPECT_EQ(kinds("if a:\n  b\n  if c:\n      d\n\n  # comment at another depth\n      # and another\ne\n"),
            "'if' NAME:a ':' NEWLINE INDENT NAME:b NEWLINE 'if' NAME:c ':' NEWLINE INDENT NAME:d NEWLINE DEDENT "
            "DEDENT NAME:e NEWLINE EOF");
  // The end of input closes every open level; a tab advances to the next multiple of 8.
  EXPECT_EQ(kinds("if a:\n\tif b:\n\t\tc"), "'if' NAME:a ':' NEWLINE INDENT 'if' NAME:b ':' NEWLINE INDENT NAME:c "
                                            "NEWLINE DEDENT DEDENT EOF");
  EXPECT_TRUE(contains(error_of("if a:\n    b\n  c\n"), "unindent does not match any outer indentation level"));
  EXPECT_TRUE(contains(error_of("if a:\n\tb\n        c\n"), "inconsistent use of tabs and spaces in indentation"));
}

TEST(ScriptLexer, LineContinuation) {
  // Inside brackets line breaks and indentation are ignored; a backslash joins two lines.
  EXPECT_EQ(kinds("x = (1,\n        2,\n  3)\ny = 1 + \\\n    2\n"),
            "NAME:x '=' '(' INT ',' INT ',' INT ')' NEWLINE NAME:y '=' INT '+' INT NEWLINE EOF");
  EXPECT_TRUE(contains(error_of("x = 1 \\ 2\n"), "unexpected character after line continuation character"));
  EXPECT_TRUE(contains(error_of("x = 1 \\"), "unexpected end of input after line continuation character"));
}

TEST(ScriptLexer, Numbers) {
  LexResult r = tokenize(source_of("0x_Ff 0o17 0B101 1_000 9223372036854775808 1. .5 1e-3 2.5E+2 1_0.2_5 0 00 0.0"));
  std::vector<uint64_t> ints;
  std::vector<double> floats;
  for (const Token& t : r.tokens) {
    if (t.kind == TokenKind::Int) ints.push_back(t.int_value);
    if (t.kind == TokenKind::Float) floats.push_back(t.float_value);
  }
  EXPECT_EQ(ints, (std::vector<uint64_t>{255, 15, 5, 1000, uint64_t{1} << 63, 0, 0}));
  EXPECT_EQ(floats, (std::vector<double>{1.0, 0.5, 1e-3, 250.0, 10.25, 0.0}));
  EXPECT_TRUE(contains(error_of("x = 012\n"), "leading zeros in decimal integer literals are not permitted"));
  EXPECT_TRUE(contains(error_of("x = 9223372036854775809\n"), "integer literal out of range for a 64-bit int"));
  EXPECT_TRUE(contains(error_of("x = 1__0\n"), "'_' must separate digits"));
  EXPECT_TRUE(contains(error_of("x = 1_\n"), "'_' must separate digits"));
  EXPECT_TRUE(contains(error_of("x = 0x\n"), "invalid hexadecimal literal"));
  EXPECT_TRUE(contains(error_of("x = 1e\n"), "exponent without digits"));
  EXPECT_TRUE(contains(error_of("x = 3j\n"), "complex literals are not supported in TorchScript"));
  EXPECT_TRUE(contains(error_of("x = 3abc\n"), "invalid number literal"));
}

TEST(ScriptLexer, Strings) {
  auto value = [](const std::string& text) {
    LexResult r = tokenize(source_of(text));
    EXPECT_EQ(r.tokens[0].kind, TokenKind::String) << text;
    return r.tokens[0].text;
  };
  EXPECT_EQ(value(R"('a"b')"), "a\"b");
  EXPECT_EQ(value(R"("a'b")"), "a'b");
  EXPECT_EQ(value(R"('\n\t\\\'\"\x41\101\u00e9\U0001F600\q')"), "\n\t\\'\"AA\xc3\xa9\xf0\x9f\x98\x80\\q");
  EXPECT_EQ(value("'''one\n'two'\n\"three\"'''"), "one\n'two'\n\"three\"");
  EXPECT_EQ(value("\"\"\"a\r\nb\"\"\""), "a\nb");
  EXPECT_EQ(value("'a\\\nb'"), "ab");
  EXPECT_EQ(value(R"(r'\n\'')"), R"(\n\')");
  EXPECT_EQ(value(R"(U"x")"), "x");
  EXPECT_TRUE(contains(error_of("s = 'abc\n"), "unterminated string literal"));
  EXPECT_TRUE(contains(error_of("s = '''abc"), "unterminated triple-quoted string literal"));
  EXPECT_TRUE(contains(error_of("s = '\\x4'\n"), "truncated \\xXX escape"));
  EXPECT_TRUE(contains(error_of("s = '\\N{DASH}'\n"), "\\N{...} escapes are not supported"));
  EXPECT_TRUE(contains(error_of("s = f'{x}'\n"), "f-strings are not supported in TorchScript (PyTorch 1.13)"));
  EXPECT_TRUE(contains(error_of("s = rb'x'\n"), "bytes literals are not supported in TorchScript"));
}

TEST(ScriptLexer, SourceMustBeUtf8) {
  EXPECT_EQ(tokenize(source_of("s = 'caf\xc3\xa9 \xe2\x98\x83' # \xf0\x9f\x98\x80")).tokens[2].text,
            "caf\xc3\xa9 \xe2\x98\x83");
  std::string msg = error_of("s = 'caf\xe9'\n");
  EXPECT_TRUE(contains(msg, "the source is not valid UTF-8 (byte 0xe9)"));
  EXPECT_TRUE(contains(msg, "    s = 'caf?'\n            ~ <--- HERE"));  // the line shown is UTF-8 itself
  for (const char* bad : {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x98", "\x80"})
    EXPECT_TRUE(contains(error_of(std::string("# ") + bad + "\n"), "not valid UTF-8")) << bad;
  EXPECT_TRUE(contains(error_of("s = '\\ud800'\n"), "lone surrogate is not valid UTF-8"));
}

TEST(ScriptLexer, TypeComments) {
  LexResult r = tokenize(source_of("def f(x):  # type: (int) -> int\n    # type:List[int]\n    # type: ignore\n"
                                   "    # a comment\n    pass\n"));
  ASSERT_EQ(r.type_comments.size(), 2u);
  EXPECT_EQ(r.type_comments[0].text, "(int) -> int");
  EXPECT_EQ(r.type_comments[0].line, 1u);
  EXPECT_FALSE(r.type_comments[0].own_line);
  EXPECT_EQ(r.type_comments[1].text, "List[int]");
  EXPECT_TRUE(r.type_comments[1].own_line);
}

TEST(ScriptSourceRange, HighlightUnderlinesTheRange) {
  auto src = source_of("x = 1\nyy = foo(bar)\n");
  SourceRange r(src, 11, 19);  // foo(bar)
  EXPECT_EQ(r.line(), 2u);
  EXPECT_EQ(r.column(), 6u);
  EXPECT_EQ(r.text(), "foo(bar)");
  EXPECT_EQ(r.highlight(), "  File \"test.py\", line 2, column 6\n    yy = foo(bar)\n         ~~~~~~~~ <--- HERE\n");
  // A range past its line's end is underlined to the end of the line; an empty one gets one '~'.
  EXPECT_EQ(SourceRange(src, 4, 12).highlight(),
            "  File \"test.py\", line 1, column 5\n    x = 1\n        ~ <--- HERE\n");
  EXPECT_EQ(SourceRange(src, 20, 20).highlight(), "  File \"test.py\", line 3, column 1\n    \n    ~ <--- HERE\n");
  EXPECT_EQ(SourceRange(src, 0, 1).merge(SourceRange(src, 4, 5)).text(), "x = 1");
}

TEST(ScriptParser, CanonicalTree) {
  EXPECT_EQ(parse("@torch.jit.export\ndef f(self, x: Tensor, *, k: int = 2) -> Tensor:\n"
                  "    if x is not None and k in [1, 2]:\n        return x[0, 1:] + f(*x, k=-k)\n"
                  "    elif k:\n        pass\n    return x\n"),
            "(module\n"
            "  (def f (decorators (attr export (attr jit (name torch)))) (params (param self - -) "
            "(param x (name Tensor) -) (kwparam k (name int) (int 2))) (name Tensor) - (body\n"
            "    (if (boolop and (compare (name x) (cmp is_not (const None))) (compare (name k) (cmp in "
            "(list (int 1) (int 2))))) (body\n"
            "      (return (binop + (subscript (name x) (tuple (int 0) (slice (int 1) - -))) (call (name f) "
            "(args (starred (name x))) (kwargs (kw k (unary - (name k)))))))) (orelse\n"
            "      (if (name k) (body\n"
            "        (pass)) (orelse))))\n"
            "    (return (name x)))))");
}

TEST(ScriptParser, StatementsOfArchives) {
  // The shape of the code/ files of torch.jit.save: class attributes, annotations without values, subscripted
  // assignments, getattr of numbered submodules, calls with a trailing comma.
  EXPECT_EQ(parse("class Sequential(Module):\n  __parameters__ = []\n  training : bool\n"
                  "  __annotations__[\"0\"] = __torch__.Conv2d\n  eps : Final[float] = 1.0000000000000001e-05\n"
                  "  def forward(self: __torch__.Sequential,\n    input: Tensor) -> Tensor:\n"
                  "    _0 = getattr(self, \"0\")\n    return (_0).forward(input, )\n"),
            "(module\n"
            "  (class Sequential (decorators) (bases (name Module)) (body\n"
            "    (assign (targets (name __parameters__)) (list) -)\n"
            "    (annassign (name training) (name bool) -)\n"
            "    (assign (targets (subscript (name __annotations__) (str \"0\"))) (attr Conv2d (name __torch__)) -)\n"
            "    (annassign (name eps) (subscript (name Final) (name float)) (float 1e-05))\n"
            "    (def forward (decorators) (params (param self (attr Sequential (name __torch__)) -) "
            "(param input (name Tensor) -)) (name Tensor) - (body\n"
            "      (assign (targets (name _0)) (call (name getattr) (args (name self) (str \"0\")) (kwargs)) -)\n"
            "      (return (call (attr forward (name _0)) (args (name input)) (kwargs))))))))");
}

TEST(ScriptParser, TypeCommentsAttachToDefsAndAssignments) {
  EXPECT_EQ(parse("def f(x):\n    # type: (int) -> int\n    y = []  # type: List[int]\n    return x\n"),
            "(module\n"
            "  (def f (decorators) (params (param x - -)) - (typecomment \"(int) -> int\") (body\n"
            "    (assign (targets (name y)) (list) (typecomment \"List[int]\"))\n"
            "    (return (name x)))))");
}

TEST(ScriptParser, ErrorsSayWhatWasExpectedAndWhere) {
  EXPECT_EQ(error_of("def f(x):\n    return (x + )\n"),
            "TorchScript: expected an expression but found ')' here:\n"
            "  File \"test.py\", line 2, column 17\n"
            "        return (x + )\n"
            "                    ~ <--- HERE\n");
  EXPECT_EQ(error_of("y = lambda x: x\n"),
            "TorchScript: lambda expressions are not supported in TorchScript; define the function with def here:\n"
            "  File \"test.py\", line 1, column 5\n"
            "    y = lambda x: x\n"
            "        ~~~~~~ <--- HERE\n");
  EXPECT_TRUE(contains(error_of("x = (1, 2]\n"), "closing parenthesis ']' does not match opening parenthesis '('"));
  EXPECT_TRUE(contains(error_of("x = [1, 2\n"), "'[' was never closed"));
  EXPECT_TRUE(contains(error_of("x = {1}\n"), "set literals and set comprehensions are not supported"));
  EXPECT_TRUE(contains(error_of("def f(x):\n"), "expected an indented block but found end of input"));
  EXPECT_TRUE(contains(error_of("1 = x\n"), "cannot assign to literal"));
  EXPECT_TRUE(contains(error_of("for x in y:\n  pass\nelse:\n  pass\n"), "'else' after a for loop is not supported"));
  EXPECT_TRUE(contains(error_of("raise A from B\n"), "'raise ... from ...' is not supported in TorchScript"));
  EXPECT_TRUE(contains(error_of("def f(*, x=1, **k):\n  pass\n"), "**kwargs parameters are not supported"));
  EXPECT_TRUE(contains(error_of("def f(*):\n  pass\n"), "named arguments must follow bare *"));
  EXPECT_TRUE(contains(error_of("x = (yield)\n"), "yield (generators) is not supported in TorchScript"));
  EXPECT_TRUE(contains(error_of("def = 1\n"), "expected a function name but found '='"));
  EXPECT_TRUE(contains(error_of("x.class\n"), "expected an attribute name after '.' but found the keyword 'class'"));
}

TEST(ScriptParser, NestingIsBoundedByTheDepthLimit) {
  std::string deep = "x = " + std::string(10000, '(') + "1" + std::string(10000, ')') + "\n";
  EXPECT_TRUE(contains(error_of(deep), "brackets nested deeper than 256 levels (limit)"));
  ScriptLimits small;
  small.max_depth = 10;
  EXPECT_TRUE(contains(error_of("x = ((((((((((((1))))))))))))\n", small), "nested deeper than 10 levels (limit)"));
  EXPECT_TRUE(contains(error_of("x = " + std::string(5000, '-') + "1\n"),
                       "expressions and blocks nested deeper than 256 levels (limit)"));
  std::string blocks;
  for (int i = 0; i < 12; ++i) blocks += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  blocks += std::string(12, ' ') + "pass\n";
  EXPECT_TRUE(contains(error_of(blocks, small), "nested deeper than 10 levels (limit)"));
  EXPECT_NO_THROW(parse_script(blocks, "test.py"));
}

TEST(ScriptParser, TreeHeightAndSourceSizeAreBounded) {
  std::string chain = "x = a";
  for (int i = 0; i < 2000; ++i) chain += " + a";
  EXPECT_TRUE(contains(error_of(chain + "\n"), "syntax tree nested deeper than 1024 levels (limit)"));
  ScriptLimits small;
  small.max_source_bytes = 8;
  EXPECT_TRUE(contains(error_of("x = 1 + 2\n", small), "source of 10 bytes is larger than 8 bytes (limit)"));
}

TEST(ScriptParser, TruncatedInputNeverCrashes) {
  // Every prefix of a source parses or raises ember::Error.
  const std::string text =
      "def f(self, x: List[int], y: Optional[Tensor]=None) -> Dict[str, int]:\n"
      "    '''doc'''\n    d = {'a': [i * 2 for i in x if i], 'b': (1, 2.5e-3)}\n"
      "    while x[0:-1] is not None and not y:\n        x += [1] if y else [0x1F]\n"
      "    return d  # type: ignore\n";
  int parsed = 0, errors = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    try {
      parse_script(text.substr(0, n), "cut.py");
      ++parsed;
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "<--- HERE"));
      ++errors;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(errors, 0);
}

}  // namespace
