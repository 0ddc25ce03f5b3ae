#pragma once
// Source text of TorchScript (a file of a PyTorch archive's code/ folder, or a function's source) and ranges
// of it, for the lexer's tokens, the parser's trees and the errors of both (Note [script errors]).
//
// Note [script errors]
// An error in TorchScript source raises ember::Error (RuntimeError in Python, as PyTorch's frontend) whose text
// says what was expected and then shows where, as PyTorch's errors do:
//
//   TorchScript: expected an expression but found ')' here:
//     File "model.py", line 3, column 15
//       return (x + )
//                   ~ <--- HERE
//
// Lines and columns count from 1; a column counts bytes (a tab is one column). The highlighted line is the
// line where the range starts; a range running past its end is underlined to the end of that line.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ember::jit::script {

/// A piece of source text and the name of the file it came from, with an index of its line starts.
class Source {
 public:
  Source(std::string text, std::string filename);
  const std::string& text() const { return text_; }
  const std::string& filename() const { return filename_; }
  /// The 0-based line holding byte offset (offset may be text().size(), on the last line).
  size_t line_of(size_t offset) const;
  /// The byte offset where 0-based line `line` starts.
  size_t line_start(size_t line) const { return line_starts_[line]; }
  /// The text of 0-based line `line`, without its line break.
  std::string_view line_text(size_t line) const;

 private:
  std::string text_;
  std::string filename_;
  std::vector<size_t> line_starts_;
};

/// A half-open byte range [start, end) of a Source. A default-constructed range has no source.
class SourceRange {
 public:
  SourceRange() = default;
  SourceRange(std::shared_ptr<const Source> source, size_t start, size_t end)
      : source_(std::move(source)), start_(start), end_(end) {}

  const std::shared_ptr<const Source>& source() const { return source_; }
  size_t start() const { return start_; }
  size_t end() const { return end_; }
  /// 1-based line and column of start().
  size_t line() const;
  size_t column() const;
  /// The covered text.
  std::string_view text() const;
  /// The smallest range covering this one and `other` (of the same source).
  SourceRange merge(const SourceRange& other) const;
  /// The location and its source line underlined (Note [script errors]):
  ///   `  File "<name>", line L, column C\n    <line>\n    <spaces>~~~ <--- HERE\n`.
  std::string highlight() const;

 private:
  std::shared_ptr<const Source> source_;
  size_t start_ = 0;
  size_t end_ = 0;
};

/// The offset of the first byte of `text` that is not part of well-formed UTF-8 (overlong forms, surrogates and
/// code points beyond U+10FFFF are not), or std::string_view::npos.
size_t invalid_utf8_offset(std::string_view text);

/// Throws ember::Error (Runtime) "TorchScript: <message> here:\n<range.highlight()>" (Note [script errors]).
[[noreturn]] void throw_script_error(const SourceRange& range, const std::string& message);

}  // namespace ember::jit::script
