// Reading torch.save's files (Note [torch.save formats] in TorchCheckpoint.h) and their conversion to IValues.
#include "ember/serialize/TorchCheckpoint.h"

#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

#include "ember/serialize/FileFormat.h"
#include "ember/serialize/MappedFile.h"
#include "ember/serialize/ZipReader.h"

namespace ember::serialize {

namespace {

using Kind = PickleValue::Kind;

// The largest data.pkl read (a state dict of a million tensors pickles to about 200 MB).
constexpr uint64_t kMaxPickleBytes = uint64_t{1} << 31;

// The fields of a storage's persistent id: ('storage', torch.<T>Storage, key, location, numel[, view_metadata]).
struct StorageId {
  DType dtype;
  std::string key;
  int64_t numel;
  PickleValue view;  // legacy only: None or (view_key, offset, view_numel)
};

StorageId parse_storage_id(const PickleValue& pid, const std::string& file, bool legacy) {
  auto fail = [&](const std::string& why) { EMBER_FAIL("load: '{}': a storage's persistent id {}", file, why); };
  if (!pid.is(Kind::Tuple)) fail("is a " + pid.type_name() + ", not a tuple");
  const auto& a = pid.node()->items;
  if (a.empty() || !a[0].is(Kind::String) || a[0].node()->text != "storage")
    fail("is not a storage (only storages are read)");
  if (a.size() != (legacy ? 6u : 5u)) fail("has " + std::to_string(a.size()) + " fields");
  StorageId id;
  if (!is_storage_class(a[1], &id.dtype)) fail("names the type " + a[1].type_name() + ", not a storage class");
  if (!a[2].is(Kind::String)) fail("has a key that is a " + a[2].type_name());
  id.key = a[2].node()->text;
  if (!a[3].is(Kind::String)) fail("has a location that is a " + a[3].type_name());
  if (!a[4].is(Kind::Int) || a[4].to_int() < 0) fail("has a size that is not a non-negative int");
  id.numel = a[4].to_int();
  if (legacy) id.view = a[5];
  return id;
}

PickleValue storage_value(Storage s, DType dtype, int64_t numel) {
  auto n = std::make_shared<PickleNode>();
  n->storage = std::move(s);
  n->storage_dtype = dtype;
  n->storage_numel = numel;
  return PickleValue::with_node(Kind::Storage, std::move(n));
}

// numel * element_size, refused when it exceeds `room` (the bytes that could hold it).
uint64_t storage_bytes(const StorageId& id, uint64_t room, const std::string& file) {
  const auto es = static_cast<uint64_t>(element_size(id.dtype));
  if (static_cast<uint64_t>(id.numel) > room / es)
    EMBER_FAIL("load: '{}': storage '{}' claims {} elements of {} but the file has room for at most {} bytes", file,
               id.key, id.numel, dtype_name(id.dtype), room);
  return static_cast<uint64_t>(id.numel) * es;
}

// The directory all entries of a torch zip live in (the first entry's), checked to hold data.pkl.
std::string archive_dir(const ZipReader& zip) {
  const std::vector<std::string> names = zip.names();
  if (names.empty()) zip.fail("the archive is empty");
  const size_t slash = names[0].find('/');
  if (slash == std::string::npos || slash == 0)
    zip.fail("entry '{}' is not in a directory (torch.save's archives keep everything in one)", names[0]);
  return names[0].substr(0, slash);
}

}  // namespace

PickleValue read_torch_zip(ZipReader& zip, const CheckpointOptions& options) {
  const std::string dir = archive_dir(zip);
  if (zip.find(dir + "/byteorder") >= 0) {
    const std::string order = zip.read_all(dir + "/byteorder", 16);
    if (order != "little") zip.fail("the tensors are stored {}-endian; Ember reads little-endian files only", order);
  }
  const std::string pkl_name = dir + "/data.pkl";
  const std::string pkl = zip.read_all(pkl_name, kMaxPickleBytes);
  std::unordered_map<std::string, PickleValue> storages;
  PickleOptions o;
  o.name = zip.file() + ":" + pkl_name;
  o.placeholders = options.placeholders;
  o.persistent_load = [&](const PickleValue& pid) -> PickleValue {
    StorageId id = parse_storage_id(pid, zip.file(), false);
    auto it = storages.find(id.key);
    if (it != storages.end()) {
      const PickleNode& s = *it->second.node();
      if (s.storage_dtype != id.dtype || s.storage_numel != id.numel)
        zip.fail("storage '{}' is used as {} elements of {} and as {} of {}", id.key, s.storage_numel,
                 dtype_name(s.storage_dtype), id.numel, dtype_name(id.dtype));
      return it->second;
    }
    const std::string entry = dir + "/data/" + id.key;
    const int64_t idx = zip.find(entry);
    if (idx < 0) zip.fail("storage '{}' has no entry '{}'", id.key, entry);
    uint64_t nbytes = storage_bytes(id, zip.archive_size() * 1032, zip.file());
    zip.checked_size(idx, entry, &nbytes, "its persistent id in data.pkl");
    Storage st = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes));
    zip.read(idx, entry, st->data(), nbytes);
    PickleValue v = storage_value(std::move(st), id.dtype, id.numel);
    storages.emplace(id.key, v);
    return v;
  };
  return read_pickle(pkl, o);
}

