// Saving and loading runtime modules (Note [saved-module format] in SavedModule.h).
#include "ember/jit/runtime/SavedModule.h"

#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/base/Error.h"
#include "ember/dispatch/Dispatcher.h"
#include "ember/dispatch/LoadLibrary.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/serialize/EmberFormat.h"

namespace ember::jit {
namespace {

const char* slot_kind_name(SlotKind k) {
  switch (k) {
    case SlotKind::Parameter: return "parameter";
    case SlotKind::Buffer: return "buffer";
    case SlotKind::Module: return "module";
    case SlotKind::Attribute: return "attribute";
  }
  return "?";
}

// ---- saving

IValue module_node(const Object& obj, std::vector<Tensor>& constants) {
  std::vector<IValue> slots;
  for (const Slot& s : obj.slots()) {
    IValue value = s.kind == SlotKind::Module ? module_node(*s.module, constants) : s.value;
    TypePtr t = obj.type()->find_attribute(s.name);
    slots.push_back(IValue::tuple({IValue(s.name), IValue(slot_kind_name(s.kind)), std::move(value),
                                   IValue(t ? t->str() : std::string("Any"))}));
  }
  std::vector<IValue> methods;
  PrintOptions po;
  po.tensor_table = &constants;
  for (const std::string& name : obj.method_order())
    methods.push_back(IValue::tuple({IValue(name), IValue(to_string(*obj.find_method(name)->graph, po))}));
  return IValue::dict({{IValue("class"), IValue(obj.type()->name())},
                       {IValue("training"), IValue(obj.training())},
                       {IValue("slots"), IValue::list(std::move(slots))},
                       {IValue("methods"), IValue::list(std::move(methods))}});
}

// The ops of g (and its blocks) that a library or Python defined, with their sources (Note [op sources]).
void collect_op_sources(const Block& b, std::map<std::string, OpSource>& out) {
  for (const Node* n : b.nodes()) {
    if (n->is_op()) {
      std::string name(n->kind().qual_string());
      if (!out.count(name)) {
        OpSource src = op_source(name);
        if (src.kind != OpSource::Kind::Unknown) out.emplace(std::move(name), std::move(src));
      }
    }
    for (const Block* inner : n->blocks()) collect_op_sources(*inner, out);
  }
}

void collect_op_sources(const Object& obj, std::map<std::string, OpSource>& out) {
  for (const std::string& name : obj.method_order()) collect_op_sources(*obj.find_method(name)->graph->block(), out);
  for (const Slot& s : obj.slots())
    if (s.kind == SlotKind::Module) collect_op_sources(*s.module, out);
}

// ---- loading: every read checks the kind of what it reads

const char* label(IValue::Tag t) {
  switch (t) {
    case IValue::Tag::String: return "str";
    case IValue::Tag::Bool: return "bool";
    case IValue::Tag::Int: return "int";
    case IValue::Tag::List: return "list";
    case IValue::Tag::Dict: return "dict";
    default: return "value";
  }
}

// Note [load error paths]
// Where a value sits in the archive ("root.encoder.slots[3] name") is built into a string only when an error
// names it. Built eagerly, every level of a module tree held the whole path above it: a 67 KB file (320 nested
// submodules with names of 100 KB, deflated) took 85 s and more than 4 GB to refuse.
struct Path {
  const Path* parent = nullptr;
  std::string_view sep, text;  // this step: sep + text (".fc", ".slots", " name", "the archive")
  int64_t index = -1;          // and [index] after it when >= 0
  std::string str() const {
    std::string s = parent ? parent->str() : std::string();
    s.append(sep).append(text);
    if (index >= 0) s += "[" + std::to_string(index) + "]";
    return s;
  }
};
const Path kArchive{nullptr, "", "the archive"};

struct Reader {
  std::string path;

  [[noreturn]] void fail(const std::string& what) const {
    EMBER_FAIL("jit::load: '{}': {}", path, what);
  }
  // The entry `key` of dict, checked to be of kind tag, or nullptr when dict has no such entry.
  const IValue* optional_field(const IValue& dict, std::string_view key, IValue::Tag tag, const Path& where) const {
    if (dict.tag() != IValue::Tag::Dict)
      fail(fmt::format("{} is a {}, not a dict", where.str(), dict.tag_name()));
    for (const auto& [k, v] : dict.to_dict()) {
      if (k.is_string() && k.to_string() == key) {
        if (v.tag() != tag)
          fail(fmt::format("{}[\"{}\"] is a {}, expected a {}", where.str(), key, v.tag_name(), label(tag)));
        return &v;
      }
    }
    return nullptr;
  }
  const IValue& field(const IValue& dict, std::string_view key, IValue::Tag tag, const Path& where) const {
    if (const IValue* v = optional_field(dict, key, tag, where)) return *v;
    fail(fmt::format("{} has no \"{}\" entry", where.str(), key));
  }
  const std::vector<IValue>& tuple_of(const IValue& v, size_t n, const Path& where) const {
    if (!v.is_tuple() || v.to_tuple().size() != n)
      fail(fmt::format("{} is not a tuple of {} values ({})", where.str(), n, v.tag_name()));
    return v.to_tuple();
  }
  const std::string& str(const IValue& v, const Path& where) const {
    if (!v.is_string()) fail(fmt::format("{} is a {}, expected a str", where.str(), v.tag_name()));
    return v.to_string();
  }

