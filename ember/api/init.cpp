// Note [builtin registration]
// Ember's own ops are registered by one explicit call list, run once when libember loads (and callable
// again, idempotently, as ember::init()), not by scattered static initializers: see Note [registration].
#include <mutex>

#include "ember/api/init.h"
#include "ember/backends/onednn/OneDNN.h"
#include "ember/backends/openblas/OpenBLAS.h"
#include "ember/dispatch/Library.h"
#include "ember/jit/frontend/Tracer.h"

namespace ember {

void register_aten_ops(Library& m);     // ember/ops/generated/RegisterOps.cpp
void register_cpu_kernels(Library& m);  // ember/kernels/cpu/generated/RegisterCPU.cpp
namespace autograd {
void register_autograd_kernels(Library& m);  // ember/autograd/generated/Functions.cpp
void register_autograd_fallback(Library& m);  // ember/autograd/Fallback.cpp, Note [ops without a derivative]
void register_inplace_or_view_kernels(Library& m);  // ember/autograd/generated/ADInplaceOrView.cpp
void register_inplace_or_view_fallback(Library& m);  // ember/autograd/Fallback.cpp
}

void init() {
  static std::once_flag once;
  std::call_once(once, [] {
    Library defs(Library::Kind::Def, "aten", DispatchKey::CompositeImplicitAutograd, "ember/ops/ops.yaml");
    register_aten_ops(defs);
    Library cpu(Library::Kind::Impl, "aten", DispatchKey::CPU, "ember/kernels/cpu");
    register_cpu_kernels(cpu);
    Library ag(Library::Kind::Impl, "aten", DispatchKey::Autograd, "ember/autograd");
    autograd::register_autograd_kernels(ag);
    Library ag_fallback(Library::Kind::Impl, "_", DispatchKey::Autograd, "ember/autograd");
    autograd::register_autograd_fallback(ag_fallback);
    Library iov(Library::Kind::Impl, "aten", DispatchKey::ADInplaceOrView, "ember/autograd");
    autograd::register_inplace_or_view_kernels(iov);  // Note [version counter]
    Library iov_fallback(Library::Kind::Impl, "_", DispatchKey::ADInplaceOrView, "ember/autograd");
    autograd::register_inplace_or_view_fallback(iov_fallback);
    Library tracer(Library::Kind::Impl, "_", DispatchKey::Tracer, "ember/jit/frontend");
    jit::tracer::register_tracer_fallback(tracer);  // Note [tracing]
    backends::blas::register_provider();  // Note [providers]
    backends::onednn::register_provider();  // Note [onednn gemm]
  });
}

namespace {
// Runs init() when the shared library loads; a failure here is a bug in Ember itself, reported at the
// first op call instead of aborting the process in a static initializer.
struct AutoInit {
  AutoInit() {
    try {
      init();
    } catch (...) {
    }
  }
} g_auto_init;
}  // namespace

}  // namespace ember
