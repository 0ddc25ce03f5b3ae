// torch.fft and stft/istft as composites of the three fft primitives (Note [fft primitives] in
// ember/ops/ops_fft.yaml), following PyTorch 1.13's SpectralOps.cpp step by step: the same argument checks and
// messages, the same dtype promotion (integral and bool inputs to the default dtype; float16/bfloat16 are
// refused, as by PyTorch's CPU transforms), n/s padding with zeros or trimming, and norm mapped to the
// primitives' normalization. Their derivatives come from the primitives' (Note [fft derivatives]).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "ember/ops/Operators.h"
#include "ember/ops/generated/CompositeKernels.h"
#include "ember/ops/linalg.h"
#include "ember/ops/out.h"

namespace ember::composite {

namespace {

// The primitives' normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n.
constexpr int64_t kNormNone = 0, kNormByRootN = 1, kNormByN = 2;

/// norm ("backward", the default; "forward"; "ortho") as the normalization of a transform in the direction
/// `forward`. Errors: any other string.
int64_t norm_from_string(std::optional<std::string_view> norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNormNone : kNormByN;
  if (*norm == "forward") return forward ? kNormByN : kNormNone;
  if (*norm == "ortho") return kNormByRootN;
  EMBER_FAIL("Invalid normalization mode: \"{}\"", *norm);
}

/// The dtype a transform computes in: complex dtypes stay; integral and bool promote to the default dtype;
/// float32/float64 stay (or their complex dtype when require_complex). Errors: float16/bfloat16.
DType promote_type_fft(DType t, bool require_complex) {
  if (is_complex(t)) return t;
  if (!is_floating_point(t)) t = default_dtype();
  EMBER_CHECK(t == kFloat32 || t == kFloat64, "Unsupported dtype {}", linalg::scalar_type_name(t));
  return require_complex ? to_complex_dtype(t) : t;
}

Tensor promote_tensor_fft(const Tensor& t, bool require_complex) {
  const DType to = promote_type_fft(t.dtype(), require_complex);
  return to == t.dtype() ? t : t.to(to);
}

/// x zero-padded or trimmed (from the end) to sizes[i] along dims[i].
Tensor resize_fft_input(Tensor x, const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> pad(2 * static_cast<size_t>(x.dim()), 0);
  bool must_pad = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t have = x.size(dims[i]);
    if (have < sizes[i]) {
      must_pad = true;
      pad[pad.size() - 2 * static_cast<size_t>(dims[i]) - 1] = sizes[i] - have;
    } else if (have > sizes[i]) {
      x = x.narrow(dims[i], 0, sizes[i]);
    }
  }
  return must_pad ? ember::constant_pad_nd(x, pad, 0) : x;
}

/// The one dim of a 1-D transform, wrapped, and the input's size along it (0 for a 0-dim input, as PyTorch,
/// which then reports an invalid number of data points unless n is given).
std::pair<int64_t, int64_t> fft_dim(const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, x.dim());
  return {d, x.dim() == 0 ? 0 : x.size(d)};
}

void check_points(int64_t n) { EMBER_CHECK(n >= 1, "Invalid number of data points ({}) specified", n); }

void check_not_0dim(const char* fname, const Tensor& x) {
  EMBER_CHECK(x.dim() >= 1, "{}: expected an input with at least one dim, but got a 0-dim tensor", fname);
}

