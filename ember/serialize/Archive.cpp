// The archive format of Note [archive format]: the manifest (IValue tree <-> JSON) and the zip container
// around it (read with libzip, written by ZipWriter: Note [zip writer]).
#include "ember/serialize/Archive.h"

#include <fcntl.h>

#include <zip.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include <unistd.h>

#include "ember/serialize/ZipWriter.h"

namespace ember::serialize {

// Storages are written as the bytes in memory; the format says little-endian, which is what every platform
// Ember builds on is. A big-endian port would byte-swap here.
static_assert(std::endian::native == std::endian::little, "the archive format stores little-endian bytes");

namespace {

using json = nlohmann::ordered_json;

// ---- where a value sits inside the saved object, for error messages: obj['a'][2] -----------------------

// One step of the path from the root; formatted only when an error is raised.
struct Crumb {
  const Crumb* parent = nullptr;
  const IValue* key = nullptr;  // a dict key, or
  int64_t index = -1;           // a list or tuple index
};

std::string where(const Crumb* c) {
  if (!c) return "obj";
  std::string s = where(c->parent);
  if (c->key && c->key->is_string()) return s + "['" + c->key->to_string() + "']";
  if (c->key) return s + "[" + c->key->repr() + "]";
  return s + "[" + std::to_string(c->index) + "]";
}

std::string_view kind_name(IValue::Tag tag) {
  switch (tag) {
    case IValue::Tag::None: return "None";
    case IValue::Tag::Bool: return "bool";
    case IValue::Tag::Int: return "int";
    case IValue::Tag::Double: return "float";
    case IValue::Tag::String: return "str";
    case IValue::Tag::Tensor: return "Tensor";
    case IValue::Tag::DType: return "dtype";
    case IValue::Tag::Device: return "device";
    case IValue::Tag::Generator: return "Generator";
    case IValue::Tag::IntList: return "int list";
    case IValue::Tag::TensorList: return "Tensor list";
    case IValue::Tag::List: return "list";
    case IValue::Tag::Tuple: return "tuple";
    case IValue::Tag::Dict: return "dict";
  }
  return "?";
}

// ---- saving: IValue tree -> manifest + the storages to write -------------------------------------------

// Everything an archive holds before it is written: the manifest text and the storages whose bytes follow.
struct Plan {
  std::string manifest;
  std::vector<Storage> storages;  // keep the bytes alive until the zip is closed
  std::vector<std::string> entries;
};

class Writer {
 public:
  explicit Writer(const Attributes* attrs) : attrs_(attrs) {}

  Plan plan(const IValue& obj) {
    json root = node(obj, nullptr, 0);
    json m;
    m["format"] = kFormatName;
    m["version"] = kFormatVersion;
    m["byte_order"] = "little";
    m["storages"] = std::move(storages_);
    m["tensors"] = std::move(tensors_);
    m["root"] = std::move(root);
    Plan p;
    try {
      p.manifest = m.dump();
    } catch (const json::exception&) {  // nlohmann refuses strings that are not UTF-8
      EMBER_FAIL_KIND(ErrorKind::Value, "save: a string in the object is not valid UTF-8");
    }
    p.storages = std::move(storage_list_);
    p.entries = std::move(entry_names_);
    return p;
  }

