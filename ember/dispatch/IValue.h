#pragma once
// Note [boxed values]
// IValue is the boxed value of the boxed calling convention (Python binding, tracer, interpreter, custom
// ops): a tag plus an 8-byte payload. Numbers, bools, dtypes and devices live inline; tensors, strings and
// lists hold one refcounted pointer. `int[]` lists have their own contiguous representation so a kernel can
// view them as IntArrayRef without copying, and likewise `Tensor[]`.
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember {

class IValue;
using Stack = std::vector<IValue>;

/// Heap payloads of IValue.
struct StringObj : intrusive_target {
  std::string s;
  explicit StringObj(std::string v) : s(std::move(v)) {}
};
struct IntListObj : intrusive_target {
  std::vector<int64_t> v;
};
struct TensorListObj : intrusive_target {
  std::vector<Tensor> v;
};
// The payloads holding IValues declare their (virtual) destructors here and define them after IValue is
// complete: a virtual destructor defined in the class is instantiated at once by Clang, with IValue still
// incomplete (GCC defers it), so Ember's headers compile with both.
struct ListObj : intrusive_target {  // generic list: float[], bool[], Tensor?[], nested
  std::vector<IValue> v;
  ~ListObj() override;
};
struct TupleObj : intrusive_target {
  std::vector<IValue> v;
  ~TupleObj() override;
};
struct DictObj : intrusive_target {  // insertion-ordered; keys are str, int or Tensor
  std::vector<std::pair<IValue, IValue>> items;
  ~DictObj() override;
};

class IValue {
 public:
  enum class Tag : uint8_t {
    None, Bool, Int, Double, String, Tensor, DType, Device, Generator, IntList, TensorList, List, Tuple, Dict
  };

  IValue() : tag_(Tag::None) { p_.i = 0; }
  IValue(std::nullopt_t) : IValue() {}
  IValue(bool v) : tag_(Tag::Bool) { p_.i = v; }
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  IValue(I v) : tag_(Tag::Int) {
    p_.i = static_cast<int64_t>(v);
  }
  IValue(double v) : tag_(Tag::Double) { p_.d = v; }
  IValue(const Scalar& s);
  IValue(DType t) : tag_(Tag::DType) { p_.i = static_cast<int64_t>(t); }
  IValue(Device d) : tag_(Tag::Device) { p_.i = static_cast<int64_t>(d.type()) << 8 | static_cast<uint8_t>(d.index()); }
  IValue(MemoryFormat m) : IValue(static_cast<int64_t>(m)) {}
  IValue(std::string s) : IValue(Tag::String, new StringObj(std::move(s))) {}
  IValue(std::string_view s) : IValue(std::string(s)) {}
  IValue(const char* s) : IValue(std::string(s)) {}
  IValue(const Tensor& t);
  IValue(Tensor&& t);
  IValue(const Generator& g);
  IValue(IntArrayRef v);
  IValue(std::vector<int64_t> v);
  IValue(TensorList v);
  IValue(std::vector<Tensor> v);
  template <class T>
  IValue(const std::optional<T>& o) : IValue() {
    if (o) *this = IValue(*o);
  }
  /// A generic list / tuple.
  static IValue list(std::vector<IValue> v);
  static IValue tuple(std::vector<IValue> v);
  static IValue dict(std::vector<std::pair<IValue, IValue>> items);

  IValue(const IValue& o) : tag_(o.tag_), p_(o.p_) { retain(); }
  IValue(IValue&& o) noexcept : tag_(o.tag_), p_(o.p_) {
    o.tag_ = Tag::None;
    o.p_.i = 0;
  }
  IValue& operator=(const IValue& o) {
    IValue(o).swap(*this);
    return *this;
  }
  IValue& operator=(IValue&& o) noexcept {
    IValue(std::move(o)).swap(*this);
    return *this;
  }
  ~IValue() { release(); }
  void swap(IValue& o) noexcept {
    std::swap(tag_, o.tag_);
    std::swap(p_, o.p_);
  }

  Tag tag() const { return tag_; }
  std::string_view tag_name() const;
  bool is_none() const { return tag_ == Tag::None; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_scalar() const { return is_int() || is_double() || is_bool() || is_complex_scalar(); }
  /// A complex Scalar, boxed as a 0-dim complex128 wrapped-number tensor (Note [boxed complex scalars]).
  bool is_complex_scalar() const;
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_list() const { return tag_ == Tag::List; }
  bool is_tuple() const { return tag_ == Tag::Tuple; }

  // Accessors check the tag and raise a RuntimeError naming the expected and actual kinds.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // also accepts int
  Scalar to_scalar() const;  // bool, int, double or complex (Note [boxed complex scalars])
  DType to_dtype() const;
  Device to_device() const;
  const std::string& to_string() const;
  const Tensor& to_tensor() const {
    if (tag_ != Tag::Tensor) [[unlikely]] bad_tag("Tensor");
    return p_.t;  // See Note [boxed tensors]
  }
  Generator to_generator() const;
  IntArrayRef to_int_list() const;
  TensorList to_tensor_list() const;
  const std::vector<IValue>& to_list() const;  // generic list or tuple
  const std::vector<IValue>& to_tuple() const;
  const std::vector<std::pair<IValue, IValue>>& to_dict() const;
  // LibTorch's c10::IValue spellings of the tests and accessors above (same checks and errors).
  bool isNone() const { return is_none(); }
  bool isBool() const { return is_bool(); }
  bool isInt() const { return is_int(); }
  bool isDouble() const { return is_double(); }
  bool isString() const { return is_string(); }
  bool isTensor() const { return is_tensor(); }
  bool isTuple() const { return is_tuple(); }
  bool isList() const { return is_list(); }
  bool isTensorList() const { return is_tensor_list(); }
  bool isIntList() const { return is_int_list(); }
  bool toBool() const { return to_bool(); }
  int64_t toInt() const { return to_int(); }
  double toDouble() const { return to_double(); }
  Scalar toScalar() const { return to_scalar(); }
  DType toScalarType() const { return to_dtype(); }
  Device toDevice() const { return to_device(); }
  const std::string& toStringRef() const { return to_string(); }
  const Tensor& toTensor() const { return to_tensor(); }
  std::vector<int64_t> toIntVector() const { return to_int_list().vec(); }
  std::vector<Tensor> toTensorVector() const { return to_tensor_list().vec(); }

  /// Identity of the heap payload (for tensors: the TensorImpl), null for inline values.
  const void* payload_ptr() const { return is_heap() ? p_.p : nullptr; }

  /// Debug text: "None", "3", "2.5", "[1, 2]", "Tensor(float32[2, 3])", ...
  std::string repr() const;

 private:
  IValue(Tag t, intrusive_target* p) : tag_(t) {
    p_.p = p;
    retain();
  }
  bool is_heap() const { return tag_ >= Tag::String && tag_ != Tag::DType && tag_ != Tag::Device; }
  void retain();
  void release();
  [[noreturn]] void bad_tag(std::string_view want) const;

  Tag tag_;
  // Note [boxed tensors]
  // A Tensor is exactly one intrusive_ptr<TensorImpl>, i.e. one TensorImpl* whose intrusive_target base is
  // at offset 0, so a Tensor payload is stored as that pointer and viewed as a Tensor in place.
  union Payload {
    int64_t i;
    double d;
    intrusive_target* p;
    Tensor t;  // read only; written through p (same bits)
    Payload() : i(0) {}
    Payload(const Payload& o) { std::memcpy(static_cast<void*>(this), &o, sizeof(Payload)); }
    Payload& operator=(const Payload& o) {
      std::memcpy(static_cast<void*>(this), &o, sizeof(Payload));
      return *this;
    }
    ~Payload() {}
  } p_;
  static_assert(sizeof(Tensor) == sizeof(void*));
};

inline ListObj::~ListObj() = default;
inline TupleObj::~TupleObj() = default;
inline DictObj::~DictObj() = default;

}  // namespace ember
