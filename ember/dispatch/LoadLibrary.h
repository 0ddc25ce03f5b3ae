#pragma once
// Loading users' op libraries at run time (ember.ops.load_library in Python, ember::load_library in C++).
#include <string>
#include <string_view>
#include <vector>

#include "ember/base/Error.h"

namespace ember {

/// The error load_library() raises when the operating system cannot open or load the file (Python sees it as
/// OSError, as torch.ops.load_library raises).
class LibraryLoadError : public Error {
 public:
  explicit LibraryLoadError(std::string msg) : Error(ErrorKind::Runtime, std::move(msg)) {}
};

/// Loads a shared library of ops (a user's extension) with dlopen, which runs its EMBER_LIBRARY /
/// EMBER_LIBRARY_IMPL registrars (Note [registration]), and returns once its ops are callable by name: from C++
/// through the dispatcher, from Python as ember.ops.<ns>.<op>, from saved graphs. Loading the same file again
/// does nothing (dlopen returns the loaded object; its registrars do not run twice). Thread-safe.
/// Errors: LibraryLoadError for a missing file (naming it) and for a file dlopen rejects (not a shared object,
/// an undefined symbol: dlopen's message names it); Error (RuntimeError) for an empty path and for a
/// registration that failed inside the library (a malformed schema, an op defined twice, a kernel for an
/// unknown op: the first such error, which names both places of a duplicate). After a registration error the
/// library stays loaded (Note [unloading]).
void load_library(const std::string& path);

/// The paths given to load_library() that loaded, in order of loading, each once.
std::vector<std::string> loaded_libraries();

/// Where an op that is not built into Ember was defined (Note [op sources]).
struct OpSource {
  enum class Kind { Unknown, Library, Python };
  Kind kind = Kind::Unknown;
  std::string detail;  // Library: the path given to load_library(); Python: the defining function's place
};

/// The source of op `name` ("ns::op", any overload): a library loaded by load_library(), Python
/// (ember.library.custom_op), or Unknown (built in, defined by the program itself, or not defined).
OpSource op_source(std::string_view name);
/// Records the source of op `name` (load_library() does it for the ops a library defines; the Python binding
/// for ops whose kernels are Python functions).
void set_op_source(std::string_view name, OpSource source);

}  // namespace ember
