// Training step from C++: Ember's C++ frontend (ember::nn, ember::optim) against LibTorch 1.13 (torch::nn,
// torch::optim), side by side in one process, on real Fashion-MNIST batches. A step is what a C++ training loop
// does per batch: zero_grad, forward in training mode, cross_entropy, backward, the optimizer's step, and
// loss.item(). Models (train_step.h): the CNN of examples/fashion_mnist/train.py with AdamW, and an MLP
// 784-512-256-10 with SGD + momentum; batch 64.
//
//   build/benchmarks/ember_train_step_bench [--data-dir /usr/share/datasets/fashion-mnist] [--models cnn,mlp]
//       [--threads 1,2] [--batch 64] [--batches 40] [--rounds 15] [--steps 10] [--warmup 10] [--providers all]
//       [--sides ember,libtorch]
//
// --sides ember (or libtorch) times one framework alone, for profiling one side (perf record).
// --providers blas switches Ember's oneDNN provider off (OpenBLAS then runs its GEMMs, Note [onednn gemm]), to
// show what each provider contributes; the default, all, is Ember as it ships.
//
// Prints, per model and thread count, the median, 10th and 90th percentile of the step time on each side and
// Ember's median over that side's (column ember/side: on the libtorch row, the ratio, goal at most
// 0.8). Before timing, LibTorch's model gets Ember's initial parameters and buffers, and both must give the
// same eval-mode loss on the first batch (the same model, computed by each framework); both then train from the
// same weights on the same batches.
//
// Note [training-step measurement]
// As Note [latency measurement] in latency_main.cpp: every step is timed on its own (steady_clock), the figure
// is the median, and the frameworks take turns, `steps` steps each per round, so a busy neighbour on the shared
// machine hits both alike. The thread count is set before each turn (both frameworks drive OpenMP). Warm-up
// steps come first (first-touch allocation, optimizer state creation, OpenMP thread start). The batches cycle
// through `batches` real batches, so the data is Fashion-MNIST's and the loss moves as in training.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/train_step.h"
#include "benchmarks/bench_cli.h"

namespace train_step {

const char* model_name(Model m) { return m == Model::kCnn ? "cnn (AdamW)" : "mlp 784-512-256-10 (SGD)"; }

}  // namespace train_step

namespace {

using bench_cli::quantile;
using bench_cli::split;

using train_step::Model;

// The shared libraries of this process whose names say BLAS, LAPACK, oneDNN or OpenMP: what was loaded, as
// opposed to what each framework says it calls.
std::string mapped_libraries() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> found;
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string base = path.substr(path.rfind('/') + 1);
    for (const char* key : {"blas", "lapack", "dnnl", "mkl", "gomp", "omp."})
      if (base.find(key) != std::string::npos) found.insert(path);
  }
  std::string r;
  for (const std::string& p : found) r += (r.empty() ? "" : ", ") + p;
  return r;
}

struct Side {
  const char* name;
  std::unique_ptr<train_step::Trainer> trainer;
  std::vector<double> samples;  // milliseconds per step
  double loss_sum = 0;
  int64_t losses = 0;
};

