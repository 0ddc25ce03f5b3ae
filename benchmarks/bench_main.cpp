// C++ benchmark program: Ember and (when built with LibTorch) PyTorch's ATen side by side, one benchmark per
// (suite, op, size, out=, threads, framework), registered in pairs so each Ember case sits next to its
// reference. Run by benchmarks/run_all.py, which sets the flags below and writes the tables of
// BENCHMARKS.md; it can also be run by hand:
//
//   build-bench/benchmarks/ember_bench [--suite=dispatch,autograd,throughput,reduce] [--threads=1,2] [--ops=add,exp]
//                                      [Google Benchmark flags, e.g. --benchmark_repetitions=5]
//
// Suites: "dispatch" — per-op overhead on 1-element float32 tensors (add, mul, exp, relu, view);
// "autograd" — forward + backward of a tiny graph, (a * b + a.exp()).sum() on 1-element leaves;
// "throughput" — elementwise ops (and a transposed copy) on 1M and 16M float32 elements, with a fresh output
// and with out=; "reduce" — sum over dim 1 and dim 0 and softmax over dim 1 of a (4096, 1024) float32 matrix.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "benchmarks/bench_cases.h"
#include "benchmarks/bench_cli.h"

namespace {

using bench_cli::split;

bool wanted(const std::vector<std::string>& filter, const std::string& op) {
  if (filter.empty()) return true;
  for (const auto& f : filter)
    if (f == op) return true;
  return false;
}

// Throughput cases are timed by the wall clock (they may use several threads); dispatch cases by the CPU time
// of the calling thread, which a busy neighbour on this shared machine disturbs less.
void add_pair(const std::string& name, const bench::Case& c) {
  auto* e = benchmark::RegisterBenchmark((name + "/ember").c_str(), bench::run_ember, c);
  if (c.numel > 1) e->UseRealTime();
#ifdef EMBER_BENCH_WITH_LIBTORCH
  auto* t = benchmark::RegisterBenchmark((name + "/libtorch").c_str(), bench::run_libtorch, c);
  if (c.numel > 1) t->UseRealTime();
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> suites{"dispatch", "autograd", "throughput", "reduce"}, ops;
  std::vector<int> threads{1, 2};
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--suite=", 0) == 0) suites = split(a.substr(8));
    else if (a.rfind("--ops=", 0) == 0) ops = split(a.substr(6));
    else if (a.rfind("--threads=", 0) == 0) {
      threads.clear();
      for (const auto& t : split(a.substr(10))) threads.push_back(std::stoi(t));
    } else rest.push_back(argv[i]);
  }
  for (const auto& suite : suites) {
    if (suite == "dispatch") {
      for (int t : threads)
        for (const char* op : {"add", "mul", "exp", "relu", "view"})
          if (wanted(ops, op))
            add_pair("dispatch/" + std::string(op) + "/threads:" + std::to_string(t), {op, 1, false, t});
    } else if (suite == "autograd") {
      for (int t : threads)
        if (wanted(ops, "tiny_graph"))
          add_pair("autograd/tiny_graph/threads:" + std::to_string(t), {"tiny_graph", 1, false, t});
    } else if (suite == "throughput") {
      for (int t : threads)
        for (int64_t n : {int64_t(1) << 20, int64_t(1) << 24})
          for (bool out : {false, true})
            for (const char* op : {"add", "mul", "mul_add", "addcmul", "relu", "exp", "tanh", "sigmoid", "t_copy"})
              if (wanted(ops, op))
                add_pair("throughput/" + std::string(op) + "/" + (n == (1 << 20) ? "1M" : "16M") + "/" +
                             (out ? "out" : "fresh") + "/threads:" + std::to_string(t),
                         {op, n, out, t, n == (1 << 20) ? 1024 : 4096});  // t_copy: square matrices
    } else if (suite == "reduce") {
      for (int t : threads)
        for (bool out : {false, true})
          for (const char* op : {"sum_dim1", "sum_dim0", "softmax"})
            if (wanted(ops, op) && !(out && std::string(op) == "softmax"))
              add_pair("reduce/" + std::string(op) + "/4096x1024/" + (out ? "out" : "fresh") + "/threads:" +
                           std::to_string(t),
                       {op, 4096 * 1024, out, t, 1024});
    } else {
      std::fprintf(stderr, "unknown suite %s (expected dispatch, autograd, throughput or reduce)\n", suite.c_str());
      return 2;
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  benchmark::AddCustomContext("libtorch",
#ifdef EMBER_BENCH_WITH_LIBTORCH
                              "linked"
#else
                              "not built"
#endif
  );
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
