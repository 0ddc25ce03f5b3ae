#include "ember/dispatch/IValue.h"

namespace ember {

namespace {
void retain_ptr(intrusive_target* p) { intrusive_ptr<intrusive_target>(p).release(); }
void release_ptr(intrusive_target* p) { intrusive_ptr<intrusive_target>::reclaim(p); }
}  // namespace

void IValue::retain() {
  if (is_heap() && p_.p) retain_ptr(p_.p);
}
void IValue::release() {
  if (is_heap() && p_.p) release_ptr(p_.p);
}

// Note [boxed complex scalars]
// A complex Scalar is boxed as a 0-dim complex128 tensor marked as a wrapped number (what PyTorch's
// wrapped_scalar_tensor makes of a Python complex), so the boxed value needs no tag of its own: to_scalar()
// unboxes it, and the shape rules treat it as the wrapped number it is.
IValue::IValue(const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Complex: {
      Tensor t = make_empty({}, kComplexDouble);
      *static_cast<std::complex<double>*>(t.impl()->data()) = s.to_complex_double();
      t.impl()->set_wrapped_number(true);
      tag_ = Tag::Tensor;
      p_.p = t.impl();
      retain();
      break;
    }
    case Scalar::Tag::Bool:
      tag_ = Tag::Bool;
      p_.i = s.to_bool();
      break;
    case Scalar::Tag::Int:
      tag_ = Tag::Int;
      p_.i = s.to_long();
      break;
    case Scalar::Tag::Double:
      tag_ = Tag::Double;
      p_.d = s.to_double();
      break;
  }
}

IValue::IValue(const Tensor& t) : tag_(Tag::Tensor) {
  if (!t.defined()) {
    tag_ = Tag::None;
    p_.i = 0;
    return;
  }
  p_.p = t.impl();
  retain();
}
IValue::IValue(Tensor&& t) : tag_(Tag::Tensor) {
  if (!t.defined()) {
    tag_ = Tag::None;
    p_.i = 0;
    return;
  }
  p_.p = const_cast<intrusive_ptr<TensorImpl>&>(t.impl_ptr()).release();
}
IValue::IValue(const Generator& g) : IValue(Tag::Generator, g.get()) {}
IValue::IValue(IntArrayRef v) : IValue(std::vector<int64_t>(v.begin(), v.end())) {}
IValue::IValue(std::vector<int64_t> v) : IValue(Tag::IntList, new IntListObj()) {
  static_cast<IntListObj*>(p_.p)->v = std::move(v);
}
IValue::IValue(TensorList v) : IValue(std::vector<Tensor>(v.begin(), v.end())) {}
IValue::IValue(std::vector<Tensor> v) : IValue(Tag::TensorList, new TensorListObj()) {
  static_cast<TensorListObj*>(p_.p)->v = std::move(v);
}
IValue IValue::list(std::vector<IValue> v) {
  auto* o = new ListObj();
  o->v = std::move(v);
  return IValue(Tag::List, o);
}
IValue IValue::tuple(std::vector<IValue> v) {
  auto* o = new TupleObj();
  o->v = std::move(v);
  return IValue(Tag::Tuple, o);
}
IValue IValue::dict(std::vector<std::pair<IValue, IValue>> items) {
  auto* o = new DictObj();
  o->items = std::move(items);
  return IValue(Tag::Dict, o);
}

std::string_view IValue::tag_name() const {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Bool: return "bool";
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::String: return "str";
    case Tag::Tensor: return "Tensor";
    case Tag::DType: return "ScalarType";
    case Tag::Device: return "Device";
    case Tag::Generator: return "Generator";
    case Tag::IntList: return "int[]";
    case Tag::TensorList: return "Tensor[]";
    case Tag::List: return "list";
    case Tag::Tuple: return "tuple";
    case Tag::Dict: return "dict";
  }
  return "?";
}

void IValue::bad_tag(std::string_view want) const {
  EMBER_FAIL_KIND(ErrorKind::Type, "expected a value of type {} but got {}", want, tag_name());
}

