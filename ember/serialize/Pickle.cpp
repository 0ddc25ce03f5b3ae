// The safe pickle-subset reader (Note [safe unpickling], Note [pickle limits] in Pickle.h).
#include "ember/serialize/Pickle.h"

#include <bit>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ember/base/Error.h"
#include "ember/base/Half.h"
#include "ember/core/TensorImpl.h"
#include "ember/serialize/ShapeLimits.h"

namespace ember::serialize {

PickleValue PickleValue::complex(double re, double im) {
  PickleValue v = scalar(Kind::Complex, 0, re);
  v.d2_ = im;
  return v;
}

std::string PickleValue::type_name() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int:
    case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Complex: return "complex";
    case Kind::DType: return "torch.dtype";
    case Kind::String: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return node_->flag ? "torch.Size" : "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return node_->flag ? "collections.OrderedDict" : "dict";
    case Kind::Set: return node_->flag ? "frozenset" : "set";
    case Kind::Slice: return "slice";
    case Kind::Device: return "torch.device";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return node_->flag ? "torch.nn.Parameter" : "torch.Tensor";
    case Kind::Global: return node_->text;
    case Kind::Object: return node_->text;
  }
  return "?";
}

namespace {

using Kind = PickleValue::Kind;

// The allow-listed globals (Note [safe unpickling]); PickleNode::code of a Global node.
enum AllowedGlobal : int {
  kNotAllowed = 0,
  kRebuildTensorV2,
  kRebuildTensor,
  kRebuildParameter,
  kRebuildParameterWithState,
  kRebuildFromTypeV2,
  kParameter,
  kTensorClass,
  kOrderedDict,
  kSize,
  kSet,
  kFrozenSet,
  kSlice,
  kComplex,
  kCodecsEncode,
  kDevice,
  kStorageClass,
  kNumpyReconstruct,  // numpy.core.multiarray._reconstruct: an ndarray whose BUILD gives its data
  kNumpyNdarray,
  kNumpyDtype,
  kNumpyScalar,       // numpy.core.multiarray.scalar(dtype, bytes): a NumPy scalar
  kBytes,             // builtins.bytes(): protocol 2's empty bytes
};

struct DTypeName {
  const char* name;
  DType dtype;
};
// torch.<name> dtypes (with PyTorch's aliases) and torch.<Name>Storage classes.
constexpr DTypeName kDTypes[] = {
    {"uint8", kUInt8},     {"int8", kInt8},       {"int16", kInt16},     {"short", kInt16},
    {"int32", kInt32},     {"int", kInt32},       {"int64", kInt64},     {"long", kInt64},
    {"float16", kFloat16}, {"half", kFloat16},    {"float32", kFloat32}, {"float", kFloat32},
    {"float64", kFloat64}, {"double", kFloat64},  {"bool", kBool},       {"bfloat16", kBFloat16},
    {"complex64", kComplexFloat}, {"cfloat", kComplexFloat}, {"complex128", kComplexDouble},
    {"cdouble", kComplexDouble}};
constexpr DTypeName kStorages[] = {
    {"ByteStorage", kUInt8},   {"CharStorage", kInt8},    {"ShortStorage", kInt16},
    {"IntStorage", kInt32},    {"LongStorage", kInt64},   {"HalfStorage", kFloat16},
    {"FloatStorage", kFloat32}, {"DoubleStorage", kFloat64}, {"BoolStorage", kBool},
    {"BFloat16Storage", kBFloat16}, {"ComplexFloatStorage", kComplexFloat},
    {"ComplexDoubleStorage", kComplexDouble}, {"UntypedStorage", kUInt8}};

struct GlobalEntry {
  const char* name;
  AllowedGlobal code;
};
constexpr GlobalEntry kGlobals[] = {
    {"torch._utils._rebuild_tensor_v2", kRebuildTensorV2},
    {"torch._utils._rebuild_tensor", kRebuildTensor},
    {"torch._utils._rebuild_parameter", kRebuildParameter},
    {"torch._utils._rebuild_parameter_with_state", kRebuildParameterWithState},
    {"torch._tensor._rebuild_from_type_v2", kRebuildFromTypeV2},
    {"torch.nn.parameter.Parameter", kParameter},
    {"torch.nn.Parameter", kParameter},
    {"torch.Tensor", kTensorClass},
    {"torch._tensor.Tensor", kTensorClass},
    {"collections.OrderedDict", kOrderedDict},
    {"torch.Size", kSize},
    {"builtins.set", kSet},
    {"builtins.frozenset", kFrozenSet},
    {"builtins.slice", kSlice},
    {"builtins.bytes", kBytes},
    {"builtins.complex", kComplex},
    {"_codecs.encode", kCodecsEncode},
    {"torch.device", kDevice},
    {"numpy.core.multiarray._reconstruct", kNumpyReconstruct},
    {"numpy._core.multiarray._reconstruct", kNumpyReconstruct},
    {"numpy.ndarray", kNumpyNdarray},
    {"numpy.dtype", kNumpyDtype},
    {"numpy.core.multiarray.scalar", kNumpyScalar},
    {"numpy._core.multiarray.scalar", kNumpyScalar},
};

// Pickle opcodes (CPython's Lib/pickle.py names).
enum Op : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', FLOAT = 'F', INT = 'I', BININT = 'J',
  BININT1 = 'K', LONG = 'L', BININT2 = 'M', NONE = 'N', PERSID = 'P', BINPERSID = 'Q', REDUCE = 'R',
  STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U', UNICODE = 'V', BINUNICODE = 'X', APPEND = 'a',
  BUILD = 'b', GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}', APPENDS = 'e', GET = 'g', BINGET = 'h', INST = 'i',
  LONG_BINGET = 'j', LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q', LONG_BINPUT = 'r',
  SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G',
  PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84, TUPLE1 = 0x85, TUPLE2 = 0x86,
  TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b,
  BINBYTES = 'B', SHORT_BINBYTES = 'C',
  SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e, EMPTY_SET = 0x8f, ADDITEMS = 0x90,
  FROZENSET = 0x91, NEWOBJ_EX = 0x92, STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95,
  BYTEARRAY8 = 0x96, NEXT_BUFFER = 0x97, READONLY_BUFFER = 0x98,
};

