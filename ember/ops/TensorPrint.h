#pragma once
// Text form of tensors, laid out as PyTorch prints them (tensor([...]) with its rules for integer-valued
// floats, scientific notation, line wrapping at linewidth and summarisation above threshold elements).
// One implementation serves C++ (Tensor::str) and Python (repr).
#include <optional>
#include <string>
#include <vector>

#include "ember/core/Tensor.h"

namespace ember {

/// PyTorch's print options (torch.set_printoptions): precision digits, threshold elements before
/// summarising, edgeitems shown at each end when summarising, linewidth characters, sci_mode forced on/off.
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;
};
PrintOptions& print_options();

/// "tensor([...], dtype=ember.int32<, extra suffixes>)". extra are appended in order ("requires_grad=True").
std::string format_tensor(const Tensor& t, const std::vector<std::string>& extra = {},
                          const std::string& prefix = "tensor(");

}  // namespace ember
