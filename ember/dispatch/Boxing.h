#pragma once
// Note [typed and boxed kernels]
// A kernel registered from a typed C++ function keeps both forms: the function pointer (the fast typed path
// from C++: no boxing at all) and a boxed wrapper, instantiated once per C++ signature, that pops the
// arguments from a Stack of IValues, calls the function and pushes its results (for Python, the tracer and
// the interpreter). A kernel registered boxed-only is reached from typed calls by boxing the arguments.
// The C++ argument types a kernel may take, and the schema types they stand for:
//   const Tensor&  Tensor          const std::optional<Tensor>&  Tensor?     TensorList  Tensor[]
//   int64_t        int             std::optional<int64_t>        int?        IntArrayRef int[]
//   OptionalIntArrayRef int[]?     double  float                 std::optional<double>   float?
//   bool           bool            std::optional<bool>           bool?       const Scalar&  Scalar
//   const std::optional<Scalar>&  Scalar?   DType  ScalarType    std::optional<DType>    ScalarType?
//   std::optional<Device>  Device?  MemoryFormat  MemoryFormat   std::optional<MemoryFormat>  MemoryFormat?
//   std::string_view  str          std::optional<std::string_view>  str?
//   const std::optional<Generator>&  Generator?    const std::vector<std::optional<Tensor>>&  Tensor?[]
//   std::array<bool, N>  bool[N] (a generic list of N bools when boxed)
// and return Tensor, std::tuple<Tensor, ...>, std::vector<Tensor>, void, bool, int64_t, double or Scalar.
// m.impl() compares this signature with the schema and rejects a mismatch (Note [signature check]).
#include <array>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ember/dispatch/IValue.h"

