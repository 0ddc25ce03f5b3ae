#pragma once
// EMBER_ARG: the chainable options fields of LibTorch's TORCH_ARG. See Note [options structs].
//
// Note [options structs]
// An options struct (LinearOptions, Conv2dOptions, ReLUFuncOptions, ...) holds one private member name_ per
// argument and, for each, a setter `opts.name(v)` that returns the struct (so calls chain:
// Conv2dOptions(3, 8, 3).stride(2).padding(1)) and getters `opts.name()`. Defaults follow the macro:
// `EMBER_ARG(double, eps) = 1e-5;`.
#include <utility>

#define EMBER_ARG(T, name)                                                 \
 public:                                                                   \
  inline auto name(const T& new_##name) -> decltype(*this) {               \
    this->name##_ = new_##name;                                            \
    return *this;                                                          \
  }                                                                        \
  inline auto name(T&& new_##name) -> decltype(*this) {                    \
    this->name##_ = std::move(new_##name);                                 \
    return *this;                                                          \
  }                                                                        \
  inline const T& name() const noexcept { return this->name##_; }          \
  inline T& name() noexcept { return this->name##_; }                      \
                                                                           \
 private:                                                                  \
  T name##_
