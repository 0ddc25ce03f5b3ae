#pragma once
// The safe pickle-subset reader: Python pickles of protocols 0-5 as PyTorch's files write them, read in C++ without
// running anything, and the writer of the protocol-2 pickles torch.load reads (PickleWriter.h).
//
//   PickleOptions o;
//   o.name = "archive/data.pkl";
//   o.persistent_load = [&](const PickleValue& pid) { return storage_for(pid); };
//   PickleValue v = read_pickle(bytes, o);
//
// Note [safe unpickling]
// Python's pickle is a small stack machine whose GLOBAL / STACK_GLOBAL opcodes import any callable and whose
// REDUCE / NEWOBJ / BUILD opcodes call it: reading a pickle with Python runs whatever the file names
// (os.system, builtins.eval, a class's __reduce__ returning getattr tricks). This reader runs nothing. Every
// GLOBAL is looked up in a fixed allow-list of names that map to Ember objects:
//   torch._utils._rebuild_tensor_v2 / _rebuild_tensor / _rebuild_parameter / _rebuild_parameter_with_state,
//   torch._tensor._rebuild_from_type_v2 (of torch.Tensor and nn.Parameter only), torch.nn.parameter.Parameter,
//   torch.<T>Storage and torch.storage.UntypedStorage, torch.Size, torch.device, torch.<dtype>,
//   collections.OrderedDict, builtins.set / frozenset / slice / complex / bytes, _codecs.encode (protocol 2's
//   bytes), numpy's ndarray / dtype / scalar reconstruction (Note [numpy in pickles] in Pickle.cpp), and the same
//   names under ember. and ember._utils. (the files ember.save writes for whole objects).
// Their "calls" are interpreted here with checked arguments (a tensor's geometry against its storage, ...). Any
// other name raises "global 'os.system' is not allowed" naming it, or, when the caller asks (placeholders),
// becomes an inert Global whose REDUCE / NEWOBJ gives an Object placeholder holding the class name, the
// arguments and what BUILD, APPENDS and SETITEMS gave it (Note [pickle values]).
//
// Note [pickle limits]
// Allocation is bounded by the input's size: every opcode creates at most one value, strings and bytes are
// copies of bytes present in the input, and the memo, the stack and MARK nesting have explicit limits
// (PickleLimits). The result is checked after STOP: no reference cycles (a list appended to itself), at most
// max_depth containers deep; each check walks every node once with a recursion bounded by max_depth. Nodes
// that the result does not reach, and every node on an error, are emptied one by one so that no cycle leaks
// and no deep chain is destroyed recursively. Errors are RuntimeErrors
// "pickle: '<name>' offset <n>: <problem>" (offset of the opcode in the input).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ember/serialize/PickleValue.h"

namespace ember::serialize {

/// Limits of one read_pickle call (Note [pickle limits]).
struct PickleLimits {
  int max_depth = 1000;            // containers nested in the result
  int64_t max_memo = int64_t{1} << 22;   // distinct memo entries
  int64_t max_stack = int64_t{1} << 22;  // values on the stack, over all MARK levels
  int max_marks = 1000;            // MARK nesting
};

/// How read_pickle treats the file's references to the outside world.
struct PickleOptions {
  /// The file (or entry) named in error messages.
  std::string name = "<pickle>";
  /// Globals outside the allow-list become inert placeholders instead of an error (Note [safe unpickling]).
  bool placeholders = false;
  /// BINPERSID's callback: the persistent id (a tuple for PyTorch's storages) -> the value it stands for.
  /// Unset: persistent ids are refused.
  std::function<PickleValue(const PickleValue& pid)> persistent_load;
  PickleLimits limits;
};

/// Reads the pickle that starts at data[start] up to its STOP opcode; *end (when given) receives the offset
/// after STOP (a legacy torch.save file holds several pickles in a row). Errors: a truncated or corrupt pickle,
/// an opcode outside the subset (the out-of-band buffers of protocol 5, EXT registry codes, protocol 0's
/// INST/OBJ), a global outside the allow-list (unless placeholders), a limit, a cycle: RuntimeError naming
/// options.name, the offset and the problem.
PickleValue read_pickle(std::string_view data, const PickleOptions& options, size_t start = 0, size_t* end = nullptr);

/// True when v is an allow-listed storage class (torch.FloatStorage, ...), whose element type goes to *dtype.
bool is_storage_class(const PickleValue& v, DType* dtype);

/// Calls f(path, tensor) for every tensor in v, each tensor node once, in the order of a depth-first walk. The
/// path joins dict keys, list and tuple indices and placeholder attributes with dots ("model.0.weight"); an
/// nn.Module placeholder's _parameters, _buffers and _modules dicts add no step, so the paths are the module's
/// state_dict keys.
void for_each_tensor(const PickleValue& v, const std::function<void(const std::string&, const Tensor&)>& f);

}  // namespace ember::serialize
