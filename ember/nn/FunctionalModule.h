#pragma once
// detail::FunctionalModuleImpl: the one template behind the parameter-free modules (activations, pooling)
// and, with two inputs, the losses.
//
// Note [functional modules]
// A module such as ReLU or MaxPool2d is nothing but its options and the ember::nn::functional function it
// applies. Rather than one hand-written class per module (two dozen copies of the same three members), each is
// an alias of FunctionalModuleImpl<Options, function, "Name">: the options struct is the public `options`
// member and the constructor forwards its arguments to the options' constructor (ReLU(true), Softmax(1),
// Threshold(0.1, 20)). Options void means a module without options (Sigmoid). The name is the class name
// Python prints (Module::name(); the default would be the template's demangled name). Losses (LossModuleImpl) also
// register their weight tensors as buffers, as Python's weighted losses do, so their state dicts match.
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"

namespace ember::nn::detail {

/// A string literal usable as a template argument (the module's class name).
template <size_t N>
struct FixedName {
  constexpr FixedName(const char (&s)[N]) { std::copy_n(s, N, chars); }
  char chars[N];
};

template <typename Options, auto Fn, FixedName Name>
class FunctionalModuleImpl : public Cloneable<FunctionalModuleImpl<Options, Fn, Name>> {
 public:
  /// The options, built from args (none: the options' defaults).
  template <typename... Args>
    requires std::constructible_from<Options, Args...>
  explicit FunctionalModuleImpl(Args&&... args)
      : Cloneable<FunctionalModuleImpl>(Name.chars), options(std::forward<Args>(args)...) {}

  /// fn(input, options).
  Tensor forward(const Tensor& input) { return Fn(input, options); }
  /// Python's extra_repr of the module: options_repr(options) when the options have one (found by argument-
  /// dependent lookup; the activations' are in ember/nn/Activation.h), else "".
  std::string extra_repr() const override {
    if constexpr (requires { options_repr(options); }) {
      return options_repr(options);
    } else {
      return "";
    }
  }

  Options options;
};

/// Options void: a module without options (Sigmoid, Tanh, ...): fn(input).
template <auto Fn, FixedName Name>
class FunctionalModuleImpl<void, Fn, Name> : public Cloneable<FunctionalModuleImpl<void, Fn, Name>> {
 public:
  FunctionalModuleImpl() : Cloneable<FunctionalModuleImpl>(Name.chars) {}
  /// Nothing to register (clone() calls it).
  void reset() override {}
  /// fn(input).
  Tensor forward(const Tensor& input) { return Fn(input); }
};

}  // namespace ember::nn::detail

namespace ember::nn {

/// A module wrapping a function of one tensor (LibTorch's torch::nn::Functional), so a plain function can sit in
/// a Sequential: `Sequential{Linear(4, 3), Functional(ember::relu), Functional(ember::leaky_relu, 0.2)}`. Extra
/// arguments are bound after the input (Functional(f, a, b) calls f(input, a, b)). No parameters; prints as
/// "Functional()". An overloaded function needs a cast or a lambda to pick the overload.
class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;
  /// Wraps function. Errors: an empty function.
  explicit FunctionalImpl(Function function);
  /// Wraps function(input, args...).
  template <typename SomeFunction, typename... Args>
    requires(sizeof...(Args) > 0)
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : FunctionalImpl(Function(
            [f = std::move(original_function), ... bound = std::forward<Args>(args)](Tensor input) -> Tensor {
              return f(input, bound...);
            })) {}
  /// function(input).
  Tensor forward(Tensor input);
  /// Nothing to register (clone() calls it; the clone shares the function).
  void reset() override {}

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