 private:
  json node(const IValue& v, const Crumb* at, int depth) {
    EMBER_CHECK(depth <= kMaxDepth, "save: {} is nested more than {} containers deep", where(at), kMaxDepth);
    switch (v.tag()) {
      case IValue::Tag::None: return {{"kind", "none"}};
      case IValue::Tag::Bool: return {{"kind", "bool"}, {"value", v.to_bool()}};
      case IValue::Tag::Int: return {{"kind", "int"}, {"value", v.to_int()}};
      case IValue::Tag::Double: {
        // JSON has no NaN or infinity; those are spelled as strings.
        double d = v.to_double();
        json value = std::isnan(d) ? json("nan") : std::isinf(d) ? json(d > 0 ? "inf" : "-inf") : json(d);
        return {{"kind", "float"}, {"value", std::move(value)}};
      }
      case IValue::Tag::String: return {{"kind", "str"}, {"value", v.to_string()}};
      case IValue::Tag::DType: return {{"kind", "dtype"}, {"value", dtype_name(v.to_dtype())}};
      case IValue::Tag::Tensor: return {{"kind", "tensor"}, {"index", tensor_index(v.to_tensor(), at)}};
      case IValue::Tag::IntList: {
        json items = json::array();
        for (int64_t i : v.to_int_list()) items.push_back({{"kind", "int"}, {"value", i}});
        return {{"kind", "list"}, {"items", std::move(items)}};
      }
      case IValue::Tag::TensorList: {
        json items = json::array();
        int64_t i = 0;
        for (const Tensor& t : v.to_tensor_list()) {
          Crumb c{at, nullptr, i++};
          items.push_back({{"kind", "tensor"}, {"index", tensor_index(t, &c)}});
        }
        return {{"kind", "list"}, {"items", std::move(items)}};
      }
      case IValue::Tag::List:
      case IValue::Tag::Tuple: {
        json items = json::array();
        int64_t i = 0;
        for (const IValue& x : v.to_list()) {
          Crumb c{at, nullptr, i++};
          items.push_back(node(x, &c, depth + 1));
        }
        return {{"kind", v.is_tuple() ? "tuple" : "list"}, {"items", std::move(items)}};
      }
      case IValue::Tag::Dict: {
        json items = json::array();
        for (const auto& [k, x] : v.to_dict()) {
          EMBER_CHECK_KIND(ErrorKind::Type, k.is_string() || k.is_int(),
                           "save: dict keys must be str or int, but {} has a key of type {}", where(at),
                           kind_name(k.tag()));
          Crumb c{at, &k, -1};
          items.push_back(json::array({node(k, at, depth + 1), node(x, &c, depth + 1)}));
        }
        json d = {{"kind", "dict"}, {"ordered", attrs_ && attrs_->ordered_dicts.count(v.payload_ptr()) > 0},
                  {"items", std::move(items)}};
        if (attrs_) {
          auto it = attrs_->dict_metadata.find(v.payload_ptr());
          if (it != attrs_->dict_metadata.end()) d["metadata"] = node(it->second, at, depth + 1);
        }
        return d;
      }
      case IValue::Tag::Device:
      case IValue::Tag::Generator: break;
    }
    EMBER_FAIL_KIND(ErrorKind::Type, "save: cannot save a value of type {} (at {})", kind_name(v.tag()), where(at));
  }

  // The index of t in "tensors", adding it (and its storage) the first time this TensorImpl is seen.
  int64_t tensor_index(const Tensor& t, const Crumb* at) {
    EMBER_CHECK_KIND(ErrorKind::Type, t.defined(), "save: undefined tensor at {}", where(at));
    EMBER_CHECK(t.is_cpu(), "save: only CPU tensors can be saved, but {} is on {}", where(at), t.device().str());
    auto [it, fresh] = tensor_ids_.try_emplace(t.impl(), static_cast<int64_t>(tensors_.size()));
    if (!fresh) return it->second;
    const Storage& s = t.impl()->storage();
    auto [sit, new_storage] = storage_ids_.try_emplace(s.get(), static_cast<int64_t>(storage_list_.size()));
    if (new_storage) {
      entry_names_.push_back("storages/" + std::to_string(sit->second));
      storages_.push_back({{"entry", entry_names_.back()}, {"nbytes", s->nbytes()}});
      storage_list_.push_back(s);
    }
    const AutogradMetaInterface* meta = t.impl()->autograd_meta();
    tensors_.push_back({{"storage", sit->second},
                        {"dtype", dtype_name(t.dtype())},
                        {"sizes", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                        {"strides", std::vector<int64_t>(t.strides().begin(), t.strides().end())},
                        {"storage_offset", t.storage_offset()},
                        {"requires_grad", meta && meta->requires_grad()},
                        {"parameter", attrs_ && attrs_->parameters.count(t.impl()) > 0}});
    return it->second;
  }

  const Attributes* attrs_;
  json storages_ = json::array(), tensors_ = json::array();
  std::unordered_map<const TensorImpl*, int64_t> tensor_ids_;
  std::unordered_map<const StorageImpl*, int64_t> storage_ids_;
  std::vector<Storage> storage_list_;
  std::vector<std::string> entry_names_;
};

// ---- the zip container -------------------------------------------------------------------------------

// The text of a libzip error, releasing what the error holds.
std::string take_message(zip_error_t* e) {
  std::string s = zip_error_strerror(e);
  zip_error_fini(e);
  return s;
}
std::string zip_code_message(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  return take_message(&e);
}

// Writes the manifest and then the storages (Note [zip writer]). The storages are borrowed from the plan.
void write_archive(const Plan& plan, detail::ByteSink& sink) {
  detail::ZipWriter w(sink);
  w.add(kManifestEntry, plan.manifest.data(), plan.manifest.size());
  for (size_t i = 0; i < plan.storages.size(); ++i)
    w.add(plan.entries[i], plan.storages[i]->data(), plan.storages[i]->nbytes());
  w.finish();
}

class FileSink final : public detail::ByteSink {
 public:
  FileSink(int fd, const std::string& path) : fd_(fd), path_(path) {}
  void write(const void* data, size_t n) override {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t w = ::write(fd_, p, std::min<size_t>(n, size_t{1} << 30));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) EMBER_FAIL("save: '{}': cannot write: {}", path_, std::strerror(w < 0 ? errno : EIO));
      p += w;
      n -= static_cast<size_t>(w);
    }
  }

