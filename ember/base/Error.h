#pragma once
// Errors a user can act on. See Note [errors].
//
// Note [errors]
// Every failure reachable from the public API throws ember::Error, never aborts. The message starts with the
// op name and states the shapes/dtypes/indices involved. `kind` tells the Python binding which exception type
// PyTorch raises for the same mistake (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError,
// and torch.linalg.LinAlgError, a RuntimeError subclass, for singular or non-positive-definite matrices).
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ember {

enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented, LinAlg };

/// The one exception type of Ember. what() is the full message; kind() maps it to a Python exception type.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string msg) : std::runtime_error(std::move(msg)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }
  /// The message (LibTorch's c10::Error::msg(); Ember keeps no backtrace, so it is what()).
  std::string msg() const { return what(); }
  /// The message without a backtrace (LibTorch's c10::Error::what_without_backtrace()): what().
  const char* what_without_backtrace() const noexcept { return what(); }

 private:
  ErrorKind kind_;
};

namespace detail {
[[noreturn]] void throw_error(ErrorKind kind, std::string msg);

/// One argument of a LibTorch-style message, appended as fmt prints it or, for types fmt cannot print (a
/// Tensor, a user's type), as its operator<< does.
template <class T>
void append_message_part(std::string& out, const T& part) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out += std::string_view(part);
  } else if constexpr (fmt::is_formattable<T>::value) {
    fmt::vformat_to(std::back_inserter(out), "{}", fmt::make_format_args(part));
  } else {
    std::ostringstream os;
    os << part;
    out += os.str();
  }
}

/// Whether a message starts with a fmt format string: a string with a '{' (including "{{" escapes) whose
/// remaining arguments fmt can all print.
template <class First, class... Rest>
bool is_fmt_message(const First& first) {
  if constexpr (std::is_convertible_v<const First&, std::string_view> && (fmt::is_formattable<Rest>::value && ...))
    return std::string_view(first).find('{') != std::string_view::npos;
  else
    return false;
}

/// The message of a failed check. Note [check messages]: EMBER_CHECK takes either Ember's fmt form
/// (`EMBER_CHECK(c, "{}: expected {} dims", name, n)`) or LibTorch's variadic form, whose pieces are concatenated
/// (`EMBER_CHECK(c, "expected ", n, " dims but got ", t.sizes())`, as TORCH_CHECK): a first argument with '{'
/// placeholders for the other arguments is a format string; otherwise every argument is appended in turn. With no
/// message at all (`EMBER_CHECK(c)`) the message names the condition, as LibTorch's. Built only on failure.
inline std::string check_message(const char* condition) {
  return fmt::format("Expected {} to be true, but got false.", condition);
}
template <class First, class... Rest>
std::string check_message(const char*, const First& first, const Rest&... rest) {
  if (is_fmt_message<First, Rest...>(first)) {
    if constexpr (std::is_convertible_v<const First&, std::string_view> && (fmt::is_formattable<Rest>::value && ...)) {
      try {
        return fmt::vformat(std::string_view(first), fmt::make_format_args(rest...));
      } catch (const fmt::format_error&) {
        // not a format string after all (a literal brace in a LibTorch-style message): concatenate below
      }
    }
  }
  std::string out;
  append_message_part(out, first);
  (append_message_part(out, rest), ...);
  return out;
}
template <class... Args>
std::string check_message(const char*, fmt::basic_runtime<char> format, const Args&... args) {
  return fmt::vformat(format.str, fmt::make_format_args(args...));
}

/// Sends a warning to the warning handler (standard error unless set_warning_handler replaced it).
void warn(const std::string& message, const char* file, int line, const char* function);
}  // namespace detail

/// The arguments' text concatenated, as LibTorch's c10::str: `ember::str("sample-", 3, ".pt")` is
/// "sample-3.pt". Each piece prints as fmt prints it, or by its operator<< when fmt cannot.
template <class... Args>
std::string str(const Args&... args) {
  std::string out;
  (detail::append_message_part(out, args), ...);
  return out;
}

/// Replaces the sink of EMBER_WARN's messages (default: "Warning: <message> (function <name>)" on standard
/// error); returns the previous one. Not thread-safe against concurrent warnings.
using WarningHandler = void (*)(const std::string& message, const char* file, int line, const char* function);
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace ember

/// Throws ember::Error of the given kind when cond is false, with the message of the remaining arguments (fmt's
/// form or LibTorch's concatenation, or none: Note [check messages]).
#define EMBER_CHECK_KIND(kind, cond, ...)                                                                     \
  do {                                                                                                         \
    if (!(cond)) [[unlikely]]                                                                                  \
      ::ember::detail::throw_error(kind, ::ember::detail::check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond __VA_OPT__(, ) __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Index, cond __VA_OPT__(, ) __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Type, cond __VA_OPT__(, ) __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Value, cond __VA_OPT__(, ) __VA_ARGS__)
/// LibTorch's names of the same checks (TORCH_CHECK_NOT_IMPLEMENTED, TORCH_INTERNAL_ASSERT).
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) \
  EMBER_CHECK_KIND(::ember::ErrorKind::NotImplemented, cond __VA_OPT__(, ) __VA_ARGS__)
#define EMBER_INTERNAL_ASSERT(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond __VA_OPT__(, ) __VA_ARGS__)
/// LibTorch's AT_ASSERT(cond) and AT_ASSERTM(cond, msg...): checks that throw ember::Error (c10::Error).
#define AT_ASSERT(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ASSERTM(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond __VA_OPT__(, ) __VA_ARGS__)
/// LibTorch's AT_ERROR(msg...): always throws, with the pieces of the message concatenated.
#define AT_ERROR(...) \
  ::ember::detail::throw_error(::ember::ErrorKind::Runtime, ::ember::detail::check_message("false", __VA_ARGS__))
/// LibTorch's TORCH_WARN(msg...) and TORCH_WARN_ONCE: the pieces of the message (as a check's) go to the warning
/// handler (ember::set_warning_handler); _ONCE only the first time this line runs.
#define EMBER_WARN(...) \
  ::ember::detail::warn(::ember::detail::check_message("" __VA_OPT__(, ) __VA_ARGS__), __FILE__, __LINE__, __func__)
#define EMBER_WARN_ONCE(...)                                  \
  do {                                                        \
    static const bool ember_warned_once_ = [&] {              \
      EMBER_WARN(__VA_ARGS__);                                \
      return true;                                            \
    }();                                                      \
    (void)ember_warned_once_;                                 \
  } while (0)
/// Unconditional failure with a formatted message.
#define EMBER_FAIL(...) ::ember::detail::throw_error(::ember::ErrorKind::Runtime, ::fmt::format(__VA_ARGS__))
#define EMBER_FAIL_KIND(kind, ...) ::ember::detail::throw_error(kind, ::fmt::format(__VA_ARGS__))
