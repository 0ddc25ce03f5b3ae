#pragma once
// Types of IR values, spelled as TorchScript spells them in graph text: Tensor (optionally refined with a
// dtype and sizes: "Float(2, *, 3)"), int, float, bool, str, NoneType, Device, Scalar (a number), Any,
// List[T] ("int[]"), Tuple ("(Tensor, int)"), Dict ("Dict(str, Tensor)"), Optional ("Tensor?"), and class
// types for module objects ("__torch__.Net").
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/DType.h"

namespace ember {
class Tensor;
}

namespace ember::jit {

enum class TypeKind : uint8_t {
  Any, Tensor, Int, Float, Bool, Str, None, Device, Number, List, Tuple, Dict, Optional, Class
};

class Type;
/// Types are immutable and shared (class types excepted: their attribute table grows, Note [class types]).
using TypePtr = std::shared_ptr<const Type>;

/// The base of all types. Simple types are singletons (Type::int_type(), ...); container and refined
/// types are built by their classes' create().
class Type {
 public:
  virtual ~Type() = default;
  TypeKind kind() const { return kind_; }
  /// The annotation as graph text prints it: "Tensor", "int[]", "(Tensor, int)", "Float(2, 3)".
  virtual std::string str() const = 0;
  /// Structural equality (class types: by name).
  virtual bool equals(const Type& other) const;
  /// Whether a value of this type may be used where `other` is expected: every type is a subtype of Any and
  /// of itself; int, float and bool of Scalar; NoneType and T of Optional[T]; a refined Tensor of Tensor;
  /// containers element-wise (covariant).
  bool is_subtype_of(const Type& other) const;
  /// The contained types of a container (List: 1, Optional: 1, Dict: 2, Tuple: n), else empty.
  virtual std::vector<TypePtr> contained() const { return {}; }

  /// Downcast by kind; nullptr when this is not a T.
  template <class T>
  const T* cast() const {
    return kind_ == T::Kind ? static_cast<const T*>(this) : nullptr;
  }

  static TypePtr any_type();
  static TypePtr tensor_type();  // unrefined Tensor
  static TypePtr int_type();
  static TypePtr float_type();
  static TypePtr bool_type();
  static TypePtr str_type();
  static TypePtr none_type();
  static TypePtr device_type();
  static TypePtr number_type();  // "Scalar": int, float or bool

 protected:
  explicit Type(TypeKind k) : kind_(k) {}

 private:
  TypeKind kind_;
};

bool operator==(const Type& a, const Type& b);

/// A tensor, optionally refined with its dtype and its sizes (each size may be unknown).
/// Text: "Tensor" (nothing known), "Float" (dtype only, rank unknown), "Float(2, *, 3)" (dtype and sizes;
/// * is an unknown size), "Float()" (dtype, 0-dim), "Tensor(2, 3)" (sizes only). The dtype names are
/// TorchScript's: Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16.
class TensorType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::Tensor;
  using Sizes = std::vector<std::optional<int64_t>>;
  static std::shared_ptr<const TensorType> create(std::optional<DType> dtype, std::optional<Sizes> sizes);
  /// The complete type of a tensor: its dtype and sizes.
  static std::shared_ptr<const TensorType> from_tensor(const Tensor& t);
  const std::optional<DType>& dtype() const { return dtype_; }
  const std::optional<Sizes>& sizes() const { return sizes_; }
  /// Unrefined: neither dtype nor sizes known.
  bool is_unrefined() const { return !dtype_ && !sizes_; }
  std::string str() const override;
  bool equals(const Type& other) const override;

  TensorType(std::optional<DType> dtype, std::optional<Sizes> sizes)
      : Type(Kind), dtype_(dtype), sizes_(std::move(sizes)) {}

 private:
  std::optional<DType> dtype_;
  std::optional<Sizes> sizes_;
};

