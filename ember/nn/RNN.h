#pragma once
// Recurrent layers and cells (LibTorch's torch::nn::RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell; Python's
// ember.nn of the same names), with LibTorch's options and return types:
//
//   ember::nn::LSTM lstm(ember::nn::LSTMOptions(64, 128).num_layers(2).batch_first(true).dropout(0.2));
//   auto [output, state] = lstm->forward(x);              // state = (h_n, c_n)
//   auto out2 = lstm->forward(x2, state);                 // carry the state over
//
// Parameters are PyTorch's, by name, shape, order and gate layout (weight_ih_l0, weight_hh_l0, bias_ih_l0,
// bias_hh_l0, weight_hr_l0 with proj_size, each with "_reverse" for the backward direction; LSTM gates i, f, g, o
// and GRU gates r, z, n along dim 0), so a state dict crosses between C++, Python's ember.nn.LSTM and PyTorch.
// Initialisation is PyTorch's: every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in registration
// order, so the same seed gives the same values as Python.
//
// Note [recurrent layers are composite]
// The layers are written with ember ops (linear, sigmoid, tanh, chunk, cat, stack), as ATen's CPU path computes
// them: the input projection x W_ih^T + b_ih is one matmul over the whole sequence per layer and direction; each
// step adds h W_hh^T + b_hh and applies the gate math. Autograd, the tracer and Python therefore see ordinary ops.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/Tensor.h"
#include "ember/nn/Cloneable.h"
#include "ember/nn/Module.h"
#include "ember/nn/ModuleHolder.h"
#include "ember/nn/Options.h"
#include "ember/nn/init.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {

/// Options of RNN: `RNNOptions(input_size, hidden_size).num_layers(2).nonlinearity(ember::kReLU)`.
struct RNNOptions {
  using nonlinearity_t = init::Nonlinearity;
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of the input (its last dim).
  EMBER_ARG(int64_t, input_size);
  /// Features of the hidden state.
  EMBER_ARG(int64_t, hidden_size);
  /// Stacked layers; each after the first reads the previous one's output.
  EMBER_ARG(int64_t, num_layers) = 1;
  /// The activation of the new state: ember::kTanh (default) or ember::kReLU; others are a ValueError.
  EMBER_ARG(nonlinearity_t, nonlinearity) = init::Nonlinearity::Tanh;
  /// Whether the layers have the biases b_ih and b_hh.
  EMBER_ARG(bool, bias) = true;
  /// Whether input and output are (batch, seq, feature) instead of (seq, batch, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// Dropout probability on the outputs of every layer but the last, in training mode.
  EMBER_ARG(double, dropout) = 0.0;
  /// Whether each layer also runs over the sequence backwards (outputs concatenated: 2 * hidden_size features).
  EMBER_ARG(bool, bidirectional) = false;
};

/// Options of LSTM: `LSTMOptions(input_size, hidden_size).num_layers(2).batch_first(true).proj_size(16)`.
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  /// When > 0, h is projected to proj_size features by weight_hr (LSTM with projections, Sak et al. 2014).
  EMBER_ARG(int64_t, proj_size) = 0;
};

/// Options of GRU: `GRUOptions(input_size, hidden_size).num_layers(2).bidirectional(true)`.
struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

namespace detail {

/// The kind of recurrence, as ATen's RNN modes.
enum class RNNMode { RNN_TANH, RNN_RELU, LSTM, GRU };

/// A defined tensor as an optional argument, an undefined one as none.
std::optional<Tensor> opt(const Tensor& t);

/// What the three layer classes share: their settings, parameters, initialisation and printing.
struct RNNConfig {
  RNNMode mode;
  int64_t input_size, hidden_size, num_layers;
  bool bias, batch_first;
  double dropout;
  bool bidirectional;
  int64_t proj_size;
};

/// The base of RNNImpl, LSTMImpl and GRUImpl (LibTorch's RNNImplBase).
/// Errors at construction (ValueError): non-positive sizes or layers, dropout outside [0, 1], proj_size negative or
/// not below hidden_size, proj_size on a non-LSTM.
class RNNImplBase : public Module {
 public:
  RNNImplBase(std::string name, const RNNConfig& config);