// out= as PyTorch's _fft_*_out: resized to the result's shape and copied into (cast to out's dtype, after the
// transforms' own checks of a complex or real out).
Tensor maybe_out(const Tensor& out, const Tensor& result) {
  if (!out.defined()) return result;
  linalg::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

void check_complex_out(const char* fname, const Tensor& out) {
  EMBER_CHECK(!out.defined() || out.is_complex(), "{} expects a complex output tensor, but got {}", fname,
              linalg::scalar_type_name(out.dtype()));
}

void check_real_out(const char* fname, const Tensor& out) {
  EMBER_CHECK(!out.defined() || out.is_floating_point(), "{} expects a floating point output tensor, but got {}",
              fname, linalg::scalar_type_name(out.dtype()));
}

// ---- the 1-D transforms (PyTorch's fft_c2c, fft_r2c, fft_c2r)

Tensor fft_c2c(const char* fname, const Tensor& out, const Tensor& input, std::optional<int64_t> n_opt, int64_t dim,
               std::optional<std::string_view> norm, bool forward) {
  const auto [d, size] = fft_dim(input, dim);
  const int64_t n = n_opt.value_or(size);
  check_points(n);
  check_not_0dim(fname, input);
  check_complex_out(fname, out);
  const Tensor x = n_opt ? resize_fft_input(input, {d}, {n}) : input;
  return maybe_out(out, ember::_fft_c2c(x, {d}, norm_from_string(norm, forward), forward));
}

// A real input: the forward transform (onesided or full); the backward one is its conjugate.
Tensor fft_r2c(const char* fname, const Tensor& out, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim,
               std::optional<std::string_view> norm, bool forward, bool onesided) {
  EMBER_CHECK(!self.is_complex(), "{} expects a real input tensor, but got {}", fname,
              linalg::scalar_type_name(self.dtype()));
  check_complex_out(fname, out);
  const Tensor input = promote_tensor_fft(self, false);
  const auto [d, size] = fft_dim(input, dim);
  const int64_t n = n_opt.value_or(size);
  check_points(n);
  check_not_0dim(fname, input);
  const Tensor x = n_opt ? resize_fft_input(input, {d}, {n}) : input;
  Tensor r = ember::_fft_r2c(x, {d}, norm_from_string(norm, forward), onesided);
  if (!forward) r = ember::conj(r);
  return maybe_out(out, r);
}

// A Hermitian input given by its onesided half: n real outputs (the forward transform of the conjugate).
Tensor fft_c2r(const char* fname, const Tensor& out, const Tensor& self, std::optional<int64_t> n_opt, int64_t dim,
               std::optional<std::string_view> norm, bool forward) {
  check_real_out(fname, out);
  Tensor input = promote_tensor_fft(self, true);
  const auto [d, size] = fft_dim(input, dim);
  const int64_t n = n_opt.value_or(2 * (size - 1));
  check_points(n);
  check_not_0dim(fname, input);
  if (n_opt) input = resize_fft_input(input, {d}, {n / 2 + 1});
  if (forward) input = ember::conj(input);
  return maybe_out(out, ember::_fft_c2r(input, {d}, norm_from_string(norm, forward), n));
}

Tensor fft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                const Tensor& out) {
  return self.is_complex() ? fft_c2c("fft", out, self, n, dim, norm, true)
                           : fft_r2c("fft", out, self, n, dim, norm, true, false);
}
Tensor ifft_impl(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                 const Tensor& out) {
  return self.is_complex() ? fft_c2c("ifft", out, self, n, dim, norm, false)
                           : fft_r2c("ifft", out, self, n, dim, norm, false, false);
}

// ---- the n-D transforms

struct ShapeAndDims {
  std::vector<int64_t> shape, dim;
};

/// PyTorch's canonicalize_fft_shape_and_dim_args: dims wrapped and unique; with s, dims default to the last
/// len(s) and s = -1 means the input's size; without either, every dim. Errors: s and dim of different
/// lengths; s longer than the input's rank; sizes < 1.
ShapeAndDims canonicalize(const Tensor& input, OptionalIntArrayRef s, OptionalIntArrayRef dim) {
  const int64_t ndim = input.dim();
  ShapeAndDims r;
  if (dim) {
    for (int64_t d : *dim) r.dim.push_back(wrap_dim(d, ndim));
    std::vector<int64_t> sorted = r.dim;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "FFT dims must be unique");
  }
  if (s) {
    EMBER_CHECK(!dim || dim->size() == s->size(), "When given, dim and shape arguments must have the same length");
    const auto k = static_cast<int64_t>(s->size());
    EMBER_CHECK(k <= ndim, "Got shape with {} values but input tensor only has {} dimensions.", k, ndim);
    if (!dim) {
      r.dim.resize(static_cast<size_t>(k));
      std::iota(r.dim.begin(), r.dim.end(), ndim - k);
    }
    for (int64_t i = 0; i < k; ++i) {
      const int64_t n = (*s)[static_cast<size_t>(i)];
      r.shape.push_back(n == -1 ? input.size(r.dim[static_cast<size_t>(i)]) : n);
    }
  } else if (!dim) {
    for (int64_t d = 0; d < ndim; ++d) {
      r.dim.push_back(d);
      r.shape.push_back(input.size(d));
    }
  } else {
    for (int64_t d : r.dim) r.shape.push_back(input.size(d));
  }
  for (int64_t n : r.shape) check_points(n);
  return r;
}

