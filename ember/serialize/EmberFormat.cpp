// Ember's file format (Note [ember format]): the manifest (IValue tree <-> JSON) and the zip container
// around it (read and written with libzip: Note [zip writer]).
#include "ember/serialize/EmberFormat.h"

#include "ember/serialize/ZipPlan.h"
#include "ember/serialize/ZipReader.h"

#include <zip.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

using Plan = detail::ZipPlan;

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
        json r = {{"kind", v.is_tuple() ? "tuple" : "list"}, {"items", std::move(items)}};
        if (v.is_tuple() && attrs_) {
          auto it = attrs_->tuple_classes.find(v.payload_ptr());
          if (it != attrs_->tuple_classes.end()) r["class"] = tuple_class(it->second, v, at);
        }
        return r;
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

  // The "class" of a tuple node (Note [tuple classes]), checked against the tuple's items.
  static json tuple_class(const TupleClass& c, const IValue& v, const Crumb* at) {
    const auto& items = v.to_list();
    if (c.size) {
      for (const IValue& x : items)
        EMBER_CHECK_KIND(ErrorKind::Type, x.is_int(), "save: the Size at {} holds a {}, not an int", where(at),
                         kind_name(x.tag()));
      return {{"kind", "size"}};
    }
    EMBER_CHECK_KIND(ErrorKind::Type, c.fields.size() == items.size() && !c.module.empty() && !c.qualname.empty(),
                     "save: the namedtuple at {} has {} items but {} field names", where(at), items.size(),
                     c.fields.size());
    return {{"kind", "namedtuple"}, {"module", c.module}, {"qualname", c.qualname}, {"fields", c.fields}};
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

// Note [zip writer]
// Archives are written with libzip, as they are read (the project standard prefers a well-kept Debian library
// to code of our own outside tensors, kernels, autograd and JIT, even when slower). Each entry's source is a
// zip_source_buffer over the bytes in place (the manifest string, the tensor's storage memory; freep=0, the
// plan keeps them alive until zip_close), so nothing is copied before libzip's own pass, which reads each entry
// in 8 KiB pieces, computes its CRC and writes it out. Entries are stored (ZIP_CM_STORE), names are passed as
// UTF-8, and every entry gets a fixed modification time and Unix mode so the same object gives the same bytes
// (libzip turns the time into an MS-DOS date with localtime(), so the bytes are the same on one machine and time
// zone; the archive's meaning does not depend on it). libzip writes ZIP64 fields where sizes need them.
constexpr time_t kEntryMtime = 315532800 + 12 * 3600;  // 1980-01-01 12:00 UTC: within 1980 in every time zone

// An open archive, discarded (nothing written) unless zip_close succeeded.
struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;

// Adds the manifest and then the storages to za as stored entries reading the plan's memory in place; `file`
// names the destination in errors.
void add_entries(zip_t* za, const Plan& plan, std::string_view file) {
  auto add = [&](const std::string& name, const void* data, uint64_t n) {
    zip_source_t* src = zip_source_buffer(za, n ? data : nullptr, n, 0);
    if (!src) EMBER_FAIL("save: '{}': {}", file, zip_strerror(za));
    const zip_int64_t idx = zip_file_add(za, name.c_str(), src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);  // still ours when the add failed
      EMBER_FAIL("save: '{}': cannot add '{}': {}", file, name, zip_strerror(za));
    }
    const auto i = static_cast<zip_uint64_t>(idx);
    if (zip_set_file_compression(za, i, ZIP_CM_STORE, 0) != 0 || zip_file_set_mtime(za, i, kEntryMtime, 0) != 0 ||
        zip_file_set_external_attributes(za, i, 0, ZIP_OPSYS_UNIX, 0100644u << 16) != 0)  // rw-r--r-- file
      EMBER_FAIL("save: '{}': cannot set up '{}': {}", file, name, zip_strerror(za));
  };
  add(plan.manifest_name, plan.manifest.data(), plan.manifest.size());
  for (size_t i = 0; i < plan.storages.size(); ++i)
    add(plan.entries[i], plan.storages[i]->data(), plan.storages[i]->nbytes());
  for (const auto& [name, text] : plan.trailing) add(name, text.data(), text.size());
}

// Writes the archive with zip_close; on failure the archive is discarded (by the caller's guard).
void close_archive(ZipPtr& za, std::string_view file) {
  if (zip_close(za.get()) != 0) EMBER_FAIL("save: '{}': {}", file, zip_strerror(za.get()));
  (void)za.release();  // zip_close freed it
}

// Note [file-like save]
// A Python file-like object (and save_to_bytes) gets the archive after libzip has written it whole, because
// zip_close seeks back to fill in each entry's header and so cannot stream. It is written to a temporary file
// (a fresh name in TMPDIR, written by libzip just as save() writes a path) and read back in pieces of kChunk bytes.
// Measured against libzip's growable in-memory buffer source (zip_source_buffer_create + zip_source_keep, read back
// after zip_close) for a 100 MB state dict into an io.BytesIO: 1.04 s through /tmp against 1.32 s in memory (0.87 s
// with TMPDIR on tmpfs), and without a second in-memory copy of the archive at its peak.
constexpr size_t kChunk = size_t{4} << 20;

