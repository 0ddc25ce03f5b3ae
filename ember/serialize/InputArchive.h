#pragma once
// LibTorch's checkpoint reader (torch::serialize::InputArchive): the keys and values of a file in Ember's
// format (Note [ember format] in EmberFormat.h) whose root is a dict with str keys, such as the files
// OutputArchive writes (Note [checkpoint archives] in OutputArchive.h) and Python's ember.save of a state dict.
//
//   ember::serialize::InputArchive in;
//   in.load_from("ckpt.ember");
//   ember::Tensor epoch;  in.read("epoch", epoch);
//   model->load(in);
#include <iosfwd>
#include <string>
#include <vector>

#include "ember/dispatch/IValue.h"

namespace ember::serialize {

/// The keys and values of a loaded file (any file in Ember's format whose root is a dict with str keys, e.g. a
/// state dict saved by Python's ember.save).
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
