#pragma once
// The values the safe pickle reader (Pickle.h) produces: Python's data model as far as PyTorch's files use it
// (ints, floats, strings, bytes, tuples, lists, dicts, sets, ...), Ember objects for the allow-listed globals
// (tensors, storages, dtypes, devices, torch.Size, OrderedDict) and inert placeholders for every other class,
// whose class name, arguments and state can be read but which never run anything.
//
// Note [pickle values]
// A PickleValue is a small handle: scalars (None, bool, int, float, complex, dtype) inline, everything else in a
// refcounted PickleNode shared the way Python shares objects (the pickle memo hands out the same node twice, and
// APPEND / SETITEM / BUILD mutate a node that other values already hold). The reader guarantees that a value it
// returns has no reference cycles and is at most PickleLimits::max_depth containers deep (Pickle.h), so that
// walking and destroying it cannot recurse without bound; walkers must still visit a shared node once (a DAG of
// n nodes can have 2^n paths), e.g. by memoizing on node(). The JIT's TorchScript reader uses the same type for
// data.pkl and constants.pkl.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/DType.h"
#include "ember/core/Storage.h"
#include "ember/core/Tensor.h"

namespace ember::serialize {

struct PickleNode;

/// One unpickled value (Note [pickle values]).
class PickleValue {
 public:
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,      // fits in int64
    BigInt,   // a LONG1/LONG4 beyond 64 bits: node()->text holds its little-endian two's-complement bytes
    Float,
    Complex,  // builtins.complex(real, imag)
    DType,    // torch.float32, ...
    String,   // node()->text, UTF-8
    Bytes,    // node()->text, raw
    Tuple,    // node()->items; node()->flag: a torch.Size
    List,     // node()->items
    Dict,     // node()->entries in insertion order; flag: an OrderedDict; attrs: what BUILD set (e.g. _metadata)
    Set,      // node()->items; flag: a frozenset
    Slice,    // node()->items = {start, stop, step}
    Device,   // node()->text: "cpu", "cuda:0", ... (torch.device)
    Storage,  // node()->storage, dtype, storage_numel (a typed storage of PyTorch)
    Tensor,   // node()->tensor; flag: an nn.Parameter; requires_grad
    Global,   // a class or function named by GLOBAL: node()->text "module.name"; flag: allow-listed
    Object,   // a placeholder: node()->text its class; items its constructor arguments; state what BUILD gave;
              // entries / list_items what SETITEMS / APPENDS added (dict and list subclasses)
  };

  PickleValue() = default;
  static PickleValue none() { return {}; }
  static PickleValue boolean(bool b) { return scalar(Kind::Bool, b, 0); }
  static PickleValue integer(int64_t i) { return scalar(Kind::Int, i, 0); }
  static PickleValue floating(double d) { return scalar(Kind::Float, 0, d); }
  static PickleValue complex(double re, double im);
  static PickleValue dtype(DType t) { return scalar(Kind::DType, static_cast<int64_t>(t), 0); }
  /// A value held in a node (every kind other than the scalars above).
  static PickleValue with_node(Kind k, std::shared_ptr<PickleNode> n) {
    PickleValue v;
    v.kind_ = k;
    v.node_ = std::move(n);
    return v;
  }

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool to_bool() const { return i_ != 0; }
  int64_t to_int() const { return i_; }
  double to_double() const { return d_; }
  double imag() const { return d2_; }
  DType to_dtype() const { return static_cast<DType>(i_); }
  /// The node of a non-scalar value (null for scalars).
  PickleNode* node() const { return node_.get(); }
  const std::shared_ptr<PickleNode>& node_ptr() const { return node_; }

  /// "int", "str", "tuple", "collections.OrderedDict", the class of a placeholder, ... for error messages.
  std::string type_name() const;

 private:
  static PickleValue scalar(Kind k, int64_t i, double d) {
    PickleValue v;
    v.kind_ = k;
    v.i_ = i;
    v.d_ = d;
    return v;
  }
  Kind kind_ = Kind::None;
  int64_t i_ = 0;
  double d_ = 0, d2_ = 0;
  std::shared_ptr<PickleNode> node_;
};

/// PickleNode::code of Object nodes that NumPy values became (Note [numpy in pickles] in Pickle.cpp): a dtype, an
/// array before its BUILD, and an array whose `tensor` holds its data (read it as that tensor).
inline constexpr int kNumpyDtypeValue = 1, kNumpyArrayPending = 2, kNumpyArray = 3;

/// The heap part of a PickleValue; which fields are used depends on the value's kind (see PickleValue::Kind).
struct PickleNode {
  std::string text;
  std::vector<PickleValue> items;
  std::vector<std::pair<PickleValue, PickleValue>> entries;
  std::vector<PickleValue> list_items;  // placeholders of list subclasses: what APPEND(S) added
  std::vector<PickleValue> state;       // dict attrs / placeholder state: zero or one value (BUILD)
  bool flag = false;
  bool requires_grad = false;
  ember::Tensor tensor;
  ember::Storage storage;
  DType storage_dtype = DType::UInt8;
  int64_t storage_numel = 0;
  int code = 0;  // Global nodes: which allow-listed global (Pickle.cpp's AllowedGlobal); Object nodes: kNumpy* below
};

}  // namespace ember::serialize
