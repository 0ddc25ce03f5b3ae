#include "ember/nn/RNN.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/Repr.h"
#include "ember/nn/init.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn {

namespace detail {

/// A defined tensor as an optional argument, an undefined one as none (a layer without biases).
std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

namespace {

int64_t gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM: return 4;
    case RNNMode::GRU: return 3;
    default: return 1;
  }
}

const char* mode_name(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM: return "LSTM";
    case RNNMode::GRU: return "GRU";
    default: return "RNN";
  }
}

std::string shape_str(IntArrayRef sizes) { return fmt::format("[{}]", fmt::join(sizes, ", ")); }

// The weights of one layer in one direction; b_ih, b_hh and w_hr may be undefined.
struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};


// One step of the recurrence from the precomputed input part `xw` (x W_ih^T + b_ih, (N, G * H)); c is only
// used (and updated) by LSTM. See Note [recurrent layers are composite].
Tensor step(RNNMode mode, const Tensor& xw, const Tensor& h, Tensor& c, const Weights& w) {
  Tensor hw = ember::linear(h, w.w_hh, opt(w.b_hh));
  switch (mode) {
    case RNNMode::RNN_TANH: return ember::tanh(hw + xw);
    case RNNMode::RNN_RELU: return ember::relu(hw + xw);
    case RNNMode::LSTM: {
      std::vector<Tensor> gates = (hw + xw).chunk(4, 1);
      Tensor i = gates[0].sigmoid(), f = gates[1].sigmoid(), g = gates[2].tanh(), o = gates[3].sigmoid();
      c = f * c + i * g;
      Tensor hy = o * c.tanh();
      return w.w_hr.defined() ? ember::linear(hy, w.w_hr) : hy;
    }
    case RNNMode::GRU: {
      std::vector<Tensor> xg = xw.chunk(3, 1), hg = hw.chunk(3, 1);
      Tensor r = (hg[0] + xg[0]).sigmoid();
      Tensor z = (hg[1] + xg[1]).sigmoid();
      Tensor n = (xg[2] + hg[2] * r).tanh();
      return (h - n) * z + n;
    }
  }
  return {};
}

// Runs one direction of one layer over x (L, N, F); h (N, H_out) and c (N, H) are the initial states and
// become the final ones. Returns the outputs (L, N, H_out).
Tensor run_direction(RNNMode mode, const Tensor& x, Tensor& h, Tensor& c, const Weights& w, bool reverse) {
  const int64_t steps = x.size(0);
  Tensor xw = ember::linear(x, w.w_ih, opt(w.b_ih));  // (L, N, G * H): the input part of every step at once
  // The steps' slices as one unbind, whose backward is one stack: a select per step would give each step's
  // gradient as a zero-filled (L, N, G * H) tensor, summed over the L steps (O(L^2) work in backward).
  const std::vector<Tensor> xs = steps > 0 ? xw.unbind(0) : std::vector<Tensor>();
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    int64_t t = reverse ? steps - 1 - k : k;
    h = step(mode, xs[static_cast<size_t>(t)], h, c, w);
    outputs[static_cast<size_t>(t)] = h;
  }
  if (steps == 0) return ember::empty({0, x.size(1), h.size(1)}, x.dtype());
  return ember::stack(outputs, 0);
}