/// canonicalize for the c2r transforms: the last dim's output size (s[-1], default 2 * (size - 1)) and the
/// input shape with that dim's size n/2 + 1.
ShapeAndDims canonicalize_c2r(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                              int64_t* last_dim_size) {
  ShapeAndDims r = canonicalize(self, s, dim);
  EMBER_CHECK(!r.shape.empty(), "{} must transform at least one axis", fname);
  *last_dim_size = !s || s->back() == -1 ? 2 * (self.size(r.dim.back()) - 1) : r.shape.back();
  check_points(*last_dim_size);
  r.shape.back() = *last_dim_size / 2 + 1;
  return r;
}

std::vector<int64_t> all_but_last(const std::vector<int64_t>& v) { return {v.begin(), v.end() - 1}; }

Tensor fftn_impl(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                 std::optional<std::string_view> norm, bool forward, const Tensor& out) {
  check_complex_out(fname, out);
  const ShapeAndDims desc = canonicalize(self, s, dim);
  const Tensor x = resize_fft_input(promote_tensor_fft(self, true), desc.dim, desc.shape);
  return maybe_out(out, ember::_fft_c2c(x, desc.dim, norm_from_string(norm, forward), forward));
}

Tensor rfftn_impl(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                  std::optional<std::string_view> norm, const Tensor& out) {
  EMBER_CHECK(!self.is_complex(), "{} expects a real-valued input tensor, but got {}", fname,
              linalg::scalar_type_name(self.dtype()));
  check_complex_out(fname, out);
  const ShapeAndDims desc = canonicalize(self, s, dim);
  EMBER_CHECK(!desc.shape.empty(), "{} must transform at least one axis", fname);
  const Tensor x = resize_fft_input(promote_tensor_fft(self, false), desc.dim, desc.shape);
  return maybe_out(out, ember::_fft_r2c(x, desc.dim, norm_from_string(norm, true), /*onesided=*/true));
}

Tensor irfftn_impl(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                   std::optional<std::string_view> norm, const Tensor& out) {
  check_real_out(fname, out);
  int64_t last_dim_size = 0;
  const ShapeAndDims desc = canonicalize_c2r(fname, self, s, dim, &last_dim_size);
  const Tensor x = resize_fft_input(promote_tensor_fft(self, true), desc.dim, desc.shape);
  return maybe_out(out, ember::_fft_c2r(x, desc.dim, norm_from_string(norm, false), last_dim_size));
}

// c2c forward over all dims but the last, then the conjugate's c2r over the last.
Tensor hfftn_impl(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                  std::optional<std::string_view> norm, const Tensor& out) {
  check_real_out(fname, out);
  int64_t last_dim_size = 0;
  const ShapeAndDims desc = canonicalize_c2r(fname, self, s, dim, &last_dim_size);
  const Tensor x = resize_fft_input(promote_tensor_fft(self, true), desc.dim, desc.shape);
  const int64_t normalization = norm_from_string(norm, true);
  Tensor tmp = desc.dim.size() > 1 ? ember::_fft_c2c(x, all_but_last(desc.dim), normalization, true) : x;
  tmp = ember::conj(tmp);
  return maybe_out(out, ember::_fft_c2r(tmp, {desc.dim.back()}, normalization, last_dim_size));
}