/// TorchScript's name of a dtype in tensor types ("Float" for float32); nullopt-safe inverse below.
std::string_view dtype_type_name(DType t);
/// The dtype of a TorchScript dtype name ("Long" -> int64), or nullopt.
std::optional<DType> dtype_from_type_name(std::string_view name);

/// List[T], printed "T[]".
class ListType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::List;
  static std::shared_ptr<const ListType> create(TypePtr elem);
  const TypePtr& elem() const { return elem_; }
  std::string str() const override;
  std::vector<TypePtr> contained() const override { return {elem_}; }
  explicit ListType(TypePtr elem) : Type(Kind), elem_(std::move(elem)) {}

 private:
  TypePtr elem_;
};

/// Optional[T], printed "T?".
class OptionalType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::Optional;
  static std::shared_ptr<const OptionalType> create(TypePtr elem);
  const TypePtr& elem() const { return elem_; }
  std::string str() const override;
  std::vector<TypePtr> contained() const override { return {elem_}; }
  explicit OptionalType(TypePtr elem) : Type(Kind), elem_(std::move(elem)) {}

 private:
  TypePtr elem_;
};

/// Tuple[T1, ..., Tn], printed "(T1, ..., Tn)".
class TupleType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::Tuple;
  static std::shared_ptr<const TupleType> create(std::vector<TypePtr> elems);
  const std::vector<TypePtr>& elements() const { return elems_; }
  std::string str() const override;
  std::vector<TypePtr> contained() const override { return elems_; }
  explicit TupleType(std::vector<TypePtr> elems) : Type(Kind), elems_(std::move(elems)) {}

 private:
  std::vector<TypePtr> elems_;
};

/// Dict[K, V], printed "Dict(K, V)". Keys are str, int or Tensor (as IValue's dicts).
class DictType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::Dict;
  /// Errors: a key type other than str, int or Tensor.
  static std::shared_ptr<const DictType> create(TypePtr key, TypePtr value);
  const TypePtr& key() const { return key_; }
  const TypePtr& value() const { return value_; }
  std::string str() const override;
  std::vector<TypePtr> contained() const override { return {key_, value_}; }
  DictType(TypePtr key, TypePtr value) : Type(Kind), key_(std::move(key)), value_(std::move(value)) {}

 private:
  TypePtr key_, value_;
};

/// Note [class types]
/// The type of a module object (`self`), named like TorchScript's "__torch__.Net". It lists the object's
/// attributes (submodules, parameters, buffers, plain values) with their types, so prim::GetAttr nodes have a
/// typed result. The tracer builds the table while it walks a module, hence attributes can be added after
/// creation (the only mutable type); two class types are equal when their names are.
class ClassType : public Type {
 public:
  static constexpr TypeKind Kind = TypeKind::Class;
  /// Errors: a name that is not a dotted identifier ("__torch__.Net").
  static std::shared_ptr<ClassType> create(std::string qualified_name);
  const std::string& name() const { return name_; }
  /// Adds (or retypes) an attribute.
  void add_attribute(const std::string& name, TypePtr type);
  /// The attribute's type, or nullptr when the class has no such attribute.
  TypePtr find_attribute(std::string_view name) const;
  const std::vector<std::pair<std::string, TypePtr>>& attributes() const { return attrs_; }
  std::string str() const override { return name_; }
  bool equals(const Type& other) const override;
  explicit ClassType(std::string name) : Type(Kind), name_(std::move(name)) {}

 private:
  std::string name_;
  std::vector<std::pair<std::string, TypePtr>> attrs_;
  std::map<std::string, size_t, std::less<>> index_;  // attribute name -> its place in attrs_ (a loaded module
                                                      // may have any number of attributes: no linear search)
};

/// The simple types (singletons), printed "Any", "int", "float", "bool", "str", "NoneType", "Device", "Scalar".
class SimpleType : public Type {
 public:
  std::string str() const override;
  explicit SimpleType(TypeKind k) : Type(k) {}
};

}  // namespace ember::jit
