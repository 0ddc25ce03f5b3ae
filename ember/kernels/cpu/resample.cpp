// The resampling kernel behind F.interpolate: _resample and _resample_backward (ops_nn_spatial.yaml).
//
// Note [separable resampling]
// Every mode of F.interpolate is a product of 1-D resamplings: output cell (o_1, ..., o_n) is
// sum over taps of w_1[o_1, k_1] * ... * w_n[o_n, k_n] * x[idx_1[o_1, k_1], ..., idx_n[o_n, k_n]], with per-dim
// tap tables (index, weight) from PyTorch 1.13's formulas (aten/src/ATen/native/UpSample.h):
//   nearest        k = 1, src = min(floor(o * scale), in - 1), scale = 1/scale_factor or in/out (in float);
//   nearest-exact  k = 1, src = min(floor((o + 0.5) * scale), in - 1);
//   linear         k = 2, x = align_corners ? o * (in-1)/(out-1) : max(scale * (o + 0.5) - 0.5, 0),
//                  taps floor(x) and floor(x) + 1 (the same tap at the end), weights 1 - l and l;
//   cubic          k = 4, taps floor(x) - 1 .. floor(x) + 2 clamped to the input, Keys' cubic convolution with
//                  A = -0.75 (x as linear's, without the clamp at 0);
//   area           adaptive average pooling: taps floor(o*in/out) .. ceil((o+1)*in/out) - 1, weight 1/count.
// So the kernel runs one 1-D pass per spatial dim, the last dim first: for bilinear that is PyTorch's own order
// (each output is wh0 * (ww0*x00 + ww1*x01) + wh1 * (...)), so float32 results agree to the rounding of the
// fused multiply-adds. The backward applies the adjoint of each pass (a scatter of w * grad onto the taps) in
// the reverse order. Computation is in float32 (float64 for float64 input); bfloat16/float16/uint8 are
// converted once on the way in and out.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// v without its first two entries (the spatial sizes of (N, C, *spatial)).
IntArrayRef spatial(const DimVector& v) { return IntArrayRef(v.data() + 2, v.size() - 2); }

enum class Mode { Nearest, NearestExact, Linear, Cubic, Area };

Mode parse_mode(const char* op, std::string_view m) {
  if (m == "nearest") return Mode::Nearest;
  if (m == "nearest-exact") return Mode::NearestExact;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return Mode::Linear;
  if (m == "cubic" || m == "bicubic") return Mode::Cubic;
  if (m == "area") return Mode::Area;
  EMBER_FAIL("{}: unknown mode '{}' (expected nearest, nearest-exact, linear, cubic or area)", op, m);
}

// The taps of one dim: out * k (index, weight) pairs.
template <class A>
struct Taps {
  int64_t k = 1;
  std::vector<int64_t> idx;
  std::vector<A> w;
};

// PyTorch's area_pixel_compute_scale / compute_scales_value.
template <class A>
A compute_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return scale && *scale > 0 ? static_cast<A>(1.0 / *scale) : static_cast<A>(in) / static_cast<A>(out);
}

template <class A>
A source_index(A scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<A>(o);
  const A x = scale * (static_cast<A>(o) + A(0.5)) - A(0.5);
  return (!cubic && x < 0) ? A(0) : x;
}