// The conjugate of the onesided r2c over the last dim (the inverse transform of a real signal), then c2c
// backward over the others.
Tensor ihfftn_impl(const char* fname, const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                   std::optional<std::string_view> norm, const Tensor& out) {
  check_complex_out(fname, out);
  const ShapeAndDims desc = canonicalize(self, s, dim);
  EMBER_CHECK(!desc.shape.empty(), "{} must transform at least one axis", fname);
  const Tensor x = resize_fft_input(promote_tensor_fft(self, false), desc.dim, desc.shape);
  const int64_t normalization = norm_from_string(norm, false);
  Tensor tmp = ember::conj(ember::_fft_r2c(x, {desc.dim.back()}, normalization, /*onesided=*/true));
  if (desc.dim.size() > 1) tmp = ember::_fft_c2c(tmp, all_but_last(desc.dim), normalization, false);
  return maybe_out(out, tmp);
}

// ---- fftfreq

Tensor fftfreq_impl(const char* fname, int64_t n, double d, DType dtype, std::optional<Device> device, bool onesided) {
  EMBER_CHECK(is_floating_point(dtype) || is_complex(dtype), "{} requires a floating point or complex dtype", fname);
  // (rfftfreq takes C++'s n / 2 + 1 points, 1 for n = -1, as PyTorch's)
  EMBER_CHECK(onesided || n >= 0, "{}: Trying to create tensor with negative dimension {}: [{}]", fname, n, n);
  Tensor k = onesided ? ember::arange(Scalar(n / 2 + 1), dtype, device)
                      : ember::cat({ember::arange(Scalar((n + 1) / 2), dtype, device),
                                    ember::arange(Scalar(-(n / 2)), Scalar(0), Scalar(1), dtype, device)});
  return k * Scalar(1.0 / (static_cast<double>(n) * d));
}

// ---- stft / istft: PyTorch's argument echo at the start of their messages

std::string opt_str(std::optional<bool> v) { return v ? (*v ? "1" : "0") : "None"; }
std::string opt_str(std::optional<int64_t> v) { return v ? std::to_string(*v) : "None"; }

std::string tensor_str(const Tensor& t) { return fmt::format("{}{}", t.dtype(), t.sizes()); }

std::string window_str(const std::optional<Tensor>& w) {
  return w && w->defined() ? tensor_str(*w) : std::string("None");
}

}  // namespace

// ---------------------------------------------------------------------------------------------- 1-D transforms
Tensor fft_fft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return fft_impl(self, n, dim, norm, {});
}
Tensor fft_fft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                   const Tensor& out) {
  return fft_impl(self, n, dim, norm, out);
}
Tensor fft_ifft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return ifft_impl(self, n, dim, norm, {});
}
Tensor fft_ifft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                    const Tensor& out) {
  return ifft_impl(self, n, dim, norm, out);
}
Tensor fft_rfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return fft_r2c("rfft", {}, self, n, dim, norm, true, true);
}
Tensor fft_rfft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                    const Tensor& out) {
  return fft_r2c("rfft", out, self, n, dim, norm, true, true);
}
Tensor fft_irfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return fft_c2r("irfft", {}, self, n, dim, norm, false);
}
Tensor fft_irfft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                     const Tensor& out) {
  return fft_c2r("irfft", out, self, n, dim, norm, false);
}
Tensor fft_hfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return fft_c2r("hfft", {}, self, n, dim, norm, true);
}
Tensor fft_hfft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                    const Tensor& out) {
  return fft_c2r("hfft", out, self, n, dim, norm, true);
}
Tensor fft_ihfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm) {
  return fft_r2c("ihfft", {}, self, n, dim, norm, false, true);
}
Tensor fft_ihfft_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, std::optional<std::string_view> norm,
                     const Tensor& out) {
  return fft_r2c("ihfft", out, self, n, dim, norm, false, true);
}

