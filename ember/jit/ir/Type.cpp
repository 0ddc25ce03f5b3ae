#include "ember/jit/ir/Type.h"

#include <cctype>

#include "ember/base/Error.h"
#include "ember/core/Tensor.h"

namespace ember::jit {

namespace {
std::string join_types(const std::vector<TypePtr>& ts) {
  std::string r;
  for (size_t i = 0; i < ts.size(); ++i) r += (i ? ", " : "") + ts[i]->str();
  return r;
}
bool all_equal(const std::vector<TypePtr>& a, const std::vector<TypePtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i]->equals(*b[i])) return false;
  return true;
}
}  // namespace

// ---- simple types

std::string SimpleType::str() const {
  switch (kind()) {
    case TypeKind::Any: return "Any";
    case TypeKind::Int: return "int";
    case TypeKind::Float: return "float";
    case TypeKind::Bool: return "bool";
    case TypeKind::Str: return "str";
    case TypeKind::None: return "NoneType";
    case TypeKind::Device: return "Device";
    case TypeKind::Number: return "Scalar";
    default: return "?";
  }
}

#define EMBER_JIT_SIMPLE_TYPE(fn, k)                                       \
  TypePtr Type::fn() {                                                      \
    static const TypePtr t = std::make_shared<SimpleType>(TypeKind::k);     \
    return t;                                                               \
  }
EMBER_JIT_SIMPLE_TYPE(any_type, Any)
EMBER_JIT_SIMPLE_TYPE(int_type, Int)
EMBER_JIT_SIMPLE_TYPE(float_type, Float)
EMBER_JIT_SIMPLE_TYPE(bool_type, Bool)
EMBER_JIT_SIMPLE_TYPE(str_type, Str)
EMBER_JIT_SIMPLE_TYPE(none_type, None)
EMBER_JIT_SIMPLE_TYPE(device_type, Device)
EMBER_JIT_SIMPLE_TYPE(number_type, Number)
#undef EMBER_JIT_SIMPLE_TYPE

TypePtr Type::tensor_type() {
  static const TypePtr t = std::make_shared<TensorType>(std::nullopt, std::nullopt);
  return t;
}

bool Type::equals(const Type& other) const {
  if (kind() != other.kind()) return false;
  return all_equal(contained(), other.contained());
}

bool operator==(const Type& a, const Type& b) { return a.equals(b); }

bool Type::is_subtype_of(const Type& other) const {
  if (other.kind() == TypeKind::Any || equals(other)) return true;
  switch (other.kind()) {
    case TypeKind::Number:
      return kind() == TypeKind::Int || kind() == TypeKind::Float || kind() == TypeKind::Bool;
    case TypeKind::Optional: {
      const TypePtr& e = other.cast<OptionalType>()->elem();
      if (kind() == TypeKind::None) return true;
      if (kind() == TypeKind::Optional) return cast<OptionalType>()->elem()->is_subtype_of(*e);
      return is_subtype_of(*e);
    }
    case TypeKind::Tensor: {
      if (kind() != TypeKind::Tensor) return false;
      const auto* want = other.cast<TensorType>();
      const auto* have = cast<TensorType>();
      if (want->dtype() && have->dtype() != want->dtype()) return false;
      if (want->sizes()) {
        if (!have->sizes() || have->sizes()->size() != want->sizes()->size()) return false;
        for (size_t i = 0; i < want->sizes()->size(); ++i) {
          const auto& w = (*want->sizes())[i];
          if (w && (*have->sizes())[i] != w) return false;
        }
      }
      return true;
    }
    case TypeKind::List:
    case TypeKind::Tuple:
    case TypeKind::Dict: {
      if (kind() != other.kind()) return false;
      auto a = contained(), b = other.contained();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!a[i]->is_subtype_of(*b[i])) return false;
      return true;
    }
    default:
      return false;
  }
}

// ---- Tensor

namespace {
struct DTypeName {
  DType dtype;
  std::string_view name;
};
constexpr DTypeName kDTypeNames[] = {
    {kUInt8, "Byte"},  {kInt8, "Char"},    {kInt16, "Short"},  {kInt32, "Int"},  {kInt64, "Long"},
    {kFloat16, "Half"}, {kFloat32, "Float"}, {kFloat64, "Double"}, {kBool, "Bool"}, {kBFloat16, "BFloat16"},
};
}  // namespace

