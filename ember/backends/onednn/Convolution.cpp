// oneDNN's float32 convolutions for the conv provider slots (Note [conv providers]).
//
// Note [onednn conv]
// oneDNN's direct convolutions (jit:avx512_core on this machine) run forward, backward-data and
// backward-weights on its blocked layouts (nChw16c activations, OIhw16i16o-style weights), as LibTorch 1.13
// does through ideep. Each primitive is created with format_tag::any and the plain NCHW/OIHW tensors are
// reordered into the layout it chose and back on every call; asking for plain layouts instead makes oneDNN
// fall back to its own im2col + GEMM (gemm:jit), 1.5-2.5x slower than ours. The primitives and reorders of
// a shape are built once (a primitive descriptor costs tens of microseconds) and kept in a small cache
// keyed by the geometry and the thread count.
//
// Measured one thread, median ms of ember only (benchmarks/conv_provider_bench.py shapes, im2col -> oneDNN):
// the CNN's conv2 (64x32x14x14, 3x3 pad 1) forward 3.8-4.6 -> 2.9, forward+backward 12.8-15 -> 10.5-11.1;
// depthwise 64x32x14x14 forward 1.4-2.4 -> 0.2, forward+backward 5.3-8.2 -> 1.4-2.0. Where im2col + GEMM
// does as well or better the reference keeps the call (worth_it()): a pointwise convolution (im2col is a
// no-op there, and the reorders cost 1.3x), fewer than 8 input channels without groups (the CNN's conv1,
// 1 -> 32 channels: a tie at batch 64, and per-call overhead of ~10 us loses at batch 1), and calls below
// 2^18 multiply-adds. grad_bias stays with conv.cpp's sum.
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "ember/backends/onednn/OneDNN.h"
#include "ember/backends/onednn/Convolution.h"
#include "ember/base/Error.h"
#include "ember/kernels/cpu/ConvProviders.h"

namespace ember::backends::onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One stream per thread: oneDNN's streams are not meant to be shared by threads executing at once.
dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

// Plain (user) descriptors of the four tensors of a convolution; a 3-D one (g.spatial == 3) has the depth
// in front of H.
bool volumetric(const cpu::ConvGeometry& g) { return g.spatial == 3; }
memory::dims space(const cpu::ConvGeometry& g, int64_t d, int64_t h, int64_t w) {
  return volumetric(g) ? memory::dims{d, h, w} : memory::dims{h, w};
}
memory::dims cat(memory::dims a, const memory::dims& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
tag activation_tag(const cpu::ConvGeometry& g) {
  if (volumetric(g)) return g.channels_last ? tag::ndhwc : tag::ncdhw;
  return g.channels_last ? tag::nhwc : tag::nchw;
}
memory::desc src_md(const cpu::ConvGeometry& g) {
  return {cat({g.N, g.C}, space(g, g.D, g.H, g.W)), dt::f32, activation_tag(g)};
}
memory::desc dst_md(const cpu::ConvGeometry& g) {
  return {cat({g.N, g.Cout}, space(g, g.OD, g.OH, g.OW)), dt::f32, activation_tag(g)};
}
memory::desc weights_md(const cpu::ConvGeometry& g) {
  if (g.G == 1)
    return {cat({g.Cout, g.C}, space(g, g.kD, g.kH, g.kW)), dt::f32, volumetric(g) ? tag::oidhw : tag::oihw};
  return {cat({g.G, g.Coutg, g.Cg}, space(g, g.kD, g.kH, g.kW)), dt::f32, volumetric(g) ? tag::goidhw : tag::goihw};
}
memory::desc bias_md(const cpu::ConvGeometry& g) { return {{g.Cout}, dt::f32, tag::x}; }
// The descriptor the primitive is asked for: "any", so oneDNN picks its layout (Note [onednn conv]).
memory::desc want(const memory::desc& plain) { return {plain.dims(), dt::f32, tag::any}; }

memory::dims strides(const cpu::ConvGeometry& g) { return space(g, g.sD, g.sH, g.sW); }
memory::dims dilates(const cpu::ConvGeometry& g) { return space(g, g.dD - 1, g.dH - 1, g.dW - 1); }  // from 0
memory::dims pads(const cpu::ConvGeometry& g) { return space(g, g.pD, g.pH, g.pW); }

// One tensor as the primitive reads or writes it: the user's plain memory, and when the primitive chose
// another layout, the reorder between the two (plain -> chosen for inputs, chosen -> plain for outputs).
struct Operand {
  memory::desc plain, chosen;
  std::optional<dnnl::reorder> reorder;

  Operand() = default;
  Operand(const memory::desc& p, const memory::desc& c, bool is_output) : plain(p), chosen(c) {
    if (p != c)
      reorder = is_output ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), c, engine(), p))
                          : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), p, engine(), c));
  }

  // The memory the primitive reads: the user's data, or a reordered copy of it.
  memory input(const void* data) const {
    memory user(plain, engine(), const_cast<void*>(data));
    if (!reorder) return user;
    memory m(chosen, engine());
    reorder->execute(stream(), user, m);
    return m;
  }
  // The memory the primitive writes: the user's buffer, or a temporary that finish() reorders into it.
  memory output(void* data) const { return reorder ? memory(chosen, engine()) : memory(plain, engine(), data); }
  void finish(memory m, void* data) const {
    memory user(plain, engine(), data);
    if (reorder) reorder->execute(stream(), m, user);
  }
};

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