// Runs one direction of one layer over packed rows x (sum(batch_sizes), F), as Note [packed recurrence] of
// python/ember/_rnn.py: forward, the rows of the sequences that have ended are set aside and joined (lowest rows
// first) into the final state; reverse, a sequence's initial state joins when its last step comes. h (B, H_out)
// and c (B, H) are the initial states and become the final ones. Returns the packed outputs (rows, H_out).
Tensor run_packed_direction(RNNMode mode, const Tensor& x, const std::vector<int64_t>& batch_sizes, Tensor& h,
                            Tensor& c, const Weights& w, bool reverse) {
  const std::vector<Tensor> xs = ember::linear(x, w.w_ih, opt(w.b_ih)).split(IntArrayRef(batch_sizes), 0);
  const size_t steps = batch_sizes.size();
  std::vector<Tensor> outputs(steps);
  if (!reverse) {
    std::vector<Tensor> done_h, done_c;
    int64_t have = batch_sizes.front();
    for (size_t t = 0; t < steps; ++t) {
      const int64_t b = batch_sizes[t];
      if (b < have) {
        done_h.push_back(h.slice(0, b, have));
        h = h.slice(0, 0, b);
        if (c.defined()) {
          done_c.push_back(c.slice(0, b, have));
          c = c.slice(0, 0, b);
        }
        have = b;
      }
      h = step(mode, xs[t], h, c, w);
      outputs[t] = h;
    }
    if (!done_h.empty()) {
      done_h.push_back(h);
      std::reverse(done_h.begin(), done_h.end());
      h = ember::cat(done_h);
      if (c.defined()) {
        done_c.push_back(c);
        std::reverse(done_c.begin(), done_c.end());
        c = ember::cat(done_c);
      }
    }
  } else {
    const Tensor h0 = h, c0 = c;
    int64_t have = batch_sizes.back();
    h = h0.slice(0, 0, have);
    if (c0.defined()) c = c0.slice(0, 0, have);
    for (size_t k = 0; k < steps; ++k) {
      const size_t t = steps - 1 - k;
      const int64_t b = batch_sizes[t];
      if (b > have) {
        h = ember::cat({h, h0.slice(0, have, b)});
        if (c0.defined()) c = ember::cat({c, c0.slice(0, have, b)});
        have = b;
      }
      h = step(mode, xs[t], h, c, w);
      outputs[t] = h;
    }
  }
  return ember::cat(outputs);
}

}  // namespace

RNNImplBase::RNNImplBase(std::string name, const RNNConfig& config) : Module(std::move(name)), config_(config) {
  const auto& c = config_;
  EMBER_CHECK_VALUE(c.input_size > 0 && c.hidden_size > 0,
                    "{}: input_size and hidden_size must be positive, got input_size={}, hidden_size={}",
                    mode_name(c.mode), c.input_size, c.hidden_size);
  EMBER_CHECK_VALUE(c.num_layers > 0, "{}: num_layers must be positive, got {}", mode_name(c.mode), c.num_layers);
  EMBER_CHECK_VALUE(c.dropout >= 0 && c.dropout <= 1,
                    "{}: dropout should be a number in range [0, 1] representing the probability of an element "
                    "being zeroed, got {}",
                    mode_name(c.mode), repr::py(c.dropout));
  if (c.dropout > 0 && c.num_layers == 1)
    EMBER_WARN("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
               "num_layers greater than 1, but got dropout={} and num_layers={}",
               repr::py(c.dropout), c.num_layers);
  EMBER_CHECK_VALUE(c.proj_size >= 0, "{}: proj_size should be a positive integer or zero to disable projections",
                    mode_name(c.mode));
  EMBER_CHECK_VALUE(c.proj_size < c.hidden_size, "{}: proj_size has to be smaller than hidden_size",
                    mode_name(c.mode));
  EMBER_CHECK_VALUE(c.proj_size == 0 || c.mode == RNNMode::LSTM,
                    "proj_size argument is only supported for LSTM, not {}", mode_name(c.mode));
  reset();
}

