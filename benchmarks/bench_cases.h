#pragma once
// The cases the C++ benchmark runs, shared by the Ember side (ember_ops.cpp) and the LibTorch side
// (libtorch_ops.cpp). The two sides live in separate translation units so no file includes both Ember's and
// PyTorch's headers; only the benchmark program links both libraries (Ember itself never does).
//
// Note [benchmark fairness]
// Both sides get the same input values (inputs() below, copied into each framework's own tensors), the same
// explicit intra-op thread count (set at the start of every benchmark: ember::set_num_threads(n) and
// at::set_num_threads(n)), and the same work per iteration. "fresh" cases return a newly allocated output
// every call (what `a + b` does); "out" cases write into a preallocated tensor (`add_out(out, a, b)`).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bench {

/// One benchmark case. op is one of: add, mul, exp, relu, view (dispatch), tiny_graph (autograd:
/// forward + backward of (a * b + a.exp()).sum() with a, b leaves that require grad), and for throughput also
/// mul_add (a * b + c as two ops), addcmul (c + a * b in one op), tanh, sigmoid, t_copy (a.t().contiguous(),
/// out=: out.copy_(a.t())); for the reduce suite sum_dim1 (a.sum(1)), sum_dim0 (a.sum(0)), softmax (a.softmax(1),
/// no out= form: Ember has none). Inputs are 1-D, or (numel / cols, cols) when cols is set.
struct Case {
  std::string op;
  int64_t numel = 1;
  bool out = false;  // write into a preallocated output (out=) instead of a fresh tensor
  int threads = 1;
  int64_t cols = 0;
  int64_t rows() const { return cols ? numel / cols : numel; }
};

/// The number of input tensors an op reads (a, b, c).
inline int num_inputs(const std::string& op) {
  if (op == "add" || op == "mul") return 2;
  if (op == "mul_add" || op == "addcmul") return 3;
  return 1;
}

/// Deterministic float32 input values in [-4, 4) (a small LCG, so both sides see identical data). Generated
/// once per (n, seed): Google Benchmark calls a case's function several times per repetition (while it finds
/// the iteration count), and regenerating 16M values each time made the set-up cost more than the timing.
inline const std::vector<float>& inputs(int64_t n, uint32_t seed) {
  static std::map<std::pair<int64_t, uint32_t>, std::vector<float>> cache;
  std::vector<float>& v = cache[{n, seed}];
  if (v.empty()) {
    v.resize(static_cast<size_t>(n));
    uint32_t s = seed * 2654435761u + 12345u;
    for (auto& x : v) {
      s = s * 1664525u + 1013904223u;
      x = static_cast<float>(s >> 8) * (8.0f / 16777216.0f) - 4.0f;
    }
  }
  return v;
}

/// The number of output elements per call.
inline int64_t out_numel(const Case& c) {
  if (c.op == "sum_dim1") return c.rows();
  if (c.op == "sum_dim0") return c.cols;
  return c.numel;
}

/// Sets the counters the report reads: elements per second (of output; of input for the reductions), and the
/// bytes an unfused implementation must move (inputs read plus output written, 4 bytes each).
inline void set_counters(benchmark::State& state, const Case& c) {
  int64_t iters = static_cast<int64_t>(state.iterations());
  state.SetItemsProcessed(iters * c.numel);
  state.SetBytesProcessed(iters * 4 * (c.numel * num_inputs(c.op) + out_numel(c)));
}

void run_ember(benchmark::State& state, const Case& c);
#ifdef EMBER_BENCH_WITH_LIBTORCH
void run_libtorch(benchmark::State& state, const Case& c);
#endif

}  // namespace bench