class Unpickler {
 public:
  Unpickler(std::string_view data, const PickleOptions& o, size_t start) : data_(data), o_(o), pos_(start) {}

  // Empties every node created (Note [pickle limits]) unless the read succeeded, in which case only the nodes
  // the result does not reach are emptied.
  ~Unpickler() {
    for (auto& n : created_)
      if (!reachable_.count(n.get())) clear(*n);
  }

  PickleValue read(size_t* end) {
    if (pos_ >= data_.size()) fail("the pickle is empty (no opcode at offset {})", pos_);
    while (true) {
      op_at_ = pos_;
      const uint8_t op = u8();
      if (op == STOP) break;
      step(op);
    }
    PickleValue result = pop();
    if (end) *end = pos_;
    check_result(result);
    return result;
  }

 private:
  // ---- errors and raw reads ----
  template <class... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    EMBER_FAIL("pickle: '{}' offset {}: {}", o_.name, op_at_, fmt::format(f, std::forward<A>(a)...));
  }
  std::string_view take(uint64_t n) {
    if (n > data_.size() - pos_)
      fail("truncated: needs {} more bytes but the input ends {} bytes later", n, data_.size() - pos_);
    std::string_view s = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  template <class T>
  T le() {
    std::string_view s = take(sizeof(T));
    T v;
    std::memcpy(&v, s.data(), sizeof(T));
    return v;  // the serialize layer is little-endian only (EmberFormat.cpp)
  }
  std::string_view line() {
    size_t nl = data_.find('\n', pos_);
    if (nl == std::string_view::npos) fail("truncated: a text argument has no end of line");
    std::string_view s = data_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return s;
  }
  int64_t decimal(std::string_view s) {
    if (!s.empty() && s.back() == 'L') s.remove_suffix(1);
    bool neg = !s.empty() && s[0] == '-';
    if (neg || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
    if (s.empty() || s.size() > 18) fail("'{}' is not an integer this reader accepts", s);
    int64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') fail("'{}' is not an integer", s);
      v = v * 10 + (c - '0');
    }
    return neg ? -v : v;
  }

  // ---- values ----
  PickleValue make(Kind k) {
    auto n = std::make_shared<PickleNode>();
    created_.push_back(n);
    return PickleValue::with_node(k, std::move(n));
  }
  PickleValue make_text(Kind k, std::string_view text) {
    PickleValue v = make(k);
    v.node()->text.assign(text.data(), text.size());
    return v;
  }
  PickleValue make_seq(Kind k, std::vector<PickleValue> items) {
    PickleValue v = make(k);
    v.node()->items = std::move(items);
    return v;
  }
  static void clear(PickleNode& n) {
    n.items.clear();
    n.entries.clear();
    n.list_items.clear();
    n.state.clear();
  }

  // ---- the stack ----
  size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(PickleValue v) {
    if (static_cast<int64_t>(stack_.size()) >= o_.limits.max_stack)
      fail("the stack holds more than {} values (limit)", o_.limits.max_stack);
    stack_.push_back(std::move(v));
  }
  PickleValue pop() {
    if (stack_.size() <= base()) fail("the stack is empty");
    PickleValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PickleValue& top() {
    if (stack_.size() <= base()) fail("the stack is empty");
    return stack_.back();
  }
  std::vector<PickleValue> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const size_t b = marks_.back();
    marks_.pop_back();
    std::vector<PickleValue> items(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(b)),
                                   std::make_move_iterator(stack_.end()));
    stack_.resize(b);
    return items;
  }

  void memo_put(uint64_t i) {
    PickleValue v = top();
    auto it = memo_.find(i);
    if (it != memo_.end()) {
      it->second = std::move(v);
      return;
    }
    if (static_cast<int64_t>(memo_.size()) >= o_.limits.max_memo)
      fail("the memo holds more than {} values (limit)", o_.limits.max_memo);
    memo_.emplace(i, std::move(v));
  }
  void memo_get(uint64_t i) {
    auto it = memo_.find(i);
    if (it == memo_.end()) fail("memo entry {} was never stored", i);
    push(it->second);
  }

  // ---- containers ----
  // A key for Python's dict equality of str and int keys (True == 1 as in Python); other keys are not merged.
  static std::optional<std::string> dict_key(const PickleValue& k) {
    if (k.is(Kind::String)) return "s" + k.node()->text;
    if (k.is(Kind::Int) || k.is(Kind::Bool)) return "i" + std::to_string(k.to_int());
    return std::nullopt;
  }
  void set_item(PickleValue& d, PickleValue k, PickleValue v) {
    if (d.is(Kind::Object)) {
      d.node()->entries.emplace_back(std::move(k), std::move(v));
      return;
    }
    if (!d.is(Kind::Dict)) fail("SETITEM(S) on a {}, not a dict", d.type_name());
    auto& entries = d.node()->entries;
    if (auto key = dict_key(k)) {
      auto [it, fresh] = key_index_[d.node()].try_emplace(std::move(*key), entries.size());
      if (!fresh) {
        entries[it->second].second = std::move(v);
        return;
      }
    }
    entries.emplace_back(std::move(k), std::move(v));
  }
  void append(PickleValue& l, PickleValue v) {
    if (l.is(Kind::List)) l.node()->items.push_back(std::move(v));
    else if (l.is(Kind::Object)) l.node()->list_items.push_back(std::move(v));
    else fail("APPEND(S) on a {}, not a list", l.type_name());
  }

  // ---- globals (Note [safe unpickling]) ----
  PickleValue global(std::string_view module, std::string_view name) {
    std::string full = std::string(module) + "." + std::string(name);
    // The files ember.save pickles whole objects into name Ember's own functions the same way.
    std::string key = full.starts_with("ember.") ? "torch." + full.substr(6) : full;
    // Protocols 0-2 name Python 3's builtins module by its Python 2 name.
    if (key.starts_with("__builtin__.")) key = "builtins." + key.substr(12);
    for (const GlobalEntry& g : kGlobals)
      if (key == g.name) return allowed(full, g.code);
    if (module == "torch" || module == "ember") {
      for (const DTypeName& d : kDTypes)
        if (name == d.name) return PickleValue::dtype(d.dtype);
      for (const DTypeName& d : kStorages)
        if (name == d.name) return allowed(full, kStorageClass, d.dtype);
    }
    if (key == "torch.storage.UntypedStorage") return allowed(full, kStorageClass, kUInt8);
    if (full.starts_with("ember._utils."))  // ember.save's pickles of whole objects (python/ember/_utils.py)
      for (const DTypeName& d : kStorages)
        if (name == d.name) return allowed(full, kStorageClass, d.dtype);
    if (key.starts_with("torch.") && (name.find("Int8Storage") != std::string_view::npos ||
                                      name.starts_with("qint") || name.starts_with("quint") ||
                                      name == "complex32" || name == "chalf" ||
                                      name.find("ComplexHalf") != std::string_view::npos))
      fail("global '{}': Ember has no quantized or complex32 dtypes, so this file's tensors cannot be loaded", full);
    if (!o_.placeholders)
      fail("global '{}' is not allowed: loading it would run code named by the file (Ember reads tensors, "
           "storages, dtypes, devices, torch.Size, OrderedDict and builtin containers only)",
           full);
    return make_text(Kind::Global, full);
  }
  PickleValue allowed(const std::string& full, AllowedGlobal code, DType dtype = kUInt8) {
    PickleValue v = make_text(Kind::Global, full);
    v.node()->flag = true;
    v.node()->code = code;
    v.node()->storage_dtype = dtype;
    return v;
  }

  // ---- argument checks of the allow-listed calls ----
  const PickleValue& arg(const std::vector<PickleValue>& args, size_t i, const std::string& fn) {
    if (i >= args.size()) fail("{} called with {} arguments", fn, args.size());
    return args[i];
  }
  void nargs(const std::vector<PickleValue>& args, size_t lo, size_t hi, const std::string& fn) {
    if (args.size() < lo || args.size() > hi)
      fail("{} called with {} arguments (expected {}{})", fn, args.size(), lo,
           hi == lo ? std::string() : " to " + std::to_string(hi));
  }
  int64_t int_arg(const PickleValue& v, const std::string& what) {
    if (!v.is(Kind::Int)) fail("{} is a {}, not an int", what, v.type_name());
    return v.to_int();
  }
  bool bool_arg(const PickleValue& v, const std::string& what) {
    if (!v.is(Kind::Bool)) fail("{} is a {}, not a bool", what, v.type_name());
    return v.to_bool();
  }
  std::vector<int64_t> ints_arg(const PickleValue& v, const std::string& what) {
    if (!v.is(Kind::Tuple) && !v.is(Kind::List)) fail("{} is a {}, not a tuple of ints", what, v.type_name());
    std::vector<int64_t> r;
    for (const PickleValue& x : v.node()->items) r.push_back(int_arg(x, what + "'s item"));
    return r;
  }
  const std::vector<PickleValue>& seq_arg(const PickleValue& v, const std::string& what) {
    if (!v.is(Kind::Tuple) && !v.is(Kind::List)) fail("{} is a {}, not a tuple or list", what, v.type_name());
    return v.node()->items;
  }

  PickleValue tensor(const PickleValue& storage, int64_t offset, const std::vector<int64_t>& sizes,
                     const std::vector<int64_t>& strides, bool requires_grad) {
    if (!storage.is(Kind::Storage)) fail("a tensor's storage is a {}", storage.type_name());
    const PickleNode& s = *storage.node();
    if (sizes.size() != strides.size())
      fail("a tensor has {} sizes but {} strides", sizes.size(), strides.size());
    intrusive_ptr<TensorImpl> impl;
    try {
      impl = make_intrusive<TensorImpl>(s.storage, s.storage_dtype, IntArrayRef(sizes), IntArrayRef(strides),
                                        offset);
    } catch (const Error& e) {
      fail("a {} tensor of sizes {} and strides {} at offset {} does not fit its storage of {} elements: {}",
           dtype_name(s.storage_dtype), sizes, strides, offset, s.storage_numel, e.what());
    }
    PickleValue t = make(Kind::Tensor);
    t.node()->tensor = Tensor(std::move(impl));
    t.node()->requires_grad = requires_grad;
    return t;
  }
  PickleValue parameter(const PickleValue& data, bool requires_grad) {
    if (!data.is(Kind::Tensor)) fail("a Parameter's data is a {}, not a tensor", data.type_name());
    PickleValue p = make(Kind::Tensor);
    p.node()->tensor = data.node()->tensor;
    p.node()->flag = true;
    p.node()->requires_grad = requires_grad;
    return p;
  }

  // REDUCE or NEWOBJ of func with args (Note [safe unpickling]).
  PickleValue call(const PickleValue& func, const PickleValue& args_v, bool newobj) {
    if (!func.is(Kind::Global)) fail("REDUCE/NEWOBJ calls a {}, not a global", func.type_name());
    if (!args_v.is(Kind::Tuple)) fail("the arguments of {} are a {}, not a tuple", func.node()->text,
                                      args_v.type_name());
    const std::vector<PickleValue>& a = args_v.node()->items;
    const std::string& fn = func.node()->text;
    if (!func.node()->flag) {  // a placeholder class (placeholders were asked for)
      PickleValue o = make_text(Kind::Object, fn);
      o.node()->items = a;
      return o;
    }
    switch (static_cast<AllowedGlobal>(func.node()->code)) {
      case kRebuildTensorV2:
        nargs(a, 6, 7, fn);
        if (!a[5].is(Kind::Dict) && !a[5].is(Kind::None)) fail("{}: backward_hooks is a {}", fn, a[5].type_name());
        return tensor(a[0], int_arg(a[1], "storage_offset"), ints_arg(a[2], "size"), ints_arg(a[3], "stride"),
                      bool_arg(a[4], "requires_grad"));
      case kRebuildTensor:
        nargs(a, 4, 4, fn);
        return tensor(a[0], int_arg(a[1], "storage_offset"), ints_arg(a[2], "size"), ints_arg(a[3], "stride"),
                      false);
      case kRebuildParameter:
      case kRebuildParameterWithState:
        nargs(a, 3, func.node()->code == kRebuildParameter ? 3 : 4, fn);
        return parameter(a[0], bool_arg(a[1], "requires_grad"));
      case kRebuildFromTypeV2: {
        nargs(a, 4, 4, fn);
        const PickleValue& type = a[1];
        if (!type.is(Kind::Global) || (type.node()->code != kTensorClass && type.node()->code != kParameter))
          fail("{} rebuilds a tensor of class {}; only torch.Tensor and torch.nn.Parameter are read", fn,
               type.type_name());
        if (!a[2].is(Kind::Tuple)) fail("{}: its arguments are a {}", fn, a[2].type_name());
        PickleValue t = call(a[0], a[2], false);
        if (!t.is(Kind::Tensor)) fail("{} rebuilds a {}, not a tensor", fn, t.type_name());
        return type.node()->code == kParameter ? parameter(t, t.node()->requires_grad) : t;
      }
      case kParameter:
        nargs(a, 1, 2, fn);
        return parameter(a[0], a.size() < 2 || bool_arg(a[1], "requires_grad"));
      case kOrderedDict: {
        nargs(a, 0, 1, fn);
        PickleValue d = make(Kind::Dict);
        d.node()->flag = true;
        if (a.size() == 1)
          for (const PickleValue& kv : seq_arg(a[0], "OrderedDict's items")) {
            const auto& pair = seq_arg(kv, "an OrderedDict item");
            if (pair.size() != 2) fail("an OrderedDict item has {} values, not 2", pair.size());
            set_item(d, pair[0], pair[1]);
          }
        return d;
      }
      case kSize: {
        nargs(a, 0, 1, fn);
        std::vector<PickleValue> items;
        if (a.size() == 1)
          for (const PickleValue& x : seq_arg(a[0], "torch.Size's argument")) {
            int_arg(x, "a torch.Size item");
            items.push_back(x);
          }
        PickleValue t = make_seq(Kind::Tuple, std::move(items));
        t.node()->flag = true;
        return t;
      }
      case kSet:
      case kFrozenSet: {
        nargs(a, 0, 1, fn);
        PickleValue s = make_seq(Kind::Set, a.empty() ? std::vector<PickleValue>{} : seq_arg(a[0], fn));
        s.node()->flag = func.node()->code == kFrozenSet;
        return s;
      }
      case kSlice: {
        nargs(a, 1, 3, fn);
        if (a.size() == 1) return make_seq(Kind::Slice, {PickleValue(), a[0], PickleValue()});
        return make_seq(Kind::Slice, {a[0], a[1], a.size() == 3 ? a[2] : PickleValue()});
      }
      case kComplex: {
        nargs(a, 0, 2, fn);
        double p[2] = {0, 0};
        for (size_t i = 0; i < a.size(); ++i) {
          if (a[i].is(Kind::Float)) p[i] = a[i].to_double();
          else if (a[i].is(Kind::Int)) p[i] = static_cast<double>(a[i].to_int());
          else fail("complex() of a {}", a[i].type_name());
        }
        return PickleValue::complex(p[0], p[1]);
      }
      case kCodecsEncode: return latin1_bytes(a, fn);
      case kDevice: {
        nargs(a, 1, 2, fn);
        if (!a[0].is(Kind::String)) fail("torch.device of a {}", a[0].type_name());
        std::string d = a[0].node()->text;
        if (a.size() == 2 && !a[1].is(Kind::None)) d += ":" + std::to_string(int_arg(a[1], "a device index"));
        return make_text(Kind::Device, d);
      }
      case kNumpyReconstruct: {
        nargs(a, 3, 3, fn);
        if (!a[0].is(Kind::Global) || a[0].node()->code != kNumpyNdarray)
          fail("{} of the class {}; only numpy.ndarray is read", fn, a[0].type_name());
        PickleValue o = make_text(Kind::Object, "numpy.ndarray");
        o.node()->code = kNumpyArrayPending;
        return o;
      }
      case kNumpyDtype: {
        nargs(a, 1, 3, fn);
        if (!a[0].is(Kind::String)) fail("numpy.dtype of a {}", a[0].type_name());
        PickleValue o = make_text(Kind::Object, "numpy.dtype");
        o.node()->code = kNumpyDtypeValue;
        o.node()->items = {a[0]};
        return o;
      }
      case kNumpyScalar: return numpy_scalar(a, fn);
      case kBytes:
        nargs(a, 0, 0, fn);
        return make_text(Kind::Bytes, "");
      case kTensorClass:
      case kStorageClass:
      case kNumpyNdarray:
      case kNotAllowed: break;
    }
    fail("{} cannot be {}", fn, newobj ? "instantiated with NEWOBJ" : "called");
  }

  // Protocol 2 pickles bytes as _codecs.encode(<the bytes as a latin-1 str>, 'latin1').
  PickleValue latin1_bytes(const std::vector<PickleValue>& a, const std::string& fn) {
    nargs(a, 1, 2, fn);
    if (!a[0].is(Kind::String)) fail("{} of a {}", fn, a[0].type_name());
    if (a.size() == 2 && !(a[1].is(Kind::String) &&
                           (a[1].node()->text == "latin1" || a[1].node()->text == "latin-1")))
      fail("{} with an encoding other than latin1", fn);
    const std::string& s = a[0].node()->text;
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        out.push_back(static_cast<char>(c));
      } else if ((c == 0xc2 || c == 0xc3) && i + 1 < s.size()) {
        out.push_back(static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[++i]) & 0x3f)));
      } else {
        fail("{}: the text holds a character beyond latin-1", fn);
      }
    }
    return make_text(Kind::Bytes, out);
  }

  // ---- NumPy arrays and scalars (PickleNode::code of an Object node) ----
  // Note [numpy in pickles]
  // numpy pickles an array as _reconstruct(ndarray, (0,), b'b') followed by BUILD with (version, shape, dtype,
  // is_fortran, raw bytes), its dtype as numpy.dtype('<code>', False, True) with BUILD (3, byteorder, ...), and a
  // scalar as scalar(dtype, raw bytes). These are read without numpy: the array becomes a tensor over a copy of
  // its bytes (the Object node keeps the text "numpy.ndarray" and holds the tensor; converters turn it into an
  // ndarray in Python and a tensor in C++), the scalar a number. Codes: f2 f4 f8 i1 i2 i4 i8 u1 b1, little-endian
  // or byte-order free; others (object arrays, complex, big-endian, structured) are refused naming them.
  DType numpy_type(const PickleValue& d) {
    if (!d.is(Kind::Object) || d.node()->code != kNumpyDtypeValue) fail("a NumPy dtype is a {}", d.type_name());
    const std::string& code = d.node()->items[0].node()->text;
    std::string order = "|";
    const auto& st = d.node()->state;
    if (!st.empty() && st[0].is(Kind::Tuple) && st[0].node()->items.size() > 1 &&
        st[0].node()->items[1].is(Kind::String))
      order = st[0].node()->items[1].node()->text;
    if (order != "<" && order != "|" && order != "=") fail("a NumPy array of byte order '{}' (big-endian)", order);
    static constexpr std::pair<const char*, DType> kCodes[] = {
        {"f2", kFloat16}, {"f4", kFloat32}, {"f8", kFloat64}, {"i1", kInt8}, {"i2", kInt16},
        {"i4", kInt32},   {"i8", kInt64},   {"u1", kUInt8},   {"b1", kBool}};
    for (const auto& [c, t] : kCodes)
      if (code == c) return t;
    fail("a NumPy array or scalar of dtype '{}', which Ember does not read", code);
  }
  template <class T>
  static T load_as(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  PickleValue numpy_scalar(const std::vector<PickleValue>& a, const std::string& fn) {
    nargs(a, 2, 2, fn);
    const DType t = numpy_type(a[0]);
    if (!a[1].is(Kind::Bytes) || static_cast<int64_t>(a[1].node()->text.size()) != element_size(t))
      fail("{} of {} without its {} bytes", fn, dtype_name(t), element_size(t));
    const char* p = a[1].node()->text.data();
    switch (t) {
      case kFloat16: return PickleValue::floating(static_cast<float>(Half(load_as<uint16_t>(p), from_bits)));
      case kFloat32: return PickleValue::floating(load_as<float>(p));
      case kFloat64: return PickleValue::floating(load_as<double>(p));
      case kInt8: return PickleValue::integer(load_as<int8_t>(p));
      case kInt16: return PickleValue::integer(load_as<int16_t>(p));
      case kInt32: return PickleValue::integer(load_as<int32_t>(p));
      case kInt64: return PickleValue::integer(load_as<int64_t>(p));
      case kUInt8: return PickleValue::integer(load_as<uint8_t>(p));
      case kBool: return PickleValue::boolean(load_as<uint8_t>(p) != 0);
      default: break;
    }
    fail("{} of {}", fn, dtype_name(t));
  }
  // BUILD of a numpy.ndarray: (version, shape, dtype, is_fortran, raw bytes).
  void build_numpy_array(PickleNode& n, const PickleValue& state) {
    if (!state.is(Kind::Tuple) || state.node()->items.size() != 5) fail("a NumPy array's state is malformed");
    const auto& s = state.node()->items;
    std::vector<int64_t> shape = ints_arg(s[1], "a NumPy array's shape");
    const DType t = numpy_type(s[2]);
    const bool fortran = bool_arg(s[3], "a NumPy array's order");
    if (!s[4].is(Kind::Bytes)) fail("a NumPy array's data is a {} (object arrays are not read)", s[4].type_name());
    const std::string& raw = s[4].node()->text;
    uint64_t numel = 1, extent = 1;
    for (int64_t d : shape)
      if (d < 0 || !accumulate_size(static_cast<uint64_t>(d), numel, extent))
        fail("a NumPy array has the bad shape {}", shape);
    const auto es = static_cast<uint64_t>(element_size(t));
    if (numel > raw.size() / es || numel * es != raw.size())
      fail("a NumPy array of shape {} and {} holds {} bytes", shape, dtype_name(t), raw.size());
    if (t == kBool)
      for (char c : raw)
        if (static_cast<unsigned char>(c) > 1) fail("a NumPy bool array holds a byte other than 0 and 1");
    std::vector<int64_t> strides(shape.size());
    int64_t acc = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      const size_t i = fortran ? k : shape.size() - 1 - k;
      strides[i] = acc;
      acc *= std::max<int64_t>(shape[i], 1);
    }
    Storage st = make_intrusive<StorageImpl>(raw.size());
    if (!raw.empty()) std::memcpy(st->data(), raw.data(), raw.size());
    n.tensor = Tensor(make_intrusive<TensorImpl>(std::move(st), t, IntArrayRef(shape), IntArrayRef(strides), 0));
    n.code = kNumpyArray;
  }

  void build(PickleValue& obj, PickleValue state) {
    if (obj.is(Kind::Object) && obj.node()->code == kNumpyArrayPending) return build_numpy_array(*obj.node(), state);
    if (obj.is(Kind::Object) && obj.node()->code == kNumpyArray) fail("BUILD twice on a NumPy array");
    if (obj.is(Kind::Object) || obj.is(Kind::Dict)) {
      obj.node()->state = {std::move(state)};
      return;
    }
    if (obj.is(Kind::Tensor) && (state.is(Kind::None) || (state.is(Kind::Dict) && state.node()->entries.empty())))
      return;
    fail("BUILD on a {} (only placeholders and dicts take a state)", obj.type_name());
  }

  PickleValue int_from_bytes(std::string_view b) {
    if (b.size() <= 8) {
      uint64_t u = 0;
      for (size_t i = 0; i < b.size(); ++i) u |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
      if (!b.empty() && b.size() < 8 && (static_cast<uint8_t>(b.back()) & 0x80))
        u |= ~uint64_t{0} << (8 * b.size());  // sign-extend
      return PickleValue::integer(static_cast<int64_t>(u));
    }
    return make_text(Kind::BigInt, b);
  }

  // ---- one opcode ----
  void step(uint8_t op) {
    switch (op) {
      case PROTO: {
        const uint8_t v = u8();
        if (v > 5) fail("pickle protocol {} is newer than 5", v);
        return;
      }
      case FRAME: (void)le<uint64_t>(); return;  // frames only group opcodes
      case MARK:
        if (static_cast<int>(marks_.size()) >= o_.limits.max_marks)
          fail("MARKs nested more than {} deep (limit)", o_.limits.max_marks);
        marks_.push_back(stack_.size());
        return;
      case POP:
        if (stack_.size() > base()) stack_.pop_back();
        else pop_mark();
        return;
      case POP_MARK: pop_mark(); return;
      case DUP: push(top()); return;
      case NONE: push(PickleValue()); return;
      case NEWTRUE: push(PickleValue::boolean(true)); return;
      case NEWFALSE: push(PickleValue::boolean(false)); return;
      case INT: {
        std::string_view s = line();
        if (s == "00" || s == "01") push(PickleValue::boolean(s == "01"));
        else push(PickleValue::integer(decimal(s)));
        return;
      }
      case LONG: push(PickleValue::integer(decimal(line()))); return;
      case BININT: push(PickleValue::integer(le<int32_t>())); return;
      case BININT1: push(PickleValue::integer(u8())); return;
      case BININT2: push(PickleValue::integer(le<uint16_t>())); return;
      case LONG1: push(int_from_bytes(take(u8()))); return;
      case LONG4: {
        const int32_t n = le<int32_t>();
        if (n < 0) fail("LONG4 with a negative length");
        push(int_from_bytes(take(static_cast<uint64_t>(n))));
        return;
      }
      case BINFLOAT: {
        const uint64_t be = le<uint64_t>();
        push(PickleValue::floating(std::bit_cast<double>(__builtin_bswap64(be))));
        return;
      }
      case FLOAT: {
        std::string text(line());
        char* end = nullptr;
        const double d = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) fail("'{}' is not a float", text);
        push(PickleValue::floating(d));
        return;
      }
      case BINUNICODE: push(make_text(Kind::String, take(le<uint32_t>()))); return;
      case SHORT_BINUNICODE: push(make_text(Kind::String, take(u8()))); return;
      case BINUNICODE8: push(make_text(Kind::String, take(le<uint64_t>()))); return;
      // Python 2's str (old legacy checkpoints): torch.load decodes it as text.
      case SHORT_BINSTRING: push(make_text(Kind::String, take(u8()))); return;
      case BINSTRING: {
        const int32_t n = le<int32_t>();
        if (n < 0) fail("BINSTRING with a negative length");
        push(make_text(Kind::String, take(static_cast<uint64_t>(n))));
        return;
      }
      case BINBYTES: push(make_text(Kind::Bytes, take(le<uint32_t>()))); return;
      case SHORT_BINBYTES: push(make_text(Kind::Bytes, take(u8()))); return;
      case BINBYTES8:
      case BYTEARRAY8: push(make_text(Kind::Bytes, take(le<uint64_t>()))); return;
      case EMPTY_TUPLE: push(make(Kind::Tuple)); return;
      case TUPLE: push(make_seq(Kind::Tuple, pop_mark())); return;
      case TUPLE1:
      case TUPLE2:
      case TUPLE3: {
        const size_t n = op - TUPLE1 + 1;
        if (stack_.size() < base() + n) fail("TUPLE{} needs {} values on the stack", n, n);
        std::vector<PickleValue> items(std::make_move_iterator(stack_.end() - static_cast<ptrdiff_t>(n)),
                                       std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        push(make_seq(Kind::Tuple, std::move(items)));
        return;
      }
      case EMPTY_LIST: push(make(Kind::List)); return;
      case LIST: push(make_seq(Kind::List, pop_mark())); return;
      case APPEND: {
        PickleValue v = pop();
        append(top(), std::move(v));
        return;
      }
      case APPENDS: {
        std::vector<PickleValue> items = pop_mark();
        PickleValue& l = top();
        for (PickleValue& v : items) append(l, std::move(v));
        return;
      }
      case EMPTY_DICT: push(make(Kind::Dict)); return;
      case DICT: {
        std::vector<PickleValue> items = pop_mark();
        if (items.size() % 2) fail("DICT with an odd number of values");
        PickleValue d = make(Kind::Dict);
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, std::move(items[i]), std::move(items[i + 1]));
        push(std::move(d));
        return;
      }
      case SETITEM: {
        PickleValue v = pop();
        PickleValue k = pop();
        set_item(top(), std::move(k), std::move(v));
        return;
      }
      case SETITEMS: {
        std::vector<PickleValue> items = pop_mark();
        if (items.size() % 2) fail("SETITEMS with an odd number of values");
        PickleValue& d = top();
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, std::move(items[i]), std::move(items[i + 1]));
        return;
      }
      case EMPTY_SET: push(make(Kind::Set)); return;
      case ADDITEMS: {
        std::vector<PickleValue> items = pop_mark();
        PickleValue& s = top();
        if (!s.is(Kind::Set) || s.node()->flag) fail("ADDITEMS on a {}, not a set", s.type_name());
        for (PickleValue& v : items) s.node()->items.push_back(std::move(v));
        return;
      }
      case FROZENSET: {
        PickleValue s = make_seq(Kind::Set, pop_mark());
        s.node()->flag = true;
        push(std::move(s));
        return;
      }
      case GLOBAL: {
        std::string_view module = line();
        std::string_view name = line();
        push(global(module, name));
        return;
      }
      case STACK_GLOBAL: {
        PickleValue name = pop();
        PickleValue module = pop();
        if (!module.is(Kind::String) || !name.is(Kind::String))
          fail("STACK_GLOBAL of a {} and a {}, not two str", module.type_name(), name.type_name());
        push(global(module.node()->text, name.node()->text));
        return;
      }
      case REDUCE: {
        PickleValue args = pop();
        PickleValue func = pop();
        push(call(func, args, false));
        return;
      }
      case NEWOBJ: {
        PickleValue args = pop();
        PickleValue cls = pop();
        push(call(cls, args, true));
        return;
      }
      case NEWOBJ_EX: {
        PickleValue kwargs = pop();
        PickleValue args = pop();
        PickleValue cls = pop();
        if (!kwargs.is(Kind::Dict) || !kwargs.node()->entries.empty())
          if (!cls.is(Kind::Global) || cls.node()->flag) fail("NEWOBJ_EX with keyword arguments");
        push(call(cls, args, true));
        return;
      }
      case BUILD: {
        PickleValue state = pop();
        build(top(), std::move(state));
        return;
      }
      case BINPERSID: {
        PickleValue pid = pop();
        if (!o_.persistent_load) fail("a persistent id where none is expected");
        push(o_.persistent_load(pid));
        return;
      }
      case BINGET: memo_get(u8()); return;
      case LONG_BINGET: memo_get(le<uint32_t>()); return;
      case GET: memo_get(static_cast<uint64_t>(decimal(line()))); return;
      case BINPUT: memo_put(u8()); return;
      case LONG_BINPUT: memo_put(le<uint32_t>()); return;
      case PUT: memo_put(static_cast<uint64_t>(decimal(line()))); return;
      case MEMOIZE: memo_put(memo_.size()); return;
      default: break;
    }
    const char* why = op == NEXT_BUFFER || op == READONLY_BUFFER ? " (out-of-band buffers are not read)"
                      : op == EXT1 || op == EXT2 || op == EXT4  ? " (extension registry codes are not read)"
                      : op == INST || op == OBJ                ? " (protocol 0 objects are not read)"
                                                               : "";
    fail("unsupported opcode 0x{:02x}{}", op, why);
  }

  // ---- after STOP: no cycles, bounded depth (Note [pickle limits]) ----
  void check_result(const PickleValue& v) {
    std::unordered_map<const PickleNode*, int> height;  // -1: on the current path
    height.reserve(created_.size());
    visit(v, 0, height);
    for (const auto& [n, h] : height) reachable_.insert(n);
  }
  int visit(const PickleValue& v, int depth, std::unordered_map<const PickleNode*, int>& height) {
    const PickleNode* n = v.node();
    if (!n) return 0;
    auto [it, fresh] = height.try_emplace(n, -1);
    if (!fresh) {
      if (it->second < 0) fail("the object contains itself (reference cycles are not read)");
      if (depth + it->second > o_.limits.max_depth) too_deep();
      return it->second;
    }
    if (depth > o_.limits.max_depth) too_deep();
    int h = 0;
    auto child = [&](const PickleValue& c) { h = std::max(h, 1 + visit(c, depth + 1, height)); };
    for (const PickleValue& c : n->items) child(c);
    for (const auto& kv : n->entries) {
      child(kv.first);
      child(kv.second);
    }
    for (const PickleValue& c : n->list_items) child(c);
    for (const PickleValue& c : n->state) child(c);
    height[n] = h;
    return h;
  }
  [[noreturn]] void too_deep() const {
    EMBER_FAIL("pickle: '{}': the object is nested more than {} containers deep (limit)", o_.name,
               o_.limits.max_depth);
  }

  std::string_view data_;
  const PickleOptions& o_;
  size_t pos_;
  size_t op_at_ = 0;
  std::vector<PickleValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleValue> memo_;
  std::unordered_map<const PickleNode*, std::unordered_map<std::string, size_t>> key_index_;
  std::vector<std::shared_ptr<PickleNode>> created_;
  std::unordered_set<const PickleNode*> reachable_;
};

