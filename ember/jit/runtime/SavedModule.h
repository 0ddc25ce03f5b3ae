#pragma once
// Ember's saved-module file (ember::jit::save / ember::jit::load; Python's ember.jit.save / load): a runtime
// Module (its hierarchy, parameters, buffers, attributes and the IR text of every method) in one file, loadable
// from a C++ program with no Python. (Loading PyTorch's TorchScript files is a reader of its own, beside this.)
//
// Note [saved-module format]
// The file is in Ember's tensor file format (ember/serialize, Note [ember format]: a zip with a JSON manifest
// and one raw entry per tensor storage, written atomically) whose root object is
//   {"format": "ember-jit-module", "version": 1,
//    "root": <module>, "tensor_constants": [Tensor, ...], "extra_files": {name: str, ...},
//    "op_sources": {"ns::op": ("library", path) | ("python", place), ...}}   (Note [op sources])
//   <module> = {"class": "__torch__.Net", "training": bool,
//               "slots": [(name, kind, value, type), ...],   kind: "parameter" | "buffer" | "module" | "attribute";
//                                                            value: a Tensor, a <module>, or the attribute's
//                                                            value; type: the IR type text ("float", "int[]")
//               "methods": [(name, ir_text), ...]}           in definition order
// Tensor constants of the graphs print as <Tensor:k>, k indexing "tensor_constants" (PrintOptions). So tensor
// data is always stored as storages (shared storages stay shared: a parameter and a view of it), and the rest
// is plain values: loading runs no code from the file. Everything read is checked: the format name and
// version, each field's kind, the class and attribute names, each method's IR text (parsed and verified:
// malformed text names line and column; an unknown op names the op and says a library may need loading), and
// the tensor data (by ember/serialize). Errors raise RuntimeError "jit::load: '<path>': <problem>".
#include <istream>
#include <map>
#include <string>

#include "ember/jit/runtime/Module.h"

namespace ember::jit {

/// The "format" field of a saved module.
inline constexpr std::string_view kModuleFormatName = "ember-jit-module";
/// The version written; load() accepts 1..kModuleFormatVersion.
inline constexpr int64_t kModuleFormatVersion = 1;

/// Extra files stored beside the model (name -> contents).
using ExtraFiles = std::map<std::string, std::string>;

/// Writes m to path atomically (Note [saved-module format]). Errors: attributes whose values the file cannot
/// hold; I/O failures (naming the file).
void save(const Module& m, const std::string& path, const ExtraFiles& extra_files = {});

/// Loads a module saved by save(); its methods are compiled and ready to run. extra_files, when given,
/// receives the stored extra files. Errors: RuntimeError "jit::load: '<path>': <problem>" for a missing,
/// truncated, corrupt or hostile file, an unknown op (naming it; for an op of a custom library, the library to
/// load first; for an op defined in Python, that it needs Python), or a newer format version.
Module load(const std::string& path, ExtraFiles* extra_files = nullptr);

/// load() from a stream holding the file's bytes (as LibTorch's torch::jit::load(std::istream&)): the stream is
/// read to its end, then loaded as the file would be; errors name the file "<stream>". A stream that fails to
/// read raises RuntimeError too.
Module load(std::istream& in, ExtraFiles* extra_files = nullptr);

}  // namespace ember::jit
