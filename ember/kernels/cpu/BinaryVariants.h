#pragma once
// EMBER_BINARY_VARIANTS(name, impl): the three CPU kernels of a binary op — name(self, other),
// name_(self, other) (in place on self) and name_out(self, other, out) — from one
// impl(self, other, out, inplace) that builds the TensorIterator. Used by binary.cpp and special.cpp.
#define EMBER_BINARY_VARIANTS(name, impl_call)                                                       \
  Tensor name(const Tensor& self, const Tensor& other) { return impl_call(self, other, {}, false); } \
  Tensor name##_(const Tensor& self, const Tensor& other) { return impl_call(self, other, self, true); } \
  Tensor name##_out(const Tensor& self, const Tensor& other, const Tensor& out) {                    \
    return impl_call(self, other, out, false);                                                       \
  }