  TypePtr parse_type(const std::string& text, const Path& where) const {
    try {
      std::shared_ptr<Graph> g = parse_ir("graph(%a : " + text + "):\n  return (%a)\n");
      if (g->inputs().size() == 1 && g->nodes().empty()) return g->inputs()[0]->type();
    } catch (const Error&) {
    }
    fail(fmt::format("{}: '{}' is not a type", where.str(), text));
  }

  Module module(const IValue& node, const std::vector<Tensor>& constants, const Path& where) const {
    const std::string& cls = str(field(node, "class", IValue::Tag::String, where), {&where, "", "[\"class\"]"});
    Module m = [&] {
      try {
        return Module(cls);
      } catch (const Error& e) {
        fail(fmt::format("{}: bad class name: {}", where.str(), e.what()));
      }
    }();
    const bool training = field(node, "training", IValue::Tag::Bool, where).to_bool();
    const auto& slots = field(node, "slots", IValue::Tag::List, where).to_list();
    for (size_t i = 0; i < slots.size(); ++i) {
      const Path slot{&where, ".", "slots", static_cast<int64_t>(i)};
      const auto& s = tuple_of(slots[i], 4, slot);
      const std::string& name = str(s[0], {&slot, "", " name"});
      const std::string& kind = str(s[1], {&slot, "", " kind"});
      const IValue& value = s[2];
      const Path at{&where, ".", name};
      try {
        if (kind == "parameter" || kind == "buffer") {
          if (!value.is_tensor()) fail(fmt::format("{} is a {}, expected a tensor", at.str(), value.tag_name()));
          if (kind == "parameter") m.register_parameter(name, value.to_tensor());
          else m.register_buffer(name, value.to_tensor());
        } else if (kind == "module") {
          m.register_module(name, module(value, constants, at));
        } else if (kind == "attribute") {
          m.register_attribute(name, value, parse_type(str(s[3], {&at, "", " type"}), at));
        } else {
          fail(fmt::format("{}: unknown attribute kind '{}'", at.str(), kind));
        }
      } catch (const Error& e) {
        if (std::string_view(e.what()).starts_with("jit::load:")) throw;
        fail(fmt::format("{}: {}", at.str(), e.what()));
      }
    }
    // Flags first (train() is recursive; the submodules' own flags were set when they were read).
    set_training(m, training);
    const auto& methods = field(node, "methods", IValue::Tag::List, where).to_list();
    // The class types the methods' text may name, collected once for all of them (not once per method).
    std::unordered_map<std::string, std::shared_ptr<ClassType>> types = m.class_types();
    ParseOptions options;
    options.class_types = &types;
    options.tensor_table = &constants;
    for (size_t i = 0; i < methods.size(); ++i) {
      const Path at{&where, ".", "methods", static_cast<int64_t>(i)};
      const auto& mt = tuple_of(methods[i], 2, at);
      const std::string& name = str(mt[0], {&at, "", " name"});
      const std::string& text = str(mt[1], {&at, "", " text"});
      try {
        m.define_method(name, parse_ir(text, options));
      } catch (const Error& e) {
        fail(fmt::format("method {}.{}: {}", cls, name, e.what()));
      }
    }
    return m;
  }

  // Ops the model calls that a library or Python defined, and are not defined here: say what is missing
  // (Note [op sources]). Archives written before op_sources existed lack the entry: the method parser then
  // names an unknown op by itself.
  void check_op_sources(const IValue& archive) const {
    const IValue* sources = optional_field(archive, "op_sources", IValue::Tag::Dict, kArchive);
    if (!sources) return;
    for (const auto& [op, src] : sources->to_dict()) {
      const std::string& name = str(op, {nullptr, "", "op_sources key"});
      const std::string entry_name = "op_sources[" + name + "]";  // each name once: linear in the file
      const Path entry{nullptr, "", entry_name};
      const auto& t = tuple_of(src, 2, entry);
      const std::string& kind = str(t[0], {&entry, "", " kind"});
      const std::string& detail = str(t[1], {&entry, "", " detail"});
      if (!Dispatcher::singleton().overloads(name).empty()) continue;
      if (kind == "library")
        fail(fmt::format("the model calls {}, an op of the library '{}', which this program has not loaded "
                         "(call ember::load_library(\"{}\") in C++, ember.ops.load_library(...) in Python, before "
                         "loading the model)", name, detail, detail));
      if (kind == "python")
        fail(fmt::format("the model calls {}, an op defined in Python ({}; ember.library.custom_op): a program "
                         "without Python cannot run it (write the op in C++ to use the model here)", name, detail));
      fail(fmt::format("op_sources[{}]: unknown kind '{}'", name, kind));
    }
  }

