#pragma once
// LibTorch's checkpoint archives (torch::serialize::OutputArchive / InputArchive), written in Ember's archive
// format (Note [archive format] in Archive.h), so Python's ember.load reads the file as a dict of its keys:
//
//   ember::serialize::OutputArchive ar;
//   ar.write("epoch", ember::tensor(3));
//   model->save(ar);                         // the state dict's entries: "fc.weight", ...
//   ar.save_to("ckpt.ember");                // Python: ember.load("ckpt.ember")["epoch"]
//
//   ember::serialize::InputArchive in;
//   in.load_from("ckpt.ember");
//   ember::Tensor epoch;  in.read("epoch", epoch);
//   model->load(in);
//
// Note [checkpoint archives]
// The archive's root is a dict, in insertion order, of the written keys to their values: tensors, any IValue
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

/// The keys and values of a loaded archive (any archive whose root is a dict with str keys, e.g. a state dict
/// saved by Python's ember.save).
class InputArchive {
 public:
  InputArchive() = default;
  /// Loads the archive at path, replacing what this holds. Errors: a missing or corrupt file; a root that is
  /// not a dict with str keys (RuntimeError naming the file).
  void load_from(const std::string& path);
  /// The same from the bytes of stream.
  void load_from(std::istream& stream);

  /// Reads the tensor under key into tensor: an undefined tensor becomes the loaded one; a defined one keeps
  /// its identity (handles held elsewhere, e.g. by a module, see the new value) and takes the loaded tensor's
  /// data, sizes and dtype (LibTorch's set_). requires_grad saved with the tensor is restored on an undefined
  /// tensor. Errors: no such key, or the value is not a tensor (naming the key and the keys there are).
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// read() that returns false instead of raising when key is absent.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// Reads any value under key. Errors: no such key.
  void read(const std::string& key, IValue& value);
  /// Reads the nested archive under key. Errors: no such key, or the value is not a dict with str keys.
  void read(const std::string& key, InputArchive& nested);
  /// Whether key is present.
  bool contains(const std::string& key) const;
  /// The keys in the file's order.
  std::vector<std::string> keys() const;

 private:
  void set_root(const IValue& root, const std::string& source);
  const IValue* find(const std::string& key) const;
  const IValue& at(const std::string& key) const;

  std::vector<std::pair<std::string, IValue>> items_;
  std::string source_ = "<empty archive>";
};

}  // namespace ember::serialize