std::string_view dtype_type_name(DType t) {
  for (const auto& d : kDTypeNames)
    if (d.dtype == t) return d.name;
  return "Tensor";
}

std::optional<DType> dtype_from_type_name(std::string_view name) {
  for (const auto& d : kDTypeNames)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

std::shared_ptr<const TensorType> TensorType::create(std::optional<DType> dtype, std::optional<Sizes> sizes) {
  if (!dtype && !sizes) return std::static_pointer_cast<const TensorType>(tensor_type());
  return std::make_shared<TensorType>(dtype, std::move(sizes));
}

std::shared_ptr<const TensorType> TensorType::from_tensor(const Tensor& t) {
  EMBER_CHECK(t.defined(), "jit: TensorType::from_tensor of an undefined tensor");
  Sizes s(t.sizes().begin(), t.sizes().end());
  return create(t.dtype(), std::move(s));
}

std::string TensorType::str() const {
  std::string r(dtype_ ? dtype_type_name(*dtype_) : "Tensor");
  if (!sizes_) return r;
  r += "(";
  for (size_t i = 0; i < sizes_->size(); ++i) {
    if (i) r += ", ";
    r += (*sizes_)[i] ? std::to_string(*(*sizes_)[i]) : "*";
  }
  return r + ")";
}

bool TensorType::equals(const Type& other) const {
  const auto* o = other.cast<TensorType>();
  return o && o->dtype_ == dtype_ && o->sizes_ == sizes_;
}

// ---- containers

std::shared_ptr<const ListType> ListType::create(TypePtr elem) {
  EMBER_CHECK(elem, "jit: ListType::create with a null element type");
  return std::make_shared<ListType>(std::move(elem));
}
std::string ListType::str() const { return elem_->str() + "[]"; }

std::shared_ptr<const OptionalType> OptionalType::create(TypePtr elem) {
  EMBER_CHECK(elem, "jit: OptionalType::create with a null element type");
  return std::make_shared<OptionalType>(std::move(elem));
}
std::string OptionalType::str() const { return elem_->str() + "?"; }

std::shared_ptr<const TupleType> TupleType::create(std::vector<TypePtr> elems) {
  for (const auto& e : elems) EMBER_CHECK(e, "jit: TupleType::create with a null element type");
  return std::make_shared<TupleType>(std::move(elems));
}
std::string TupleType::str() const { return "(" + join_types(elems_) + ")"; }

std::shared_ptr<const DictType> DictType::create(TypePtr key, TypePtr value) {
  EMBER_CHECK(key && value, "jit: DictType::create with a null type");
  EMBER_CHECK(key->kind() == TypeKind::Str || key->kind() == TypeKind::Int || key->kind() == TypeKind::Tensor,
              "jit: dict keys must be str, int or Tensor, not {}", key->str());
  return std::make_shared<DictType>(std::move(key), std::move(value));
}
std::string DictType::str() const { return "Dict(" + key_->str() + ", " + value_->str() + ")"; }

// ---- classes

std::shared_ptr<ClassType> ClassType::create(std::string qualified_name) {
  bool ok = !qualified_name.empty();
  bool segment_start = true;
  for (char c : qualified_name) {
    if (c == '.') {
      ok = ok && !segment_start;
      segment_start = true;
      continue;
    }
    bool alpha = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    ok = ok && (alpha || (!segment_start && std::isdigit(static_cast<unsigned char>(c))));
    segment_start = false;
  }
  EMBER_CHECK(ok && !segment_start, "jit: '{}' is not a valid class name (dotted identifiers, e.g. __torch__.Net)",
              qualified_name);
  return std::make_shared<ClassType>(std::move(qualified_name));
}

void ClassType::add_attribute(const std::string& name, TypePtr type) {
  EMBER_CHECK(type, "jit: {}.add_attribute('{}') with a null type", name_, name);
  auto [it, fresh] = index_.try_emplace(name, attrs_.size());
  if (!fresh) {
    attrs_[it->second].second = std::move(type);
    return;
  }
  attrs_.emplace_back(name, std::move(type));
}

TypePtr ClassType::find_attribute(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : attrs_[it->second].second;
}

bool ClassType::equals(const Type& other) const {
  const auto* o = other.cast<ClassType>();
  return o && o->name_ == name_;
}

}  // namespace ember::jit