void RNNImplBase::reset() {
  const auto& c = config_;
  flat_weights_.clear();
  flat_weight_names_.clear();
  const int64_t gate_size = gate_count(c.mode) * c.hidden_size;
  const int64_t real_hidden = c.proj_size > 0 ? c.proj_size : c.hidden_size;
  const int64_t directions = c.bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t layer_input = layer == 0 ? c.input_size : real_hidden * directions;
      const std::string suffix = fmt::format("_l{}{}", layer, d == 1 ? "_reverse" : "");
      auto add = [&](const std::string& name, IntArrayRef shape) {
        flat_weight_names_.push_back(name + suffix);
        flat_weights_.push_back(register_parameter(name + suffix, ember::empty(shape, kFloat32)));
      };
      add("weight_ih", {gate_size, layer_input});
      add("weight_hh", {gate_size, real_hidden});
      if (c.bias) {
        add("bias_ih", {gate_size});
        add("bias_hh", {gate_size});
      }
      if (c.proj_size > 0) add("weight_hr", {c.proj_size, c.hidden_size});
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(config_.hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::vector<Tensor> RNNImplBase::all_weights() const {
  // The registered tensors, read by name so a load_state_dict or to() that replaced them is seen.
  std::vector<Tensor> out;
  auto named = named_parameters(/*recurse=*/false);
  for (const auto& name : flat_weight_names_) out.push_back(named[name]);
  return out;
}

std::string RNNImplBase::extra_repr() const {
  const auto& c = config_;
  std::string s = fmt::format("{}, {}", c.input_size, c.hidden_size);
  if (c.proj_size != 0) s += fmt::format(", proj_size={}", c.proj_size);
  if (c.num_layers != 1) s += fmt::format(", num_layers={}", c.num_layers);
  if (!c.bias) s += ", bias=False";
  if (c.batch_first) s += ", batch_first=True";
  if (c.dropout != 0) s += ", dropout=" + repr::py(c.dropout);
  if (c.bidirectional) s += ", bidirectional=True";
  if (c.mode == RNNMode::RNN_RELU) s += ", nonlinearity=relu";
  return s;
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& input, const Tensor& h0_in, const Tensor& c0_in) {
  const auto& c = config_;
  const char* name = mode_name(c.mode);
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "{}: Expected input to be 2-D or 3-D but received {}-D tensor",
              name, input.dim());
  EMBER_CHECK(input.size(-1) == c.input_size, "{}: input.size(-1) must be equal to input_size. Expected {}, got {}",
              name, c.input_size, input.size(-1));
  const bool batched = input.dim() == 3;
  EMBER_CHECK(input.size(batched && c.batch_first ? 1 : 0) > 0, "{}: Expected sequence length to be larger than 0 "
              "in RNN, got input of shape {}", name, shape_str(input.sizes()));
  Tensor x = batched ? (c.batch_first ? input.transpose(0, 1) : input) : input.unsqueeze(1);  // (L, N, F)
  Tensor h0 = initial_state(h0_in, input.dim(), x.size(1), /*cell=*/false, x.dtype());
  Tensor c0 = c.mode == RNNMode::LSTM ? initial_state(c0_in, input.dim(), x.size(1), /*cell=*/true, x.dtype())
                                       : Tensor();
  auto [output, hy, cy] = run_layers(x, {}, h0, c0);
  if (!batched) {
    output = output.squeeze(1);
    hy = hy.squeeze(1);
    if (cy.defined()) cy = cy.squeeze(1);
  } else if (c.batch_first) {
    output = output.transpose(0, 1);
  }
  return {output, hy, cy};
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run_packed(const Tensor& data, const Tensor& batch_sizes,
                                                           const Tensor& h0_in, const Tensor& c0_in) {
  const auto& c = config_;
  const char* name = mode_name(c.mode);
  EMBER_CHECK(batch_sizes.defined() && batch_sizes.dim() == 1 && batch_sizes.numel() > 0, "{}: batch_sizes must "
              "be a non-empty 1-D int64 tensor", name);
  const Tensor sizes_t = batch_sizes.to(kInt64).contiguous();
  const auto* p = static_cast<const int64_t*>(sizes_t.data_ptr());
  const std::vector<int64_t> sizes(p, p + sizes_t.numel());
  int64_t rows = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    EMBER_CHECK(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]), "{}: batch_sizes must be positive and "
                "non-increasing, got [{}]", name, fmt::join(sizes, ", "));
    rows += sizes[t];
  }
  EMBER_CHECK(data.dim() == 2 && data.size(1) == c.input_size && data.size(0) == rows, "{}: packed data must be "
              "(sum(batch_sizes), input_size) = ({}, {}), got {}", name, rows, c.input_size,
              shape_str(data.sizes()));
  Tensor h0 = initial_state(h0_in, 3, sizes.front(), /*cell=*/false, data.dtype());
  Tensor c0 = c.mode == RNNMode::LSTM ? initial_state(c0_in, 3, sizes.front(), /*cell=*/true, data.dtype())
                                       : Tensor();
  return run_layers(data, sizes, h0, c0);
}