dnnl::convolution_forward::primitive_desc forward_pd(const cpu::ConvGeometry& g, bool bias) {
  const memory::desc b = bias ? bias_md(g) : memory::desc();
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                    want(src_md(g)), want(weights_md(g)), b, want(dst_md(g)), strides(g),
                                    dilates(g), pads(g), pads(g));
  return {d, user_scratchpad(), engine()};
}

struct ForwardPlan {
  dnnl::convolution_forward conv;
  memory::desc scratchpad;
  Operand src, weights, dst;
  explicit ForwardPlan(const dnnl::convolution_forward::primitive_desc& pd)
      : conv(pd), scratchpad(pd.scratchpad_desc()) {}
};

struct BackwardDataPlan {
  dnnl::convolution_backward_data conv;
  memory::desc scratchpad;
  Operand diff_dst, weights, diff_src;
  explicit BackwardDataPlan(const dnnl::convolution_backward_data::primitive_desc& pd)
      : conv(pd), scratchpad(pd.scratchpad_desc()) {}
};

struct BackwardWeightsPlan {
  dnnl::convolution_backward_weights conv;
  memory::desc scratchpad;
  Operand diff_dst, src, diff_weights;
  explicit BackwardWeightsPlan(const dnnl::convolution_backward_weights::primitive_desc& pd)
      : conv(pd), scratchpad(pd.scratchpad_desc()) {}
};

// The plans by geometry (Note [onednn conv]): a primitive descriptor costs tens of microseconds to create,
// so each convolution shape builds its primitives and reorders once.
// The key holds the thread count too: oneDNN splits the work of a primitive among the threads OpenMP offers
// when the primitive is created, and a primitive created for two threads still starts two after
// set_num_threads(1) (oneDNN's own primitive cache keys on it likewise).
using Key = std::array<int64_t, 25>;
Key key_of(const cpu::ConvGeometry& g, int64_t kind) {
  return {kind, omp_get_max_threads(), g.N, g.C, g.H, g.W, g.Cout, g.G, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW,
          g.dH, g.dW, g.OH, g.OW, g.channels_last, g.D, g.kD, g.sD, g.pD, g.dD, g.OD};
}