 private:
  int fd_;
  const std::string& path_;
};

// Hands the bytes to a caller's function.
class FunctionSink final : public detail::ByteSink {
 public:
  explicit FunctionSink(const std::function<void(const void*, size_t)>& f) : f_(f) {}
  void write(const void* data, size_t n) override { f_(data, n); }

 private:
  const std::function<void(const void*, size_t)>& f_;
};

// A name in the directory of path that no other save uses: <path>.tmp.<pid>.<counter>.<clock>.
std::string temp_path(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  return fmt::format("{}.tmp.{}.{}.{:x}", path, static_cast<long>(getpid()), counter.fetch_add(1),
                     static_cast<uint64_t>(ticks));
}

// ---- loading: zip + manifest -> IValue tree ----------------------------------------------------------

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;

class Reader {
 public:
  Reader(zip_t* za, std::string_view file, uint64_t archive_size, Attributes* attrs)
      : za_(za), file_(file), archive_size_(archive_size), attrs_(attrs) {}

  IValue read() {
    std::string text;
    if (zip_name_locate(za_, std::string(kManifestEntry).c_str(), 0) < 0 && is_torch_checkpoint())
      fail("this is a PyTorch checkpoint (torch.save's zip format with a pickle), not an Ember archive; "
           "Ember does not read those (loading them would mean unpickling)");
    zip_int64_t idx = locate(kManifestEntry);
    text.resize(checked_entry_size(idx, kManifestEntry, nullptr));
    read_entry(idx, kManifestEntry, text.data(), text.size());
    json m;
    try {
      m = json::parse(text);
    } catch (const json::exception& e) {
      fail("{} is not valid JSON ({})", kManifestEntry, e.what());
    }
    if (!m.is_object()) fail("the manifest is not a JSON object");
    const json& format = field(m, "format", "the manifest");
    if (!format.is_string() || format.get<std::string>() != kFormatName)
      fail("not an Ember archive (manifest format is {}, expected \"{}\")", format.dump(), kFormatName);
    int64_t version = integer(field(m, "version", "the manifest"), "the manifest's version");
    if (version < 1 || version > kFormatVersion)
      fail("unsupported archive format version {} (this build reads versions 1 to {})", version, kFormatVersion);
    if (m.contains("byte_order") && m["byte_order"] != "little")
      fail("unsupported byte order {}", m["byte_order"].dump());
    read_storages(array(field(m, "storages", "the manifest"), "the manifest's storages"));
    read_tensors(array(field(m, "tensors", "the manifest"), "the manifest's tensors"));
    return node(field(m, "root", "the manifest"), 0);
  }

 private:
  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    EMBER_FAIL("load: '{}': {}", file_, fmt::format(f, std::forward<A>(a)...));
  }

