#pragma once
// Saving and loading modules (LibTorch's torch::save(module, path) / torch::load(module, path)) in the
// archive of Python's `ember.save(model.state_dict(), path)`, so state dicts cross between the two front ends.
//
//   ember::save(net, "net.ember");    // Python: net.load_state_dict(ember.load("net.ember"))
//   ember::load(net, "net.ember");    // reads what Python's ember.save(net.state_dict(), path) wrote
//
// Note [module archives]
// A module is saved as its state dict: the archive's root is a dict of str keys (Python's dotted names, in
// state_dict() order) to tensors, marked ordered (serialize::Attributes::ordered_dicts), so Python's
// ember.load returns an OrderedDict, as for a state dict saved from Python. Tensors are saved detached:
// requires_grad false and no history, as Python's state_dict(). No `_metadata` (Python's per-module versions)
// is written; Python's load_state_dict treats its absence as a current layout, and every buffer Ember's layers
// have (BatchNorm's num_batches_tracked included) is in the dict. Loading reads any dict of str -> tensor
// (Python's OrderedDict or dict) and hands it to Module::load_state_dict.
#include <concepts>
#include <iosfwd>
#include <memory>
#include <string>

#include "ember/dispatch/IValue.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/OrderedDict.h"

namespace ember {

namespace nn {
/// A state dict as the archive's value: a dict of str -> tensor in order (Note [module archives]).
IValue state_dict_to_ivalue(const OrderedDict<std::string, Tensor>& state);
/// The state dict held by obj (loaded from an archive). Errors (RuntimeError naming `source`): obj is not a
/// dict; a key that is no str; a value that is no tensor (naming its key).
OrderedDict<std::string, Tensor> state_dict_from_ivalue(const IValue& obj, const std::string& source);
}  // namespace nn

/// Writes module's state dict to path as Python's `ember.save(module.state_dict(), path)` does (atomically:
/// path is either untouched or the whole archive). Errors: I/O failures naming the file.
void save(const nn::Module& module, const std::string& path);
template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
/// The same archive, written to stream.
void save(const nn::Module& module, std::ostream& stream);
template <typename M>
void save(const nn::ModuleHolder<M>& module, std::ostream& stream) {
  save(static_cast<const nn::Module&>(*module), stream);
}

/// Loads the state dict archived at path (by ember::save or Python's ember.save(model.state_dict(), path))
/// into module (Module::load_state_dict: values copied without autograd history). Errors (RuntimeError
/// naming the file): a missing or corrupt file; an archive that is no dict of str -> tensor; with strict,
/// missing or unexpected keys; any shape mismatch ("size mismatch for fc.weight: copying a param with shape
/// [3, 4] from checkpoint, the shape in current model is [2, 4]."). Nothing is copied on error.
void load(nn::Module& module, const std::string& path, bool strict = true);
template <typename M>
void load(nn::ModuleHolder<M>& module, const std::string& path, bool strict = true) {
  load(static_cast<nn::Module&>(*module), path, strict);
}
/// The same from an archive read whole from stream.
void load(nn::Module& module, std::istream& stream, bool strict = true);
template <typename M>
void load(nn::ModuleHolder<M>& module, std::istream& stream, bool strict = true) {
  load(static_cast<nn::Module&>(*module), stream, strict);
}

/// The same for a module held by std::shared_ptr (LibTorch's `auto net = std::make_shared<Net>();
/// torch::save(net, path)`), to a path or a stream.
template <typename M, typename Target>
  requires std::derived_from<M, nn::Module>
void save(const std::shared_ptr<M>& module, Target&& target) {
  EMBER_CHECK(module != nullptr, "ember::save: the module is null (an empty std::shared_ptr)");
  save(static_cast<const nn::Module&>(*module), std::forward<Target>(target));
}
template <typename M, typename Source>
  requires std::derived_from<M, nn::Module>
void load(const std::shared_ptr<M>& module, Source&& source, bool strict = true) {
  EMBER_CHECK(module != nullptr, "ember::load: the module is null (an empty std::shared_ptr)");
  load(static_cast<nn::Module&>(*module), std::forward<Source>(source), strict);
}

}  // namespace ember