// ---------------------------------------------------------------------------------------------- 2-D and n-D
#define EMBER_FFT_ND(name, call)                                                                                    \
  Tensor fft_##name##2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim,                                \
                       std::optional<std::string_view> norm) {                                                    \
    return call(#name "2", self, s, dim, norm, Tensor());                                                         \
  }                                                                                                               \
  Tensor fft_##name##2_out(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim,                            \
                           std::optional<std::string_view> norm, const Tensor& out) {                             \
    return call(#name "2", self, s, dim, norm, out);                                                              \
  }                                                                                                               \
  Tensor fft_##name##n(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,                        \
                       std::optional<std::string_view> norm) {                                                    \
    return call(#name "n", self, s, dim, norm, Tensor());                                                         \
  }                                                                                                               \
  Tensor fft_##name##n_out(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim,                    \
                           std::optional<std::string_view> norm, const Tensor& out) {                             \
    return call(#name "n", self, s, dim, norm, out);                                                              \
  }

namespace {
Tensor fftn_forward(const char* f, const Tensor& x, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                    std::optional<std::string_view> norm, const Tensor& out) {
  return fftn_impl(f, x, s, dim, norm, true, out);
}
Tensor fftn_backward(const char* f, const Tensor& x, OptionalIntArrayRef s, OptionalIntArrayRef dim,
                     std::optional<std::string_view> norm, const Tensor& out) {
  return fftn_impl(f, x, s, dim, norm, false, out);
}
}  // namespace

EMBER_FFT_ND(fft, fftn_forward)
EMBER_FFT_ND(ifft, fftn_backward)
EMBER_FFT_ND(rfft, rfftn_impl)
EMBER_FFT_ND(irfft, irfftn_impl)
EMBER_FFT_ND(hfft, hfftn_impl)
EMBER_FFT_ND(ihfft, ihfftn_impl)
#undef EMBER_FFT_ND

// ---------------------------------------------------------------------------------------------- helpers
namespace {
DType freq_out_dtype(std::optional<DType> dtype, const Tensor& out) {
  EMBER_CHECK(!dtype || *dtype == out.dtype(), "dtype {} does not match dtype of out parameter ({})",
              linalg::scalar_type_name(*dtype), linalg::scalar_type_name(out.dtype()));
  return out.dtype();
}
}  // namespace

Tensor fft_fftfreq(int64_t n, double d, std::optional<DType> dtype, std::optional<Device> device) {
  return fftfreq_impl("fftfreq", n, d, dtype.value_or(default_dtype()), device, false);
}
Tensor fft_fftfreq_out(int64_t n, double d, std::optional<DType> dtype, std::optional<Device> device,
                       const Tensor& out) {
  return write_out("fftfreq", out, fftfreq_impl("fftfreq", n, d, freq_out_dtype(dtype, out), device, false));
}
Tensor fft_rfftfreq(int64_t n, double d, std::optional<DType> dtype, std::optional<Device> device) {
  return fftfreq_impl("rfftfreq", n, d, dtype.value_or(default_dtype()), device, true);
}
Tensor fft_rfftfreq_out(int64_t n, double d, std::optional<DType> dtype, std::optional<Device> device,
                        const Tensor& out) {
  return write_out("rfftfreq", out, fftfreq_impl("rfftfreq", n, d, freq_out_dtype(dtype, out), device, true));
}

namespace {
// fftshift rolls each dim by size // 2, ifftshift by (size + 1) // 2 (all dims by default).
Tensor shift_impl(const Tensor& self, OptionalIntArrayRef dim, bool inverse) {
  std::vector<int64_t> dims, shifts;
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_dim(d, self.dim()));
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  for (int64_t d : dims) shifts.push_back(self.dim() == 0 ? 0 : (self.size(d) + (inverse ? 1 : 0)) / 2);
  return ember::roll(self, shifts, dims);
}
}  // namespace

Tensor fft_fftshift(const Tensor& self, OptionalIntArrayRef dim) { return shift_impl(self, dim, false); }
Tensor fft_ifftshift(const Tensor& self, OptionalIntArrayRef dim) { return shift_impl(self, dim, true); }