// The attribute dicts of an nn.Module whose entries are the module's own attributes (Module.__setstate__).
bool is_module_slot(const std::string& key) {
  return key == "_parameters" || key == "_buffers" || key == "_modules";
}

void walk(const PickleValue& v, const std::string& path, bool module_state,
          std::unordered_set<const PickleNode*>& seen,
          const std::function<void(const std::string&, const Tensor&)>& f) {
  const PickleNode* n = v.node();
  if (!n || !seen.insert(n).second) return;
  auto join = [&](const std::string& step) { return path.empty() ? step : path + "." + step; };
  switch (v.kind()) {
    case Kind::Tensor: f(path, n->tensor); return;
    case Kind::Tuple:
    case Kind::List:
    case Kind::Set:
      for (size_t i = 0; i < n->items.size(); ++i) walk(n->items[i], join(std::to_string(i)), false, seen, f);
      return;
    case Kind::Dict:
      for (const auto& [k, x] : n->entries) {
        std::string step = k.is(Kind::String) ? k.node()->text
                           : k.is(Kind::Int) ? std::to_string(k.to_int())
                                             : k.type_name();
        const bool slot = module_state && k.is(Kind::String) && is_module_slot(step);
        walk(x, slot ? path : join(step), false, seen, f);
      }
      return;
    case Kind::Object:
      if (n->code == kNumpyArray) return f(path, n->tensor);
      for (size_t i = 0; i < n->items.size(); ++i) walk(n->items[i], join(std::to_string(i)), false, seen, f);
      for (size_t i = 0; i < n->list_items.size(); ++i)
        walk(n->list_items[i], join(std::to_string(i)), false, seen, f);
      for (const auto& [k, x] : n->entries)
        walk(x, join(k.is(Kind::String) ? k.node()->text : k.type_name()), false, seen, f);
      for (const PickleValue& s : n->state) {
        // A state that is (dict, slots) holds the dict first.
        if (s.is(Kind::Tuple)) {
          for (const PickleValue& part : s.node()->items)
            if (part.is(Kind::Dict)) walk(part, path, true, seen, f);
        } else {
          walk(s, path, true, seen, f);
        }
      }
      return;
    default: return;
  }
}

}  // namespace

PickleValue read_pickle(std::string_view data, const PickleOptions& options, size_t start, size_t* end) {
  Unpickler u(data, options, start);
  return u.read(end);
}

bool is_storage_class(const PickleValue& v, DType* dtype) {
  if (!v.is(Kind::Global) || !v.node()->flag || v.node()->code != kStorageClass) return false;
  *dtype = v.node()->storage_dtype;
  return true;
}

void for_each_tensor(const PickleValue& v, const std::function<void(const std::string&, const Tensor&)>& f) {
  std::unordered_set<const PickleNode*> seen;
  walk(v, "", false, seen, f);
}

}  // namespace ember::serialize