PickleValue read_torch_legacy(std::string_view data, std::string_view name, const CheckpointOptions& options) {
  const std::string file(name);
  auto fail = [&](const std::string& why) { EMBER_FAIL("load: '{}': {}", file, why); };
  if (data.size() > 262 && data.substr(257, 5) == "ustar")
    fail("a tar archive: the format of PyTorch before 0.4 is not read (load and save it again with PyTorch)");
  PickleOptions meta;
  meta.name = file;
  size_t pos = 0;
  PickleValue magic = read_pickle(data, meta, pos, &pos);
  static constexpr unsigned char kMagic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  if (!magic.is(Kind::BigInt) || magic.node()->text != std::string_view(reinterpret_cast<const char*>(kMagic), 10))
    fail("not a torch.save file (its first pickle is not PyTorch's magic number)");
  PickleValue version = read_pickle(data, meta, pos, &pos);
  if (!version.is(Kind::Int) || version.to_int() != 1001)
    fail("unsupported legacy protocol version " +
         (version.is(Kind::Int) ? std::to_string(version.to_int()) : version.type_name()) + " (1001 is read)");
  PickleValue sys_info = read_pickle(data, meta, pos, &pos);
  if (!sys_info.is(Kind::Dict)) fail("its sys_info is a " + sys_info.type_name() + ", not a dict");
  for (const auto& [k, v] : sys_info.node()->entries)
    if (k.is(Kind::String) && k.node()->text == "little_endian" && !(v.is(Kind::Bool) && v.to_bool()))
      fail("the tensors are stored big-endian; Ember reads little-endian files only");

  // Storages are allocated while the object is read, their bytes follow it; each must fit in the rest.
  struct Root {
    PickleValue value;
    uint64_t nbytes;
  };
  std::map<std::string, Root> roots;
  uint64_t claimed = 0;
  PickleOptions o;
  o.name = file;
  o.placeholders = options.placeholders;
  o.persistent_load = [&](const PickleValue& pid) -> PickleValue {
    StorageId id = parse_storage_id(pid, file, true);
    auto it = roots.find(id.key);
    if (it == roots.end()) {
      const uint64_t nbytes = storage_bytes(id, data.size() - std::min<uint64_t>(claimed, data.size()), file);
      claimed += nbytes;
      PickleValue v = storage_value(make_intrusive<StorageImpl>(static_cast<size_t>(nbytes)), id.dtype, id.numel);
      it = roots.emplace(id.key, Root{v, nbytes}).first;
    } else if (it->second.value.node()->storage_dtype != id.dtype) {
      fail("storage '" + id.key + "' is used with two element types");
    }
    if (id.view.is(Kind::None)) return it->second.value;
    // A view (view_key, offset, numel) of the root storage, in elements.
    const PickleNode& root = *it->second.value.node();
    if (!id.view.is(Kind::Tuple) || id.view.node()->items.size() != 3) fail("a storage view is malformed");
    const auto& vm = id.view.node()->items;
    if (!vm[1].is(Kind::Int) || !vm[2].is(Kind::Int) || vm[1].to_int() < 0 || vm[2].to_int() < 0 ||
        vm[1].to_int() > root.storage_numel || vm[2].to_int() > root.storage_numel - vm[1].to_int())
      fail("a view of storage '" + id.key + "' lies outside it");
    const int64_t es = element_size(id.dtype);
    auto* keep = new Storage(root.storage);
    Storage view = make_intrusive<StorageImpl>(
        static_cast<char*>(root.storage->data()) + vm[1].to_int() * es, static_cast<size_t>(vm[2].to_int() * es),
        [](void* ctx, void*) { delete static_cast<Storage*>(ctx); }, keep);
    return storage_value(std::move(view), id.dtype, vm[2].to_int());
  };
  PickleValue obj = read_pickle(data, o, pos, &pos);
  PickleValue keys = read_pickle(data, meta, pos, &pos);
  if (!keys.is(Kind::List)) fail("the list of storage keys is a " + keys.type_name());
  for (const PickleValue& k : keys.node()->items) {
    if (!k.is(Kind::String)) fail("a storage key is a " + k.type_name());
    const std::string& key = k.node()->text;
    if (data.size() - pos < 8) fail("truncated: the bytes of storage '" + key + "' are missing");
    int64_t numel;
    std::memcpy(&numel, data.data() + pos, 8);
    pos += 8;
    auto it = roots.find(key);
    if (it == roots.end()) fail("storage '" + key + "' is listed but no tensor uses it");
    const PickleNode& s = *it->second.value.node();
    if (numel != s.storage_numel)
      fail("storage '" + key + "' holds " + std::to_string(numel) + " elements but the object says " +
           std::to_string(s.storage_numel));
    const uint64_t nbytes = it->second.nbytes;
    if (data.size() - pos < nbytes)
      fail("truncated: storage '" + key + "' needs " + std::to_string(nbytes) + " bytes but " +
           std::to_string(data.size() - pos) + " are left");
    if (nbytes) std::memcpy(s.storage->data(), data.data() + pos, nbytes);
    if (options.release_consumed_pages) {  // whole pages of the mapping that lie inside the copied bytes
      const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
      const uintptr_t from = (reinterpret_cast<uintptr_t>(data.data() + pos) + page - 1) / page * page;
      const uintptr_t to = reinterpret_cast<uintptr_t>(data.data() + pos + nbytes) / page * page;
      if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    }
    pos += nbytes;
    roots.erase(it);
  }
  if (!roots.empty()) fail("storage '" + roots.begin()->first + "' has no bytes in the file");
  return obj;
}

