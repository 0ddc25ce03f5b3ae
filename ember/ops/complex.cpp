// The complex-number ops written with other ops (Note [complex views] in ops_view.yaml): the views of a
// complex tensor as its parts and back, real, imag, conj, isreal and polar.
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/Operators.h"

namespace ember::composite {

Tensor view_as_real(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors");
  DimVector sizes(self.sizes().begin(), self.sizes().end()), strides(self.strides().begin(), self.strides().end());
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(self, to_real_dtype(self.dtype()), sizes, strides, self.storage_offset() * 2);
}

Tensor view_as_complex(const Tensor& self) {
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64,
              "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: {}",
              self.dtype());
  EMBER_CHECK(self.dim() > 0 && self.size(-1) == 2, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(self.stride(-1) == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes(self.sizes().begin(), self.sizes().end() - 1);
  DimVector strides(self.strides().begin(), self.strides().end() - 1);
  for (int64_t& s : strides) {
    EMBER_CHECK(s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    s /= 2;
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return make_view(self, to_complex_dtype(self.dtype()), sizes, strides, self.storage_offset() / 2);
}

Tensor real(const Tensor& self) { return self.is_complex() ? ember::view_as_real(self).select(-1, 0) : self; }

Tensor imag(const Tensor& self) {
  EMBER_CHECK(self.is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  return ember::view_as_real(self).select(-1, 1);
}

Tensor conj(const Tensor& self) { return self.is_complex() ? ember::conj_physical(self) : self; }
Tensor resolve_conj(const Tensor& self) { return self; }
Tensor resolve_neg(const Tensor& self) { return self; }

Tensor isreal(const Tensor& self) {
  if (!self.is_complex()) return ember::ones_like(self, kBool);
  return ember::eq(ember::imag(self), Scalar(0));
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  // complex()'s checks first, so mixed or integral dtypes raise as PyTorch's polar does.
  if (abs.dtype() != angle.dtype() || !abs.is_floating_point()) return ember::complex(abs, angle);
  return ember::complex(abs * ember::cos(angle), abs * ember::sin(angle));
}

}  // namespace ember::composite