  /// Registers the parameters (see the file comment) and initialises them.
  void reset();
  /// Draws new values: U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every parameter, in order.
  void reset_parameters();
  /// Accepted for LibTorch compatibility; the parameters are already used in place (a no-op).
  void flatten_parameters() {}
  /// The parameters in PyTorch's _flat_weights order.
  std::vector<Tensor> all_weights() const;
  /// Python's extra_repr: "10, 20, num_layers=2, batch_first=True, bidirectional=True" (non-defaults only).
  std::string extra_repr() const override;

 protected:
  /// Runs the layers over input (seq, batch, feature) or (batch, seq, feature) with batch_first, or unbatched
  /// (seq, feature); h0 (and c0 for LSTM) (num_layers * directions, batch, H) or unbatched, undefined for zeros.
  /// Returns the output and the final h (and c). Errors (RuntimeError): see the layer classes.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& h0, const Tensor& c0);
  /// Runs the layers over packed rows data (sum(batch_sizes), input_size) (Note [packed layout] in
  /// ember/nn/utils/rnn.h); h0, c0 as run's, for batch_sizes[0] sequences in the packed (sorted) order. Returns
  /// the packed output (rows, D * H_out) and the final h (and c). Errors (RuntimeError): batch_sizes empty, not
  /// positive or not non-increasing; data not (sum(batch_sizes), input_size); states of the wrong shape.
  std::tuple<Tensor, Tensor, Tensor> run_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& h0,
                                                const Tensor& c0);

  RNNConfig config_;

 private:
  // The initial h (cell: c) checked against an input of input_dim dims and batch sequences, batched; zeros of
  // dtype when undefined.
  Tensor initial_state(const Tensor& given, int64_t input_dim, int64_t batch, bool cell, DType dtype) const;
  // The layers over x (L, N, F), or packed rows when batch_sizes is not empty.
  std::tuple<Tensor, Tensor, Tensor> run_layers(const Tensor& x, const std::vector<int64_t>& batch_sizes,
                                                const Tensor& h0, const Tensor& c0);

 protected:
  std::vector<Tensor> flat_weights_;
  std::vector<std::string> flat_weight_names_;
};

}  // namespace detail

/// A multi-layer Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).
///
/// input: (L, N, H_in), (N, L, H_in) with batch_first, or unbatched (L, H_in)
/// hx:    (num_layers * D, N, H_out) or unbatched (num_layers * D, H_out); zeros when undefined
/// returns (output, h_n): output (L, N, D * H_out) (batch_first: (N, L, D * H_out)), h_n as hx; D = 2 when
/// bidirectional, else 1.
/// Errors (RuntimeError): an input that is not 2-D or 3-D, an input whose last dim is not input_size, an hx of
/// the wrong shape (naming the expected and actual sizes).
class RNNImpl : public Cloneable<RNNImpl, detail::RNNImplBase> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  void reset() override { detail::RNNImplBase::reset(); }
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// forward over a PackedSequence (ember/nn/utils/rnn.h): hx (num_layers * D, N, H_out) in the caller's batch
  /// order; returns the packed output (sum(batch_sizes), D * H_out) with the input's permutations, and h_n in the
  /// caller's batch order. Errors: as forward's, and a packed input whose data is not (rows, input_size).
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;
};