PickleValue read_torch_file(const std::string& path, const CheckpointOptions& options) {
  std::shared_ptr<MappedFile> f = MappedFile::open(path);
  const FileFormat format = sniff_format(f->bytes());
  if (format == FileFormat::Zip) {
    ZipReader zip = ZipReader::open_file(path);
    return read_torch_zip(zip, options);
  }
  if (format == FileFormat::TorchLegacy) {
    CheckpointOptions o = options;
    o.release_consumed_pages = true;  // f is our own private mapping
    return read_torch_legacy(f->bytes(), path, o);
  }
  EMBER_FAIL("load: '{}': not a torch.save file (neither a zip archive nor the legacy format)", path);
}

PickleValue read_torch_bytes(std::string_view data, std::string_view name, const CheckpointOptions& options) {
  const FileFormat format = sniff_format(data);
  if (format == FileFormat::Zip) {
    ZipReader zip = ZipReader::open_bytes(data, name);
    return read_torch_zip(zip, options);
  }
  if (format == FileFormat::TorchLegacy) return read_torch_legacy(data, name, options);
  EMBER_FAIL("load: '{}': not a torch.save file (neither a zip archive nor the legacy format)", name);
}

// ---- PickleValue -> IValue ---------------------------------------------------------------------------------

namespace {

class ToIValue {
 public:
  ToIValue(Attributes* attrs, std::string_view file) : attrs_(attrs), file_(file) {}

