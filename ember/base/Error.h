#pragma once
// Errors a user can act on. See Note [errors].
//
// Note [errors]
// Every failure reachable from the public API throws ember::Error, never aborts. The message starts with the
// op name and states the shapes/dtypes/indices involved. `kind` tells the Python binding which exception type
// PyTorch raises for the same mistake (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError,
// and torch.linalg.LinAlgError, a RuntimeError subclass, for singular or non-positive-definite matrices).
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ember {

enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented, LinAlg };

/// The one exception type of Ember. what() is the full message; kind() maps it to a Python exception type.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string msg) : std::runtime_error(std::move(msg)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
[[noreturn]] void throw_error(ErrorKind kind, std::string msg);
}  // namespace detail

}  // namespace ember

/// Throws ember::Error of the given kind with a fmt-formatted message when cond is false.
#define EMBER_CHECK_KIND(kind, cond, ...)                                                    \
  do {                                                                                        \
    if (!(cond)) [[unlikely]] ::ember::detail::throw_error(kind, ::fmt::format(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Index, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Type, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Value, cond, __VA_ARGS__)
/// Unconditional failure with a formatted message.
#define EMBER_FAIL(...) ::ember::detail::throw_error(::ember::ErrorKind::Runtime, ::fmt::format(__VA_ARGS__))
#define EMBER_FAIL_KIND(kind, ...) ::ember::detail::throw_error(kind, ::fmt::format(__VA_ARGS__))