/// A multi-layer LSTM (Hochreiter & Schmidhuber 1997), gates as PyTorch's documentation gives them:
/// i, f, g, o = sigmoid/sigmoid/tanh/sigmoid(x W_ih^T + b_ih + h W_hh^T + b_hh chunks), c' = f * c + i * g,
/// h' = o * tanh(c') (then h' W_hr^T with proj_size).
///
/// input: (L, N, H_in), (N, L, H_in) with batch_first, or unbatched (L, H_in)
/// hx:    optional (h_0, c_0): h_0 (num_layers * D, N, H_out), c_0 (num_layers * D, N, H_cell); zeros when absent
/// returns (output, (h_n, c_n)): output (L, N, D * H_out); H_out = proj_size when > 0, else hidden_size.
/// Errors (RuntimeError): as RNN, for h_0 and c_0 each.
class LSTMImpl : public Cloneable<LSTMImpl, detail::RNNImplBase> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  void reset() override { detail::RNNImplBase::reset(); }
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::optional<std::tuple<Tensor, Tensor>> hx = {});
  /// forward over a PackedSequence, as RNN's forward_with_packed_input; returns (output, (h_n, c_n)).
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx = {});

  LSTMOptions options;
};

/// A multi-layer GRU (Cho et al. 2014): r, z = sigmoid(...), n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)),
/// h' = (1 - z) * n + z * h.
///
/// Shapes, returns and errors as RNN.
class GRUImpl : public Cloneable<GRUImpl, detail::RNNImplBase> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  void reset() override { detail::RNNImplBase::reset(); }
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  /// forward over a PackedSequence, as RNN's forward_with_packed_input.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;
};

EMBER_MODULE(RNN);
EMBER_MODULE(LSTM);
EMBER_MODULE(GRU);

/// Options of RNNCell: `RNNCellOptions(input_size, hidden_size).bias(false).nonlinearity(ember::kReLU)`.
struct RNNCellOptions {
  using nonlinearity_t = init::Nonlinearity;
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(nonlinearity_t, nonlinearity) = init::Nonlinearity::Tanh;
};

/// Options of LSTMCell: `LSTMCellOptions(input_size, hidden_size).bias(false)`.
struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

/// Options of GRUCell: `GRUCellOptions(input_size, hidden_size).bias(false)`.
struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

namespace detail {
/// The base of the cells (LibTorch's RNNCellImplBase): weight_ih (G * hidden, input), weight_hh (G * hidden,
/// hidden), bias_ih, bias_hh (G * hidden); G = 1, 4, 3 for RNN, LSTM, GRU cells.
class RNNCellImplBase : public Module {
 public:
  RNNCellImplBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias);
  void reset();
  /// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for each parameter, in order.
  void reset_parameters();
  /// Python's extra_repr: "10, 20" plus ", bias=False" and ", nonlinearity=relu" when not the defaults.
  std::string extra_repr() const override;

  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  /// Checks input (N, input_size) or unbatched (input_size) and a state of (N, hidden_size); returns the input
  /// batched and whether it was unbatched. `name` is "hx", "hx[0]", ....
  bool check_input(const Tensor& input) const;
  void check_state(const Tensor& input, const Tensor& state, const char* name) const;

  RNNMode mode_;
  int64_t input_size_, hidden_size_;
  bool bias_;
};
}  // namespace detail

/// One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).
/// input: (N, H_in) or (H_in); hx: (N, H) or (H), zeros when undefined; returns h' of hx's shape.
/// Errors (RuntimeError): an input that is not 1-D or 2-D, sizes that do not match the options, batch sizes
/// of input and hx that differ.
class RNNCellImpl : public Cloneable<RNNCellImpl, detail::RNNCellImplBase> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  void reset() override { detail::RNNCellImplBase::reset(); }
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;
};

/// One LSTM step (gates as LSTM's). input: (N, H_in) or (H_in); hx: optional (h, c), each (N, H) or (H), zeros
/// when absent; returns (h', c'). Errors as RNNCell.
class LSTMCellImpl : public Cloneable<LSTMCellImpl, detail::RNNCellImplBase> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  void reset() override { detail::RNNCellImplBase::reset(); }
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx = {});

  LSTMCellOptions options;
};

/// One GRU step (gates as GRU's). Shapes and errors as RNNCell.
class GRUCellImpl : public Cloneable<GRUCellImpl, detail::RNNCellImplBase> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  void reset() override { detail::RNNCellImplBase::reset(); }
  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};

EMBER_MODULE(RNNCell);
EMBER_MODULE(LSTMCell);
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