  const json& field(const json& obj, const char* key, std::string_view what) const {
    if (!obj.is_object()) fail("{} is not a JSON object", what);
    auto it = obj.find(key);
    if (it == obj.end()) fail("{} has no '{}'", what, key);
    return *it;
  }
  const json& array(const json& j, std::string_view what) const {
    if (!j.is_array()) fail("{} is not a JSON array", what);
    return j;
  }
  int64_t integer(const json& j, std::string_view what) const {
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail("{} ({}) does not fit in 64 bits", what, j.dump());
    if (!j.is_number_integer()) fail("{} is not an integer: {}", what, j.dump());
    return j.get<int64_t>();
  }
  bool boolean(const json& obj, const char* key, std::string_view what) const {
    auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_boolean()) fail("'{}' of {} is not true or false", key, what);
    return it->get<bool>();
  }
  std::vector<int64_t> int_array(const json& j, std::string_view what) const {
    array(j, what);
    std::vector<int64_t> r;
    r.reserve(j.size());
    for (const json& x : j) r.push_back(integer(x, what));
    return r;
  }

  // torch.save's zip files hold "<name>/data.pkl".
  bool is_torch_checkpoint() const {
    const zip_int64_t n = zip_get_num_entries(za_, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
      const char* name = zip_get_name(za_, static_cast<zip_uint64_t>(i), 0);
      if (name && std::string_view(name).ends_with("/data.pkl")) return true;
    }
    return false;
  }

  zip_int64_t locate(std::string_view name) const {
    zip_int64_t idx = zip_name_locate(za_, std::string(name).c_str(), 0);
    if (idx < 0) fail("the archive has no entry '{}'", name);
    return idx;
  }

  // The uncompressed size of an entry, after checking that reading it cannot allocate more than the archive
  // could hold: stored entries are no larger than the archive, deflated ones at most deflate's best ratio of it.
  uint64_t checked_entry_size(zip_int64_t idx, std::string_view name, const uint64_t* expected) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za_, static_cast<zip_uint64_t>(idx), 0, &st) != 0)
      fail("cannot read the directory record of '{}': {}", name, zip_strerror(za_));
    constexpr zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((st.valid & need) != need) fail("the directory record of '{}' is incomplete", name);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
      fail("entry '{}' is encrypted", name);
    constexpr uint64_t kDeflateMaxRatio = 1032;  // deflate cannot compress better than about 1032:1
    if (st.comp_size > archive_size_)
      fail("entry '{}' claims {} bytes but the archive has only {}", name, st.comp_size, archive_size_);
    if (st.comp_method == ZIP_CM_STORE) {
      if (st.size != st.comp_size) fail("stored entry '{}' has inconsistent sizes", name);
    } else if (st.comp_method == ZIP_CM_DEFLATE) {
      if (st.size / kDeflateMaxRatio > st.comp_size + 1) fail("entry '{}' claims an impossible size", name);
    } else {
      fail("entry '{}' uses compression method {}; only stored and deflated entries are read", name,
           st.comp_method);
    }
    if (expected && st.size != *expected)
      fail("entry '{}' holds {} bytes but the manifest says {}", name, st.size, *expected);
    // Entries' data lie side by side in the archive, so their compressed sizes add up to at most its size.
    // Several directory records pointing at the same bytes (a zip-bomb trick) would break that, and would
    // otherwise make a small file allocate any number of copies.
    compressed_total_ += st.comp_size;
    if (compressed_total_ > archive_size_) fail("entries overlap (their sizes add up to more than the archive)");
    return st.size;
  }

  // Reads exactly n bytes of an entry into dst, then reads on to the end so libzip verifies the CRC.
  void read_entry(zip_int64_t idx, std::string_view name, void* dst, uint64_t n) const {
    zip_file_t* zf = zip_fopen_index(za_, static_cast<zip_uint64_t>(idx), 0);
    if (!zf) fail("cannot open entry '{}': {}", name, zip_strerror(za_));
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> guard(zf, zip_fclose);
    uint64_t done = 0;
    while (done < n) {
      zip_int64_t got = zip_fread(zf, static_cast<char*>(dst) + done, n - done);
      if (got < 0) fail("cannot read entry '{}': {}", name, zip_file_strerror(zf));
      if (got == 0) fail("entry '{}' ends after {} of {} bytes", name, done, n);
      done += static_cast<uint64_t>(got);
    }
    char extra;
    zip_int64_t got = zip_fread(zf, &extra, 1);
    if (got < 0) fail("cannot read entry '{}': {}", name, zip_file_strerror(zf));
    if (got > 0) fail("entry '{}' holds more than {} bytes", name, n);
  }

  void read_storages(const json& list) {
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string what = fmt::format("storage {}", i);
      const json& s = list[i];
      const json& entry = field(s, "entry", what);
      if (!entry.is_string()) fail("the entry of {} is not a string", what);
      std::string name = entry.get<std::string>();
      // Two storages naming one entry would allocate its bytes twice: a small file could ask for any amount.
      if (!seen.insert(name).second) fail("entry '{}' is used by more than one storage", name);
      int64_t nbytes = integer(field(s, "nbytes", what), what + "'s nbytes");
      if (nbytes < 0) fail("{} has a negative size {}", what, nbytes);
      zip_int64_t idx = locate(name);
      uint64_t n = static_cast<uint64_t>(nbytes);
      checked_entry_size(idx, name, &n);
      Storage st = make_intrusive<StorageImpl>(static_cast<size_t>(n));
      read_entry(idx, name, st->data(), n);
      storages_.push_back(std::move(st));
    }
  }

  DType parse_dtype(const json& j, std::string_view what) const {
    if (!j.is_string()) fail("the dtype of {} is not a string", what);
    const std::string name = j.get<std::string>();
#define EMBER_DTYPE_NAME(T, n, id, py) \
  if (name == #py) return DType::n;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_NAME)
#undef EMBER_DTYPE_NAME
    fail("{} has an unknown dtype '{}'", what, name);
  }

  void read_tensors(const json& list) {
    for (size_t i = 0; i < list.size(); ++i) {
      std::string what = fmt::format("tensor {}", i);
      const json& t = list[i];
      int64_t s = integer(field(t, "storage", what), what + "'s storage");
      if (s < 0 || s >= static_cast<int64_t>(storages_.size()))
        fail("{} refers to storage {} but there are {}", what, s, storages_.size());
      DType dtype = parse_dtype(field(t, "dtype", what), what);
      std::vector<int64_t> sizes = int_array(field(t, "sizes", what), what + "'s sizes");
      std::vector<int64_t> strides = int_array(field(t, "strides", what), what + "'s strides");
      int64_t offset = integer(field(t, "storage_offset", what), what + "'s storage_offset");
      if (sizes.size() != strides.size())
        fail("{} has {} sizes but {} strides", what, sizes.size(), strides.size());
      for (int64_t n : sizes)
        if (n < 0) fail("{} has a negative size in {}", what, sizes);
      // The TensorImpl checks the geometry against the storage's bytes (overflow-checked); its message is
      // wrapped with the file's name.
      intrusive_ptr<TensorImpl> impl;
      try {
        impl = make_intrusive<TensorImpl>(storages_[s], dtype, IntArrayRef(sizes), IntArrayRef(strides), offset);
      } catch (const Error& e) {
        fail("{} does not fit its storage: {}", what, e.what());
      }
      if (attrs_ && boolean(t, "requires_grad", what)) attrs_->requires_grad.insert(impl.get());
      if (attrs_ && boolean(t, "parameter", what)) attrs_->parameters.insert(impl.get());
      tensors_.emplace_back(std::move(impl));
    }
  }

  IValue node(const json& j, int depth) {
    if (depth > kMaxDepth) fail("the object is nested more than {} containers deep", kMaxDepth);
    const json& kind_j = field(j, "kind", "a manifest node");
    if (!kind_j.is_string()) fail("a manifest node has a kind that is not a string: {}", kind_j.dump());
    const std::string kind = kind_j.get<std::string>();
    if (kind == "none") return IValue();
    if (kind == "bool") {
      const json& v = field(j, "value", "a bool node");
      if (!v.is_boolean()) fail("a bool node holds {}", v.dump());
      return IValue(v.get<bool>());
    }
    if (kind == "int") return IValue(integer(field(j, "value", "an int node"), "an int node"));
    if (kind == "float") {
      const json& v = field(j, "value", "a float node");
      if (v.is_number()) return IValue(v.get<double>());
      if (v == "nan") return IValue(std::nan(""));
      if (v == "inf") return IValue(HUGE_VAL);
      if (v == "-inf") return IValue(-HUGE_VAL);
      fail("a float node holds {}", v.dump());
    }
    if (kind == "str") {
      const json& v = field(j, "value", "a str node");
      if (!v.is_string()) fail("a str node holds {}", v.dump());
      return IValue(v.get<std::string>());
    }
    if (kind == "dtype") return IValue(parse_dtype(field(j, "value", "a dtype node"), "a dtype node"));
    if (kind == "tensor") {
      int64_t i = integer(field(j, "index", "a tensor node"), "a tensor node's index");
      if (i < 0 || i >= static_cast<int64_t>(tensors_.size()))
        fail("a tensor node refers to tensor {} but there are {}", i, tensors_.size());
      return IValue(tensors_[i]);
    }
    if (kind == "list" || kind == "tuple") {
      const json& items = array(field(j, "items", "a " + kind + " node"), "the items of a " + kind + " node");
      std::vector<IValue> v;
      v.reserve(items.size());
      for (const json& x : items) v.push_back(node(x, depth + 1));
      return kind == "list" ? IValue::list(std::move(v)) : IValue::tuple(std::move(v));
    }
    if (kind == "dict") {
      const json& items = array(field(j, "items", "a dict node"), "the items of a dict node");
      std::vector<std::pair<IValue, IValue>> v;
      v.reserve(items.size());
      for (const json& kv : items) {
        if (!kv.is_array() || kv.size() != 2) fail("a dict item is not a [key, value] pair: {}", kv.dump());
        IValue k = node(kv[0], depth + 1);
        if (!k.is_string() && !k.is_int()) fail("a dict key is a {}, not a str or int", kind_name(k.tag()));
        v.emplace_back(std::move(k), node(kv[1], depth + 1));
      }
      IValue d = IValue::dict(std::move(v));
      if (attrs_ && boolean(j, "ordered", "a dict node")) attrs_->ordered_dicts.insert(d.payload_ptr());
      if (auto it = j.find("metadata"); it != j.end()) {
        IValue meta = node(*it, depth + 1);
        if (attrs_) attrs_->dict_metadata.emplace(d.payload_ptr(), std::move(meta));
      }
      return d;
    }
    fail("a manifest node has the unknown kind '{}'", kind);
  }

  zip_t* za_;
  std::string_view file_;
  uint64_t archive_size_;
  uint64_t compressed_total_ = 0;  // of the entries read so far
  Attributes* attrs_;
  std::vector<Storage> storages_;
  std::vector<Tensor> tensors_;
};

}  // namespace

