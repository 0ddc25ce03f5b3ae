#include "ember/base/Error.h"

namespace ember::detail {

// Out of line so the throw's code stays off the callers' hot paths.
void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, std::move(msg)); }

}  // namespace ember::detail
