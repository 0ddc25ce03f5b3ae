#include "ember/base/Error.h"

#include <atomic>
#include <cstdio>

namespace ember::detail {

// Out of line so the throw's code stays off the callers' hot paths.
void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, std::move(msg)); }

}  // namespace ember::detail

namespace ember {
namespace {
void print_warning(const std::string& message, const char*, int, const char* function) {
  std::fprintf(stderr, "Warning: %s (function %s)\n", message.c_str(), function);
}
std::atomic<WarningHandler> warning_handler{&print_warning};
}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  return warning_handler.exchange(handler ? handler : &print_warning);
}

namespace detail {
void warn(const std::string& message, const char* file, int line, const char* function) {
  warning_handler.load()(message, file, line, function);
}
}  // namespace detail
}  // namespace ember