void usage() {
  std::fprintf(stderr, "usage: ember_train_step_bench [--data-dir DIR] [--models cnn,mlp] [--threads 1,2] "
                       "[--batch N] [--batches N] [--rounds N] [--steps N] [--warmup N] [--providers all|blas] "
                       "[--sides ember,libtorch]\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::vector<Model> models{Model::kCnn, Model::kMlp};
  std::vector<int> threads{1, 2};
  int64_t batch = 64, batches = 40;
  int rounds = 15, steps = 10, warmup = 10;
  bool run_ember = true, run_libtorch = true;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        usage();
        return 0;
      }
      auto value = [&](const char* flag) { return bench_cli::flag_value(argc, argv, i, flag); };
      std::string v;
      if (!(v = value("--data-dir")).empty()) data_dir = v;
      else if (!(v = value("--models")).empty()) {
        models.clear();
        for (const std::string& m : split(v)) {
          if (m == "cnn") models.push_back(Model::kCnn);
          else if (m == "mlp") models.push_back(Model::kMlp);
          else throw std::invalid_argument("unknown model '" + m + "' (cnn, mlp)");
        }
      } else if (!(v = value("--threads")).empty()) {
        threads.clear();
        for (const std::string& t : split(v)) threads.push_back(std::stoi(t));
      } else if (!(v = value("--batch")).empty()) batch = std::stoll(v);
      else if (!(v = value("--batches")).empty()) batches = std::stoll(v);
      else if (!(v = value("--rounds")).empty()) rounds = std::stoi(v);
      else if (!(v = value("--steps")).empty()) steps = std::stoi(v);
      else if (!(v = value("--warmup")).empty()) warmup = std::stoi(v);
      else if (!(v = value("--providers")).empty()) {
        if (v != "all" && v != "blas") throw std::invalid_argument("unknown --providers '" + v + "' (all, blas)");
        train_step::ember_set_onednn(v == "all");
      } else if (!(v = value("--sides")).empty()) {
        run_ember = run_libtorch = false;
        for (const std::string& side : split(v)) {
          if (side == "ember") run_ember = true;
          else if (side == "libtorch") run_libtorch = true;
          else throw std::invalid_argument("unknown side '" + side + "' (ember, libtorch)");
        }
      } else throw std::invalid_argument("unknown argument '" + a + "'");
    }
    if (batch < 1 || batches < 1 || rounds < 1 || steps < 1 || warmup < 0 || threads.empty() || models.empty())
      throw std::invalid_argument("counts must be positive");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember_train_step_bench: %s\n", e.what());
    usage();
    return 2;
  }

  try {
    const train_step::Data data = train_step::load_data(data_dir, batch, batches);
    std::printf("# %lld real Fashion-MNIST batches of %lld; %d rounds x %d steps per side per thread count, "
                "after %d warm-up steps\n",
                static_cast<long long>(batches), static_cast<long long>(batch), rounds, steps, warmup);
    std::printf("%-28s %7s %-8s %10s %10s %10s %10s %12s\n", "model", "threads", "side", "median_ms", "p10_ms",
                "p90_ms", "mean_loss", "ember/side");
    for (Model m : models) {
      std::vector<Side> sides;
      if (run_ember) sides.push_back({"ember", train_step::make_ember(m, data), {}});
      if (run_libtorch) sides.push_back({"libtorch", train_step::make_libtorch(m, data), {}});
      sides.erase(std::remove_if(sides.begin(), sides.end(), [](const Side& s) { return !s.trainer; }),
                  sides.end());
      if (sides.size() == 2) {
        // The same model on both sides: LibTorch starts from Ember's initial state (Note [training-step
        // measurement]), and their eval-mode losses on the first batch must agree.
        sides[1].trainer->load_state(sides[0].trainer->state());
        const double a = sides[0].trainer->eval_loss(0), b = sides[1].trainer->eval_loss(0);
        if (!(std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)))) {
          std::fprintf(stderr, "ember_train_step_bench: %s: eval loss %.7f (ember) != %.7f (libtorch)\n",
                       train_step::model_name(m), a, b);
          return 1;
        }
      }
      for (int t : threads) {
        for (Side& s : sides) {
          s.samples.clear();
          s.loss_sum = 0, s.losses = 0;
          s.trainer->set_threads(t);
          for (int w = 0; w < warmup; ++w) s.trainer->step(w);
        }
        for (int r = 0; r < rounds; ++r)
          for (Side& s : sides) {
            s.trainer->set_threads(t);
            for (int k = 0; k < steps; ++k) {
              const int64_t i = static_cast<int64_t>(r) * steps + k;
              auto start = std::chrono::steady_clock::now();
              const double loss = s.trainer->step(i);
              s.samples.push_back(
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
              s.loss_sum += loss, ++s.losses;
            }
          }
        const double ember_median = sides[0].name == std::string("ember") ? quantile(sides[0].samples, 0.5) : NAN;
        for (const Side& s : sides) {
          const double med = quantile(s.samples, 0.5);
          std::printf("%-28s %7d %-8s %10.2f %10.2f %10.2f %10.4f %12.2f\n", train_step::model_name(m), t, s.name,
                      med, quantile(s.samples, 0.1), quantile(s.samples, 0.9),
                      s.loss_sum / static_cast<double>(s.losses), ember_median / med);
        }
        std::fflush(stdout);
      }
    }
    std::printf("# Ember BLAS: %s\n", train_step::ember_blas().c_str());
    std::printf("# LibTorch build: %s\n", train_step::libtorch_blas().c_str());
    std::printf("# libraries mapped: %s\n", mapped_libraries().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember_train_step_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
