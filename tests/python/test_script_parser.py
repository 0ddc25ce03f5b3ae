"""The TorchScript parser (ember/jit/frontend/Parser.h) on real TorchScript, with Python's ast as the oracle.

TorchScript is a subset of Python, so Python's `ast` module parses every TorchScript source; this file prints
Python's tree in the canonical form of Note [TorchScript AST] (py_canonical) and asserts that Ember's parser
(`ember._C._jit_parse`, bound for tests only) prints the same for:

- the `.code` of modules and functions scripted by PyTorch 1.13 (LSTM, TransformerEncoderLayer, ...);
- the files under `code/` of archives written by `torch.jit.save`;
- hand-written functions with loops, ifs, comprehensions, container literals and Optional annotations, as
  users write them before scripting.

It also checks that bad input (unbalanced brackets, bad indentation, lambda, f-strings, deep nesting, truncated
sources) raises RuntimeError with the message and the highlighted place, and never crashes.
"""
import ast
import inspect
import os
import random
import textwrap
import threading
import warnings
import zipfile
from collections import Counter

import pytest
import torch

import ember

_parse = ember._C._jit_parse

# ---- Python's ast in the canonical form of Note [TorchScript AST]

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
           ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.MatMult: "@"}
_UNARY = {ast.UAdd: "+", ast.USub: "-", ast.Invert: "~", ast.Not: "not"}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
        ast.IsNot: "is_not", ast.In: "in", ast.NotIn: "not_in"}
_BLOCKS = ("module", "body", "orelse")


class NotTorchScript(Exception):
    """Python's ast holds a construct that TorchScript lacks (and Ember's parser refuses)."""


def _require(condition, node):
    if not condition:
        raise NotTorchScript(ast.dump(node))


def _quote(s):
    # Byte by byte over the UTF-8 encoding, as Ember prints (bytes >= 0x80 stay as they are).
    out = bytearray(b'"')
    for b in s.encode("utf-8", "surrogatepass"):
        if b == 0x5C:
            out += b"\\\\"
        elif b == 0x22:
            out += b'\\"'
        elif b == 0x0A:
            out += b"\\n"
        elif b == 0x09:
            out += b"\\t"
        elif b < 0x20 or b == 0x7F:
            out += b"\\x%02x" % b
        else:
            out.append(b)
    return (out + b'"').decode("utf-8", "surrogateescape")


def _node(head, atom=None, *children):
    return (head, atom, list(children))


def _block(head, stmts):
    return _node(head, None, *[_stmt(s) for s in stmts])


def _opt(e):
    return None if e is None else _expr(e)


