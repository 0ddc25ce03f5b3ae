// Per-op overhead of the JIT interpreter (ember/jit/runtime): a chain of 16 small elementwise ops on a
// 1-element float32 tensor, run (1) by direct C++ calls (the typed dispatcher path), (2) by boxed calls
// through the OperatorHandles with a reused stack (the interpreter's op-call path without the interpreter),
// and (3) by the interpreter from graph text. The per-op time is the per-iteration time / 16; the
// difference between (3) and (1) is what the interpreter adds. Run: build/benchmarks/ember_jit_bench.
#include <benchmark/benchmark.h>

#include <string>

#include "ember/api/ember.h"
#include "ember/jit/ir/IR.h"
#include "ember/jit/runtime/Interpreter.h"

namespace {

constexpr int kOps = 16;  // 4 x (add, mul, neg, relu)

// The chain as graph text: %x -> add(x, x) -> mul(., x) -> neg -> relu -> ... (x read every round).
std::string chain_text() {
  std::string s = "graph(%x : Tensor):\n  %one : int = prim::Constant[value=1]()\n";
  std::string prev = "x";
  for (int r = 0; r < kOps / 4; ++r) {
    std::string a = "a" + std::to_string(r), m = "m" + std::to_string(r), n = "n" + std::to_string(r),
                q = "r" + std::to_string(r);
    s += "  %" + a + " : Tensor = aten::add(%" + prev + ", %x, %one)\n";
    s += "  %" + m + " : Tensor = aten::mul(%" + a + ", %x)\n";
    s += "  %" + n + " : Tensor = aten::neg(%" + m + ")\n";
    s += "  %" + q + " : Tensor = aten::relu(%" + n + ")\n";
    prev = q;
  }
  return s + "  return (%" + prev + ")\n";
}

// Seconds of CPU per op, shown as a counter ("290n" = 290 ns).
void per_op(benchmark::State& state) {
  state.counters["per_op"] =
      benchmark::Counter(kOps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

ember::Tensor input() { return ember::full({1}, 0.5, ember::kFloat32); }

void BM_DirectCalls(benchmark::State& state) {
  ember::Tensor x = input();
  for (auto _ : state) {
    ember::Tensor y = x;
    for (int r = 0; r < kOps / 4; ++r) y = ember::relu(ember::neg(ember::mul(ember::add(y, x), x)));
    benchmark::DoNotOptimize(y.impl());
  }
  per_op(state);
}

void BM_BoxedCalls(benchmark::State& state) {
  ember::Tensor x = input();
  auto& d = ember::Dispatcher::singleton();
  ember::OperatorHandle add = d.find("aten::add.Tensor"), mul = d.find("aten::mul.Tensor"),
                        neg = d.find("aten::neg"), relu = d.find("aten::relu");
  ember::Stack st;
  st.reserve(4);
  for (auto _ : state) {
    ember::IValue y(x);
    for (int r = 0; r < kOps / 4; ++r) {
      st.clear();
      st.push_back(std::move(y)), st.emplace_back(x), st.emplace_back(int64_t{1});
      add.call_boxed(&st);
      st.emplace_back(x);
      mul.call_boxed(&st);
      neg.call_boxed(&st);
      relu.call_boxed(&st);
      y = std::move(st.back());
    }
    benchmark::DoNotOptimize(y.payload_ptr());
  }
  per_op(state);
}

void BM_Interpreter(benchmark::State& state) {
  ember::Tensor x = input();
  ember::jit::Function f("chain", chain_text());
  for (auto _ : state) {
    ember::IValue y = f({x});
    benchmark::DoNotOptimize(y.payload_ptr());
  }
  per_op(state);
}

BENCHMARK(BM_DirectCalls);
BENCHMARK(BM_BoxedCalls);
BENCHMARK(BM_Interpreter);

}  // namespace

int main(int argc, char** argv) {
  ember::set_num_threads(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