// Removes a file when it goes out of scope.
struct FileRemover {
  std::string path;  // cleared when the file is to stay
  ~FileRemover() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

// Writes the archive of plan into file (replacing what it holds); errors name shown, the file the user asked for.
void write_archive_file(const Plan& plan, const std::string& file, const std::string& shown) {
  int code = 0;
  ZipPtr za(zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  if (!za) EMBER_FAIL("save: '{}': {}", shown, zip_code_message(code));
  add_entries(za.get(), plan, shown);
  close_archive(za, shown);
}

// Writes the archive of plan to a temporary file and hands it to write() in order; the file is removed after.
void write_via_temp_file(const Plan& plan, const std::function<void(const void*, size_t)>& write) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) EMBER_FAIL("save: no directory for a temporary file: {}", ec.message());
  std::string name = (dir / "ember-save-XXXXXX").string();
  const int fd = ::mkstemp(name.data());  // reserves a fresh name; libzip writes the archive and renames it here
  if (fd < 0) EMBER_FAIL("save: cannot create a temporary file in '{}': {}", dir.string(), std::strerror(errno));
  ::close(fd);
  FileRemover remove{name};
  write_archive_file(plan, name, name);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(name.c_str(), "rb"), std::fclose);
  if (!in) EMBER_FAIL("save: cannot read back '{}': {}", name, std::strerror(errno));
  std::vector<char> buf(kChunk);
  while (size_t got = std::fread(buf.data(), 1, buf.size(), in.get())) write(buf.data(), got);
  if (std::ferror(in.get())) EMBER_FAIL("save: cannot read back '{}'", name);
}

// ---- loading: zip + manifest -> IValue tree ----------------------------------------------------------

class Reader {
  // Note [manifest objects]
  // The manifest is read into nlohmann::json, whose objects are std::maps, not into the ordered_json the writer
  // uses to keep keys in the order written: ordered_json's objects are vectors that parsing searches for each new
  // key, so an object of n keys cost n^2 / 2 comparisons (a 460 KB file holding one object of 200,000 keys took
  // 400 s to load). Nothing in the format depends on the order of an object's keys.
  using json = nlohmann::json;

 public:
  Reader(ZipReader& zip, Attributes* attrs) : zip_(zip), attrs_(attrs) {}

  IValue read() {
    const std::string text = zip_.read_all(kManifestEntry, kMaxManifestBytes);  // Note [manifest limits]
    check_json_depth(text);
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
    zip_.fail(f, std::forward<A>(a)...);
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

  // Note [manifest limits]: the deepest nesting of JSON arrays and objects, outside strings, in one pass.
  void check_json_depth(std::string_view text) const {
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxManifestDepth)
          fail("{} nests JSON more than {} levels deep (at byte {})", kManifestEntry, kMaxManifestDepth, i);
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
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
      const int64_t idx = zip_.locate(name);
      uint64_t n = static_cast<uint64_t>(nbytes);
      zip_.checked_size(idx, name, &n);
      Storage st = make_intrusive<StorageImpl>(static_cast<size_t>(n));
      zip_.read(idx, name, st->data(), n);
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
      // A bool is one byte that must be 0 or 1: any other value read as a C++ bool is undefined behaviour
      // (and sums to 255, compares unequal to True). Checked once per storage that a bool tensor uses.
      if (dtype == DType::Bool && bool_checked_.insert(s).second) {
        const auto* bytes = static_cast<const unsigned char*>(storages_[s]->data());
        for (size_t b = 0; b < storages_[s]->nbytes(); ++b)
          if (bytes[b] > 1) fail("{} is bool but byte {} of storage {} is {} (a bool byte is 0 or 1)", what, b, s,
                                 static_cast<int>(bytes[b]));
      }
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
      if (kind == "list") return IValue::list(std::move(v));
      IValue t = IValue::tuple(std::move(v));
      if (auto it = j.find("class"); it != j.end()) {
        TupleClass c = tuple_class(*it, t.to_list());
        if (attrs_) attrs_->tuple_classes.emplace(t.payload_ptr(), std::move(c));
      }
      return t;
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

  // A tuple node's "class" (Note [tuple classes]): a Size of ints, or a namedtuple with one field name per item.
  TupleClass tuple_class(const json& j, const std::vector<IValue>& items) const {
    if (!j.is_object()) fail("a tuple's class is not an object: {}", j.dump());
    const json& kind = field(j, "kind", "a tuple's class");
    TupleClass c;
    if (kind == "size") {
      for (const IValue& x : items)
        if (!x.is_int()) fail("a Size holds a {}, not an int", kind_name(x.tag()));
      c.size = true;
      return c;
    }
    if (kind != "namedtuple") fail("a tuple's class has the unknown kind {}", kind.dump());
    const json& module = field(j, "module", "a namedtuple class");
    const json& qualname = field(j, "qualname", "a namedtuple class");
    if (!module.is_string() || !qualname.is_string() || module.get<std::string>().empty() ||
        qualname.get<std::string>().empty())
      fail("a namedtuple class has module {} and qualname {}, not two non-empty strings", module.dump(),
           qualname.dump());
    c.module = module.get<std::string>();
    c.qualname = qualname.get<std::string>();
    for (const json& f : array(field(j, "fields", "a namedtuple class"), "a namedtuple's fields")) {
      if (!f.is_string()) fail("a namedtuple's field name is {}, not a string", f.dump());
      c.fields.push_back(f.get<std::string>());
    }
    if (c.fields.size() != items.size())
      fail("the namedtuple {}.{} has {} items but {} field names", c.module, c.qualname, items.size(),
           c.fields.size());
    return c;
  }

  ZipReader& zip_;
  Attributes* attrs_;
  std::vector<Storage> storages_;
  std::unordered_set<int64_t> bool_checked_;  // storages a bool tensor uses, checked to hold only 0 and 1
  std::vector<Tensor> tensors_;
};

}  // namespace

