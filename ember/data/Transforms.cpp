#include "ember/data/Transforms.h"

#include <vector>

#include "ember/base/Error.h"

namespace ember::data::transforms::detail {

Tensor channel_constants(ArrayRef<double> values, const char* what, bool nonzero) {
  EMBER_CHECK_VALUE(!values.empty(), "Normalize: {} needs one value per channel or one for all, got none", what);
  if (nonzero) {
    for (size_t c = 0; c < values.size(); ++c)
      EMBER_CHECK_VALUE(values[c] != 0.0, "Normalize: {}[{}] is 0; dividing by it gives inf and NaN", what, c);
  }
  // LibTorch's torch::tensor(values, kFloat32): the doubles rounded to float32, then (C, 1, 1).
  const auto c = static_cast<int64_t>(values.size());
  return tensor_from_buffer(values.data(), {c}, kFloat64).to(kFloat32).view({c, 1, 1});
}

Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev) {
  for (const Tensor* constants : {&mean, &stddev}) {
    const int64_t c = constants->size(0);
    EMBER_CHECK(c == 1 || (input.dim() >= 3 && input.size(-3) == c),
                "Normalize: {} channel values for an input of shape [{}]; expected its dim -3 (the channels) to "
                "be {} (or one value for all channels)",
                c, fmt::join(input.sizes(), ", "), c);
  }
  return input.sub(mean).div(stddev);
}

Tensor stack_batch(std::vector<Tensor> tensors, const char* what) {
  EMBER_CHECK(!tensors.empty(), "{}: cannot collate an empty batch", what);
  return stack(tensors, 0);
}

}  // namespace ember::data::transforms::detail
