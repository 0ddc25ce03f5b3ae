#pragma once
// LibTorch's checkpoint writer (torch::serialize::OutputArchive), writing Ember's file format (Note [ember
// format] in EmberFormat.h), so Python's ember.load reads the file as a dict of its keys. The reader is
// InputArchive (InputArchive.h).
//
//   ember::serialize::OutputArchive ar;
//   ar.write("epoch", ember::tensor(3));
//   model->save(ar);                         // the state dict's entries: "fc.weight", ...
//   ar.save_to("ckpt.ember");                // Python: ember.load("ckpt.ember")["epoch"]
//
// Note [checkpoint archives]
// The file's root is a dict, in insertion order, of the written keys to their values: tensors, any IValue
// (numbers, strings, lists), and nested archives as nested dicts (`ar.write("model", model_archive)` gives
// Python `ckpt["model"]`, a state dict). Module::save writes the module's state dict entries under their
// dotted names at the archive's top level, as LibTorch's Module::save fills the archive it is given.
#include <iosfwd>
#include <string>
#include <vector>

#include "ember/dispatch/IValue.h"

namespace ember::serialize {

/// Keys and values to be written as one archive. Writing a key again replaces its value in place.
class OutputArchive {
 public:
  /// Writes tensor under key (as is: its requires_grad is kept, its history is not written). is_buffer is
  /// LibTorch's flag, accepted and not needed here. Errors: an undefined tensor (naming the key).
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Writes any value the archive format holds (numbers, strings, tensors, lists, dicts).
  void write(const std::string& key, const IValue& value);
  /// Writes a nested archive under key (a nested dict in the file).
  void write(const std::string& key, const OutputArchive& nested);

  /// Writes the archive to path atomically (a temporary file renamed over path when complete, as
  /// serialize::save). Errors: a value the format cannot hold; I/O failures naming the file.
  void save_to(const std::string& path) const;
  /// Writes the archive's bytes to stream.
  void save_to(std::ostream& stream) const;

  /// The archive's value: a dict of the keys in writing order (Note [checkpoint archives]).
  IValue to_ivalue() const;
  /// The written keys in order.
  std::vector<std::string> keys() const;

 private:
  std::vector<std::pair<std::string, IValue>> items_;
};

}  // namespace ember::serialize