void save(const IValue& obj, const std::string& path, const Attributes* attrs) {
  // Note [atomic save]
  // Every check of the object happens while planning, before any file exists. The archive then goes to a
  // fresh temporary name in the same directory (so the final rename stays on one filesystem and is atomic),
  // which replaces path only once it is complete; any error removes it. Readers of path therefore see the old
  // file or the whole new one, never a partial archive. (No fsync: like torch.save, durability across a power
  // loss is left to the caller.)
  Plan plan = Writer(attrs).plan(obj);
  const std::string tmp = temp_path(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) EMBER_FAIL("save: '{}': cannot create a temporary file: {}", path, std::strerror(errno));
  try {
    FileSink sink(fd, path);
    write_archive(plan, sink);
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) EMBER_FAIL("save: '{}': cannot write: {}", path, std::strerror(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    EMBER_FAIL("save: '{}': cannot rename the temporary file into place: {}", path, std::strerror(err));
  }
}

void save_to_stream(const IValue& obj, const std::function<void(const void*, size_t)>& write,
                    const Attributes* attrs) {
  Plan plan = Writer(attrs).plan(obj);
  FunctionSink sink(write);
  write_archive(plan, sink);
}

std::string save_to_bytes(const IValue& obj, const Attributes* attrs) {
  std::string out;
  save_to_stream(obj, [&out](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); }, attrs);
  return out;
}

IValue load(const std::string& path, Attributes* attrs) {
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) EMBER_FAIL("load: '{}': {}", path, ec.message());
  EMBER_CHECK(size > 0, "load: '{}': the file is empty (Not a zip archive)", path);
  int code = 0;
  ZipPtr za(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code));
  if (!za) EMBER_FAIL("load: '{}': {}", path, zip_code_message(code));
  return Reader(za.get(), path, size, attrs).read();
}

IValue load_from_bytes(std::string_view data, Attributes* attrs, std::string_view name) {
  // libzip reads zero bytes as an empty archive; an empty file is no archive.
  EMBER_CHECK(!data.empty(), "load: '{}': the file is empty (Not a zip archive)", name);
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(data.data(), data.size(), 0, &err);
  if (!src) EMBER_FAIL("load: '{}': {}", name, take_message(&err));
  ZipPtr za(zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err));
  if (!za) {
    zip_source_free(src);  // still ours when the open failed
    EMBER_FAIL("load: '{}': {}", name, take_message(&err));
  }
  return Reader(za.get(), name, data.size(), attrs).read();
}

}  // namespace ember::serialize
