// Chooses the instruction-set build once (Note [instruction-set builds]).
#include <array>
#include <cstdlib>
#include <cstring>

#include "ember/kernels/cpu/isa/VecLoops.h"

namespace ember::cpu {
namespace default_isa {
VecLoopFn vec_loop(VecOp op, DType dtype);
NormLoops<float> norm_loops_f();
NormLoops<double> norm_loops_d();
double sum_contiguous_f(const float* x, int64_t n);
double sum_contiguous_d(const double* x, int64_t n);
void sum_columns_f(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc);
void sum_columns_d(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc);
}
namespace avx2 {
VecLoopFn vec_loop(VecOp op, DType dtype);
NormLoops<float> norm_loops_f();
NormLoops<double> norm_loops_d();
double sum_contiguous_f(const float* x, int64_t n);
double sum_contiguous_d(const double* x, int64_t n);
void sum_columns_f(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc);
void sum_columns_d(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc);
}
namespace avx512 {
VecLoopFn vec_loop(VecOp op, DType dtype);
NormLoops<float> norm_loops_f();
NormLoops<double> norm_loops_d();
double sum_contiguous_f(const float* x, int64_t n);
double sum_contiguous_d(const double* x, int64_t n);
void sum_columns_f(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc);
void sum_columns_d(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc);
}

namespace {
enum class Level { Default, Avx2, Avx512 };

Level detect() {
  __builtin_cpu_init();
  Level hw = Level::Default;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) hw = Level::Avx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw"))
    hw = Level::Avx512;
  const char* want = std::getenv("EMBER_CPU_CAPABILITY");
  Level w = hw;
  if (want && std::strcmp(want, "default") == 0) w = Level::Default;
  else if (want && std::strcmp(want, "avx2") == 0) w = Level::Avx2;
  else if (want && std::strcmp(want, "avx512") == 0) w = Level::Avx512;
  return static_cast<int>(w) < static_cast<int>(hw) ? w : hw;  // never above what the CPU has
}

struct Table {
  Level level;
  std::array<std::array<VecLoopFn, 2>, static_cast<size_t>(VecOp::kCount)> fns{};
  double (*sum_f)(const float*, int64_t);
  double (*sum_d)(const double*, int64_t);
  void (*cols_f)(const float*, int64_t, int64_t, int64_t, double*);
  void (*cols_d)(const double*, int64_t, int64_t, int64_t, double*);
  NormLoops<float> norm_f;
  NormLoops<double> norm_d;
  Table() : level(detect()) {
#define EMBER_PICK(fn) (level == Level::Avx512 ? &avx512::fn : level == Level::Avx2 ? &avx2::fn : &default_isa::fn)
    sum_f = EMBER_PICK(sum_contiguous_f);
    sum_d = EMBER_PICK(sum_contiguous_d);
    cols_f = EMBER_PICK(sum_columns_f);
    cols_d = EMBER_PICK(sum_columns_d);
    norm_f = (*EMBER_PICK(norm_loops_f))();
    norm_d = (*EMBER_PICK(norm_loops_d))();
#undef EMBER_PICK
    for (size_t i = 0; i < fns.size(); ++i) {
      for (int d = 0; d < 2; ++d) {
        VecOp op = static_cast<VecOp>(i);
        DType dt = d == 0 ? kFloat32 : kFloat64;
        fns[i][d] = level == Level::Avx512 ? avx512::vec_loop(op, dt)
                    : level == Level::Avx2 ? avx2::vec_loop(op, dt)
                                           : default_isa::vec_loop(op, dt);
      }
    }
  }
};
const Table& table() {
  static const Table t;
  return t;
}
}  // namespace

VecLoopFn vec_loop(VecOp op, DType dtype) {
  if (dtype != kFloat32 && dtype != kFloat64) return nullptr;
  return table().fns[static_cast<size_t>(op)][dtype == kFloat64];
}

double sum_contiguous(const float* x, int64_t n) { return table().sum_f(x, n); }
double sum_contiguous(const double* x, int64_t n) { return table().sum_d(x, n); }
void sum_columns(const float* x, int64_t stride, int64_t rows, int64_t w, double* acc) {
  table().cols_f(x, stride, rows, w, acc);
}
void sum_columns(const double* x, int64_t stride, int64_t rows, int64_t w, double* acc) {
  table().cols_d(x, stride, rows, w, acc);
}

template <>
const NormLoops<float>& norm_loops<float>() {
  return table().norm_f;
}
template <>
const NormLoops<double>& norm_loops<double>() {
  return table().norm_d;
}

const char* cpu_capability() {
  switch (table().level) {
    case Level::Avx512: return "avx512";
    case Level::Avx2: return "avx2";
    default: return "default";
  }
}

}  // namespace ember::cpu
