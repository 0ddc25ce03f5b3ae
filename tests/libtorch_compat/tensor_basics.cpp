// The everyday tensor API of LibTorch as programs use it: factories with dtypes, devices and options, ATen and
// c10 names, checks and errors, printing, element access, in-place scalar ops, reductions, ADL calls, and the
// recurrent cells. Deterministic: its output is compared line by line with LibTorch's (modules are not printed:
// Ember's C++ modules print as Python's do, "LSTM(3, 4)", where LibTorch prints "torch::nn::LSTM(input_size=3, ...").
#include <ember/ember.h>

#include <iostream>
#include <vector>

namespace F = ember::nn::functional;

at::Tensor scaled(const at::Tensor& t, c10::optional<double> factor) { return t * factor.value_or(2.0); }

int main() {
  ember::manual_seed(0);
  std::cout << std::boolalpha;

  // Factories, dtypes and devices
  ember::Device device = ember::kCPU;
  ember::DeviceType device_type = ember::kCPU;
  std::cout << device << " " << (device.type() == device_type) << " " << device.is_cpu() << '\n';
  auto a = ember::arange(6, ember::kF32).reshape({2, 3});
  std::cout << a << '\n';
  auto b = ember::ones({2, 3}, ember::TensorOptions().dtype(ember::kInt64).device(device));
  std::cout << b << '\n';
  auto c = ember::zeros(4, device);
  std::cout << c << '\n';
  auto d = ember::full({2, 2}, 1.5, ember::dtype(ember::kDouble));
  std::cout << d << '\n';
  ember::ScalarType st = a.scalar_type();
  std::cout << ember::toString(st) << " " << (st == ember::kFloat) << " " << ember::toString(ember::kLong) << '\n';
  std::cout << ember::empty({0, 3}) << '\n';
  std::cout << ember::tensor(3.5) << '\n';
  std::cout << ember::tensor({true, false, true}) << '\n';
  std::cout << ember::arange(24).reshape({2, 3, 4}) << '\n';
  std::cout << (ember::arange(8, ember::kDouble) / 3).reshape({2, 2, 2}) << '\n';
  std::cout << ember::linspace(0, 1, 5) * 1000 << '\n';
  std::cout << ember::tensor({1e-5, 1.0, 123456.0}) << '\n';

  std::vector<float> values{1.5f, -2.0f, 3.25f};
  auto from_vector = ember::tensor(values);
  auto from_ref = ember::tensor(c10::ArrayRef<float>(values));
  std::cout << from_vector.sizes() << " " << ember::equal(from_vector, from_ref) << '\n';
  auto blob = ember::from_blob(values.data(), {3}, ember::TensorOptions().dtype(ember::kFloat32)).clone();
  std::cout << blob << '\n';

  // Element access and in-place scalar ops
  auto e = ember::zeros({3, 3});
  e[0][1] = 5;
  e[2] = ember::tensor({7.0f, 8.0f, 9.0f});
  e.add_(1).mul_(2).sub_(0.5).div_(2);
  std::cout << e << '\n';
  auto accessor = e.accessor<float, 2>();
  std::cout << accessor[2][1] << " " << e[2][1].item<float>() << " " << e.data_ptr<float>()[7] << '\n';
  e.index_put_({ember::indexing::Slice(), 0}, -1);
  std::cout << e.index({ember::indexing::Slice(1, ember::indexing::None), ember::indexing::Slice()}) << '\n';

  // Reductions and ops as ATen functions, tuple results
  auto [values_max, indices_max] = ember::max(a, /*dim=*/1);
  std::cout << values_max << '\n' << indices_max << '\n';
  ember::Tensor sorted, order;
  std::tie(sorted, order) = ember::sort(ember::tensor({3, 1, 2}));
  std::cout << sorted << '\n' << order << '\n';
  std::cout << at::matmul(a, a.t()) << '\n';
  std::cout << scaled(a, c10::nullopt).sum().item<float>() << " " << scaled(a, 0.5).sum().item<float>() << '\n';

  // Functional losses with reductions
  auto input = ember::tensor({{0.2, 0.8}, {0.6, 0.4}});
  auto target = ember::tensor({1, 0});
  std::cout << ember::nll_loss(input.log(), target, {}, ember::Reduction::Sum) << '\n';
  std::cout << F::nll_loss(input.log(), target, F::NLLLossFuncOptions().reduction(ember::kMean)) << '\n';
  std::cout << ember::mse_loss(input, ember::ones_like(input), at::Reduction::Mean) << '\n';

  // Functions found by argument-dependent lookup, as in LibTorch
  auto x = ember::ones({1, 2, 3, 3});
  auto w = ember::ones({2, 1, 2, 2});
  std::cout << conv_transpose2d(x, w).sizes() << " " << relu(x - 2).sum().item<float>() << " "
            << cat(std::vector<ember::Tensor>{x, x}, 0).sizes() << '\n';

  // Checks, errors and warnings
  try {
    EMBER_CHECK(a.dim() == 3, "expected a 3-D tensor, got ", a.dim(), " dimensions and sizes ", a.sizes());
  } catch (const c10::Error& error) {
    std::cout << "caught: " << error.what_without_backtrace() << '\n';
  }
  try {
    EMBER_CHECK(false);
  } catch (const std::exception&) {
    std::cout << "caught a check without a message\n";
  }
  try {
    AT_ERROR("something went wrong: ", 42);
  } catch (const c10::Error& error) {
    std::cout << "caught: " << error.msg() << '\n';
  }
  try {
    a.view({4, 4});
  } catch (const std::exception&) {
    std::cout << "caught a shape error\n";
  }
  AT_ASSERT(a.numel() == 6);
  EMBER_INTERNAL_ASSERT(a.is_contiguous());
  EMBER_WARN("this warning goes to stderr");
  std::cout << ember::str("a has ", a.numel(), " elements of ", a.element_size(), " bytes") << '\n';

  // Autograd helpers
  auto p = ember::tensor({1.0, 2.0}, ember::requires_grad());
  ember::autograd::tensor_list grads = ember::autograd::grad({(p * p).sum()}, {p});
  std::cout << grads[0] << '\n';
  ember::autograd::variable_list again = ember::autograd::grad({(p * p * p).sum()}, {p});
  std::cout << again[0] << '\n';

  // Recurrent cells, seeded
  ember::manual_seed(0);
  ember::nn::LSTMCell lstm_cell(3, 2);
  ember::nn::GRUCell gru_cell(ember::nn::GRUCellOptions(3, 2).bias(false));
  ember::nn::RNNCell rnn_cell(ember::nn::RNNCellOptions(3, 2).nonlinearity(ember::kReLU));
  auto seq = ember::randn({2, 3});
  auto [h, cstate] = lstm_cell(seq);
  std::cout << h << '\n' << cstate << '\n';
  std::cout << gru_cell(seq) << '\n' << rnn_cell(seq) << '\n';
  for (const auto& pair : lstm_cell->named_parameters()) std::cout << pair.key() << " " << pair.value().sizes() << '\n';

  // Recurrent layers, seeded
  ember::nn::LSTM lstm(ember::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  ember::nn::GRU gru(ember::nn::GRUOptions(3, 4));
  ember::nn::RNN rnn(ember::nn::RNNOptions(3, 4).nonlinearity(ember::kTanh).batch_first(true));
  auto sequence = ember::randn({5, 2, 3});
  auto lstm_out = lstm->forward(sequence);
  std::cout << std::get<0>(lstm_out).sizes() << " " << std::get<0>(std::get<1>(lstm_out)).sizes() << '\n';
  std::cout << std::get<0>(std::get<1>(lstm_out)) << '\n';
  std::cout << std::get<1>(gru->forward(sequence)) << '\n';
  std::cout << std::get<1>(rnn->forward(sequence)) << '\n';
  for (const auto& pair : lstm->named_parameters()) std::cout << pair.key() << " " << pair.value().sizes() << '\n';

  // Pooling and dropout modules of each rank
  ember::nn::MaxPool1d max_pool1d(2);
  ember::nn::AvgPool3d avg_pool3d(ember::nn::AvgPool3dOptions(2).stride(1));
  ember::nn::Dropout2d dropout2d(0.5);
  dropout2d->eval();
  std::cout << max_pool1d(ember::arange(8.0).view({1, 2, 4})) << '\n';
  std::cout << avg_pool3d(ember::arange(27.0).view({1, 1, 3, 3, 3})).sizes() << '\n';
  std::cout << ember::equal(dropout2d(x), x) << '\n';
  return 0;
}