  IValue convert(const PickleValue& v) {
    switch (v.kind()) {
      case Kind::None: return IValue();
      case Kind::Bool: return IValue(v.to_bool());
      case Kind::Int: return IValue(v.to_int());
      case Kind::Float: return IValue(v.to_double());
      case Kind::DType: return IValue(v.to_dtype());
      default: break;
    }
    auto it = memo_.find(v.node());
    if (it != memo_.end()) return it->second;
    IValue r = convert_node(v);
    memo_.emplace(v.node(), r);
    return r;
  }

 private:
  IValue convert_node(const PickleValue& v) {
    // The scalars without a node that convert() does not take (a complex number, say) have nothing to convert
    // to (found by the pickle fuzz target: the node was read through a null pointer).
    if (!v.node()) refuse("a value of type " + v.type_name());
    const PickleNode& n = *v.node();
    switch (v.kind()) {
      case Kind::String: return IValue(n.text);
      case Kind::Tensor: {
        const void* impl = n.tensor.impl();
        if (attrs_ && n.flag) attrs_->parameters.insert(impl);
        if (attrs_ && n.requires_grad) attrs_->requires_grad.insert(impl);
        return IValue(n.tensor);
      }
      case Kind::Tuple:
      case Kind::List: {
        std::vector<IValue> items;
        items.reserve(n.items.size());
        for (const PickleValue& x : n.items) items.push_back(convert(x));
        if (v.is(Kind::List)) return IValue::list(std::move(items));
        IValue t = IValue::tuple(std::move(items));
        if (attrs_ && n.flag) attrs_->tuple_classes[t.payload_ptr()].size = true;
        return t;
      }
      case Kind::Dict: {
        std::vector<std::pair<IValue, IValue>> items;
        items.reserve(n.entries.size());
        for (const auto& [k, x] : n.entries) {
          if (!k.is(Kind::String) && !k.is(Kind::Int) && !k.is(Kind::Bool))
            refuse("a dict key of type " + k.type_name() + " (keys must be str or int)");
          items.emplace_back(k.is(Kind::Bool) ? IValue(int64_t{k.to_bool()}) : convert(k), convert(x));
        }
        IValue d = IValue::dict(std::move(items));
        if (attrs_ && n.flag) attrs_->ordered_dicts.insert(d.payload_ptr());
        if (attrs_ && !n.state.empty() && n.state[0].is(Kind::Dict))
          for (const auto& [k, x] : n.state[0].node()->entries)
            if (k.is(Kind::String) && k.node()->text == "_metadata")
              attrs_->dict_metadata.emplace(d.payload_ptr(), convert(x));
        return d;
      }
      case Kind::Device:
        if (n.text == "cpu" || n.text.starts_with("cuda") || n.text == "meta" || n.text.starts_with("mps"))
          return IValue(kCPU);  // every storage loads on the CPU (Note [torch.save formats])
        refuse("the device " + n.text);
      case Kind::Object:
        if (n.code == kNumpyArray) return IValue(n.tensor);  // Note [numpy in pickles]
        [[fallthrough]];
      case Kind::Global:
        refuse("a pickled Python object of class " + n.text +
               " (only tensors, numbers, strings and containers of them load without running code; "
               "ember.utils.checkpoint_tensors(f) lists the tensors of such a file)");
      default: refuse("a value of type " + v.type_name());
    }
  }
  [[noreturn]] void refuse(const std::string& what) const {
    EMBER_FAIL_KIND(ErrorKind::Type, "load: '{}': the file holds {}, which Ember's values cannot hold", file_, what);
  }

  Attributes* attrs_;
  std::string_view file_;
  std::unordered_map<const PickleNode*, IValue> memo_;
};

}  // namespace

IValue to_ivalue(const PickleValue& v, Attributes* attrs, std::string_view file) {
  return ToIValue(attrs, file).convert(v);
}

}  // namespace ember::serialize
