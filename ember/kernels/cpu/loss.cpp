// Loss kernels: nll_loss over (N, C) / (C) and (N, C, H, W) log-probabilities, and the pointwise losses
// (mse, smooth_l1, huber, binary_cross_entropy: one functor each in ElementwiseOps.h) followed by their
// reduction. Formulas, checks and messages follow PyTorch 1.13 (aten/src/ATen/native/Loss.cpp, LossNLL.cpp,
// LossNLL2d.cpp). The composite losses (cross_entropy_loss, nll_loss_nd, l1_loss, ...) are in ember/ops/nn.cpp.
#include <cmath>
#include <limits>

#include "ember/kernels/cpu/Dispatch.h"
#include "ember/kernels/cpu/ElementwiseOps.h"
#include "ember/kernels/cpu/Loops.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"

namespace ember::cpu {

namespace {

// at::Reduction.
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

// PyTorch's apply_loss_reduction: mean, sum, or the unreduced loss for anything else.
Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return ember::mean(loss);
  if (reduction == kSum) return ember::sum(loss);
  return loss;
}

// ---- nll_loss
// Note [nll_loss total weight]
// The mean divides the sum of -weight[t] * x[t] over the targets that are not ignore_index by the sum of
// their weights (total_weight), so a mean over no target (all ignored, or an empty batch) is 0/0 = NaN, as
// PyTorch 1.13's. total_weight is returned beside the loss (PyTorch's nll_loss_forward) for the backward pass;
// it is 0 for reduction none over a batch, where each sample's loss is returned instead.

void check_target_dtype(const char* op, const Tensor& target) {
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, "{}: expected scalar type Long but found {}", op,
              target.dtype());
}

// weight as a contiguous tensor of self's dtype, or undefined. Errors: a weight of another dtype.
Tensor nll_weight(const char* op, const Tensor& self, const std::optional<Tensor>& weight) {
  if (!weight || !weight->defined()) return {};
  EMBER_CHECK(weight->dtype() == self.dtype(), "{}: expected scalar type {} but found {}", op, self.dtype(),
              weight->dtype());
  return weight->contiguous();
}

// Reads target element i as int64 (int64 or uint8 targets).
struct TargetReader {
  const void* data;
  bool is_byte;
  int64_t operator[](int64_t i) const {
    return is_byte ? static_cast<int64_t>(static_cast<const uint8_t*>(data)[i]) : static_cast<const int64_t*>(data)[i];
  }
};

// The reduced nll over `count` (sample, class-plane) positions: for position i with target t, the
// log-probability is x[base(i) + t * class_stride]. Returns {output, total_weight}; see Note [nll_loss total weight].
template <class T, class BaseOf>
std::tuple<Tensor, Tensor> nll_reduce(const char* op, const T* x, const TargetReader& tgt, const T* w, int64_t count,
                                      int64_t n_classes, int64_t class_stride, int64_t reduction, int64_t ignore_index,
                                      BaseOf base_of, DType dt) {
  double total = 0, sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = tgt[i];
    if (t == ignore_index) continue;
    EMBER_CHECK_INDEX(t >= 0 && t < n_classes, "{}: Target {} is out of bounds.", op, t);
    const double wt = w ? static_cast<double>(static_cast<opmath_t<T>>(w[t])) : 1.0;
    total += wt;
    sum -= static_cast<double>(static_cast<opmath_t<T>>(x[base_of(i) + t * class_stride])) * wt;
  }
  if (reduction == kMean) sum /= total;  // 0/0 = NaN when nothing counts
  Tensor out = make_empty({}, dt), tw = make_empty({}, dt);
  *out.data_ptr<T>() = static_cast<T>(sum);
  *tw.data_ptr<T>() = static_cast<T>(total);
  return {out, tw};
}