Tensor RNNImplBase::initial_state(const Tensor& given, int64_t input_dim, int64_t batch, bool cell,
                                  DType dtype) const {
  const auto& c = config_;
  const char* name = mode_name(c.mode);
  const char* which = cell ? "hidden[1]" : (c.mode == RNNMode::LSTM ? "hidden[0]" : "hidden");
  const int64_t features = cell || c.proj_size == 0 ? c.hidden_size : c.proj_size;
  std::vector<int64_t> want{c.num_layers * (c.bidirectional ? 2 : 1), batch, features};
  if (!given.defined()) return ember::zeros(want, dtype);
  const bool batched = input_dim == 3;
  EMBER_CHECK(given.dim() == input_dim, "{}: For {} {}-D input, {} should also be {}-D but got {}-D tensor", name,
              batched ? "batched" : "unbatched", input_dim, cell ? "cx" : "hx", input_dim, given.dim());
  Tensor h = batched ? given : given.unsqueeze(1);
  const bool ok = h.sizes() == IntArrayRef(want);
  if (!batched) want.erase(want.begin() + 1);  // the message shows the shape the caller passes
  EMBER_CHECK(ok, "{}: Expected {} size ({}), got {}", name, which, fmt::join(want, ", "), shape_str(given.sizes()));
  return h;
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run_layers(const Tensor& x, const std::vector<int64_t>& batch_sizes,
                                                           const Tensor& h0, const Tensor& c0) {
  const auto& c = config_;
  const int64_t directions = c.bidirectional ? 2 : 1;
  std::vector<Tensor> weights = all_weights();
  const size_t per_direction = (c.bias ? 4 : 2) + (c.proj_size > 0 ? 1 : 0);
  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = x;
  for (int64_t layer = 0; layer < c.num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t index = layer * directions + d;
      const Tensor* w = weights.data() + static_cast<size_t>(index) * per_direction;
      Weights lw{w[0], w[1], Tensor(), Tensor(), Tensor()};
      if (c.bias) {
        lw.b_ih = w[2];
        lw.b_hh = w[3];
      }
      if (c.proj_size > 0) lw.w_hr = w[c.bias ? 4 : 2];
      Tensor h = h0.select(0, index);
      Tensor cell = c0.defined() ? c0.select(0, index) : Tensor();
      outputs.push_back(batch_sizes.empty()
                            ? run_direction(c.mode, layer_input, h, cell, lw, /*reverse=*/d == 1)
                            : run_packed_direction(c.mode, layer_input, batch_sizes, h, cell, lw, d == 1));
      h_n.push_back(h);
      if (cell.defined()) c_n.push_back(cell);
    }
    layer_input = directions == 2 ? ember::cat(outputs, -1) : outputs[0];
    if (c.dropout > 0 && is_training() && layer + 1 < c.num_layers)
      layer_input = ember::dropout(layer_input, c.dropout, /*train=*/true);
  }
  return {layer_input, ember::stack(h_n, 0), c_n.empty() ? Tensor() : ember::stack(c_n, 0)};
}

}  // namespace detail

namespace {
// RNN_RELU for kReLU, RNN_TANH for kTanh. Errors: another nonlinearity (ValueError, naming it).
detail::RNNMode rnn_mode(init::Nonlinearity n, const char* what) {
  EMBER_CHECK_VALUE(n == init::Nonlinearity::Tanh || n == init::Nonlinearity::ReLU,
                    "{}: Unknown nonlinearity; expected ember::kTanh or ember::kReLU", what);
  return n == init::Nonlinearity::ReLU ? detail::RNNMode::RNN_RELU : detail::RNNMode::RNN_TANH;
}

detail::RNNConfig config_of(const RNNOptions& o) {
  return {rnn_mode(o.nonlinearity(), "RNN"), o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
          o.batch_first(), o.dropout(), o.bidirectional(), 0};
}
detail::RNNConfig config_of(const LSTMOptions& o) {
  return {detail::RNNMode::LSTM, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(), o.batch_first(),
          o.dropout(), o.bidirectional(), o.proj_size()};
}
detail::RNNConfig config_of(const GRUOptions& o) {
  return {detail::RNNMode::GRU, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(), o.batch_first(),
          o.dropout(), o.bidirectional(), 0};
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_) : Cloneable(std::string("RNN"), config_of(options_)), options(options_) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [output, h, c] = run(input, hx, Tensor());
  (void)c;
  return {output, h};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : Cloneable(std::string("LSTM"), config_of(options_)), options(options_) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::optional<std::tuple<Tensor, Tensor>> hx) {
  Tensor h0, c0;
  if (hx) std::tie(h0, c0) = *hx;
  EMBER_CHECK(h0.defined() == c0.defined(), "LSTM: hx must hold both h_0 and c_0 or neither");
  auto [output, h, c] = run(input, h0, c0);
  return {output, {h, c}};
}

