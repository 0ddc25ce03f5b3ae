#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "ember/base/Error.h"

namespace ember {

/// Kind of device. Only CPU exists now; the list leaves room for accelerators (new types are appended).
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

/// LibTorch's constants of the device types (torch::kCPU, torch::kCUDA are c10::DeviceType values): usable where
/// a DeviceType or a Device is expected (`ember::Device device(ember::kCPU)`, `ember::zeros({2}, ember::kCPU)`,
/// `ember::DeviceType t = ember::kCUDA`). Ember has no CUDA backend: making a tensor or moving a module to kCUDA
/// raises, and ember::cuda::is_available() is false, so ported code such as
/// `ember::Device device(ember::cuda::is_available() ? ember::kCUDA : ember::kCPU);` compiles and runs on the CPU.
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

/// A device: type and index (-1 = the current device of that type), with LibTorch's accessors.
class Device {
 public:
  constexpr Device() = default;
  /* implicit */ constexpr Device(DeviceType t, int8_t i = -1) : type_(t), index_(i) {}  // NOLINT
  /// Parses "cpu", "cpu:0", "cuda:1". Errors: an unknown type or a malformed index (RuntimeError).
  explicit Device(std::string_view spec);
  explicit Device(const std::string& spec) : Device(std::string_view(spec)) {}
  explicit Device(const char* spec) : Device(std::string_view(spec)) {}

  constexpr DeviceType type() const noexcept { return type_; }
  constexpr int8_t index() const noexcept { return index_; }
  constexpr bool has_index() const noexcept { return index_ != -1; }
  constexpr void set_index(int8_t index) noexcept { index_ = index; }
  constexpr bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool operator==(const Device&) const = default;
  std::string str() const;

 private:
  DeviceType type_ = DeviceType::CPU;
  int8_t index_ = -1;
};

/// Prints the device as str() does ("cpu").
inline std::ostream& operator<<(std::ostream& out, const Device& d) { return out << d.str(); }
/// Prints the device type as LibTorch does ("cpu", "cuda").
inline std::ostream& operator<<(std::ostream& out, DeviceType t) { return out << Device(t).str(); }

}  // namespace ember