bool IValue::to_bool() const {
  if (tag_ != Tag::Bool) bad_tag("bool");
  return p_.i != 0;
}
int64_t IValue::to_int() const {
  if (tag_ != Tag::Int) bad_tag("int");
  return p_.i;
}
double IValue::to_double() const {
  if (tag_ == Tag::Double) return p_.d;
  if (tag_ == Tag::Int) return static_cast<double>(p_.i);
  bad_tag("float");
}
Scalar IValue::to_scalar() const {
  switch (tag_) {
    case Tag::Bool: return Scalar(p_.i != 0);
    case Tag::Int: return Scalar(p_.i);
    case Tag::Double: return Scalar(p_.d);
    default:
      if (is_complex_scalar()) return to_tensor().item();
      bad_tag("Scalar");
  }
}
bool IValue::is_complex_scalar() const {
  if (tag_ != Tag::Tensor) return false;
  const Tensor& t = to_tensor();
  return t.dim() == 0 && t.dtype() == kComplexDouble && t.impl()->is_wrapped_number();
}
DType IValue::to_dtype() const {
  if (tag_ != Tag::DType) bad_tag("ScalarType");
  return static_cast<DType>(p_.i);
}
Device IValue::to_device() const {
  if (tag_ != Tag::Device) bad_tag("Device");
  return Device(static_cast<DeviceType>(p_.i >> 8), static_cast<int8_t>(p_.i & 0xff));
}
const std::string& IValue::to_string() const {
  if (tag_ != Tag::String) bad_tag("str");
  return static_cast<StringObj*>(p_.p)->s;
}
Generator IValue::to_generator() const {
  if (tag_ != Tag::Generator) bad_tag("Generator");
  return Generator(static_cast<GeneratorImpl*>(p_.p));
}
IntArrayRef IValue::to_int_list() const {
  if (tag_ != Tag::IntList) bad_tag("int[]");
  return static_cast<IntListObj*>(p_.p)->v;
}
TensorList IValue::to_tensor_list() const {
  if (tag_ != Tag::TensorList) bad_tag("Tensor[]");
  return static_cast<TensorListObj*>(p_.p)->v;
}
const std::vector<IValue>& IValue::to_list() const {
  if (tag_ == Tag::List) return static_cast<ListObj*>(p_.p)->v;
  if (tag_ == Tag::Tuple) return static_cast<TupleObj*>(p_.p)->v;
  bad_tag("list");
}
const std::vector<IValue>& IValue::to_tuple() const {
  if (tag_ != Tag::Tuple) bad_tag("tuple");
  return static_cast<TupleObj*>(p_.p)->v;
}
const std::vector<std::pair<IValue, IValue>>& IValue::to_dict() const {
  if (tag_ != Tag::Dict) bad_tag("dict");
  return static_cast<DictObj*>(p_.p)->items;
}

std::string IValue::repr() const {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Bool: return p_.i ? "True" : "False";
    case Tag::Int: return std::to_string(p_.i);
    case Tag::Double: return fmt::format("{}", p_.d);
    case Tag::String: return fmt::format("\"{}\"", to_string());
    case Tag::Tensor: return fmt::format("Tensor({}{})", to_tensor().dtype(), to_tensor().sizes());
    case Tag::DType: return fmt::format("{}", to_dtype());
    case Tag::Device: return to_device().str();
    case Tag::Generator: return "Generator";
    case Tag::IntList: return fmt::format("{}", to_int_list());
    case Tag::TensorList: return fmt::format("Tensor[{}]", to_tensor_list().size());
    case Tag::List:
    case Tag::Tuple: {
      std::string s = tag_ == Tag::List ? "[" : "(";
      const auto& v = to_list();
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].repr();
      if (tag_ == Tag::Tuple && v.size() == 1) s += ",";
      return s + (tag_ == Tag::List ? "]" : ")");
    }
    case Tag::Dict: {
      std::string s = "{";
      const auto& d = to_dict();
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i].first.repr() + ": " + d[i].second.repr();
      return s + "}";
    }
  }
  return "?";
}

}  // namespace ember
