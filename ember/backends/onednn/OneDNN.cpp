// oneDNN's kernels for the provider slots (see OneDNN.h, Note [onednn gemm], Note [providers]).
#include "ember/backends/onednn/OneDNN.h"

#include <oneapi/dnnl/dnnl.h>


#include "ember/backends/onednn/Convolution.h"
#include "ember/base/Error.h"
#include "ember/kernels/cpu/Gemm.h"
#include "ember/kernels/cpu/GemmOperands.h"

namespace ember::backends::onednn {

namespace {

cpu::Provider& the_provider() {
  static cpu::Provider& p = cpu::provider("onednn");
  return p;
}

char trans_of(const cpu::BlasLayout& l) { return l.trans ? 'T' : 'N'; }
char flip(const cpu::BlasLayout& l) { return l.trans ? 'N' : 'T'; }

bool supports_gemm(const cpu::GemmArgs& g) {
  // Note [onednn gemm]: float32 matrix products only; C needs a BLAS layout (the op kernels guarantee one).
  return g.dtype == kFloat32 && g.m > 1 && g.n > 1 &&
         cpu::blas_layout(g.c.rows, g.c.cols, g.c.row_stride, g.c.col_stride).has_value();
}

void check(dnnl_status_t s, const char* what) {
  EMBER_CHECK(s == dnnl_success, "oneDNN: ", what, " failed with status ", static_cast<int>(s));
}

void gemm_one(const cpu::GemmArgs& g, int64_t b, float alpha, float beta) {
  cpu::BlasOperand<float> A(g.a, b), B(g.b, b);
  float* c = static_cast<float*>(g.c.data) + b * g.c.batch_stride;
  const cpu::BlasLayout lc = *cpu::blas_layout(g.m, g.n, g.c.row_stride, g.c.col_stride);
  if (!lc.trans)
    check(dnnl_sgemm(trans_of(A.layout), trans_of(B.layout), g.m, g.n, g.k, alpha, A.data, A.layout.ld, B.data,
                     B.layout.ld, beta, c, lc.ld),
          "sgemm");
  else  // C column-major: compute C^T (n, m) = B^T A^T
    check(dnnl_sgemm(flip(B.layout), flip(A.layout), g.n, g.m, g.k, alpha, B.data, B.layout.ld, A.data,
                     A.layout.ld, beta, c, lc.ld),
          "sgemm");
}

void run_gemm(const cpu::GemmArgs& g) {
  const float alpha = g.alpha.to<float>(), beta = g.beta.to<float>();
  cpu::for_each_matrix(g, [&](int64_t b) { gemm_one(g, b, alpha, beta); });
}

}  // namespace

void register_provider() {
  cpu::gemm_providers().add(the_provider(), 200, &supports_gemm, &run_gemm);
  register_conv_kernels(the_provider());
}

bool enabled() { return the_provider().enabled(); }
void set_enabled(bool on) { the_provider().set_enabled(on); }

std::string config() {
  const dnnl_version_t* v = dnnl_version();
  std::string s = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                  std::to_string(v->patch) + " (cpu runtime " +
                  (v->cpu_runtime == DNNL_RUNTIME_OMP ? std::string("OpenMP") : std::to_string(v->cpu_runtime)) +
                  ")";
  s += cpu::library_of(reinterpret_cast<const void*>(&dnnl_sgemm));
  return s;
}

}  // namespace ember::backends::onednn