def _stmt(s):
    if isinstance(s, ast.FunctionDef):
        a = s.args
        _require(not a.posonlyargs and a.vararg is None and a.kwarg is None, s)
        defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults)
        params = [_node("param", p.arg, _opt(p.annotation), _opt(d)) for p, d in zip(a.args, defaults)]
        params += [_node("kwparam", p.arg, _opt(p.annotation), _opt(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
        tc = None if s.type_comment is None else _node("typecomment", _quote(s.type_comment))
        return _node("def", s.name, _node("decorators", None, *map(_expr, s.decorator_list)),
                     _node("params", None, *params), _opt(s.returns), tc, _block("body", s.body))
    if isinstance(s, ast.ClassDef):
        _require(not s.keywords, s)
        return _node("class", s.name, _node("decorators", None, *map(_expr, s.decorator_list)),
                     _node("bases", None, *map(_expr, s.bases)), _block("body", s.body))
    if isinstance(s, ast.Assign):
        tc = None if s.type_comment is None else _node("typecomment", _quote(s.type_comment))
        return _node("assign", None, _node("targets", None, *map(_expr, s.targets)), _expr(s.value), tc)
    if isinstance(s, ast.AnnAssign):
        return _node("annassign", None, _expr(s.target), _expr(s.annotation), _opt(s.value))
    if isinstance(s, ast.AugAssign):
        return _node("augassign", _BINOPS[type(s.op)], _expr(s.target), _expr(s.value))
    if isinstance(s, ast.Expr):
        return _node("expr", None, _expr(s.value))
    if isinstance(s, ast.If):
        return _node("if", None, _expr(s.test), _block("body", s.body), _block("orelse", s.orelse))
    if isinstance(s, ast.While):
        _require(not s.orelse, s)
        return _node("while", None, _expr(s.test), _block("body", s.body))
    if isinstance(s, ast.For):
        _require(not s.orelse, s)
        return _node("for", None, _expr(s.target), _expr(s.iter), _block("body", s.body))
    if isinstance(s, ast.With):
        items = [_node("withitem", None, _expr(i.context_expr), _opt(i.optional_vars)) for i in s.items]
        return _node("with", None, *items, _block("body", s.body))
    if isinstance(s, (ast.Break, ast.Continue, ast.Pass)):
        return _node(type(s).__name__.lower())
    if isinstance(s, ast.Return):
        return _node("return", None, _opt(s.value))
    if isinstance(s, ast.Raise):
        _require(s.cause is None, s)
        return _node("raise", None, _opt(s.exc))
    if isinstance(s, ast.Assert):
        return _node("assert", None, _expr(s.test), _opt(s.msg))
    if isinstance(s, ast.Delete):
        return _node("delete", None, *map(_expr, s.targets))
    raise NotTorchScript(ast.dump(s))


def _expr(e):
    if isinstance(e, ast.Name):
        return _node("name", e.id)
    if isinstance(e, ast.Constant):
        v = e.value
        _require(e.kind is None or e.kind == "u", e)
        if v is None or isinstance(v, bool):
            return _node("const", repr(v))
        if v is Ellipsis:
            return _node("const", "...")
        if isinstance(v, int):
            return _node("int", str(v))
        if isinstance(v, float):
            return _node("float", repr(v))
        if isinstance(v, str):
            return _node("str", _quote(v))
        raise NotTorchScript(repr(v))
    if isinstance(e, ast.Attribute):
        return _node("attr", e.attr, _expr(e.value))
    if isinstance(e, ast.Subscript):
        return _node("subscript", None, _expr(e.value), _expr(e.slice))
    if isinstance(e, ast.Slice):
        return _node("slice", None, _opt(e.lower), _opt(e.upper), _opt(e.step))
    if isinstance(e, ast.Call):
        _require(all(k.arg is not None for k in e.keywords), e)
        kwargs = [_node("kw", k.arg, _expr(k.value)) for k in e.keywords]
        return _node("call", None, _expr(e.func), _node("args", None, *map(_expr, e.args)),
                     _node("kwargs", None, *kwargs))
    if isinstance(e, ast.Starred):
        return _node("starred", None, _expr(e.value))
    if isinstance(e, ast.BinOp):
        return _node("binop", _BINOPS[type(e.op)], _expr(e.left), _expr(e.right))
    if isinstance(e, ast.UnaryOp):
        return _node("unary", _UNARY[type(e.op)], _expr(e.operand))
    if isinstance(e, ast.BoolOp):
        return _node("boolop", "and" if isinstance(e.op, ast.And) else "or", *map(_expr, e.values))
    if isinstance(e, ast.Compare):
        ops = [_node("cmp", _CMP[type(op)], _expr(c)) for op, c in zip(e.ops, e.comparators)]
        return _node("compare", None, _expr(e.left), *ops)
    if isinstance(e, ast.IfExp):
        return _node("ifexp", None, _expr(e.test), _expr(e.body), _expr(e.orelse))
    if isinstance(e, (ast.Tuple, ast.List)):
        return _node(type(e).__name__.lower(), None, *map(_expr, e.elts))
    if isinstance(e, ast.Dict):
        _require(None not in e.keys, e)
        return _node("dict", None, *[_node("item", None, _expr(k), _expr(v)) for k, v in zip(e.keys, e.values)])
    if isinstance(e, (ast.ListComp, ast.DictComp)):
        _require(not any(g.is_async for g in e.generators), e)
        fors = [_node("compfor", None, _expr(g.target), _expr(g.iter), *map(_expr, g.ifs)) for g in e.generators]
        if isinstance(e, ast.ListComp):
            return _node("listcomp", None, _expr(e.elt), *fors)
        return _node("dictcomp", None, _expr(e.key), _expr(e.value), *fors)
    raise NotTorchScript(ast.dump(e))


def _print(n, indent, out):
    head, atom, children = n
    out.append("(" + head)
    if atom is not None:
        out.append(" " + atom)
    for c in children:
        if head in _BLOCKS:
            out.append("\n" + " " * (indent + 2))
        else:
            out.append(" ")
        if c is None:
            out.append("-")
        else:
            _print(c, indent + 2 if head in _BLOCKS else indent, out)
    out.append(")")


def py_canonical(source):
    """Python's ast of source in the canonical form of Note [TorchScript AST]. Raises SyntaxError when Python
    refuses the source, NotTorchScript when it holds what TorchScript lacks."""
    out = []
    with warnings.catch_warnings():
        # an unknown escape such as '\q' (kept as written), a number followed by a keyword ("1if")
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", SyntaxWarning)
        tree = ast.parse(source, type_comments=True)
    _print(_block("module", tree.body), 0, out)
    return "".join(out)


# ---- the corpus: TorchScript written by PyTorch 1.13, and by hand


def _scripted_modules():
    return {
        "LSTM": torch.nn.LSTM(3, 4),
        "GRU": torch.nn.GRU(3, 4, num_layers=2),
        "TransformerEncoderLayer": torch.nn.TransformerEncoderLayer(8, 2),
        "MultiheadAttention": torch.nn.MultiheadAttention(8, 2),
        "Conv2d": torch.nn.Conv2d(3, 4, 3, padding=1),
        "BatchNorm2d": torch.nn.BatchNorm2d(4),
        "Sequential": torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU(),
                                          torch.nn.Flatten(), torch.nn.Linear(8, 3), torch.nn.LogSoftmax(1)),
        "Embedding": torch.nn.Embedding(10, 3, padding_idx=0),
    }


def loops_and_ifs(x: torch.Tensor, n: int) -> torch.Tensor:
    total = torch.zeros_like(x)
    i = 0
    while i < n:
        if i % 2 == 0 and not bool(x.sum() > 10):
            total += x * i
        elif i == 3:
            total = total - 1
        else:
            break
        i += 1
    for j in range(n):
        if j > 5:
            continue
        total.add_(float(j))
    return total


def containers(xs: list[torch.Tensor], scale: float = 2.0) -> dict[str, torch.Tensor]:
    squares = [x * x for x in xs]
    named = {str(k): v for k, v in enumerate(squares)}
    out: dict[str, torch.Tensor] = {}
    for k, v in named.items():
        out[k] = v * scale
    pairs = [(1, "a"), (2, "b")]
    first, second = pairs[0]
    assert first == 1, "first pair"
    return out


def optionals(x: torch.Tensor, dims: "List[int]", w: "Optional[torch.Tensor]" = None) -> torch.Tensor:
    if w is not None:
        x = x * w
    elif x.dim() != 2:
        raise RuntimeError("expected 2 dims, got " + str(x.dim()))
    y = x[0, 1:, ::2] if x.size(0) > 1 else x[..., -1]
    return y.sum(dims, keepdim=True) if len(dims) > 0 else y


def _scripted_functions():
    return {f.__name__: f for f in (loops_and_ifs, containers, optionals)}


def _corpus(tmp_dir):
    """{name: TorchScript source}: .code of scripted modules and functions, an archive's code/ files, and
    the Python source of the hand-written functions."""
    sources = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, module in _scripted_modules().items():
            scripted = torch.jit.script(module)
            # Every method's code: LSTM's forward is two overloads (forward__0, forward__1), so it has no .code.
            for method in scripted._c._method_names():
                sources[f"{name}.{method}.code"] = scripted._c._get_method(method).code
            path = os.path.join(tmp_dir, f"{name}.pt")
            torch.jit.save(scripted, path)
            with zipfile.ZipFile(path) as z:
                for entry in z.namelist():
                    if "/code/" in entry and entry.endswith(".py"):
                        sources[f"{name}.pt:{entry}"] = z.read(entry).decode("utf-8")
        for name, fn in _scripted_functions().items():
            sources[f"{name}.code"] = torch.jit.script(fn).code
            sources[f"{name}.py"] = textwrap.dedent(inspect.getsource(fn))
    return sources


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return _corpus(str(tmp_path_factory.mktemp("archives")))


def test_corpus_is_real_torchscript(corpus):
    # Classes of archives (`class LSTM(Module):` with __parameters__), methods of scripted modules, and loops.
    text = "\n".join(corpus.values())
    assert len(corpus) >= 50
    for fragment in ("__parameters__", "def forward(self", "class ", "while ", "for ", "Optional[Tensor]"):
        assert fragment in text


def test_parser_matches_python_ast_on_corpus(corpus):
    mismatches = []
    for name, source in corpus.items():
        expected = py_canonical(source)
        actual = _parse(source, name)
        if actual != expected:
            mismatches.append(name)
    assert not mismatches, f"Ember's tree differs from Python's for {mismatches}"


@pytest.mark.parametrize("source", [
    "x = 1\n",
    "x = 0x_ff + 0o17 + 0b1_0 + 1_000\n",
    "y = 1. + .5 + 1e-3 + 2.5E+10 + 1_0.0_1 + 1e400 + 0.10000000000000001 + 1e16 + 123456789012345678.0\n",
    "s = 'a' \"b\" '''c\nd''' \"\"\"e\"f\"\"\" r'\\n\\'' u'x'\n",
    "s = '\\x41\\101\\u00e9\\U0001F600\\n\\t\\\\\\q\\0'\n",
    "s = 'caf\u00e9 \u2603'\n",
    "x = a[1:2, ::3, ...][:][::][1:][:2, None]\n",
    "x = -a ** -b ** c * ~d // e % f @ g << h >> i & j ^ k | l\n",
    "x = a < b <= c == d != e > f >= g is h is not i in j not in k\n",
    "x = not a and b or c and not not d\n",
    "x = (a if b else c if d else e)\n",
    "x = f(a, *b, c=1, d=[1, 2,],)\n",
    "x = [(), (1,), (1, 2), [], {}, {1: 2, 'a': [3]}]\n",
    "x = [a * b for a, b in c if a if b for d in e]\n",
    "x = {k: v for k, v in d.items()}\n",
    "a, *b = c\n[a, b] = c\na = b = c = 1\n",
    "x: int\nx: List[int] = []\nself.y: float = 2.\nx[0]: int = 1\n",
    "x += 1; y -= 2; z *= 3; w /= 4; v //= 5; u %= 6; t **= 7; s <<= 8; r >>= 9; q &= 1; p |= 2; o ^= 3\n",
    "if a: pass\nelif b: x = 1; y = 2\nelse:\n    z = 3\n",
    "while x:\n  if y:\n      break\n  else:\n    continue\n",
    "for x, in y:\n\tpass\n",
    "with torch.no_grad(), a as (b, c):\n  pass\n",
    "def f(self, x: Tensor, *, y: int = 1) -> Tensor:\n  return x\n",
    "def f(x):  # type: (int) -> int\n  return x\n",
    "def f(x):\n  # type: (Tensor) -> Tuple[Tensor, Tensor]\n  return x, x\n",
    "x = []  # type: List[int]\n# type: ignore\n",
    "@torch.jit.export\n@decorator(1)\ndef f():\n  '''doc'''\n  ...\n",
    "class A(NamedTuple):\n  x: int\n  y: Optional[Tensor] = None\nclass B:\n  pass\n",
    "x = (1 +\n  2) + \\\n  3\nif x:\n  y = [1,\n2]\n",
    "del a, b[0], c.d\nassert a\nraise\nreturn\nreturn a, b\nraise E('x')\n",
    "x = a.b.c(d)[e].f\nx = 1 if True else None\n",
    "x = 'a' in s\nx = 9223372036854775807\nx = -9223372036854775808\n",
    "\n\n# only a comment\n\n  \nx = 1\r\ny = 2\r\n",
])
def test_parser_matches_python_ast(source):
    assert _parse(source, "t.py") == py_canonical(source)


def test_canonical_form_is_readable():
    assert _parse("def f(x: int = 2) -> int:\n    return -x\n", "t.py") == (
        "(module\n"
        "  (def f (decorators) (params (param x (name int) (int 2))) (name int) - (body\n"
        "    (return (unary - (name x))))))")


# ---- errors: what was expected, and where


def _error(source):
    with pytest.raises(RuntimeError) as info:
        _parse(source, "bad.py")
    return str(info.value)


def test_error_shows_file_line_column_and_caret():
    msg = _error("def f(x):\n    return (x + )\n")
    assert msg == ("TorchScript: expected an expression but found ')' here:\n"
                   "  File \"bad.py\", line 2, column 17\n"
                   "        return (x + )\n"
                   "                    ~ <--- HERE\n")


@pytest.mark.parametrize("source, message, line, column", [
    ("x = (1, 2\ny = 3\n", "'(' was never closed", 1, 5),
    ("x = [1, 2)\n", "closing parenthesis ')' does not match opening parenthesis '['", 1, 10),
    ("x = 1)\n", "unmatched ')'", 1, 6),
    ("if x:\n    y = 1\n  z = 2\n", "unindent does not match any outer indentation level", 3, 1),
    ("x = 1\n    y = 2\n", "unexpected indent", 2, 5),
    ("if x:\ny = 1\n", "expected an indented block but found name 'y'", 2, 1),
    ("if x:\n\ty = 1\n        z = 2\n", "inconsistent use of tabs and spaces in indentation", 3, 1),
    ("f = lambda x: x\n", "lambda expressions are not supported in TorchScript", 1, 5),
    ("s = f'{x}'\n", "f-strings are not supported in TorchScript", 1, 5),
    ("s = b'x'\n", "bytes literals are not supported in TorchScript", 1, 5),
    ("x = {1, 2}\n", "set literals and set comprehensions are not supported in TorchScript", 1, 5),
    ("x = sum(i for i in y)\n", "generator expressions are not supported in TorchScript", 1, 11),
    ("def f(*args):\n  pass\n", "*args parameters are not supported in TorchScript", 1, 7),
    ("f(**kw)\n", "**kwargs unpacking in calls is not supported in TorchScript", 1, 3),
    ("try:\n  pass\nexcept:\n  pass\n", "try/except/finally is not supported in TorchScript", 1, 1),
    ("import torch\n", "import statements are not supported in TorchScript", 1, 1),
    ("global x\n", "'global' statements are not supported in TorchScript", 1, 1),
    ("if (y := 1):\n  pass\n", "assignment expressions (:=) are not supported in TorchScript", 1, 7),
    ("for x in y:\n  pass\nelse:\n  pass\n", "'else' after a for loop is not supported in TorchScript", 3, 1),
    ("f(x) = 1\n", "cannot assign to function call", 1, 1),
    ("def f(x=1, y):\n  pass\n", "non-default argument follows default argument", 1, 12),
    ("f(a=1, b)\n", "positional argument follows keyword argument", 1, 8),
    ("x = 'abc\n", "unterminated string literal", 1, 5),
    ("x = '''abc\n\n", "unterminated triple-quoted string literal", 1, 5),
    ("x = 0777\n", "leading zeros in decimal integer literals are not permitted", 1, 5),
    ("x = 99999999999999999999\n", "integer literal out of range for a 64-bit int", 1, 5),
    ("x = 1j\n", "complex literals are not supported in TorchScript", 1, 5),
    ("x = a ! b\n", "invalid syntax: '!'", 1, 7),
    ("x = 1 \\ 2\n", "unexpected character after line continuation character", 1, 7),
    ("def f(x):\n", "expected an indented block but found end of input", 2, 1),
    ("def f(x\n", "'(' was never closed", 1, 6),
    ("x = a +\n", "expected an expression but found a new line", 1, 8),
    ("x = a.\n", "expected an attribute name after '.' but found a new line", 1, 7),
    ("def\n", "expected a function name but found a new line", 1, 4),
    ("x = a if b\n", "expected 'else' in the conditional expression but found a new line", 1, 11),
    ("x = é\n", "non-ASCII character outside a string or comment", 1, 5),
    ("x = a[*b]\n", "starred expressions in subscripts are not supported in TorchScript", 1, 7),
])
def test_bad_input_raises_with_place(source, message, line, column):
    msg = _error(source)
    assert message in msg
    assert f'File "bad.py", line {line}, column {column}\n' in msg
    assert msg.rstrip("\n").endswith("<--- HERE")


@pytest.mark.parametrize("depth", [300, 10_000])
def test_deep_nesting_is_refused_not_crashing(depth):
    msg = _error("x = " + "(" * depth + "1" + ")" * depth + "\n")
    assert "nested deeper than 256 levels (limit)" in msg


@pytest.mark.parametrize("source", [
    "x = " + "-" * 10_000 + "1\n",
    "x = " + "not " * 10_000 + "y\n",
    "x = " + "a if b else " * 10_000 + "c\n",
    "x = " + "[" * 200 + "]" * 200 + "\n" + "x = " + "a ** " * 10_000 + "b\n",
    "".join(" " * i + "if x:\n" for i in range(300)) + " " * 300 + "pass\n",
])
def test_deep_expressions_and_blocks_are_refused(source):
    assert "(limit)" in _error(source)


def test_long_operator_chain_is_bounded_by_tree_height():
    assert _parse("x = " + " + ".join(["a"] * 500) + "\n", "t.py").count("binop") == 499
    assert "syntax tree nested deeper than 1024 levels (limit)" in _error("x = " + " + ".join(["a"] * 5000) + "\n")


@pytest.mark.parametrize("opening, closing, head", [
    ("a[", "]", "(subscript"), ("f(", ")", "(call"), ("{1: ", "}", "(dict"), ("[", "]", "(list"),
    ("a[::", "]", "(slice"),
])
def test_depth_at_the_limit_parses_on_a_1mb_stack(opening, closing, head):
    # ScriptLimits::max_depth: the deepest nesting allowed needs less stack than a small thread's 1 MB. (Python's
    # own parser stops at 200 brackets, so the tree is checked by its nodes.)
    source = "x = " + opening * 250 + "1" + closing * 250 + "\n"
    result = []
    previous = threading.stack_size(1 << 20)
    try:
        thread = threading.Thread(target=lambda: result.append(_parse(source, "t.py")))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert len(result) == 1 and result[0].count(head + " ") == 250


def test_depth_within_limit_parses():
    source = "x = " + "(" * 200 + "1" + ")" * 200 + "\n"
    assert _parse(source, "t.py") == py_canonical(source)


@pytest.mark.parametrize("cut", [1, 7, 20, 35, 50, 64, 80])
def test_truncated_sources_parse_or_raise(corpus, cut):
    # Every prefix of a real source either parses (as Python's ast agrees) or raises RuntimeError.
    source = corpus["LSTM.forward__0.code"]
    prefix = source[: len(source) * cut // 100]
    try:
        actual = _parse(prefix, "cut.py")
    except RuntimeError as e:
        assert "<--- HERE" in str(e)
        with pytest.raises(SyntaxError):
            ast.parse(prefix)
    else:
        assert actual == py_canonical(prefix)


# Allowed reasons for Ember to refuse what Python's parser accepts: constructs TorchScript lacks, its limits, and
# numbers outside a 64-bit int.
_EMBER_ONLY_REFUSALS = ("not supported in TorchScript", "(limit)", "out of range for a 64-bit int",
                        "invalid number literal")


def test_mutated_sources_agree_with_python(corpus):
    # Real sources with a few characters inserted or deleted (fixed seed): when Python's parser accepts one, Ember
    # gives the same tree or names what TorchScript lacks; when Python refuses one, so does Ember.
    rng = random.Random(22)
    pieces = ["(", ")", "[", "]", ",", ":", "\n", "  ", "\t", " if ", " else ", "not ", " in ", " is ", "*", "**",
              "=", "+=", ".", '"', "'", "\\", "#", "x", "1", "0x1", "1e5", " for ", "...", ";", "@", "\n    ",
              '"""', " and ", "del ", "return", "-", "~"]
    sources = sorted(corpus.items())
    agreed = Counter()
    for _ in range(1500):
        name, source = rng.choice(sources)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(source))
            if rng.random() < 0.5:
                source = source[:at] + rng.choice(pieces) + source[at:]
            else:
                source = source[:at] + source[at + rng.randint(1, 5):]
        python_refuses = torchscript_lacks = False
        try:
            expected = py_canonical(source)
        except (SyntaxError, ValueError):
            python_refuses = True
        except NotTorchScript:
            torchscript_lacks = True
        try:
            actual = _parse(source, name)
        except RuntimeError as e:
            assert python_refuses or any(r in str(e) for r in _EMBER_ONLY_REFUSALS), (source, str(e))
            agreed["refused"] += 1
        else:
            assert not python_refuses and not torchscript_lacks, source
            assert actual == expected, source
            agreed["parsed"] += 1
    assert agreed["parsed"] > 100 and agreed["refused"] > 100