template <class Plan>
class PlanCache {
 public:
  template <class Make>
  std::shared_ptr<const Plan> get(const Key& k, Make&& make) {
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = plans_.find(k);
      if (it != plans_.end()) return it->second;
    }
    std::shared_ptr<const Plan> p = make();
    std::lock_guard<std::mutex> l(mu_);
    if (plans_.size() >= kMaxPlans) plans_.clear();  // shapes vary without bound only in unusual programs
    plans_.emplace(k, p);
    return p;
  }

 private:
  static constexpr size_t kMaxPlans = 256;
  std::mutex mu_;
  std::map<Key, std::shared_ptr<const Plan>> plans_;
};

template <class Plan>
PlanCache<Plan>& cache() {
  static auto* c = new PlanCache<Plan>();
  return *c;
}

// oneDNN's kernels index with 32-bit integers in places, and its descriptor checks overflow on strides or
// paddings near 2^63 (which PyTorch accepts): such calls stay with the reference.
bool fits(const cpu::ConvGeometry& g) {
  constexpr int64_t kMaxDim = int64_t{1} << 20, kMaxNumel = int64_t{1} << 31;
  for (int64_t v : {g.N, g.C, g.H, g.W, g.Cout, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.OH, g.OW, g.D,
                    g.kD, g.sD, g.pD, g.dD, g.OD})
    if (v > kMaxDim) return false;
  // oneDNN derives the output size from the others: a transposed convolution's adjoint with output_padding
  // >= stride has a larger one (Note [transposed convolution], kernels/cpu/conv.cpp).
  if (!g.regular()) return false;
  return g.N * g.in_sample() < kMaxNumel && g.N * g.out_sample() < kMaxNumel &&
         g.Cout * g.Kg() < kMaxNumel;
}
// The calls where oneDNN beats the im2col kernels (Note [onednn conv]), and every channels-last call: the
// im2col kernels would need row-major copies of the activations first.
bool worth_it(const cpu::ConvGeometry& g) {
  if (g.channels_last) return true;
  constexpr int64_t kMinMacs = int64_t{1} << 18;
  return !g.pointwise() && (g.G > 1 || g.C >= 8) && g.N * g.Cout * g.L() * g.Kg() >= kMinMacs;
}
bool supports(DType dtype, const cpu::ConvGeometry& g) {
  return dtype == kFloat32 && fits(g) && worth_it(g);
}
bool supports_forward(const cpu::ConvForwardArgs& a) { return supports(a.dtype, a.g); }
bool supports_backward(const cpu::ConvBackwardArgs& a) { return supports(a.dtype, a.g); }

void execute(const dnnl::primitive& p, const memory::desc& scratchpad, std::unordered_map<int, memory> args) {
  args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratchpad, engine()));
  p.execute(stream(), args);
}

void run_forward(const cpu::ConvForwardArgs& a) {
  const cpu::ConvGeometry& g = a.g;
  const bool bias = a.bias != nullptr;
  auto plan = cache<ForwardPlan>().get(key_of(g, bias), [&] {
    const auto pd = forward_pd(g, bias);
    auto p = std::make_shared<ForwardPlan>(pd);
    p->src = Operand(src_md(g), pd.src_desc(), false);
    p->weights = Operand(weights_md(g), pd.weights_desc(), false);
    p->dst = Operand(dst_md(g), pd.dst_desc(), true);
    return p;
  });
  memory dst = plan->dst.output(a.output);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, plan->src.input(a.input)},
                                       {DNNL_ARG_WEIGHTS, plan->weights.input(a.weight)},
                                       {DNNL_ARG_DST, dst}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(bias_md(g), engine(), const_cast<void*>(a.bias)));
  execute(plan->conv, plan->scratchpad, std::move(args));
  plan->dst.finish(dst, a.output);
  stream().wait();
}

