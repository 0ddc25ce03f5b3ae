#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/base/Error.h"

namespace ember {

/// Kind of device. Only CPU exists now; the list leaves room for accelerators (new types are appended).
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

/// A device: type and index (-1 = the current device of that type).
struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  /// Parses "cpu", "cpu:0", "cuda:1". Errors: an unknown type or a malformed index (RuntimeError).
  explicit Device(std::string_view spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool operator==(const Device&) const = default;
  std::string str() const;
};

inline constexpr Device kCPU{DeviceType::CPU};
/// A CUDA device (LibTorch's torch::kCUDA), so ported code such as
/// `ember::Device device(ember::cuda::is_available() ? ember::kCUDA : ember::kCPU);` compiles. Ember has no CUDA
/// backend: making a tensor or moving a module there raises.
inline constexpr Device kCUDA{DeviceType::CUDA};

/// Prints the device as str() does ("cpu").
inline std::ostream& operator<<(std::ostream& out, const Device& d) { return out << d.str(); }

}  // namespace ember
