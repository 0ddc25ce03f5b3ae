// The kernel of aten::_fused_elementwise: a small expression program (Note [fused elementwise programs])
// evaluated block by block in one pass over memory.
//
// Note [fused elementwise kernel]
// The output (contiguous, the broadcast shape of the inputs) is cut into blocks of kBlock elements; parallel_for
// hands each thread a range of whole blocks. For a block, every instruction runs over all of its elements
// before the next one starts, using the same vectorized row loop the unfused op uses (vec_loop, Note
// [instruction-set builds]), so results are the unfused op's bit for bit while the intermediates live in a few
// block-sized buffers that stay in L1. Registers are of two kinds: a row of kBlock values (stride = element
// size) or one value for the whole block (stride 0: a constant, a one-element input, or an op of such values,
// computed once). An input that is contiguous in the output's layout is read in place; any other (broadcast,
// transposed, sliced) is gathered into a buffer. Register buffers are reused after a register's last use; the
// last instruction writes straight into the output.
// TensorIterator is not used: it holds at most four inputs, and a program may have any number.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "ember/core/TypePromotion.h"
#include "ember/kernels/cpu/Parallel.h"
#include "ember/kernels/cpu/generated/CPUKernels.h"
#include "ember/kernels/cpu/isa/VecLoops.h"
#include "ember/ops/FusedProgram.h"