namespace {
namespace rnn = utils::rnn;

// The states of a packed batch reordered by permutation along the batch dim (PyTorch's permute_hidden): into the
// packed (sorted) order with sorted_indices, back to the caller's with unsorted_indices. Errors: a state that is
// not 3-D (a packed sequence is a batch), named `which` of layer `name`.
Tensor permute(const Tensor& state, const Tensor& permutation, const char* name = "", const char* which = "") {
  if (!state.defined() || !permutation.defined()) return state;
  EMBER_CHECK(state.dim() == 3, "{}: For a packed (batched 3-D) input, {} should be 3-D (num_layers * "
              "num_directions, batch, hidden) but got {}-D tensor", name, which, state.dim());
  EMBER_CHECK(state.size(1) == permutation.numel(), "{}: {} has a batch of {} (shape {}) but the packed sequence "
              "holds {} sequences", name, which, state.size(1), detail::shape_str(state.sizes()), permutation.numel());
  return state.index_select(1, permutation);
}
}  // namespace

std::tuple<rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(const rnn::PackedSequence& packed_input,
                                                                          Tensor hx) {
  const auto& in = packed_input;
  auto [output, h, c] = run_packed(in.data(), in.batch_sizes(), permute(hx, in.sorted_indices(), "RNN", "hx"),
                                   Tensor());
  (void)c;
  return {rnn::PackedSequence(output, in.batch_sizes(), in.sorted_indices(), in.unsorted_indices()),
          permute(h, in.unsorted_indices())};
}

std::tuple<rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  const auto& in = packed_input;
  Tensor h0, c0;
  if (hx) std::tie(h0, c0) = *hx;
  EMBER_CHECK(h0.defined() == c0.defined(), "LSTM: hx must hold both h_0 and c_0 or neither");
  auto [output, h, c] = run_packed(in.data(), in.batch_sizes(), permute(h0, in.sorted_indices(), "LSTM", "hx"),
                                   permute(c0, in.sorted_indices(), "LSTM", "cx"));
  return {rnn::PackedSequence(output, in.batch_sizes(), in.sorted_indices(), in.unsorted_indices()),
          {permute(h, in.unsorted_indices()), permute(c, in.unsorted_indices())}};
}

std::tuple<rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(const rnn::PackedSequence& packed_input,
                                                                          Tensor hx) {
  const auto& in = packed_input;
  auto [output, h, c] = run_packed(in.data(), in.batch_sizes(), permute(hx, in.sorted_indices(), "GRU", "hx"),
                                   Tensor());
  (void)c;
  return {rnn::PackedSequence(output, in.batch_sizes(), in.sorted_indices(), in.unsorted_indices()),
          permute(h, in.unsorted_indices())};
}

GRUImpl::GRUImpl(const GRUOptions& options_) : Cloneable(std::string("GRU"), config_of(options_)), options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [output, h, c] = run(input, hx, Tensor());
  (void)c;
  return {output, h};
}

// ---- cells

namespace detail {

RNNCellImplBase::RNNCellImplBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias)
    : Module(std::move(name)), mode_(mode), input_size_(input_size), hidden_size_(hidden_size), bias_(bias) {
  EMBER_CHECK_VALUE(input_size > 0 && hidden_size > 0,
                    "{}Cell: input_size and hidden_size must be positive, got input_size={}, hidden_size={}",
                    mode_name(mode), input_size, hidden_size);
  reset();
}

void RNNCellImplBase::reset() {
  const int64_t gate_size = gate_count(mode_) * hidden_size_;
  weight_ih = register_parameter("weight_ih", ember::empty({gate_size, input_size_}, kFloat32));
  weight_hh = register_parameter("weight_hh", ember::empty({gate_size, hidden_size_}, kFloat32));
  bias_ih = register_parameter("bias_ih", bias_ ? ember::empty({gate_size}, kFloat32) : Tensor(), bias_);
  bias_hh = register_parameter("bias_hh", bias_ ? ember::empty({gate_size}, kFloat32) : Tensor(), bias_);
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::string RNNCellImplBase::extra_repr() const {
  std::string s = fmt::format("{}, {}", input_size_, hidden_size_);
  if (!bias_) s += ", bias=False";
  if (mode_ == RNNMode::RNN_RELU) s += ", nonlinearity=relu";
  return s;
}

bool RNNCellImplBase::check_input(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "{}: Expected input to be 1-D or 2-D but received {}-D tensor",
              name(), input.dim());
  EMBER_CHECK(input.size(-1) == input_size_, "{}: input has inconsistent input_size: got {} expected {}", name(),
              input.size(-1), input_size_);
  return input.dim() == 1;
}