// ---------------------------------------------------------------------------------------------- stft / istft
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length_opt,
            std::optional<int64_t> win_length_opt, const std::optional<Tensor>& window_opt, bool normalized,
            std::optional<bool> onesided_opt, std::optional<bool> return_complex_opt) {
  const int64_t hop_length = hop_length_opt.value_or(n_fft >> 2);
  const int64_t win_length = win_length_opt.value_or(n_fft);
  const Tensor window = window_opt ? *window_opt : Tensor();
  const auto repr = [&] {
    return fmt::format("stft({}, n_fft={}, hop_length={}, win_length={}, window={}, normalized={}, onesided={}, "
                       "return_complex={}) ",
                       tensor_str(self), n_fft, hop_length, win_length, window_str(window_opt), normalized ? 1 : 0,
                       opt_str(onesided_opt), opt_str(return_complex_opt));
  };
  const bool return_complex =
      return_complex_opt.value_or(self.is_complex() || (window.defined() && window.is_complex()));
  EMBER_CHECK(self.is_floating_point() || self.is_complex(),
              "{}: expected a tensor of floating point or complex values", repr());
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "{}: expected a 1D or 2D tensor", repr());
  Tensor input = self.dim() == 1 ? self.unsqueeze(0) : self;
  const int64_t len = input.size(1);
  EMBER_CHECK(n_fft > 0 && n_fft <= len, "{}: expected 0 < n_fft < {}, but got n_fft={}", repr(), len, n_fft);
  EMBER_CHECK(hop_length > 0, "{}: expected hop_length > 0, but got hop_length={}", repr(), hop_length);
  EMBER_CHECK(win_length > 0 && win_length <= n_fft, "{}: expected 0 < win_length <= n_fft, but got win_length={}",
              repr(), win_length);
  EMBER_CHECK(!window.defined() || (window.dim() == 1 && window.size(0) == win_length),
              "{}: expected a 1D window tensor of size equal to win_length={}, but got window with size {}", repr(),
              win_length, window.defined() ? window.sizes() : IntArrayRef{});
  Tensor win = window;
  if (win_length < n_fft) {  // the window in the middle of n_fft zeros
    const int64_t left = (n_fft - win_length) / 2;
    const Tensor w = window.defined() ? window : ember::ones({win_length}, self.dtype());
    win = ember::constant_pad_nd(w, {left, n_fft - win_length - left}, 0);
  }
  input = input.unfold(-1, n_fft, hop_length);  // (batch, n_frames, n_fft), a view
  if (win.defined()) input = input * win;
  const bool complex_fft = input.is_complex();
  const bool onesided = onesided_opt.value_or(!complex_fft);
  const int64_t normalization = normalized ? kNormByRootN : kNormNone;
  Tensor out;
  if (complex_fft) {
    EMBER_CHECK(!onesided, "Cannot have onesided output if window or input is complex");
    out = ember::_fft_c2c(input, {2}, normalization, /*forward=*/true);
  } else {
    out = ember::_fft_r2c(input, {2}, normalization, onesided);
  }
  out = out.transpose(1, 2);
  if (self.dim() == 1) out = out.squeeze(0);
  return return_complex ? out : ember::view_as_real(out);
}

