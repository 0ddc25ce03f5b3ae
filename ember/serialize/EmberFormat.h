#pragma once
// Ember's own file format: tensors, state dicts and nested containers of them in one zip file with a JSON
// manifest, which the Python front end (ember.save / ember.load) and C++ programs both read and write. (The
// readers of other formats, PyTorch's checkpoints, safetensors, GGUF, sit beside this file in ember/serialize.)
//
//   ember::serialize::save(ember::IValue::dict({{"w", w}, {"b", b}}), "model.ember");
//   ember::IValue obj = ember::serialize::load("model.ember");
//
// Note [ember format]
// A file is a zip archive (read and written with libzip: Note [zip writer]) with
//   * "manifest.json": {"format": "ember-archive", "version": 1, "byte_order": "little",
//       "storages": [{"entry": "storages/0", "nbytes": N}, ...],
//       "tensors": [{"storage": 0, "dtype": "float32", "sizes": [...], "strides": [...],
//                    "storage_offset": 0, "requires_grad": false, "parameter": false}, ...],
//       "root": <node>}
//     where a node is {"kind": "none"}, {"kind": "bool" | "int" | "str", "value": ...},
//     {"kind": "float", "value": <number or "nan", "inf", "-inf">}, {"kind": "dtype", "value": "float32"},
//     {"kind": "tensor", "index": i} (into "tensors"), {"kind": "list" | "tuple", "items": [<node>, ...]} (a
//     tuple may add "class": {"kind": "size"} for an ember.Size, whose items are ints, or {"kind":
//     "namedtuple", "module": m, "qualname": q, "fields": [<str>, ...]} for a namedtuple: Note [tuple
//     classes]; earlier builds, which read the same version 1, ignore it and load a plain tuple) or
//     {"kind": "dict", "ordered": bool, "items": [[<key node>, <node>], ...], "metadata": <node>?} (keys are
//     str or int nodes; insertion order is kept; "metadata" is Python's OrderedDict._metadata of a state dict);
//   * one entry per storage with its raw bytes, little-endian, stored uncompressed (ZIP_CM_STORE) so saving
//     and loading are a copy and a CRC, nothing more. Offsets inside the zip are not aligned (nothing maps the
//     file).
// A storage is written once however many tensors use it, and each tensor records its own geometry over it,
// so views, transposes and the same tensor listed twice load sharing one storage with the same strides and
// offsets (as torch.save/torch.load); the same TensorImpl listed twice loads as one tensor. The whole storage
// is written even when a tensor views a small part of it (as PyTorch). Gradients and autograd history are not
// written; requires_grad is.
//
// Loading never runs code from the file: the manifest is data only. Every field is checked (format name,
// version, types, indices, dtype names, sizes and strides against the storage's bytes with overflow-checked
// arithmetic, entry sizes against the archive's size before anything is allocated), and a bad file raises a
// RuntimeError "load: '<file>': <problem>".
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/dispatch/IValue.h"

