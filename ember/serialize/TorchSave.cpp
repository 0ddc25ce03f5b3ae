// Writing torch.save's zip format (Note [torch.save writer] in TorchCheckpoint.h): a protocol-2 pickler of IValue
// trees whose tensors become persistent ids of storages, and the archive around it.
#include <bit>
#include <cstring>
#include <unordered_map>

#include "ember/serialize/TorchCheckpoint.h"
#include "ember/serialize/ZipPlan.h"

namespace ember::serialize {

namespace {

// The storage class torch.<Name>Storage of a dtype.
std::string_view storage_class(DType t) {
  switch (t) {
    case kUInt8: return "ByteStorage";
    case kInt8: return "CharStorage";
    case kInt16: return "ShortStorage";
    case kInt32: return "IntStorage";
    case kInt64: return "LongStorage";
    case kFloat16: return "HalfStorage";
    case kFloat32: return "FloatStorage";
    case kFloat64: return "DoubleStorage";
    case kBool: return "BoolStorage";
    case kBFloat16: return "BFloat16Storage";
    case kComplexFloat: return "ComplexFloatStorage";
    case kComplexDouble: return "ComplexDoubleStorage";
  }
  return "?";
}

class TorchPickler {
 public:
  explicit TorchPickler(const Attributes* attrs) : attrs_(attrs) {}

  detail::ZipPlan plan(const IValue& obj) {
    out_ += "\x80\x02";  // PROTO 2: what torch.save writes and torch 1.13's weights_only reads
    value(obj, 0);
    out_ += '.';
    detail::ZipPlan p;
    p.manifest_name = "archive/data.pkl";
    p.manifest = std::move(out_);
    p.storages = std::move(storages_);
    for (size_t i = 0; i < p.storages.size(); ++i) p.entries.push_back("archive/data/" + std::to_string(i));
    p.trailing.emplace_back("archive/version", "3\n");
    return p;
  }

