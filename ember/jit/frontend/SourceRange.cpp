// Source text and ranges of it, and the highlighted errors of the TorchScript frontend (Note [script errors]).
#include "ember/jit/frontend/SourceRange.h"

#include <algorithm>

#include "ember/base/Error.h"

namespace ember::jit::script {

Source::Source(std::string text, std::string filename) : text_(std::move(text)), filename_(std::move(filename)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    // A line ends at "\n", "\r\n" or a lone "\r", as Python's universal newlines.
    if (text_[i] == '\n' || (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n')))
      line_starts_.push_back(i + 1);
  }
}

size_t Source::line_of(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<size_t>(it - line_starts_.begin()) - 1;
}

std::string_view Source::line_text(size_t line) const {
  size_t begin = line_starts_[line];
  size_t end = line + 1 < line_starts_.size() ? line_starts_[line + 1] : text_.size();
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

size_t invalid_utf8_offset(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t n;
    uint32_t cp;
    if (b >= 0xC2 && b <= 0xDF) {
      n = 1;
      cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 2;
      cp = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 3;
      cp = b & 0x07;
    } else {
      return i;
    }
    if (i + n >= text.size()) return i;
    for (size_t k = 1; k <= n; ++k) {
      auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (c & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

size_t SourceRange::line() const { return source_ ? source_->line_of(start_) + 1 : 0; }

size_t SourceRange::column() const {
  if (!source_) return 0;
  return start_ - source_->line_start(source_->line_of(start_)) + 1;
}

std::string_view SourceRange::text() const {
  if (!source_) return {};
  return std::string_view(source_->text()).substr(start_, end_ - start_);
}

SourceRange SourceRange::merge(const SourceRange& other) const {
  if (!source_) return other;
  if (!other.source_) return *this;
  return SourceRange(source_, std::min(start_, other.start_), std::max(end_, other.end_));
}

std::string SourceRange::highlight() const {
  if (!source_) return "  (no source)\n";
  size_t line_index = source_->line_of(start_);
  std::string_view line_text = source_->line_text(line_index);
  size_t col = start_ - source_->line_start(line_index);
  std::string out = fmt::format("  File \"{}\", line {}, column {}\n    ", source_->filename(), line_index + 1,
                                col + 1);
  // Control characters other than tabs would garble the terminal, and a line that is not UTF-8 the message:
  // shown as '?'.
  bool utf8 = invalid_utf8_offset(line_text) == std::string_view::npos;
  for (char c : line_text) {
    auto b = static_cast<unsigned char>(c);
    out += (b < 0x20 && c != '\t') || b == 0x7f || (b >= 0x80 && !utf8) ? '?' : c;
  }
  out += "\n    ";
  // Tabs are kept under the line so that the underline lines up with what the terminal shows.
  for (size_t i = 0; i < col && i < line_text.size(); ++i) out += line_text[i] == '\t' ? '\t' : ' ';
  for (size_t i = line_text.size(); i < col; ++i) out += ' ';
  // At least one '~', at most to the end of the line (a range spanning lines is underlined on its first line).
  size_t rest = line_text.size() > col ? line_text.size() - col : 1;
  size_t width = std::clamp<size_t>(end_ > start_ ? end_ - start_ : 1, 1, rest);
  out.append(width, '~');
  out += " <--- HERE\n";
  return out;
}

void throw_script_error(const SourceRange& range, const std::string& message) {
  detail::throw_error(ErrorKind::Runtime, fmt::format("TorchScript: {} here:\n{}", message, range.highlight()));
}

}  // namespace ember::jit::script