namespace ember::serialize {

/// The "format" field of every manifest.
inline constexpr std::string_view kFormatName = "ember-archive";
/// The version this build writes; loading accepts versions 1..kFormatVersion.
inline constexpr int64_t kFormatVersion = 1;
/// Name of the manifest entry inside the zip.
inline constexpr std::string_view kManifestEntry = "manifest.json";
/// Nesting depth of containers that save and load accept (beyond it: RuntimeError, never a stack overflow).
inline constexpr int kMaxDepth = 1000;
/// Note [manifest limits]
/// The manifest is the one entry whose size the format does not fix (a storage's entry must hold exactly the
/// bytes the manifest gives it), so it has limits of its own, checked before anything is inflated or parsed:
/// at most kMaxManifestBytes uncompressed (a state dict of 100,000 tensors needs about 20 MB; a small file that
/// claims a gigabyte of whitespace is refused at once), and JSON nesting at most kMaxManifestDepth deep (each
/// container of the object tree is at most three JSON levels), found by a linear scan before the JSON parser
/// or any message about a value can recurse.
inline constexpr uint64_t kMaxManifestBytes = uint64_t{64} << 20;
inline constexpr int kMaxManifestDepth = 3 * kMaxDepth + 8;

/// Note [tuple classes]
/// ember.save keeps two tuple subclasses that torch.save pickles: ember.Size (torch.Size) and namedtuples.
/// A Size loads as an ember.Size. A namedtuple is saved as its items plus its class's module, qualified name
/// and field names; torch.load imports that module and calls the class, which a loader that never runs code
/// from the file cannot do. So Ember's loader looks the class up only among the modules already imported
/// (sys.modules, by dictionary lookups: no import, no __getattr__ hook), accepts it only when it is a tuple
/// subclass with the same _fields, and builds the instance with tuple.__new__ (no constructor of the class
/// runs). Otherwise (module not imported, class gone, fields changed) the value loads as a plain tuple with a
/// warning naming the class. C++ programs see every such value as a tuple. (python/ember/serialization.py)
struct TupleClass {
  bool size = false;               // an ember.Size; the rest is empty
  std::string module, qualname;    // a namedtuple's class: its __module__ and __qualname__
  std::vector<std::string> fields;  // and its _fields, one per item
};

/// What an IValue tree cannot say itself but the file keeps: Python's container and tensor subclasses and
/// the autograd flag, keyed by payload identity (IValue::payload_ptr(): the DictObj of a dict, the TensorImpl of
/// a tensor). The Python binding fills it when saving and reads it after loading; C++ callers may ignore it.
struct Attributes {
  /// Dicts that are Python OrderedDicts (a state dict) rather than plain dicts.
  std::unordered_set<const void*> ordered_dicts;
  /// The `_metadata` attribute of a dict (a state dict's per-module versions).
  std::unordered_map<const void*, IValue> dict_metadata;
  /// Tensors that are nn.Parameter.
  std::unordered_set<const void*> parameters;
  /// Tuples that are an ember.Size or a namedtuple (Note [tuple classes]).
  std::unordered_map<const void*, TupleClass> tuple_classes;
  /// Filled by load: the loaded tensors that were saved with requires_grad=True. The serialize layer sits
  /// below autograd, so the caller sets the flag (the Python binding does; see also requires_grad in
  /// save: it is read from the tensor itself and this set is not consulted).
  std::unordered_set<const void*> requires_grad;
};

/// Writes obj (None, bool, int, double, str, dtype, tensors, lists, tuples and dicts with str or int keys,
/// nested) to path atomically (Note [atomic save]): libzip writes a temporary file in the same directory that
/// is renamed over path only when complete, and removed on any error, so path is either untouched or the whole
/// new file. attrs: optional Python-level attributes (see Attributes). Errors: an unsupported value
/// (TypeError naming its kind and where it is, e.g. "obj['a'][2]"), a non-CPU tensor, nesting deeper than
/// kMaxDepth, a string that is not UTF-8, I/O failures (RuntimeError naming the file and libzip's reason).
void save(const IValue& obj, const std::string& path, const Attributes* attrs = nullptr);

/// The same file as save() writes, as bytes in memory (for Python file-like objects).
std::string save_to_bytes(const IValue& obj, const Attributes* attrs = nullptr);

/// The same file, written whole by libzip to a temporary file in TMPDIR (Note [file-like save]) and then
/// handed to write(data, n) in order, in pieces of at most 4 MiB (the pointer is valid during the call only). Python
/// file-like objects are written through it. Errors: as save(), and whatever write throws.
void save_to_stream(const IValue& obj, const std::function<void(const void*, size_t)>& write,
                    const Attributes* attrs = nullptr);

/// Reads a file written by save(). Tensors come back on the CPU sharing storages as they were saved;
/// attrs, when given, receives the attributes of the loaded values. Errors: a missing, unreadable or corrupt
/// file (RuntimeError "load: '<path>': <problem>").
IValue load(const std::string& path, Attributes* attrs = nullptr);

/// load() from a file held in memory; `name` stands for the file in error messages.
IValue load_from_bytes(std::string_view data, Attributes* attrs = nullptr, std::string_view name = "<bytes>");

class ZipReader;
/// load() of an archive already open (TorchCheckpoint.cpp's load_file picks the reader by content).
IValue read_archive(ZipReader& zip, Attributes* attrs = nullptr);

}  // namespace ember::serialize