void RNNCellImplBase::check_state(const Tensor& input, const Tensor& state, const char* which) const {
  EMBER_CHECK(state.dim() == input.dim(), "{}: Expected {} to be {}-D as the input, but received {}-D tensor",
              name(), which, input.dim(), state.dim());
  EMBER_CHECK(state.size(-1) == hidden_size_, "{}: {} has inconsistent hidden_size: got {}, expected {}", name(),
              which, state.size(-1), hidden_size_);
  EMBER_CHECK(input.dim() == 1 || input.size(0) == state.size(0),
              "{}: Input batch size {} doesn't match {} batch size {}", name(), input.size(0), which, state.size(0));
}

}  // namespace detail

namespace {
// The batched (N, F) form of a cell's input or state; a missing state is zeros of (N, hidden).
Tensor batched(const Tensor& t, bool unbatched) { return unbatched ? t.unsqueeze(0) : t; }
}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& o)
    : Cloneable(std::string("RNNCell"), rnn_mode(o.nonlinearity(), "RNNCell"), o.input_size(), o.hidden_size(),
                o.bias()),
      options(o) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  const bool unbatched = check_input(input);
  Tensor x = batched(input, unbatched);
  if (hx.defined()) check_state(input, hx, "hx");
  Tensor h = hx.defined() ? batched(hx, unbatched) : ember::zeros({x.size(0), hidden_size_}, x.dtype());
  Tensor xw = ember::linear(x, weight_ih, detail::opt(bias_ih));
  Tensor hw = ember::linear(h, weight_hh, detail::opt(bias_hh));
  Tensor out = mode_ == detail::RNNMode::RNN_RELU ? ember::relu(xw + hw) : ember::tanh(xw + hw);
  return unbatched ? out.squeeze(0) : out;
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& o)
    : Cloneable(std::string("LSTMCell"), detail::RNNMode::LSTM, o.input_size(), o.hidden_size(), o.bias()),
      options(o) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx) {
  const bool unbatched = check_input(input);
  Tensor x = batched(input, unbatched);
  Tensor h, c;
  if (hx) {
    check_state(input, std::get<0>(*hx), "hx[0]");
    check_state(input, std::get<1>(*hx), "hx[1]");
    h = batched(std::get<0>(*hx), unbatched);
    c = batched(std::get<1>(*hx), unbatched);
  } else {
    h = ember::zeros({x.size(0), hidden_size_}, x.dtype());
    c = ember::zeros({x.size(0), hidden_size_}, x.dtype());
  }
  Tensor xw = ember::linear(x, weight_ih, detail::opt(bias_ih));
  Tensor hw = ember::linear(h, weight_hh, detail::opt(bias_hh));
  std::vector<Tensor> gates = (xw + hw).chunk(4, 1);
  Tensor i = gates[0].sigmoid(), f = gates[1].sigmoid(), g = gates[2].tanh(), o = gates[3].sigmoid();
  Tensor cy = f * c + i * g;
  Tensor hy = o * cy.tanh();
  if (unbatched) return {hy.squeeze(0), cy.squeeze(0)};
  return {hy, cy};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& o)
    : Cloneable(std::string("GRUCell"), detail::RNNMode::GRU, o.input_size(), o.hidden_size(), o.bias()),
      options(o) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  const bool unbatched = check_input(input);
  Tensor x = batched(input, unbatched);
  if (hx.defined()) check_state(input, hx, "hx");
  Tensor h = hx.defined() ? batched(hx, unbatched) : ember::zeros({x.size(0), hidden_size_}, x.dtype());
  std::vector<Tensor> xg = ember::linear(x, weight_ih, detail::opt(bias_ih)).chunk(3, 1);
  std::vector<Tensor> hg = ember::linear(h, weight_hh, detail::opt(bias_hh)).chunk(3, 1);
  Tensor r = (xg[0] + hg[0]).sigmoid();
  Tensor z = (xg[1] + hg[1]).sigmoid();
  Tensor n = (xg[2] + r * hg[2]).tanh();
  Tensor out = (h - n) * z + n;
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace ember::nn