namespace ember::cpu {

namespace {

constexpr const char* kName = "_fused_elementwise";
constexpr int64_t kBlock = 512;

VecOp vec_op_of(FusedOpcode op) {
  switch (op) {
    case FusedOpcode::Neg: return VecOp::Neg;
    case FusedOpcode::Abs: return VecOp::Abs;
    case FusedOpcode::Relu: return VecOp::Relu;
    case FusedOpcode::Sigmoid: return VecOp::Sigmoid;
    case FusedOpcode::Tanh: return VecOp::Tanh;
    case FusedOpcode::Exp: return VecOp::Exp;
    case FusedOpcode::Log: return VecOp::Log;
    case FusedOpcode::Sqrt: return VecOp::Sqrt;
    case FusedOpcode::Rsqrt: return VecOp::Rsqrt;
    case FusedOpcode::Reciprocal: return VecOp::Reciprocal;
    case FusedOpcode::Gelu: return VecOp::Gelu;
    case FusedOpcode::GeluTanh: return VecOp::GeluTanh;
    case FusedOpcode::Silu: return VecOp::Silu;
    case FusedOpcode::Erf: return VecOp::Erf;
    case FusedOpcode::Sin: return VecOp::Sin;
    case FusedOpcode::Cos: return VecOp::Cos;
    case FusedOpcode::Log1p: return VecOp::Log1p;
    case FusedOpcode::Expm1: return VecOp::Expm1;
    case FusedOpcode::Square: return VecOp::Square;
    case FusedOpcode::Add: return VecOp::Add;
    case FusedOpcode::Sub: return VecOp::Sub;
    case FusedOpcode::Mul: return VecOp::Mul;
    case FusedOpcode::Div: return VecOp::Div;
    case FusedOpcode::Maximum: return VecOp::Maximum;
    case FusedOpcode::Minimum: return VecOp::Minimum;
    case FusedOpcode::Input:
    case FusedOpcode::Constant: break;
  }
  EMBER_FAIL("{}: opcode {} has no loop", kName, static_cast<int64_t>(op));
}

// How an input is read, in elements of the output's (row-major) order.
struct InputGeom {
  const char* data = nullptr;
  bool scalar = false;      // one element for every output position
  bool contiguous = false;  // element j of the output reads data[j]
  DimVector strides;        // else: element strides per output dim (0 where broadcast)
};

// One step of the compiled program: what to run, where its operands and result live.
struct Step {
  FusedOpcode op;
  VecLoopFn fn = nullptr;  // compute steps
  int64_t a = 0, b = 0;    // input/constant index, or operand registers
  bool binary = false;     // two operands (else one, for compute steps)
  int slot = -1;           // buffer holding the register's row values (-1: none needed)
  bool dead = false;       // its value is never read (and it is not the result): skipped
};

// A register's values for the current block: ptr[i * stride / sizeof(T)], stride 0 or the element size.
struct Reg {
  const char* ptr = nullptr;
  int64_t stride = 0;
};

// Buffers for registers, reused once a register is dead (never for the operands of the step that defines
// it, so no loop reads and writes one buffer). Returns the number of buffers.
int assign_slots(std::vector<Step>& steps, const std::vector<InputGeom>& inputs) {
  const int64_t n = static_cast<int64_t>(steps.size());
  std::vector<int64_t> last_use(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    const int arity = fused_opcode_arity(static_cast<int64_t>(steps[i].op));
    if (arity >= 1) last_use[steps[i].a] = i;
    if (arity == 2) last_use[steps[i].b] = i;
  }
  std::vector<int> free_slots;
  int count = 0;
  for (int64_t i = 0; i < n; ++i) {
    Step& s = steps[i];
    const bool needs = s.op == FusedOpcode::Input ? !inputs[s.a].scalar && !inputs[s.a].contiguous
                                                  : s.op != FusedOpcode::Constant && i != n - 1;
    s.dead = last_use[i] < 0 && i != n - 1;
    if (needs && !s.dead) {
      if (free_slots.empty()) {
        s.slot = count++;
      } else {
        s.slot = free_slots.back();
        free_slots.pop_back();
      }
    }
    const int arity = fused_opcode_arity(static_cast<int64_t>(s.op));
    for (int k = 0; k < arity; ++k) {
      const int64_t r = k == 0 ? s.a : s.b;
      if (last_use[r] == i && steps[r].slot >= 0 && (k == 0 || s.b != s.a)) free_slots.push_back(steps[r].slot);
    }
  }
  return count;
}

// dst[0, n) = the input's elements at output positions [start, start + n).
template <class T>
void gather(const InputGeom& g, IntArrayRef shape, int64_t start, int64_t n, T* dst) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  DimVector idx(shape.size(), 0);
  int64_t rem = start, offset = 0;
  for (int64_t d = nd - 1; d >= 0; --d) {
    idx[d] = rem % shape[d];
    rem /= shape[d];
    offset += idx[d] * g.strides[d];
  }
  const T* src = reinterpret_cast<const T*>(g.data);
  const int64_t inner = shape[nd - 1], inner_stride = g.strides[nd - 1];
  int64_t done = 0;
  while (done < n) {
    const int64_t run = std::min(inner - idx[nd - 1], n - done);
    for (int64_t j = 0; j < run; ++j) dst[done + j] = src[offset + j * inner_stride];
    done += run;
    offset += run * inner_stride;
    idx[nd - 1] += run;
    for (int64_t d = nd - 1; d > 0 && idx[d] == shape[d]; --d) {  // carry into the outer dims
      offset -= idx[d] * g.strides[d];
      idx[d] = 0;
      ++idx[d - 1];
      offset += g.strides[d - 1];
    }
  }
}

template <class T>
void run_program(const std::vector<Step>& steps, int num_slots, const std::vector<InputGeom>& inputs,
                 const std::vector<T>& constants, IntArrayRef shape, T* out, int64_t numel) {
  constexpr int64_t e = sizeof(T);
  const int64_t num_blocks = (numel + kBlock - 1) / kBlock;
  // Each task costs about one pass of every step over its elements.
  const int64_t grain = std::max<int64_t>(1, kGrainSize / kBlock / static_cast<int64_t>(steps.size()));
  parallel_for(num_blocks, grain, [&](int64_t first, int64_t last) {
    std::unique_ptr<T[]> scratch(new T[static_cast<size_t>(std::max(num_slots, 1) * kBlock)]);
    std::vector<Reg> regs(steps.size());
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t start = blk * kBlock, n = std::min(kBlock, numel - start);
      for (size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        if (s.dead) continue;
        T* buf = s.slot >= 0 ? scratch.get() + s.slot * kBlock : nullptr;
        Reg& r = regs[i];
        if (s.op == FusedOpcode::Constant) {
          r = {reinterpret_cast<const char*>(&constants[s.a]), 0};
        } else if (s.op == FusedOpcode::Input) {
          const InputGeom& g = inputs[s.a];
          if (g.scalar) r = {g.data, 0};
          else if (g.contiguous) r = {g.data + start * e, e};
          else if (buf) {
            gather<T>(g, shape, start, n, buf);
            r = {reinterpret_cast<const char*>(buf), e};
          }
        } else {
          const bool last_step = i + 1 == steps.size();
          const Reg& x = regs[s.a];
          const bool binary = s.binary;
          const Reg& y = binary ? regs[s.b] : x;
          // One value for the block when every operand is one value; the output is always a row.
          const bool one = x.stride == 0 && y.stride == 0 && !last_step;
          char* dst = last_step ? reinterpret_cast<char*>(out + start) : reinterpret_cast<char*>(buf);
          char* data[3] = {dst, const_cast<char*>(x.ptr), const_cast<char*>(y.ptr)};
          if (!binary && x.stride == 0 && !one) {
            // A row of one repeated value: computed once, then filled (the loop's vector formula either way).
            s.fn(data, std::array<int64_t, 2>{e, e}.data(), 1, 1.0);
            T v;
            std::memcpy(&v, dst, sizeof(T));
            T* o = reinterpret_cast<T*>(dst);
            for (int64_t j = 1; j < n; ++j) o[j] = v;
          } else {
            // (One value is computed as a row of one, so unary ops take their vector formula.)
            const int64_t strides[3] = {e, one ? e : x.stride, one ? e : y.stride};
            s.fn(data, strides, one ? 1 : n, 1.0);
          }
          r = {dst, one ? 0 : e};
        }
      }
      // A program that is a single input or constant copies it out.
      const Reg& res = regs.back();
      if (steps.back().op == FusedOpcode::Input || steps.back().op == FusedOpcode::Constant) {
        T* o = out + start;
        if (res.stride == 0) {
          T v;
          std::memcpy(&v, res.ptr, sizeof(T));
          for (int64_t j = 0; j < n; ++j) o[j] = v;
        } else if (res.ptr) {
          std::memcpy(o, res.ptr, static_cast<size_t>(n) * sizeof(T));
        } else {
          gather<T>(inputs[steps.back().a], shape, start, n, o);
        }
      }
    }
  });
}

}  // namespace