template <class A>
A cubic1(A x, A a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
template <class A>
A cubic2(A x, A a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

template <class A>
Taps<A> make_taps(Mode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Taps<A> t;
  switch (mode) {
    case Mode::Nearest:
    case Mode::NearestExact: {
      const float s = scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                          : static_cast<float>(in) / static_cast<float>(out);
      for (int64_t o = 0; o < out; ++o) {
        int64_t src;
        if (mode == Mode::Nearest) {
          src = out == in ? o : out == 2 * in ? o >> 1 : std::min(static_cast<int64_t>(std::floor(o * s)), in - 1);
        } else {
          src = std::min(static_cast<int64_t>(std::floor(static_cast<float>((o + 0.5) * s))), in - 1);
        }
        t.idx.push_back(src);
        t.w.push_back(A(1));
      }
      break;
    }
    case Mode::Linear: {
      t.k = 2;
      const A s = compute_scale<A>(in, out, align_corners, scale);
      for (int64_t o = 0; o < out; ++o) {
        const A x = source_index<A>(s, o, align_corners, false);
        const int64_t i0 = std::min(static_cast<int64_t>(x), in - 1);
        const A l = std::min(std::max(x - static_cast<A>(i0), A(0)), A(1));
        const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
        t.idx.insert(t.idx.end(), {i0, i1});
        t.w.insert(t.w.end(), {A(1) - l, l});
      }
      break;
    }
    case Mode::Cubic: {
      t.k = 4;
      const A s = compute_scale<A>(in, out, align_corners, scale);
      const A a = A(-0.75);
      for (int64_t o = 0; o < out; ++o) {
        const A x = source_index<A>(s, o, align_corners, true);
        const A fl = std::floor(x);
        const int64_t i = static_cast<int64_t>(fl);
        const A f = x - fl;
        const A c[4] = {cubic2<A>(f + 1, a), cubic1<A>(f, a), cubic1<A>(1 - f, a), cubic2<A>(2 - f, a)};
        for (int64_t j = 0; j < 4; ++j) {
          t.idx.push_back(std::clamp<int64_t>(i - 1 + j, 0, in - 1));
          t.w.push_back(c[j]);
        }
      }
      break;
    }
    case Mode::Area: {
      const auto start = [&](int64_t o) { return (o * in) / out; };
      const auto end = [&](int64_t o) { return ((o + 1) * in + out - 1) / out; };
      for (int64_t o = 0; o < out; ++o) t.k = std::max(t.k, end(o) - start(o));
      for (int64_t o = 0; o < out; ++o) {
        const int64_t s0 = start(o), n = end(o) - s0;
        for (int64_t j = 0; j < t.k; ++j) {
          t.idx.push_back(j < n ? s0 + j : s0);
          t.w.push_back(j < n ? A(1) / static_cast<A>(n) : A(0));
        }
      }
      break;
    }
  }
  return t;
}

// One forward pass along a dim: x (outer, in, inner) -> y (outer, out, inner), y = sum_k w * x[idx].
template <class A>
void pass(const A* x, A* y, int64_t outer, int64_t in, int64_t out, int64_t inner, const Taps<A>& t) {
  parallel_for(outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out * inner * t.k)),
               [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const A* xp = x + p * in * inner;
      A* yp = y + p * out * inner;
      for (int64_t o = 0; o < out; ++o) {
        A* dst = yp + o * inner;
        const int64_t* ix = t.idx.data() + o * t.k;
        const A* wx = t.w.data() + o * t.k;
        const A* src0 = xp + ix[0] * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] = src0[i] * wx[0];
        for (int64_t j = 1; j < t.k; ++j) {
          const A* src = xp + ix[j] * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] += src[i] * wx[j];
        }
      }
    }
  });
}

// The adjoint of pass(): gx (outer, in, inner) = sum over taps of w * gy[o] at idx (gx overwritten).
template <class A>
void pass_adjoint(const A* gy, A* gx, int64_t outer, int64_t in, int64_t out, int64_t inner, const Taps<A>& t) {
  parallel_for(outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out * inner * t.k)),
               [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const A* gyp = gy + p * out * inner;
      A* gxp = gx + p * in * inner;
      std::fill(gxp, gxp + in * inner, A(0));
      for (int64_t o = 0; o < out; ++o) {
        const A* src = gyp + o * inner;
        for (int64_t j = 0; j < t.k; ++j) {
          A* dst = gxp + t.idx[o * t.k + j] * inner;
          const A wj = t.w[o * t.k + j];
          for (int64_t i = 0; i < inner; ++i) dst[i] += src[i] * wj;
        }
      }
    }
  });
}

struct Plan {
  Mode mode;
  DimVector in, out;  // full sizes (N, C, *spatial)
  std::optional<double> scales[3];
  bool align_corners;
};

void check_sizes(const char* op, const Plan& p) {
  const int64_t dims = static_cast<int64_t>(p.in.size()) - 2;
  EMBER_CHECK(dims >= 1 && dims <= 3, "{}: expected an input of 3 to 5 dims (N, C, *spatial), but got sizes {}", op,
              IntArrayRef(p.in));
  EMBER_CHECK(static_cast<int64_t>(p.out.size()) == static_cast<int64_t>(p.in.size()),
              "{}: expected output_size of {} values, but got {}", op, dims,
              spatial(p.out));
  for (int64_t i = 0; i < dims; ++i)
    EMBER_CHECK(p.in[i + 2] > 0 && p.out[i + 2] > 0,
                "{}: Input and output sizes should be greater than 0, but got input ({}) and output ({})", op,
                spatial(p.in), spatial(p.out));
}

DType compute_dtype(DType d) { return d == kFloat64 ? kFloat64 : kFloat32; }

void check_dtype(const char* op, DType d, Mode mode) {
  const bool ok = d == kFloat32 || d == kFloat64 || d == kBFloat16 || d == kFloat16 ||
                  (d == kUInt8 && (mode == Mode::Nearest || mode == Mode::NearestExact));
  EMBER_CHECK(ok, "{}: not implemented for '{}' (floating dtypes; uint8 with the nearest modes)", op, d);
}

