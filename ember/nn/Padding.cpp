// The padding layers (python/ember/nn/modules/padding.py): F::pad with the layer's padding and mode.
#include "ember/nn/Padding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "ember/nn/Repr.h"
#include "ember/nn/functional/linear.h"

namespace ember::nn {
namespace {

std::vector<int64_t> as_vector(IntArrayRef padding) { return {padding.begin(), padding.end()}; }

// The reflect and replicate modes take D padded dims of an unbatched (D + 1) or batched (D + 2) input.
void check_rank(const std::string& layer, const Tensor& input, size_t d) {
  const auto dims = static_cast<int64_t>(d);
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2,
              "{}: expected a {}-D (unbatched) or {}-D (batched) input, got one of shape [{}]", layer, dims + 1,
              dims + 2, fmt::join(input.sizes(), ", "));
}

// Python's check of the reflect mode (its op's message), here with the layer's name and the whole shape.
void check_reflect_sizes(const std::string& layer, const Tensor& input, IntArrayRef padding) {
  for (size_t i = 0; i < padding.size() / 2; ++i) {
    const int64_t dim = input.dim() - 1 - static_cast<int64_t>(i);
    const int64_t size = input.size(dim);
    EMBER_CHECK(padding[2 * i] < size && padding[2 * i + 1] < size,
                "{}: padding size should be less than the corresponding input dimension, but got padding ({}, {}) "
                "at dimension {} of input of shape [{}]",
                layer, padding[2 * i], padding[2 * i + 1], dim, fmt::join(input.sizes(), ", "));
  }
}

}  // namespace

template <size_t D>
ReflectionPadImpl<D>::ReflectionPadImpl(const ReflectionPadOptions<D>& options_)
    : Cloneable<ReflectionPadImpl<D>>(fmt::format("ReflectionPad{}d", D)), options(options_) {}

template <size_t D>
Tensor ReflectionPadImpl<D>::forward(const Tensor& input) {
  check_rank(this->name(), input, D);
  check_reflect_sizes(this->name(), input, options.padding());
  return functional::pad(input, functional::PadFuncOptions(as_vector(options.padding())).mode(kReflect));
}

template <size_t D>
std::string ReflectionPadImpl<D>::extra_repr() const {
  return repr::py_tuple(options.padding());
}

template <size_t D>
ReplicationPadImpl<D>::ReplicationPadImpl(const ReplicationPadOptions<D>& options_)
    : Cloneable<ReplicationPadImpl<D>>(fmt::format("ReplicationPad{}d", D)), options(options_) {}

template <size_t D>
Tensor ReplicationPadImpl<D>::forward(const Tensor& input) {
  check_rank(this->name(), input, D);
  return functional::pad(input, functional::PadFuncOptions(as_vector(options.padding())).mode(kReplicate));
}

template <size_t D>
std::string ReplicationPadImpl<D>::extra_repr() const {
  return repr::py_tuple(options.padding());
}

template <size_t D>
ConstantPadImpl<D>::ConstantPadImpl(const ConstantPadOptions<D>& options_)
    : Cloneable<ConstantPadImpl<D>>(fmt::format("ConstantPad{}d", D)), options(options_) {}

template <size_t D>
Tensor ConstantPadImpl<D>::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= static_cast<int64_t>(D),
              "{}: expected an input of at least {} dims, got one of shape [{}]", this->name(), D,
              fmt::join(input.sizes(), ", "));
  return functional::pad(input, functional::PadFuncOptions(as_vector(options.padding())).value(options.value()));
}

template <size_t D>
std::string ConstantPadImpl<D>::extra_repr() const {
  return "padding=" + repr::py_tuple(options.padding()) + ", value=" + repr::py(options.value());
}

ZeroPad2dImpl::ZeroPad2dImpl(const ZeroPad2dOptions& options_) : Cloneable("ZeroPad2d"), options(options_) {}

Tensor ZeroPad2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2, "ZeroPad2d: expected an input of at least 2 dims, got one of shape [{}]",
              fmt::join(input.sizes(), ", "));
  return functional::pad(input, functional::PadFuncOptions(as_vector(options.padding())));
}

std::string ZeroPad2dImpl::extra_repr() const { return repr::py_tuple(options.padding()); }

template class ReflectionPadImpl<1>;
template class ReflectionPadImpl<2>;
template class ReflectionPadImpl<3>;
template class ReplicationPadImpl<1>;
template class ReplicationPadImpl<2>;
template class ReplicationPadImpl<3>;
template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;
template class ConstantPadImpl<3>;

}  // namespace ember::nn