void run_backward(const cpu::ConvBackwardArgs& a) {
  const cpu::ConvGeometry& g = a.g;
  std::optional<memory> diff_dst;  // shared by both primitives when they chose the same layout
  const auto diff_dst_for = [&](const Operand& op) {
    if (!diff_dst || diff_dst->get_desc() != op.chosen) diff_dst = op.input(a.grad_output);
    return *diff_dst;
  };
  if (a.grad_input) {
    auto plan = cache<BackwardDataPlan>().get(key_of(g, 2), [&] {
      const auto hint = forward_pd(g, false);
      dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, want(src_md(g)),
                                              want(weights_md(g)), want(dst_md(g)), strides(g), dilates(g), pads(g),
                                              pads(g));
      const dnnl::convolution_backward_data::primitive_desc pd(d, user_scratchpad(), engine(), hint);
      auto p = std::make_shared<BackwardDataPlan>(pd);
      p->diff_dst = Operand(dst_md(g), pd.diff_dst_desc(), false);
      p->weights = Operand(weights_md(g), pd.weights_desc(), false);
      p->diff_src = Operand(src_md(g), pd.diff_src_desc(), true);
      return p;
    });
    memory diff_src = plan->diff_src.output(a.grad_input);
    execute(plan->conv, plan->scratchpad,
            {{DNNL_ARG_DIFF_DST, diff_dst_for(plan->diff_dst)},
             {DNNL_ARG_WEIGHTS, plan->weights.input(a.weight)},
             {DNNL_ARG_DIFF_SRC, diff_src}});
    plan->diff_src.finish(diff_src, a.grad_input);
  }
  if (a.grad_weight) {
    auto plan = cache<BackwardWeightsPlan>().get(key_of(g, 3), [&] {
      const auto hint = forward_pd(g, false);
      dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, want(src_md(g)),
                                                 want(weights_md(g)), want(dst_md(g)), strides(g), dilates(g),
                                                 pads(g), pads(g));
      const dnnl::convolution_backward_weights::primitive_desc pd(d, user_scratchpad(), engine(), hint);
      auto p = std::make_shared<BackwardWeightsPlan>(pd);
      p->diff_dst = Operand(dst_md(g), pd.diff_dst_desc(), false);
      p->src = Operand(src_md(g), pd.src_desc(), false);
      p->diff_weights = Operand(weights_md(g), pd.diff_weights_desc(), true);
      return p;
    });
    memory diff_weights = plan->diff_weights.output(a.grad_weight);
    execute(plan->conv, plan->scratchpad,
            {{DNNL_ARG_DIFF_DST, diff_dst_for(plan->diff_dst)},
             {DNNL_ARG_SRC, plan->src.input(a.input)},
             {DNNL_ARG_DIFF_WEIGHTS, diff_weights}});
    plan->diff_weights.finish(diff_weights, a.grad_weight);
  }
  stream().wait();
}

// oneDNN reports failures (a refused descriptor, out of memory) as dnnl::error: rethrown as Ember's
// RuntimeError naming the op and the shapes.
template <class Args, void (*Run)(const Args&)>
void guarded(const Args& a) {
  try {
    Run(a);
  } catch (const dnnl::error& e) {
    const cpu::ConvGeometry& g = a.g;
    EMBER_FAIL("{}: oneDNN failed ({}) on input [{}, {}, {}, {}, {}], weight [{}, {}, {}, {}, {}], groups {}",
               std::is_same_v<Args, cpu::ConvForwardArgs> ? "convolution" : "convolution_backward", e.what(), g.N,
               g.C, g.D, g.H, g.W, g.Cout, g.Cg, g.kD, g.kH, g.kW, g.G);
  }
}

}  // namespace

void register_conv_kernels(cpu::Provider& p) {
  cpu::conv_forward_providers().add(p, 200, &supports_forward, &guarded<cpu::ConvForwardArgs, &run_forward>);
  cpu::conv_backward_providers().add(p, 200, &supports_backward, &guarded<cpu::ConvBackwardArgs, &run_backward>);
}

}  // namespace ember::backends::onednn
