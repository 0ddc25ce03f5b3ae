#pragma once
// LibTorch's torch::save / torch::load for tensors, over Ember's archive (Note [ember format] in EmberFormat.h):
// the files are the ones Python's ember.save(tensor, path) and ember.save([t1, t2], path) write, and
// ember.load reads these. The nn and optim layers add overloads of the same names for modules and optimizers.
//
//   ember::save(x, "x.ember");            ember::Tensor y; ember::load(y, "x.ember");
//   ember::save({a, b}, "ab.ember");      std::vector<ember::Tensor> v; ember::load(v, "ab.ember");
#include <string>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember {

/// Writes t to path (atomically, as serialize::save), as Python's ember.save(t, path): the whole storage,
/// the geometry, and requires_grad (not the gradient or the history). Errors: an undefined tensor; as
/// serialize::save.
void save(const Tensor& t, const std::string& path);
/// Writes the tensors as one list (Python's ember.save([t1, t2, ...], path)); tensors sharing a storage
/// are written once and load sharing it again. Errors: an undefined tensor (naming its position).
void save(const std::vector<Tensor>& tensors, const std::string& path);

/// Replaces t with the tensor stored at path (by ember.save(tensor) or save(const Tensor&, ...)), with its
/// requires_grad restored. Other handles to the tensor t named before are not changed. Errors
/// (RuntimeError): the file holds something else ("load: '<path>': expected a tensor but the archive holds
/// a list"); as serialize::load.
void load(Tensor& t, const std::string& path);
/// Replaces tensors with the list (or tuple) of tensors stored at path. Errors: the file holds anything
/// else, or an item is not a tensor (naming its position); as serialize::load.
void load(std::vector<Tensor>& tensors, const std::string& path);

}  // namespace ember