namespace ember {

namespace boxing {

template <class T>
struct Arg;  // static holder get(const IValue&); static const char* name;

#define EMBER_ARG(CT, NAME, HOLDER, GET) \
  template <>                            \
  struct Arg<CT> {                       \
    static constexpr const char* name = NAME; \
    static HOLDER get(const IValue& v) { return GET; } \
  };
EMBER_ARG(const Tensor&, "Tensor", const Tensor&, v.to_tensor())
EMBER_ARG(const std::optional<Tensor>&, "Tensor?", std::optional<Tensor>,
          v.is_none() ? std::nullopt : std::optional<Tensor>(v.to_tensor()))
EMBER_ARG(TensorList, "Tensor[]", TensorList, v.to_tensor_list())
EMBER_ARG(int64_t, "int", int64_t, v.to_int())
EMBER_ARG(std::optional<int64_t>, "int?", std::optional<int64_t>,
          v.is_none() ? std::nullopt : std::optional<int64_t>(v.to_int()))
EMBER_ARG(IntArrayRef, "int[]", IntArrayRef, v.to_int_list())
EMBER_ARG(OptionalIntArrayRef, "int[]?", OptionalIntArrayRef,
          v.is_none() ? std::nullopt : OptionalIntArrayRef(v.to_int_list()))
EMBER_ARG(double, "float", double, v.to_double())
EMBER_ARG(std::optional<double>, "float?", std::optional<double>,
          v.is_none() ? std::nullopt : std::optional<double>(v.to_double()))
EMBER_ARG(bool, "bool", bool, v.to_bool())
EMBER_ARG(std::optional<bool>, "bool?", std::optional<bool>,
          v.is_none() ? std::nullopt : std::optional<bool>(v.to_bool()))
EMBER_ARG(const Scalar&, "Scalar", Scalar, v.to_scalar())
EMBER_ARG(const std::optional<Scalar>&, "Scalar?", std::optional<Scalar>,
          v.is_none() ? std::nullopt : std::optional<Scalar>(v.to_scalar()))
EMBER_ARG(DType, "ScalarType", DType, v.to_dtype())
EMBER_ARG(std::optional<DType>, "ScalarType?", std::optional<DType>,
          v.is_none() ? std::nullopt : std::optional<DType>(v.to_dtype()))
EMBER_ARG(std::optional<Device>, "Device?", std::optional<Device>,
          v.is_none() ? std::nullopt : std::optional<Device>(v.to_device()))
EMBER_ARG(MemoryFormat, "MemoryFormat", MemoryFormat, static_cast<MemoryFormat>(v.to_int()))
EMBER_ARG(std::optional<MemoryFormat>, "MemoryFormat?", std::optional<MemoryFormat>,
          v.is_none() ? std::nullopt : std::optional<MemoryFormat>(static_cast<MemoryFormat>(v.to_int())))
EMBER_ARG(std::string_view, "str", std::string_view, v.to_string())
EMBER_ARG(std::optional<std::string_view>, "str?", std::optional<std::string_view>,
          v.is_none() ? std::nullopt : std::optional<std::string_view>(v.to_string()))
EMBER_ARG(const std::optional<Generator>&, "Generator?", std::optional<Generator>,
          v.is_none() ? std::nullopt : std::optional<Generator>(v.to_generator()))
#undef EMBER_ARG

std::vector<std::optional<Tensor>> to_optional_tensor_list(const IValue& v);
template <>
struct Arg<const std::vector<std::optional<Tensor>>&> {
  static constexpr const char* name = "Tensor?[]";
  static std::vector<std::optional<Tensor>> get(const IValue& v) { return to_optional_tensor_list(v); }
};

template <size_t N>
struct Arg<std::array<bool, N>> {
  static constexpr const char* name = "bool[]";  // fixed sizes are not part of the C++ signature
  static std::array<bool, N> get(const IValue& v) {
    const std::vector<IValue>& l = v.to_list();
    EMBER_CHECK(l.size() == N, "expected a list of {} bools, but got {} elements", N, l.size());
    std::array<bool, N> a{};
    for (size_t i = 0; i < N; ++i) a[i] = l[i].to_bool();
    return a;
  }
};

// ---- results ----
template <class R>
struct Ret {
  static constexpr const char* name = nullptr;
};
template <>
struct Ret<Tensor> {
  static constexpr const char* name = "Tensor";
  static void push(Stack& s, Tensor&& r) { s.emplace_back(std::move(r)); }
  static Tensor pop(Stack& s) {
    Tensor t = s.back().is_none() ? Tensor() : s.back().to_tensor();
    s.pop_back();
    return t;
  }
};
template <>
struct Ret<void> {
  static constexpr const char* name = "()";
};
template <class R>
struct ScalarRet {
  static void push(Stack& s, R r) { s.emplace_back(r); }
  static R pop(Stack& s) {
    R r;
    if constexpr (std::is_same_v<R, bool>) r = s.back().to_bool();
    else if constexpr (std::is_same_v<R, int64_t>) r = s.back().to_int();
    else if constexpr (std::is_same_v<R, double>) r = s.back().to_double();
    else r = s.back().to_scalar();
    s.pop_back();
    return r;
  }
};
template <>
struct Ret<bool> : ScalarRet<bool> {
  static constexpr const char* name = "bool";
};
template <>
struct Ret<int64_t> : ScalarRet<int64_t> {
  static constexpr const char* name = "int";
};
template <>
struct Ret<double> : ScalarRet<double> {
  static constexpr const char* name = "float";
};
template <>
struct Ret<Scalar> : ScalarRet<Scalar> {
  static constexpr const char* name = "Scalar";
};
template <>
struct Ret<std::vector<Tensor>> {
  static constexpr const char* name = "Tensor[]";
  static void push(Stack& s, std::vector<Tensor>&& r) { s.emplace_back(std::move(r)); }
  static std::vector<Tensor> pop(Stack& s) {
    auto l = s.back().to_tensor_list();
    std::vector<Tensor> r(l.begin(), l.end());
    s.pop_back();
    return r;
  }
};
template <class... T>
struct Ret<std::tuple<T...>> {
  // A function, not a static data member: a template's static member is initialized in no particular order
  // relative to other static initializers, and kernels are registered from static initializers
  // (EMBER_LIBRARY_IMPL), which would read it still empty.
  static const std::string& name_str() {
    static const std::string s = [] {
      std::string r = "(";
      ((r += std::string(Ret<T>::name) + ", "), ...);
      r.resize(r.size() - 2);
      return r + ")";
    }();
    return s;
  }
  static constexpr const char* name = "tuple";
  static void push(Stack& s, std::tuple<T...>&& r) {
    std::apply([&](auto&&... x) { (Ret<std::decay_t<decltype(x)>>::push(s, std::move(x)), ...); }, std::move(r));
  }
  static std::tuple<T...> pop(Stack& s) {
    std::tuple<T...> r;
    pop_into(s, r, std::index_sequence_for<T...>{});
    return r;
  }
  template <size_t... I>
  static void pop_into(Stack& s, std::tuple<T...>& r, std::index_sequence<I...>) {
    // Results were pushed in order, so pop them in reverse.
    ((std::get<sizeof...(T) - 1 - I>(r) =
          Ret<std::tuple_element_t<sizeof...(T) - 1 - I, std::tuple<T...>>>::pop(s)),
     ...);
  }
};

/// The schema spelling of a C++ signature, e.g. "(Tensor, Scalar) -> Tensor"; see Note [signature check].
template <class R, class... A>
std::string signature_string() {
  std::string s = "(";
  ((s += std::string(Arg<A>::name) + ", "), ...);
  if constexpr (sizeof...(A) > 0) s.resize(s.size() - 2);
  s += ") -> ";
  if constexpr (requires { Ret<R>::name_str(); }) s += Ret<R>::name_str();
  else s += Ret<R>::name;
  return s;
}

template <class T>
struct is_bool_array : std::false_type {};
template <size_t N>
struct is_bool_array<std::array<bool, N>> : std::true_type {};

template <class T>
void push_arg(Stack& s, T&& v) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, std::vector<std::optional<Tensor>>>) {
    std::vector<IValue> l;
    for (const auto& t : v) l.emplace_back(t);
    s.push_back(IValue::list(std::move(l)));
  } else if constexpr (is_bool_array<D>::value) {
    std::vector<IValue> l(v.begin(), v.end());
    s.push_back(IValue::list(std::move(l)));
  } else if constexpr (std::is_same_v<D, OptionalIntArrayRef>) {
    s.push_back(v ? IValue(*v) : IValue());
  } else if constexpr (std::is_same_v<D, std::optional<std::string_view>>) {
    s.push_back(v ? IValue(*v) : IValue());
  } else {
    s.emplace_back(std::forward<T>(v));
  }
}

}  // namespace boxing
}  // namespace ember