 private:
  // ---- opcodes ----
  void u8(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  template <class T>
  void le(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void integer(int64_t i) {
    if (i >= 0 && i < 256) {
      u8('K');
      u8(static_cast<uint8_t>(i));
    } else if (i >= 0 && i < 65536) {
      u8('M');
      le(static_cast<uint16_t>(i));
    } else if (i >= INT32_MIN && i <= INT32_MAX) {
      u8('J');
      le(static_cast<int32_t>(i));
    } else {
      u8(0x8a);  // LONG1: 8 bytes of two's complement
      u8(8);
      le(i);
    }
  }
  void string(std::string_view s) {
    u8('X');
    le(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  // GLOBAL module name, memoized: later uses are BINGETs.
  void global(const std::string& module, std::string_view name) {
    const std::string key = module + "\n" + std::string(name) + "\n";
    auto it = globals_.find(key);
    if (it != globals_.end()) return get(it->second);
    out_ += 'c';
    out_ += key;
    globals_.emplace(key, put());
  }
  uint32_t put() {
    const uint32_t i = next_memo_++;
    if (i < 256) {
      u8('q');
      u8(static_cast<uint8_t>(i));
    } else {
      u8('r');
      le(i);
    }
    return i;
  }
  void get(uint32_t i) {
    if (i < 256) {
      u8('h');
      u8(static_cast<uint8_t>(i));
    } else {
      u8('j');
      le(i);
    }
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    out_ += ")R";
  }
  void tuple_of_ints(IntArrayRef v) {
    if (v.empty()) {
      out_ += ')';
      return;
    }
    out_ += '(';
    for (int64_t x : v) integer(x);
    out_ += 't';
  }

  // ---- values ----
  void value(const IValue& v, int depth) {
    EMBER_CHECK(depth <= kMaxDepth, "save: the object is nested more than {} containers deep", kMaxDepth);
    switch (v.tag()) {
      case IValue::Tag::None: out_ += 'N'; return;
      case IValue::Tag::Bool: u8(v.to_bool() ? 0x88 : 0x89); return;
      case IValue::Tag::Int: integer(v.to_int()); return;
      case IValue::Tag::Double:
        u8('G');
        le(__builtin_bswap64(std::bit_cast<uint64_t>(v.to_double())));  // BINFLOAT is big-endian
        return;
      case IValue::Tag::String: string(v.to_string()); return;
      case IValue::Tag::DType: global("torch", dtype_name(v.to_dtype())); return;
      case IValue::Tag::Device:
        global("torch", "device");
        string(v.to_device().str());
        out_ += "\x85R";
        return;
      case IValue::Tag::Tensor: tensor(v.to_tensor()); return;
      case IValue::Tag::IntList: {
        out_ += "](";
        for (int64_t i : v.to_int_list()) integer(i);
        out_ += 'e';
        return;
      }
      case IValue::Tag::TensorList: {
        out_ += "](";
        for (const Tensor& t : v.to_tensor_list()) tensor(t);
        out_ += 'e';
        return;
      }
      case IValue::Tag::List: {
        out_ += ']';
        const auto& items = v.to_list();
        for (size_t i = 0; i < items.size(); i += 1000) {  // APPENDS in batches, as pickle does
          out_ += '(';
          for (size_t j = i; j < std::min(items.size(), i + 1000); ++j) value(items[j], depth + 1);
          out_ += 'e';
        }
        return;
      }
      case IValue::Tag::Tuple: {
        const bool size = attrs_ && [&] {
          auto it = attrs_->tuple_classes.find(v.payload_ptr());
          return it != attrs_->tuple_classes.end() && it->second.size;
        }();
        if (size) global("torch", "Size");
        const auto& items = v.to_list();
        if (items.empty()) {
          out_ += ')';
        } else {
          out_ += '(';
          for (const IValue& x : items) value(x, depth + 1);
          out_ += 't';
        }
        if (size) out_ += "\x85R";
        return;
      }
      case IValue::Tag::Dict: {
        const bool ordered = attrs_ && attrs_->ordered_dicts.count(v.payload_ptr());
        if (ordered) empty_ordered_dict();
        else out_ += '}';
        const auto& items = v.to_dict();
        for (size_t i = 0; i < items.size(); i += 1000) {
          out_ += '(';
          for (size_t j = i; j < std::min(items.size(), i + 1000); ++j) {
            EMBER_CHECK_KIND(ErrorKind::Type, items[j].first.is_string() || items[j].first.is_int(),
                             "save: dict keys must be str or int, not {}", items[j].first.tag_name());
            value(items[j].first, depth + 1);
            value(items[j].second, depth + 1);
          }
          out_ += 'u';
        }
        if (ordered && attrs_) {
          auto it = attrs_->dict_metadata.find(v.payload_ptr());
          if (it != attrs_->dict_metadata.end()) {  // BUILD {'_metadata': ...}: OrderedDict's __dict__
            out_ += '}';
            string("_metadata");
            value(it->second, depth + 1);
            out_ += "sb";
          }
        }
        return;
      }
      case IValue::Tag::Generator: break;
    }
    EMBER_FAIL_KIND(ErrorKind::Type, "save: cannot write a value of type {} in torch.save's format", v.tag_name());
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict()), inside
  // _rebuild_parameter(<that>, requires_grad, OrderedDict()) for a Parameter; the same TensorImpl once.
  void tensor(const Tensor& t) {
    EMBER_CHECK_KIND(ErrorKind::Type, t.defined(), "save: undefined tensor");
    EMBER_CHECK(t.is_cpu(), "save: only CPU tensors can be saved, not one on {}", t.device().str());
    auto memo = tensors_.find(t.impl());
    if (memo != tensors_.end()) return get(memo->second);
    const AutogradMetaInterface* meta = t.impl()->autograd_meta();
    const bool requires_grad = meta && meta->requires_grad();
    const bool parameter = attrs_ && attrs_->parameters.count(t.impl());
    if (parameter) {
      global("torch._utils", "_rebuild_parameter");
      out_ += '(';
    }
    global("torch._utils", "_rebuild_tensor_v2");
    out_ += '(';
    storage(t);
    integer(t.storage_offset());
    tuple_of_ints(t.sizes());
    tuple_of_ints(t.strides());
    u8(!parameter && requires_grad ? 0x88 : 0x89);
    empty_ordered_dict();
    out_ += "tR";
    if (parameter) {
      u8(requires_grad ? 0x88 : 0x89);
      empty_ordered_dict();
      out_ += "tR";
    }
    tensors_.emplace(t.impl(), put());
  }

  // BINPERSID ('storage', torch.<T>Storage, key, 'cpu', numel); a storage is written once.
  void storage(const Tensor& t) {
    const StorageImpl* s = t.impl()->storage().get();
    const DType dtype = t.dtype();
    auto [it, fresh] = storage_ids_.try_emplace(s, storages_.size(), dtype);
    if (fresh) storages_.push_back(t.impl()->storage());
    EMBER_CHECK(it->second.second == dtype,
                "save: tensors of {} and {} share one storage; torch.save's format gives a storage one element "
                "type (save a copy of one of them)",
                dtype_name(it->second.second), dtype_name(dtype));
    const int64_t es = element_size(dtype);
    EMBER_CHECK(s->nbytes() % static_cast<size_t>(es) == 0,
                "save: a storage of {} bytes does not hold a whole number of {} elements", s->nbytes(),
                dtype_name(dtype));
    out_ += '(';
    string("storage");
    global("torch", storage_class(dtype));
    string(std::to_string(it->second.first));
    string("cpu");
    integer(static_cast<int64_t>(s->nbytes()) / es);
    out_ += "tQ";
  }

  const Attributes* attrs_;
  std::string out_;
  uint32_t next_memo_ = 0;
  std::unordered_map<std::string, uint32_t> globals_;
  std::unordered_map<const TensorImpl*, uint32_t> tensors_;
  std::unordered_map<const StorageImpl*, std::pair<size_t, DType>> storage_ids_;
  std::vector<Storage> storages_;
};

}  // namespace

void save_torch(const IValue& obj, const std::string& path, const Attributes* attrs) {
  detail::write_plan(TorchPickler(attrs).plan(obj), path);
}

std::string save_torch_to_bytes(const IValue& obj, const Attributes* attrs) {
  std::string out;
  detail::write_plan_to_stream(TorchPickler(attrs).plan(obj),
                               [&out](const void* data, size_t n) { out.append(static_cast<const char*>(data), n); });
  return out;
}

}  // namespace ember::serialize
