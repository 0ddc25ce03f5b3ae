// Pixel and channel shuffles and im2col/col2im (F.unfold/F.fold) as composites of views, copies, index_add and
// slices, so autograd and the tracer see their parts. Entries: ember/ops/ops_nn_spatial.yaml. The checks and
// their messages follow PyTorch 1.13's PixelShuffle.cpp, ChannelShuffle.cpp and Im2Col.cpp/Col2Im.cpp.
#include <string>
#include <vector>

#include "ember/ops/Functions.h"
#include "ember/ops/generated/CompositeKernels.h"

namespace ember::composite {

namespace {

// v followed by the values of tail.
DimVector concat(DimVector v, std::initializer_list<int64_t> tail) {
  for (int64_t x : tail) v.push_back(x);
  return v;
}

// self's sizes without the last `n`.
DimVector leading(const Tensor& self, int64_t n) {
  return DimVector(self.sizes().begin(), self.sizes().end() - n);
}

// PyTorch's im2col/col2im checks of the block geometry; returns the number of blocks along H and W.
std::pair<int64_t, int64_t> blocks(const char* op, int64_t H, int64_t W, IntArrayRef k, IntArrayRef d, IntArrayRef p,
                                   IntArrayRef s) {
  EMBER_CHECK(k.size() == 2 && d.size() == 2 && p.size() == 2 && s.size() == 2,
              "{}: kernel_size, dilation, padding and stride must each have 2 values", op);
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "{}: kernel size should be greater than zero, but got kernel_height: {} "
              "kernel_width: {}", op, k[0], k[1]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0, "{}: dilation should be greater than zero, but got dilation_height: {} "
              "dilation_width: {}", op, d[0], d[1]);
  EMBER_CHECK(p[0] >= 0 && p[1] >= 0, "{}: padding should be non-negative, but got pad_height: {} pad_width: {}", op,
              p[0], p[1]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0, "{}: stride should be greater than zero, but got stride_height: {} "
              "stride_width: {}", op, s[0], s[1]);
  const int64_t bh = (H + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
  const int64_t bw = (W + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
  EMBER_CHECK(bh >= 1 && bw >= 1 && H + 2 * p[0] >= d[0] * (k[0] - 1) + 1 && W + 2 * p[1] >= d[1] * (k[1] - 1) + 1,
              "{}: Given input with spatial size ({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), "
              "calculated shape of the array of sliding blocks as ({}, {}), but its components must be at least one.",
              op, H, W, k[0], k[1], d[0], d[1], p[0], p[1], bh, bw);
  return {bh, bw};
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  EMBER_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with {} "
              "dimension(s)", self.dim());
  EMBER_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got {}", upscale_factor);
  const int64_t r = upscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
              "of upscale_factor, but input.size(-3)={} is not divisible by {}", c, r * r);
  const DimVector lead = leading(self, 3);
  const int64_t n = static_cast<int64_t>(lead.size());
  DimVector split = lead, perm, out = lead;
  split = concat(split, {c / (r * r), r, r, h, w});
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm = concat(perm, {n, n + 3, n + 1, n + 4, n + 2});
  out = concat(out, {c / (r * r), h * r, w * r});
  return self.reshape(split).permute(perm).clone(MemoryFormat::Contiguous).view(out);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  EMBER_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with {} "
              "dimension(s)", self.dim());
  EMBER_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got {}",
              downscale_factor);
  const int64_t r = downscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={} "
              "is not divisible by {}", h, r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={} "
              "is not divisible by {}", w, r);
  const DimVector lead = leading(self, 3);
  const int64_t n = static_cast<int64_t>(lead.size());
  DimVector split = lead, perm, out = lead;
  split = concat(split, {c, h / r, r, w / r, r});
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm = concat(perm, {n, n + 2, n + 4, n + 1, n + 3});
  out = concat(out, {c * r * r, h / r, w / r});
  return self.reshape(split).permute(perm).clone(MemoryFormat::Contiguous).view(out);
}

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes {}",
              self.sizes());
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:{}", groups);
  const int64_t c = self.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got {} channels and {} groups.", c,
              groups);
  DimVector split{self.size(0), groups, c / groups};
  for (int64_t i = 2; i < self.dim(); ++i) split.push_back(self.size(i));
  return self.reshape(split).transpose(1, 2).clone(MemoryFormat::Contiguous).view(self.sizes());
}

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  const char* op = "im2col";
  EMBER_CHECK((self.dim() == 3 || self.dim() == 4) && self.size(-1) > 0 && self.size(-2) > 0 && self.size(-3) > 0,
              "{}: Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
              "for input, but got: {}", op, self.sizes());
  const bool batched = self.dim() == 4;
  const Tensor x = batched ? self : ember::unsqueeze(self, 0);
  const int64_t N = x.size(0), C = x.size(1);
  auto [bh, bw] = blocks(op, x.size(2), x.size(3), kernel_size, dilation, padding, stride);
  const int64_t kh = kernel_size[0], kw = kernel_size[1];
  // The blocks as views: pad, take every window span along H and W, keep every dilation-th tap.
  Tensor xp = ember::constant_pad_nd(x, {padding[1], padding[1], padding[0], padding[0]}, 0);
  const int64_t span_h = dilation[0] * (kh - 1) + 1, span_w = dilation[1] * (kw - 1) + 1;
  Tensor win = xp.unfold(2, span_h, stride[0]).unfold(3, span_w, stride[1]);  // (N, C, bh', bw', span_h, span_w)
  win = ember::slice(win, 2, 0, bh, 1);
  win = ember::slice(win, 3, 0, bw, 1);
  win = ember::slice(win, 4, 0, span_h, dilation[0]);
  win = ember::slice(win, 5, 0, span_w, dilation[1]);  // (N, C, bh, bw, kh, kw)
  Tensor cols = win.permute({0, 1, 4, 5, 2, 3}).reshape({N, C * kh * kw, bh * bw});
  return batched ? cols : ember::squeeze(cols, 0);
}

Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  const char* op = "col2im";
  EMBER_CHECK(output_size.size() == 2, "{}: It is expected output_size equals to 2, but got size {}", op,
              output_size.size());
  EMBER_CHECK((self.dim() == 2 || self.dim() == 3) && self.size(-1) > 0 && self.size(-2) > 0,
              "{}: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
              "for input, but got: {}", op, self.sizes());
  const bool batched = self.dim() == 3;
  const Tensor cols = batched ? self : ember::unsqueeze(self, 0);
  auto [bh, bw] = blocks(op, output_size[0], output_size[1], kernel_size, dilation, padding, stride);
  const int64_t kh = kernel_size[0], kw = kernel_size[1], K = kh * kw;
  EMBER_CHECK(cols.size(1) % K == 0, "{}: Expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)={} and kernel_size=({}, {})", op, cols.size(1), kh, kw);
  EMBER_CHECK(cols.size(2) == bh * bw, "{}: Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), "
              "padding=({}, {}), stride=({}, {}), expected size of input's dimension 2 to match the calculated number "
              "of sliding blocks {} * {} = {}, but got input.size(2)={}.", op, output_size[0], output_size[1], kh, kw,
              dilation[0], dilation[1], padding[0], padding[1], stride[0], stride[1], bh, bw, bh * bw, cols.size(2));
  const int64_t N = cols.size(0), C = cols.size(1) / K;
  const int64_t Hp = output_size[0] + 2 * padding[0], Wp = output_size[1] + 2 * padding[1];
  // Where each column entry (c, i, j, block) lands in the padded image; index_add sums the overlaps.
  Tensor index = ember::empty({K * bh * bw}, kInt64);
  int64_t* ip = static_cast<int64_t*>(index.data_ptr());
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      for (int64_t y = 0; y < bh; ++y)
        for (int64_t x = 0; x < bw; ++x)
          *ip++ = (y * stride[0] + i * dilation[0]) * Wp + (x * stride[1] + j * dilation[1]);
  Tensor img = ember::zeros({N, C, Hp * Wp}, cols.dtype());
  img = ember::index_add(img, 2, index, cols.reshape({N, C, K * bh * bw}));
  img = img.view({N, C, Hp, Wp});
  img = ember::slice(ember::slice(img, 2, padding[0], padding[0] + output_size[0], 1), 3, padding[1],
                     padding[1] + output_size[1], 1);
  if (padding[0] || padding[1]) img = img.contiguous();
  return batched ? img : ember::squeeze(img, 0);
}

}  // namespace ember::composite