Tensor stft_center(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                   std::optional<int64_t> win_length, const std::optional<Tensor>& window, bool center,
                   std::string_view pad_mode, bool normalized, std::optional<bool> onesided,
                   std::optional<bool> return_complex) {
  Tensor input = self;
  if (center) {  // (L) or (B, L) as (1, 1, L) or (1, B, L) for pad, and back
    const int64_t signal_dim = self.dim();
    std::vector<int64_t> extended(static_cast<size_t>(std::max<int64_t>(3 - signal_dim, 0)), 1);
    extended.insert(extended.end(), self.sizes().begin(), self.sizes().end());
    const int64_t pad = n_fft / 2;
    input = ember::pad(self.view(extended), {pad, pad}, pad_mode, std::nullopt);
    std::vector<int64_t> back(input.sizes().end() - signal_dim, input.sizes().end());
    input = input.view(back);
  }
  return ember::stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex);
}

Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length_opt,
             std::optional<int64_t> win_length_opt, const std::optional<Tensor>& window_opt, bool center,
             bool normalized, std::optional<bool> onesided_opt, std::optional<int64_t> length_opt,
             bool return_complex) {
  const int64_t hop_length = hop_length_opt.value_or(n_fft >> 2);
  const int64_t win_length = win_length_opt.value_or(n_fft);
  const Tensor window = window_opt ? *window_opt : Tensor();
  const auto repr = [&] {
    return fmt::format("istft({}, n_fft={}, hop_length={}, win_length={}, window={}, center={}, normalized={}, "
                       "onesided={}, length={}, return_complex={}) ",
                       tensor_str(self), n_fft, hop_length, win_length, window_str(window_opt), center ? 1 : 0,
                       normalized ? 1 : 0, opt_str(onesided_opt), opt_str(length_opt), return_complex ? 1 : 0);
  };
  EMBER_CHECK(self.numel() != 0, "{}: input tensor cannot be empty.", repr());
  // PyTorch reads the frequency dim of the real view before checking the rank: IndexError for too few dims.
  (void)self.size(self.is_complex() ? -2 : -3);
  // A real input is the old format: the complex numbers as a last dim of 2 (view_as_real's).
  const int64_t real_dim = self.is_complex() ? self.dim() + 1 : self.dim();
  EMBER_CHECK(real_dim == 3 || real_dim == 4,
              "{}: expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of complex, but got {}",
              repr(), real_dim);
  Tensor input = self;
  if (!self.is_complex()) {
    EMBER_CHECK(self.size(-1) == 2,
                "{}: expected the last dimension to be 2 (corresponding to real and imaginary parts), but got {}",
                repr(), self.size(-1));
    input = ember::view_as_complex(self.contiguous());
  }
  const int64_t n_frames = input.size(-1), fft_size = input.size(-2);
  const int64_t expected_len = n_fft + hop_length * (n_frames - 1);
  const bool onesided = onesided_opt.value_or(fft_size != n_fft);
  if (onesided) {
    EMBER_CHECK(n_fft / 2 + 1 == fft_size,
                "{}: expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                "when onesided=True, but got {}",
                repr(), fft_size);
  } else {
    EMBER_CHECK(n_fft == fft_size,
                "{}: expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                "onesided=False, but got {}",
                repr(), fft_size);
  }
  EMBER_CHECK(0 < hop_length && hop_length <= win_length, "{}: expected 0 < hop_length <= win_length", repr());
  EMBER_CHECK(0 < win_length && win_length <= n_fft, "{}: expected 0 < win_length <= n_fft", repr());
  EMBER_CHECK(!window.defined() || (window.dim() == 1 && window.size(0) == win_length),
              "{}: Invalid window shape. window has to be 1D and length of `win_length`", repr());
  Tensor win = window.defined() ? window : ember::ones({win_length}, to_real_dtype(input.dtype()));
  if (win_length != n_fft) {
    const int64_t left = (n_fft - win_length) / 2;
    win = ember::constant_pad_nd(win, {left, n_fft - win_length - left}, 0);
  }
  const bool batched = input.dim() == 3;
  if (!batched) input = input.unsqueeze(0);
  input = input.transpose(1, 2);  // (channel, n_frames, fft_size)
  const int64_t normalization = normalized ? kNormByRootN : kNormByN;
  if (return_complex) {
    EMBER_CHECK(!onesided, "Cannot have onesided output if window or input is complex");
    input = ember::_fft_c2c(input, {2}, normalization, /*forward=*/false);
  } else {
    EMBER_CHECK(!window.defined() || !window.is_complex(),
                "Complex windows are incompatible with return_complex=False");
    if (!onesided) input = input.narrow(-1, 0, n_fft / 2 + 1);
    input = ember::_fft_c2r(input, {2}, normalization, n_fft);  // (channel, n_frames, n_fft)
  }
  const Tensor frames = input * win.view({1, 1, n_fft});
  Tensor y = ember::unfold_backward(frames, {frames.size(0), expected_len}, 1, n_fft, hop_length);
  Tensor envelope =
      ember::unfold_backward(win.pow(2).expand({1, n_frames, n_fft}), {1, expected_len}, 1, n_fft, hop_length);
  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t end = length_opt ? start + *length_opt : center ? -(n_fft / 2) : expected_len;
  y = ember::slice(y, 1, start, end, 1);
  envelope = ember::slice(envelope, 1, start, end, 1);
  const double lowest = envelope.abs().min().item<double>();
  EMBER_CHECK(!(lowest < 1e-11), "{}window overlap add min: {} (the squared window sums to zero at a sample)", repr(),
              lowest);
  y = y / envelope;
  if (!batched) y = y.squeeze(0);
  if (end > expected_len) y = ember::constant_pad_nd(y, {0, end - expected_len}, 0);
  return y;
}

}  // namespace ember::composite