// The unreduced nll: out[i] = -weight[t] * x[t] (0 where t is ignore_index).
template <class T, class BaseOf>
void nll_unreduced(const char* op, const T* x, const TargetReader& tgt, const T* w, int64_t count, int64_t n_classes,
                   int64_t class_stride, int64_t ignore_index, BaseOf base_of, T* out) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = tgt[i];
    if (t == ignore_index) {
      out[i] = T(0);
      continue;
    }
    EMBER_CHECK_INDEX(t >= 0 && t < n_classes, "{}: Target {} is out of bounds.", op, t);
    const opmath_t<T> wt = w ? static_cast<opmath_t<T>>(w[t]) : opmath_t<T>(1);
    out[i] = static_cast<T>(-static_cast<opmath_t<T>>(x[base_of(i) + t * class_stride]) * wt);
  }
}

// Runs the pointwise loss made by make_op (a scalar function of (self, target) in the compute type) over the
// broadcast of self and target, floating types only, then reduces it.
// out: undefined (the result has the promoted dtype) or a tensor to write (huber_loss writes self's dtype).
template <class MakeOp>
Tensor pointwise_loss(const char* name, const Tensor& self, const Tensor& target, int64_t reduction,
                      const MakeOp& make_op, const Tensor& out = Tensor()) {
  IterConfig cfg;
  cfg.name = name;
  TensorIterator it(cfg, out, {self, target});
  dispatch_dtypes<kFloatingTypes>(it.common_dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    const auto op = make_op.template operator()<M>();
    it.for_each([&op](char** d, const int64_t* s, int64_t n) {
      binary_loop<T, T>(d, s, n, [&op](T a, T b) { return static_cast<T>(op(static_cast<M>(a), static_cast<M>(b))); });
    });
  });
  return apply_loss_reduction(it.finish(), reduction);
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  const char* op = "nll_loss";
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "{}: input tensor should be 1D or 2D (got input of size {})", op,
              self.sizes());
  EMBER_CHECK(target.dim() <= 1,
              "{}: 0D or 1D target tensor expected, multi-target not supported (got target of size {})", op,
              target.sizes());
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  EMBER_CHECK(no_batch_dim || self.size(0) == target.size(0), "{}: size mismatch (got input: {}, target: {})", op,
              self.sizes(), target.sizes());
  const int64_t n_classes = self.size(-1);
  EMBER_CHECK(!weight || !weight->defined() || (weight->dim() == 1 && weight->numel() == n_classes),
              "{}: weight tensor should be defined either for all {} classes or no classes but got weight tensor of "
              "shape: {}", op, n_classes, weight ? weight->sizes() : IntArrayRef());
  std::tuple<Tensor, Tensor> result;
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    check_target_dtype(op, target);
    const Tensor w = nll_weight(op, self, weight);
    const Tensor x = self.contiguous(), t = target.contiguous();
    const TargetReader tgt{t.data_ptr(), t.dtype() == kUInt8};
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const auto row = [n_classes](int64_t i) { return i * n_classes; };
    if (reduction == kNone && self.dim() == 2) {
      Tensor out = make_empty({self.size(0)}, self.dtype());
      nll_unreduced(op, x.data_ptr<T>(), tgt, wp, self.size(0), n_classes, 1, ignore_index, row, out.data_ptr<T>());
      Tensor tw = make_empty({}, self.dtype());
      *tw.data_ptr<T>() = T(0);
      result = {out, tw};
      return;
    }
    // A 1-D self is one sample (PyTorch reads target[0] only, also when target is 1-D); an empty target is no
    // sample at all (self (0,) and target (0,) read an element of neither before).
    const int64_t count = target.numel() == 0 ? 0 : self.dim() == 1 ? 1 : self.size(0);
    result = nll_reduce(op, x.data_ptr<T>(), tgt, wp, count, n_classes, 1, reduction, ignore_index, row,
                        self.dtype());
  });
  return result;
}