Tensor _fused_elementwise(TensorList inputs, IntArrayRef program, IntArrayRef constants) {
  const int64_t num_inputs = static_cast<int64_t>(inputs.size());
  const std::vector<FusedInstr> instrs =
      validate_fused_program(kName, program, num_inputs, static_cast<int64_t>(constants.size()));
  const DType dtype = inputs[0].dtype();
  DimVector shape(inputs[0].sizes().begin(), inputs[0].sizes().end());
  for (int64_t k = 0; k < num_inputs; ++k) {
    const Tensor& t = inputs[k];
    EMBER_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64,
                "{}: supports float32 and float64 inputs only, but input {} is {}", kName, k, t.dtype());
    EMBER_CHECK(t.dtype() == dtype, "{}: all inputs must have one dtype, but input 0 is {} and input {} is {}", kName,
                dtype, k, t.dtype());
    try {
      shape = broadcast_shapes(shape, t.sizes());
    } catch (const Error& e) {
      EMBER_FAIL("{}: input {} of shape [{}] does not broadcast with the shape [{}] of the inputs before it: {}",
                 kName, k, fmt::join(t.sizes(), ", "), fmt::join(shape, ", "), e.what());
    }
  }
  Tensor out = make_empty(shape, dtype);
  const int64_t numel = out.numel();
  if (numel == 0) return out;

  std::vector<InputGeom> geoms(static_cast<size_t>(num_inputs));
  const int64_t nd = static_cast<int64_t>(shape.size());
  for (int64_t k = 0; k < num_inputs; ++k) {
    const Tensor& t = inputs[k];
    InputGeom& g = geoms[k];
    g.data = static_cast<const char*>(t.data_ptr());
    g.scalar = t.numel() == 1;
    g.strides.assign(shape.size(), 0);
    const int64_t off = nd - t.dim();
    bool contiguous = true;  // missing leading dims and dims of size 1 do not matter
    int64_t expect = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t td = d - off;
      const bool broadcast = td < 0 || (t.sizes()[td] == 1 && shape[d] != 1);
      g.strides[d] = broadcast ? 0 : t.strides()[td];
      if (shape[d] != 1 && (broadcast || g.strides[d] != expect)) contiguous = false;
      expect *= shape[d];
    }
    g.contiguous = contiguous;
  }

  std::vector<Step> steps;
  steps.reserve(instrs.size());
  for (const FusedInstr& ins : instrs) {
    Step s{ins.op};
    s.a = ins.a;
    s.b = ins.b;
    const int arity = fused_opcode_arity(static_cast<int64_t>(ins.op));
    if (arity > 0) s.fn = vec_loop(vec_op_of(ins.op), dtype);
    s.binary = arity == 2;
    steps.push_back(s);
  }
  const int num_slots = assign_slots(steps, geoms);

  if (dtype == kFloat32) {
    std::vector<float> c(constants.size());
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(fused_constant_value(constants[i]));
    run_program<float>(steps, num_slots, geoms, c, shape, out.data_ptr<float>(), numel);
  } else {
    std::vector<double> c(constants.size());
    for (size_t i = 0; i < c.size(); ++i) c[i] = fused_constant_value(constants[i]);
    run_program<double>(steps, num_slots, geoms, c, shape, out.data_ptr<double>(), numel);
  }
  return out;
}

}  // namespace ember::cpu
