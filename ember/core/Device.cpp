#include "ember/core/Device.h"

#include <charconv>

namespace ember {

Device::Device(std::string_view spec) {
  std::string_view name = spec.substr(0, spec.find(':'));
  if (name == "cpu") {
    type_ = DeviceType::CPU;
  } else if (name == "cuda") {
    type_ = DeviceType::CUDA;
  } else {
    EMBER_FAIL("Expected one of cpu, cuda device type at start of device string: {}", spec);
  }
  if (name.size() < spec.size()) {
    std::string_view idx = spec.substr(name.size() + 1);
    int v = -1;
    auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
    EMBER_CHECK(ec == std::errc() && p == idx.data() + idx.size() && v >= 0 && v < 128,
                "Invalid device string: '{}'", spec);
    index_ = static_cast<int8_t>(v);
  }
}

std::string Device::str() const {
  std::string s = type_ == DeviceType::CPU ? "cpu" : "cuda";
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

}  // namespace ember