namespace {

// Note [stale temporaries]
// save() writes <path>.ember-<pid>-XXXXXX (libzip writes its own temporary beside that one and renames it over
// it) and renames it over path. A process killed meanwhile leaves those files behind; the next save to the same
// path removes every such temporary whose process is gone (kill(pid, 0) fails with ESRCH), so a concurrent save
// by a live process keeps its own. (A pid reused by another process keeps a stale file until that one ends.)
std::string temporary_prefix(const std::filesystem::path& target) {
  return target.filename().string() + ".ember-";
}

void remove_stale_temporaries(const std::filesystem::path& target) {
  std::error_code ec;
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  const std::string prefix = temporary_prefix(target);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const size_t dash = name.find('-', prefix.size());
    if (dash == std::string::npos || dash == prefix.size()) continue;
    const std::string digits = name.substr(prefix.size(), dash - prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        digits.size() > 9)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::filesystem::remove(e.path(), ec);
  }
}

// The mode a new file gets (0666 less the umask), or the mode of the file being replaced.
mode_t mode_for(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  // The umask from /proc (setting umask to read it back would change it for other threads meanwhile).
  mode_t mask = 022;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned m = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "Umask: %o", &m) == 1) mask = static_cast<mode_t>(m);
    std::fclose(f);
  }
  return 0666 & ~mask;
}

}  // namespace

void save(const IValue& obj, const std::string& path, const Attributes* attrs) {
  // Note [atomic save]
  // Every check of the object happens while planning, before any file exists. The archive is then written to
  // a fresh temporary file in path's directory (<path>.ember-<pid>-XXXXXX, so the final rename stays on one
  // filesystem and is atomic; Note [stale temporaries]) and renamed over path only once libzip has closed it
  // complete; on any error the temporary file is removed and the archive discarded. Readers of path therefore
  // see the old file or the whole new one, never a partial archive. ZIP_TRUNCATE: an existing file is replaced,
  // never read or merged. (No fsync: like torch.save, durability across a power loss is left to the caller.)
  detail::write_plan(Writer(attrs).plan(obj), path);
}

namespace detail {

void write_plan(const ZipPlan& plan, const std::string& path) {
  // libzip's own word for this is "Operation not supported"; say what is wrong.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) EMBER_FAIL("save: '{}': is a directory", path);
  // Note [stale temporaries]: our own temporary, named after this process, then renamed over path.
  remove_stale_temporaries(path);
  std::string tmp = path + ".ember-" + std::to_string(::getpid()) + "-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) EMBER_FAIL("save: cannot create a temporary file beside '{}': {}", path, std::strerror(errno));
  ::fchmod(fd, mode_for(path));  // libzip gives the archive the mode of the file it replaces: this one's
  ::close(fd);
  FileRemover remove{tmp};
  write_archive_file(plan, tmp, path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    EMBER_FAIL("save: cannot rename the temporary file to '{}': {}", path, std::strerror(errno));
  remove.path.clear();
}

void write_plan_to_stream(const ZipPlan& plan, const std::function<void(const void*, size_t)>& write) {
  write_via_temp_file(plan, write);
}

}  // namespace detail

void save_to_stream(const IValue& obj, const std::function<void(const void*, size_t)>& write,
                    const Attributes* attrs) {
  detail::write_plan_to_stream(Writer(attrs).plan(obj), write);
}

std::string save_to_bytes(const IValue& obj, const Attributes* attrs) {
  std::string out;
  save_to_stream(obj, [&out](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); }, attrs);
  return out;
}

IValue read_archive(ZipReader& zip, Attributes* attrs) { return Reader(zip, attrs).read(); }

}  // namespace ember::serialize