std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  const char* op = "nll_loss2d";
  EMBER_CHECK(target.dim() == 3,
              "{}: only batches of spatial targets supported (3D tensors) but got targets of dimension: {}", op,
              target.dim());
  EMBER_CHECK(self.dim() == 4,
              "{}: only batches of spatial inputs supported (4D tensors), but got input of dimension: {}", op,
              self.dim());
  EMBER_CHECK(!weight || !weight->defined() || weight->numel() == self.size(1),
              "{}: weight tensor should be defined either for all or no classes (got weight of shape {} for {} "
              "classes)", op, weight ? weight->sizes() : IntArrayRef(), self.size(1));
  EMBER_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2),
              "{}: size mismatch (got input: {} , target: {})", op, self.sizes(), target.sizes());
  const int64_t N = self.size(0), C = self.size(1), HW = self.size(2) * self.size(3);
  std::tuple<Tensor, Tensor> result;
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    check_target_dtype(op, target);
    const Tensor w = nll_weight(op, self, weight);
    const Tensor x = self.contiguous(), t = target.contiguous();
    const TargetReader tgt{t.data_ptr(), t.dtype() == kUInt8};
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    // Position i = n * HW + s: class c of it is at (n * C + c) * HW + s.
    const auto base = [C, HW](int64_t i) { return (i / HW) * C * HW + i % HW; };
    if (reduction == kNone) {
      Tensor out = make_empty({N, self.size(2), self.size(3)}, self.dtype());
      nll_unreduced(op, x.data_ptr<T>(), tgt, wp, N * HW, C, HW, ignore_index, base, out.data_ptr<T>());
      Tensor tw = make_empty({}, self.dtype());
      *tw.data_ptr<T>() = T(0);
      result = {out, tw};
      return;
    }
    result = nll_reduce(op, x.data_ptr<T>(), tgt, wp, N * HW, C, HW, reduction, ignore_index, base, self.dtype());
  });
  return result;
}

// ---- pointwise losses
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return pointwise_loss("mse_loss", self, target, reduction,
                        []<class M>() { return [](M a, M b) { return ops::MseLoss::f(a, b); }; });
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta (got {}).", beta);
  if (beta == 0) {
    // As PyTorch: the l1 loss, after the dtype check of the smooth_l1 kernel.
    dispatch_dtypes<kFloatingTypes>(promote_types(self.dtype(), target.dtype()), "smooth_l1_loss", []<class T>() {});
    return ember::l1_loss(self, target, reduction);
  }
  return pointwise_loss("smooth_l1_loss", self, target, reduction,
                        [beta]<class M>() { return ops::SmoothL1Loss<M>{static_cast<M>(beta)}; });
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta (got {}).", delta);
  // As PyTorch 1.13's (not a structured kernel): the loss has self's dtype, the promoted result cast to it.
  return pointwise_loss("huber_loss", self, target, reduction,
                        [delta]<class M>() { return ops::HuberLoss<M>{static_cast<M>(delta)}; },
                        make_empty(self.sizes(), self.dtype()));
}

// binary_cross_entropy: self (probabilities) and target of one dtype, target broadcast to self's shape.
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  const char* op = "binary_cross_entropy";
  IterConfig cfg;
  cfg.name = op;
  cfg.promote_inputs = false;
  EMBER_CHECK(target.dtype() == self.dtype(), "{}: Found dtype {} but expected {}", op, target.dtype(), self.dtype());
  Tensor loss = make_empty(self.sizes(), self.dtype());
  TensorIterator it(cfg, loss, {self, target});
  dispatch_dtypes<kFloatingTypes>(self.dtype(), op, [&]<class T>() {
    using M = opmath_t<T>;
    it.for_each([op](char** d, const int64_t* s, int64_t n) {
      binary_loop<T, T>(d, s, n, [op](T x, T y) {
        const M xv = static_cast<M>(x);
        EMBER_CHECK(xv >= M(0) && xv <= M(1), "{}: all elements of input should be between 0 and 1", op);
        return static_cast<T>(ops::BinaryCrossEntropy::f(xv, static_cast<M>(y)));
      });
    });
  });
  loss = it.finish();
  EMBER_CHECK(loss.sizes().equals(self.sizes()), "{}: target of size {} does not broadcast to input of size {}", op,
              target.sizes(), self.sizes());
  if (weight && weight->defined()) loss.mul_(*weight);
  return apply_loss_reduction(loss, reduction);
}

}  // namespace ember::cpu
