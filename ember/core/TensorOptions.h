#pragma once
// LibTorch's TensorOptions for the factories: ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64)
// .requires_grad(true)), ember::zeros({2, 3}, ember::dtype(ember::kFloat64)), or from a device as in LibTorch
// (`ember::zeros(n, device)`, `ember::randn({2, 3}, ember::kCPU)`). Unlike LibTorch's, it is made from a DType
// only explicitly (`ember::TensorOptions(ember::kFloat)`): `ember::zeros({2, 3}, ember::kFloat32)` calls the
// factory's own dtype argument, and an implicit conversion would make that call ambiguous.
#include <optional>

#include "ember/core/DType.h"
#include "ember/core/Device.h"

namespace ember {

/// dtype, device and requires_grad of a new tensor; unset fields take the factory's defaults. The setters
/// return a modified copy, so they chain.
class TensorOptions {
 public:
  TensorOptions() = default;
  explicit TensorOptions(DType d) : dtype_(d) {}
  /* implicit */ TensorOptions(Device d) : device_(d) {}      // NOLINT(google-explicit-constructor)
  /* implicit */ TensorOptions(DeviceType t) : device_(t) {}  // NOLINT(google-explicit-constructor)

  TensorOptions dtype(DType d) const {
    TensorOptions r = *this;
    r.dtype_ = d;
    return r;
  }
  TensorOptions dtype(std::optional<DType> d) const {
    TensorOptions r = *this;
    r.dtype_ = d;
    return r;
  }
  TensorOptions device(Device d) const {
    TensorOptions r = *this;
    r.device_ = d;
    return r;
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }

  /// The dtype, float32 (the default dtype) when unset.
  DType dtype() const { return dtype_.value_or(kFloat32); }
  std::optional<DType> dtype_opt() const { return dtype_; }
  bool has_dtype() const { return dtype_.has_value(); }
  std::optional<Device> device_opt() const { return device_; }
  /// The device, the CPU when unset.
  Device device() const { return device_.value_or(kCPU); }
  bool has_device() const { return device_.has_value(); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
};

/// TensorOptions().dtype(d), as LibTorch's torch::dtype.
inline TensorOptions dtype(DType d) { return TensorOptions().dtype(d); }
/// TensorOptions().device(d), as LibTorch's torch::device.
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
/// TensorOptions().requires_grad(r), as LibTorch's torch::requires_grad.
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
