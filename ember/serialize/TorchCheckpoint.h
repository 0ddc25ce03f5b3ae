#pragma once
// PyTorch's torch.save files, read without running anything (through the safe pickle reader, Pickle.h) and
// written so that PyTorch 1.13's torch.load (also with weights_only=True) reads them.
//
// Note [torch.save formats]
// * The zip format (torch.save since 1.6): a zip whose entries all sit in one directory <archive> (the first
//   entry's; "archive" when PyTorch 1.13 writes, the file's stem in 1.6-1.12): <archive>/data.pkl, the pickled
//   object, in which every storage is a persistent id ('storage', torch.<T>Storage, key, location, numel);
//   <archive>/data/<key>, the storage's numel * element-size raw little-endian bytes (stored; PyTorch aligns
//   them to 64 bytes); <archive>/version ("3"); since 2.1 <archive>/byteorder ("little" or "big": big-endian
//   files are refused) and <archive>/.data/serialization_id. Tensors are REDUCEs of
//   torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) over those
//   storages, so views of one storage share it once loaded; a state dict is an OrderedDict whose BUILD sets
//   _metadata.
// * The legacy format (torch.save(..., _use_new_zipfile_serialization=False), and every file before 1.6): five
//   pickles in a row - the magic number 0x1950a86a20f9469cfc6c, the protocol version 1001, sys_info (a dict;
//   little_endian must be true), the object (persistent ids ('storage', torch.<T>Storage, key, location, numel,
//   view_metadata) where view_metadata is None or (view_key, offset, view_numel) of a storage view), and the
//   sorted list of storage keys - then, for each key of that list, an int64 element count and the raw bytes.
//   The older tar format (PyTorch before 0.4) is refused.
// Storages are allocated only after their size is checked against the bytes that can hold them (the zip entry's
// record, the bytes left in a legacy file), so a 10^12-element claim in a small file fails before allocating;
// a tensor's geometry is checked against its storage (TensorImpl). `location` (cpu, cuda:0, ...) is read and
// ignored: every storage loads on the CPU, which is what torch.load's map_location='cpu' does. Complex and
// quantized storages are refused naming the type (Ember has no such dtypes).
//
// Note [torch.save writer]
// save_torch writes the zip format as PyTorch 1.13 does: stored entries archive/data.pkl, archive/data/<i> (one
// per storage, in order of first use), archive/version "3", through libzip; data.pkl is a protocol-2 pickle that
// uses only what torch 1.13's weights_only unpickler accepts (GLOBAL of collections.OrderedDict, torch.Size, the
// torch.<T>Storage classes, torch._utils._rebuild_tensor_v2 and _rebuild_parameter; BININT*, LONG1,
// BINUNICODE, BINPUT/BINGET, containers) plus BINFLOAT for floats and torch.<dtype> globals (plain torch.load
// reads those; 1.13's weights_only refuses floats and some dtypes, a limit of that unpickler).
#include <cstdint>
#include <string>
#include <string_view>

#include "ember/serialize/EmberFormat.h"
#include "ember/serialize/Pickle.h"

namespace ember::serialize {

class ZipReader;

/// How a torch.save file is read.
struct CheckpointOptions {
  /// Classes outside the allow-list load as placeholders instead of raising (Note [safe unpickling]).
  bool placeholders = false;
  /// Legacy format only: the input is a private read-only file mapping (MappedFile) whose pages may be dropped
  /// once their storage has been copied, so the peak memory is the tensors' size, not twice it. Never set it for
  /// bytes owned by someone else (dropping anonymous pages zeroes them).
  bool release_consumed_pages = false;
};

/// Reads a torch.save zip checkpoint (Note [torch.save formats]). Errors: RuntimeError naming the file and the
/// problem (a missing entry, a storage whose entry has the wrong size, a refused global, a corrupt pickle).
PickleValue read_torch_zip(ZipReader& zip, const CheckpointOptions& options = {});
/// Reads a legacy torch.save file held in `data` (e.g. a MappedFile); `name` stands for it in errors.
PickleValue read_torch_legacy(std::string_view data, std::string_view name, const CheckpointOptions& options = {});
/// Reads a torch.save file of either format from a path or from bytes.
PickleValue read_torch_file(const std::string& path, const CheckpointOptions& options = {});
PickleValue read_torch_bytes(std::string_view data, std::string_view name, const CheckpointOptions& options = {});

/// The IValue tree of an unpickled value, with what the tree cannot say (OrderedDicts, _metadata, Parameters,
/// requires_grad, torch.Size) in attrs when given. Errors (TypeError "load: '<file>': ..."): values IValue cannot
/// hold - bytes, sets, slices, complex numbers, ints beyond 64 bits, a bare storage, non-CPU devices, dict keys
/// other than str and int - and placeholders of pickled Python objects (naming their class).
IValue to_ivalue(const PickleValue& v, Attributes* attrs, std::string_view file);

/// Writes obj (what Ember's own save takes: Note [ember format]) in torch.save's zip format (Note [torch.save
/// writer]) to path, atomically as save() does. Errors: as save().
void save_torch(const IValue& obj, const std::string& path, const Attributes* attrs = nullptr);
/// The same file as bytes in memory.
std::string save_torch_to_bytes(const IValue& obj, const Attributes* attrs = nullptr);

}  // namespace ember::serialize
