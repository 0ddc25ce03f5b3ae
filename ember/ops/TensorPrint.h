#pragma once
// Text form of tensors, laid out as PyTorch prints them (tensor([...]) with its rules for integer-valued
// floats, scientific notation, line wrapping at linewidth and summarisation above threshold elements).
// One implementation serves C++ (Tensor::str) and Python (repr).
#include <optional>
#include <ostream>
#include <string_view>
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

/// Writes t as LibTorch's `std::cout << tensor` does (at::print): the values in columns of one width chosen
/// for the whole tensor (integers as integers; fixed with 4 decimals, a common scale factor "0.01 *" when all
/// magnitudes are below 0.1 or above 1e5, or scientific when they span more than 4 decades), matrices of
/// higher-dimensional tensors headed "(i,j,.,.) = ", columns beyond `linesize` characters split into
/// "Columns a to b" blocks, then the type and sizes: "[ CPUFloatType{2,3} ]". An undefined tensor prints
/// "[ Tensor (undefined) ]". Complex tensors print in Python's form (LibTorch has no layout of its own for them).
void print(std::ostream& stream, const Tensor& t, int64_t linesize = 80);

}  // namespace ember