template <class A>
Tensor run_forward(const Tensor& x, const Plan& p) {
  const int64_t dims = static_cast<int64_t>(p.in.size()) - 2;
  DimVector cur(p.in);
  Tensor t = x;
  for (int64_t d = dims - 1; d >= 0; --d) {  // the last dim first (Note [separable resampling])
    const int64_t ax = d + 2;
    const Taps<A> taps = make_taps<A>(p.mode, p.in[ax], p.out[ax], p.align_corners, p.scales[d]);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < ax; ++i) outer *= cur[i];
    for (size_t i = static_cast<size_t>(ax) + 1; i < cur.size(); ++i) inner *= cur[i];
    DimVector next = cur;
    next[ax] = p.out[ax];
    Tensor y = make_empty(next, t.dtype());
    if (y.numel() > 0)
      pass<A>(static_cast<const A*>(t.data_ptr()), static_cast<A*>(y.data_ptr()), outer, cur[ax], p.out[ax], inner,
              taps);
    t = y;
    cur = next;
  }
  return t;
}

template <class A>
Tensor run_backward(const Tensor& gy, const Plan& p) {
  const int64_t dims = static_cast<int64_t>(p.in.size()) - 2;
  DimVector cur(p.out);
  Tensor t = gy;
  for (int64_t d = 0; d < dims; ++d) {  // the reverse of run_forward's order
    const int64_t ax = d + 2;
    const Taps<A> taps = make_taps<A>(p.mode, p.in[ax], p.out[ax], p.align_corners, p.scales[d]);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < ax; ++i) outer *= cur[i];
    for (size_t i = static_cast<size_t>(ax) + 1; i < cur.size(); ++i) inner *= cur[i];
    DimVector next = cur;
    next[ax] = p.in[ax];
    Tensor gx = make_empty(next, t.dtype());
    if (gx.numel() > 0)
      pass_adjoint<A>(static_cast<const A*>(t.data_ptr()), static_cast<A*>(gx.data_ptr()), outer, p.in[ax],
                      cur[ax], inner, taps);
    t = gx;
    cur = next;
  }
  return t;
}

Tensor run(const Tensor& t, const Plan& p, bool backward) {
  const DType acc = compute_dtype(t.dtype());
  Tensor a = t.dtype() == acc ? t.contiguous() : ember::_to_copy(t, acc).contiguous();
  Tensor r = acc == kFloat64 ? (backward ? run_backward<double>(a, p) : run_forward<double>(a, p))
                             : (backward ? run_backward<float>(a, p) : run_forward<float>(a, p));
  if (t.dtype() == acc) return r;
  if (t.dtype() == kUInt8) return ember::_to_copy(r, kUInt8);  // nearest: values pass through unchanged
  return ember::_to_copy(r, t.dtype());
}

}  // namespace

Tensor resample(const Tensor& self, IntArrayRef output_size, std::string_view mode, bool align_corners,
                std::optional<double> scale_0, std::optional<double> scale_1, std::optional<double> scale_2) {
  const char* op = "_resample";
  Plan p{parse_mode(op, mode), DimVector(self.sizes().begin(), self.sizes().end()), {}, {scale_0, scale_1, scale_2},
         align_corners};
  EMBER_CHECK(self.dim() >= 3, "{}: expected an input of 3 to 5 dims (N, C, *spatial), but got sizes {}", op,
              self.sizes());
  p.out = DimVector{self.size(0), self.size(1)};
  for (int64_t v : output_size) p.out.push_back(v);
  check_sizes(op, p);
  check_dtype(op, self.dtype(), p.mode);
  return run(self, p, false);
}

Tensor resample_backward(const Tensor& grad_output, IntArrayRef input_size, IntArrayRef output_size,
                         std::string_view mode, bool align_corners, std::optional<double> scale_0,
                         std::optional<double> scale_1, std::optional<double> scale_2) {
  const char* op = "_resample_backward";
  Plan p{parse_mode(op, mode), DimVector(input_size.begin(), input_size.end()), {}, {scale_0, scale_1, scale_2},
         align_corners};
  EMBER_CHECK(input_size.size() >= 3, "{}: expected input_size of 3 to 5 values, but got {}", op, input_size);
  p.out = DimVector{input_size[0], input_size[1]};
  for (int64_t v : output_size) p.out.push_back(v);
  check_sizes(op, p);
  EMBER_CHECK(grad_output.sizes().equals(p.out), "{}: expected grad_output of size {}, but got {}", op,
              IntArrayRef(p.out), grad_output.sizes());
  EMBER_CHECK(grad_output.dtype() != kUInt8, "{}: not implemented for 'uint8'", op);
  check_dtype(op, grad_output.dtype(), p.mode);
  return run(grad_output, p, true);
}

}  // namespace ember::cpu
