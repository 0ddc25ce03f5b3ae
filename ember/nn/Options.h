#pragma once
// EMBER_ARG: the chainable option setters of ember::nn's option structs (LibTorch's TORCH_ARG), e.g.
//
//   struct LinearOptions {
//     LinearOptions(int64_t in, int64_t out) : in_features_(in), out_features_(out) {}
//     EMBER_ARG(int64_t, in_features);
//     EMBER_ARG(bool, bias) = true;
//   };
//   auto opts = LinearOptions(4, 3).bias(false);   // setters return *this
//   opts.bias();                                   // getter
#include <utility>

// Note [EMBER_ARG name]
// ember/dispatch/Boxing.h defines a helper macro of the same name for its own specialisations and leaves it
// defined. Including Boxing.h here first (it is #pragma once) and dropping that helper lets the option macro
// below own the name whichever order a file includes the two headers in; Boxing.h no longer needs it after its
// own text.
#include "ember/dispatch/Boxing.h"
#undef EMBER_ARG

/// Declares a public option `name` of type T: a setter name(value) returning *this (so calls chain), a
/// getter name() and the member name##_ (which a default value may follow: `EMBER_ARG(bool, bias) = true;`).
#define EMBER_ARG(T, name)                                     \
 public:                                                       \
  inline auto name(const T& new_##name) -> decltype(*this) {   \
    this->name##_ = new_##name;                                \
    return *this;                                              \
  }                                                            \
  inline auto name(T&& new_##name) -> decltype(*this) {        \
    this->name##_ = std::move(new_##name);                     \
    return *this;                                              \
  }                                                            \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }          \
                                                               \
 private:                                                      \
  T name##_ /* NOLINT */
