// Latency of saved Fashion-MNIST models (the main job's CNN and an MLP) run from C++: Ember's JIT runtime (an
// ember.jit.save archive) against PyTorch 1.13's TorchScript through LibTorch (torch.jit.trace, its frozen form
// and optimize_for_inference's when that loads), at the same thread counts and batch sizes, in one process. The
// models come from benchmarks/export_latency_models.py (same weights on both sides; this program checks that the
// logits agree).
//
//   /usr/bin/python3 benchmarks/export_latency_models.py --out build/latency [--models cnn,mlp]
//   build/benchmarks/ember_latency_bench [--dir build/latency] [--model cnn,mlp] [--threads 1,2] [--batch 1,64]
//                                        [--rounds 40] [--calls 25]
// --model names the models to time, in turn (default cnn): `cnn` reads ember_cnn.pt and torch_cnn_*.pt with
// inputs (batch, 1, 28, 28); `mlp` reads ember_mlp.pt and torch_mlp_*.pt with flattened inputs (batch, 784).
//
// Note [latency measurement]
// Each forward call is timed on its own (steady_clock) and the figure is the median over all calls, which a
// busy neighbour on a shared machine disturbs less than a mean. The models take turns: in every round each
// runs `calls` calls in a row, so a slow phase of the machine hits all of them alike. Before timing, each
// model runs warm-up calls (first-call allocation, OpenMP thread start, lazy initialisation).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/latency.h"
#include "benchmarks/bench_cli.h"

namespace latency {

std::vector<float> input_values(int64_t numel) {
  std::vector<float> v(static_cast<size_t>(numel));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.6f + 1.4f * std::sin(0.37f * static_cast<float>(i));
  return v;
}

}  // namespace latency

namespace {

using bench_cli::quantile;
using bench_cli::split;
using bench_cli::split_ints;

struct Entry {
  std::string name;
  std::unique_ptr<latency::Runner> runner;
  std::vector<double> samples;  // microseconds per call
};

/// A model of the benchmark: the files' stem (ember_<name>.pt, torch_<name>_*.pt) and its input's shape after
/// the batch dimension.
struct Model {
  std::string name;
  std::vector<int64_t> sample_shape;
};

const Model kModels[] = {{"cnn", {1, 28, 28}}, {"mlp", {28 * 28}}};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "build/latency";
  std::vector<int> threads{1, 2}, batches{1};
  std::vector<std::string> model_names{"cnn"};
  int rounds = 40, calls = 25, warmup = 30;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) { return bench_cli::flag_value(argc, argv, i, flag); };
    std::string v;
    if (!(v = value("--dir")).empty()) dir = v;
    else if (!(v = value("--model")).empty()) model_names = split(v);
    else if (!(v = value("--threads")).empty()) threads = split_ints(v);
    else if (!(v = value("--batch")).empty()) batches = split_ints(v);
    else if (!(v = value("--rounds")).empty()) rounds = std::stoi(v);
    else if (!(v = value("--calls")).empty()) calls = std::stoi(v);
    else {
      std::fprintf(stderr, "usage: ember_latency_bench [--dir DIR] [--model cnn,mlp] [--threads 1,2] [--batch 1,64] "
                           "[--rounds N] [--calls N]\n");
      return 2;
    }
  }
  std::vector<Model> models;
  for (const std::string& n : model_names) {
    auto it = std::find_if(std::begin(kModels), std::end(kModels), [&](const Model& m) { return m.name == n; });
    if (it == std::end(kModels)) {
      std::fprintf(stderr, "ember_latency_bench: unknown --model '%s' (models: cnn, mlp)\n", n.c_str());
      return 2;
    }
    models.push_back(*it);
    const std::string ember_path = dir + "/ember_" + n + ".pt";
    if (!std::filesystem::exists(ember_path)) {
      std::fprintf(stderr, "ember_latency_bench: %s not found; run /usr/bin/python3 "
                           "benchmarks/export_latency_models.py --out %s first\n", ember_path.c_str(), dir.c_str());
      return 1;
    }
  }
  // TorchScript's modes, as benchmarks/export_latency_models.py writes them. (The CNN's optimize_for_inference
  // file does not load back in PyTorch 1.13, "required keyword attribute 'value' is undefined": it is skipped with
  // a message, and the script times that mode from Python.)
  const std::pair<const char*, const char*> torch_modes[] = {{"torchscript traced", "traced"},
                                                            {"torchscript frozen", "frozen"},
                                                            {"torchscript optimize_for_inference", "optimized"}};

  try {
    std::printf("%-5s %-34s %7s %5s %10s %10s %10s %8s\n", "model", "runtime", "threads", "batch", "median_us",
                "p10_us", "p90_us", "vs_ember");
    for (const Model& model : models) {
      for (int b : batches) {
        std::vector<int64_t> shape{b};
        shape.insert(shape.end(), model.sample_shape.begin(), model.sample_shape.end());
        std::vector<Entry> entries;
        entries.push_back({"ember jit runtime", latency::make_ember(dir + "/ember_" + model.name + ".pt", shape), {}});
        for (auto [name, mode] : torch_modes) {
          std::string path = dir + "/torch_" + model.name + "_" + mode + ".pt";
          if (!std::filesystem::exists(path)) continue;
          try {
            auto r = latency::make_libtorch(path, shape);
            if (r) entries.push_back({name, std::move(r), {}});
          } catch (const std::exception& e) {
            std::fprintf(stderr, "ember_latency_bench: skipping %s (%s): %s\n", name, path.c_str(), e.what());
          }
        }
        // The logits must agree (same weights, same input), or the comparison is of different models.
        std::vector<float> ref = entries[0].runner->forward(true);
        for (size_t k = 1; k < entries.size(); ++k) {
          std::vector<float> got = entries[k].runner->forward(true);
          double diff = got.size() == ref.size() ? 0 : INFINITY;
          for (size_t j = 0; j < got.size() && j < ref.size(); ++j)
            diff = std::max(diff, static_cast<double>(std::fabs(got[j] - ref[j])));
          if (!(diff < 1e-3)) {
            std::fprintf(stderr, "ember_latency_bench: %s's logits differ from Ember's by %g\n",
                         entries[k].name.c_str(), diff);
            return 1;
          }
        }
        for (int t : threads) {
          for (Entry& e : entries) {
            e.samples.clear();
            e.runner->set_threads(t);
            for (int w = 0; w < warmup; ++w) e.runner->forward();
          }
          for (int r = 0; r < rounds; ++r)
            for (Entry& e : entries) {
              e.runner->set_threads(t);  // both frameworks share OpenMP's thread count: set it for each turn
              for (int c = 0; c < calls; ++c) {
                auto start = std::chrono::steady_clock::now();
                e.runner->forward();
                e.samples.push_back(
                    std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
              }
            }
          const double ember_median = quantile(entries[0].samples, 0.5);
          for (const Entry& e : entries) {
            double m = quantile(e.samples, 0.5);
            std::printf("%-5s %-34s %7d %5d %10.1f %10.1f %10.1f %8.2f\n", model.name.c_str(), e.name.c_str(), t,
                        b, m, quantile(e.samples, 0.1), quantile(e.samples, 0.9), ember_median / m);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember_latency_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
