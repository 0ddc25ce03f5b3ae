#pragma once
// Ops from plain C++ functions, with the schema read off the function's type: what
// ember.utils.cpp_extension.load_inline(functions=[...]) generates, usable by hand too:
//
//   ember::Tensor scaled_relu(ember::Tensor x, double alpha) { ... }
//   EMBER_LIBRARY(myext, m) { ember::def_function<&scaled_relu>(m, "scaled_relu"); }
//   // declares myext::scaled_relu(Tensor _0, float _1) -> Tensor
//
// Note [inferred schemas]
// As PyTorch's schema inference for functions registered without a schema, arguments are named _0, _1, ...
// (so they are positional from Python: keywords need a written schema) and have no defaults. The argument
// types are those of Note [typed and boxed kernels], plus Tensor taken by value, which the adapter passes as
// const Tensor& (the form the boxed machinery holds); any other type fails to compile naming
// ember::boxing::Arg<T>. The function becomes the op's CompositeImplicitAutograd kernel, so autograd records
// the Ember ops it calls and gradients flow without a formula.
#include <string>
#include <string_view>

#include "ember/dispatch/Boxing.h"
#include "ember/dispatch/Library.h"

namespace ember {

namespace detail {
template <class P>
struct KernelArg {
  using type = P;
};
template <>
struct KernelArg<Tensor> {
  using type = const Tensor&;
};

template <auto F, class Sig>
struct FunctionAdapter;
template <auto F, class R, class... P>
struct FunctionAdapter<F, R (*)(P...)> {
  static R call(typename KernelArg<P>::type... a) { return F(a...); }
};
}  // namespace detail

/// The schema of fn's C++ signature under `name`: "name(Tensor _0, float _1) -> Tensor" (Note [inferred
/// schemas]).
template <class R, class... A>
std::string infer_schema(std::string_view name, R (*)(A...)) {
  std::string s(name);
  s += '(';
  size_t i = 0;
  ((s += fmt::format("{}{} _{}", i ? ", " : "", boxing::Arg<A>::name, i), ++i), ...);
  s += ") -> ";
  if constexpr (requires { boxing::Ret<R>::name_str(); }) s += boxing::Ret<R>::name_str();
  else s += boxing::Ret<R>::name;
  return s;
}

/// Declares `name` in library m as an op that calls F (a function pointer constant), with the inferred
/// schema. Errors: those of Library::def (a malformed name, an op defined twice).
template <auto F>
void def_function(Library& m, std::string_view name) {
  using Adapter = detail::FunctionAdapter<F, decltype(F)>;
  m.def(infer_schema(name, &Adapter::call), &Adapter::call);
}

}  // namespace ember
