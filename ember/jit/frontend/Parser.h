#pragma once
// The parser of TorchScript source: tokens (Lexer.h) to a syntax tree (Tree.h). See Note [TorchScript grammar].
//
// Note [TorchScript grammar]
// The grammar is Python 3's restricted to what PyTorch 1.13's language reference accepts; the rest is refused
// here, with a message naming the construct, rather than left to the compiler:
//
// Accepted
// - def with decorators, parameters with annotations and defaults, a bare `*` before keyword-only parameters,
//   a return annotation, and a type comment `# type: (int, Tensor) -> Tensor` on the def's line or alone on
//   the line after it; class with bases and decorators (the `__torch__` classes of archives, NamedTuples);
// - statements: expression, assignment (chained `a = b = c`, tuple and list unpacking with one starred target,
//   a trailing `# type: T` comment), annotated assignment with or without a value, augmented assignment, if /
//   elif / else, for, while, with, break, continue, return, pass, assert, raise, del; several simple
//   statements on one line with ';', and a block on the line of its ':' (`if x: return y`);
// - expressions: names, attributes, calls (positional, keyword and *starred arguments), subscripts with slices
//   and several dimensions, unary and binary operators with Python's precedence, comparison chains, `and` /
//   `or` / `not`, `is` / `is not` / `in` / `not in`, `x if c else y`, tuple, list and dict literals, list and
//   dict comprehensions (several `for` and `if` clauses: the compiler decides what it can emit), literals
//   (ints, floats, strings with adjacent ones joined, `...`, None, True, False).
//
// Refused (TorchScript 1.13 has none of them): lambda, generator expressions, set literals and comprehensions,
// `**` unpacking in calls and dicts, `*` in subscripts (Python 3.11), `*args` / `**kwargs` / `/` parameters,
// assignment expressions (:=), f-strings and bytes literals (the lexer), try / except / finally, import,
// global, nonlocal, async, await, yield, `raise ... from`, `else` after for and while, class keywords
// (metaclass=), and the keywords used as names. Python's own syntax errors are errors too (a default before a
// parameter without one, a positional argument after a keyword argument, assigning to a call or a literal).
//
// Limits (ScriptLimits, Note [reader limits] in STYLE.md): the source's size (which bounds the tree's memory;
// the parser holds only a few tokens at a time), the nesting of brackets, indentation, expressions and blocks
// (max_depth; every recursion of the parser goes through one counter), and the height of the tree
// (max_tree_height). Each error names the limit.
//
// Errors are Python's where Python has one (the messages of its tokenizer and parser: "unindent does not match
// any outer indentation level", "'(' was never closed" — reported, as Python does, in preference to a syntax
// error inside the unclosed bracket), otherwise "expected <what> but found <token>".
#include <memory>
#include <string>
#include <string_view>

#include "ember/jit/frontend/Lexer.h"
#include "ember/jit/frontend/Tree.h"

namespace ember::jit::script {

/// Parses a file of TorchScript source into a `module` tree (Note [TorchScript grammar]). Errors: a script error
/// (ember::Error, Note [script errors]) saying what was expected or what TorchScript does not support, with the
/// highlighted place.
TreePtr parse_script(const std::shared_ptr<const Source>& source, const ScriptLimits& limits = {});

/// parse_script of `text`, named `filename` in errors.
TreePtr parse_script(std::string_view text, const std::string& filename, const ScriptLimits& limits = {});

}  // namespace ember::jit::script