  // Sets this module's own flag only (the submodules keep the flags they were saved with).
  static void set_training(Module& m, bool on) {
    std::vector<std::pair<Module, bool>> children;
    for (auto& [n, c] : m.named_children()) children.emplace_back(c, c.is_training());
    m.train(on);
    for (auto& [c, flag] : children) c.train(flag);
  }
};

}  // namespace

void save(const Module& m, const std::string& path, const ExtraFiles& extra_files) {
  std::vector<Tensor> constants;
  IValue root = module_node(*m.object(), constants);
  std::vector<std::pair<IValue, IValue>> extra;
  for (const auto& [name, data] : extra_files) extra.emplace_back(IValue(name), IValue(data));
  std::vector<IValue> table(constants.begin(), constants.end());
  std::map<std::string, OpSource> sources;
  collect_op_sources(*m.object(), sources);
  std::vector<std::pair<IValue, IValue>> op_sources;
  for (const auto& [name, src] : sources)
    op_sources.emplace_back(
        IValue(name),
        IValue::tuple({IValue(src.kind == OpSource::Kind::Library ? "library" : "python"), IValue(src.detail)}));
  IValue archive = IValue::dict({{IValue("format"), IValue(kModuleFormatName)},
                                 {IValue("version"), IValue(kModuleFormatVersion)},
                                 {IValue("root"), std::move(root)},
                                 {IValue("tensor_constants"), IValue::list(std::move(table))},
                                 {IValue("extra_files"), IValue::dict(std::move(extra))},
                                 {IValue("op_sources"), IValue::dict(std::move(op_sources))}});
  serialize::save(archive, path);
}

namespace {

// The module of a loaded archive (both load()s); path names the file in errors.
Module load_archive(const IValue& archive, const std::string& path, ExtraFiles* extra_files) {
  Reader r{path};
  // A file of ember.save (a state dict, tensors) is the likeliest wrong file: say what it holds and what reads it.
  const bool is_dict = archive.tag() == IValue::Tag::Dict;
  const IValue* format_entry = is_dict ? r.optional_field(archive, "format", IValue::Tag::String, kArchive) : nullptr;
  if (!format_entry) {
    const std::string holds = is_dict ? fmt::format("a dict of {} entries", archive.to_dict().size())
                                      : fmt::format("a {}", archive.tag_name());
    r.fail(fmt::format("not a module saved by ember.jit.save / ember::jit::save but {} as ember.save writes it (a "
                       "state dict?): read it with ember.load / ember::serialize::load, or give the exported "
                       "module's file",
                       holds));
  }
  const std::string& format = r.str(*format_entry, {nullptr, "", "format"});
  if (format != kModuleFormatName)
    r.fail(fmt::format("not a saved module (format '{}'; ember::serialize::load reads plain archives)", format));
  int64_t version = r.field(archive, "version", IValue::Tag::Int, kArchive).to_int();
  if (version < 1 || version > kModuleFormatVersion)
    r.fail(fmt::format("format version {} is not one this build reads (1..{}); a newer Ember wrote it?", version,
                       kModuleFormatVersion));
  std::vector<Tensor> constants;
  for (const IValue& t : r.field(archive, "tensor_constants", IValue::Tag::List, kArchive).to_list()) {
    if (!t.is_tensor()) r.fail(fmt::format("tensor_constants holds a {}", t.tag_name()));
    constants.push_back(t.to_tensor());
  }
  const IValue& extra = r.field(archive, "extra_files", IValue::Tag::Dict, kArchive);
  if (extra_files) {
    extra_files->clear();
    for (const auto& [k, v] : extra.to_dict()) {
      const std::string what = "extra file " + k.repr();
      (*extra_files)[r.str(k, {nullptr, "", "extra file name"})] = r.str(v, {nullptr, "", what});
    }
  }
  r.check_op_sources(archive);
  return r.module(r.field(archive, "root", IValue::Tag::Dict, kArchive), constants, {nullptr, "", "root"});
}

}  // namespace

Module load(const std::string& path, ExtraFiles* extra_files) {
  // serialize::load raises "load: '<path>': ..." for a bad container or tensor data.
  return load_archive(serialize::load(path), path, extra_files);
}

Module load(std::istream& in, ExtraFiles* extra_files) {
  const std::string name = "<stream>";
  std::string bytes;
  std::vector<char> buf(size_t{1} << 16);
  do {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    bytes.append(buf.data(), static_cast<size_t>(in.gcount()));
  } while (in);
  if (in.bad()) EMBER_FAIL("jit::load: '{}': reading the stream failed", name);
  return load_archive(serialize::load_from_bytes(bytes, nullptr, name), name, extra_files);
}

}  // namespace ember::jit
