// The Ember side of the C++ benchmark (bench_cases.h; see Note [benchmark fairness]). Public API only.
#include <cstring>

#include "benchmarks/bench_cases.h"
#include "ember/api/ember.h"

namespace bench {
namespace {

ember::Tensor make_input(int64_t n, uint32_t seed) {
  const std::vector<float>& v = inputs(n, seed);
  ember::Tensor t = ember::empty({n}, ember::kFloat32);
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(float));
  return t;
}

// One untimed call first: it touches the pages of out= and temporary tensors and primes caches, so a case
// whose iterations take long (16M elements, few iterations) does not time first-touch page faults of its
// set-up. Fresh-output cases still allocate on every timed call.
template <class F>
void loop(benchmark::State& state, F&& f) {
  benchmark::DoNotOptimize(f());
  for (auto _ : state) {
    ember::Tensor r = f();
    benchmark::DoNotOptimize(r.impl());
  }
}

}  // namespace

void run_ember(benchmark::State& state, const Case& c) {
  ember::set_num_threads(c.threads);
  const int64_t n = c.numel;
  ember::Tensor a = make_input(n, 1), b = make_input(n, 2), cc = make_input(n, 3);
  ember::Tensor out = ember::empty({n}, ember::kFloat32), tmp = ember::empty({n}, ember::kFloat32);
  const int64_t rows = c.rows(), cols = c.cols ? c.cols : 1;
  // Named dims: Ember's OptionalIntArrayRef (std::optional<IntArrayRef>) built from a braced {1} views a
  // temporary that is gone before the op runs, so x.sum({1}) reads a stale dim (reported; not fixed here).
  static const int64_t kDim0 = 0, kDim1 = 1;
  ember::Tensor a2 = a.view({rows, cols}), out_t = out.view({cols, rows}), out_r = out.narrow(0, 0, out_numel(c));
  const std::string& op = c.op;
  if (!c.out) {
    if (op == "add") loop(state, [&] { return ember::add(a, b); });
    else if (op == "mul") loop(state, [&] { return ember::mul(a, b); });
    else if (op == "mul_add") loop(state, [&] { return a * b + cc; });
    else if (op == "addcmul") loop(state, [&] { return ember::addcmul(cc, a, b); });
    else if (op == "exp") loop(state, [&] { return a.exp(); });
    else if (op == "relu") loop(state, [&] { return a.relu(); });
    else if (op == "tanh") loop(state, [&] { return a.tanh(); });
    else if (op == "sigmoid") loop(state, [&] { return a.sigmoid(); });
    else if (op == "view") loop(state, [&] { return a.view({n}); });
    else if (op == "tiny_graph") {  // forward + backward of (a * b + a.exp()).sum() on leaves (issue 4)
      ember::autograd::set_requires_grad(a, true);
      ember::autograd::set_requires_grad(b, true);
      loop(state, [&] {
        ember::Tensor y = (a * b + a.exp()).sum();
        ember::autograd::backward({y});
        return y;
      });
    }
    else if (op == "t_copy") loop(state, [&] { return a2.t().contiguous(); });
    else if (op == "sum_dim1") loop(state, [&] { return a2.sum(ember::IntArrayRef(kDim1)); });
    else if (op == "sum_dim0") loop(state, [&] { return a2.sum(ember::IntArrayRef(kDim0)); });
    else if (op == "softmax") loop(state, [&] { return a2.softmax(1); });
    else state.SkipWithError(("unknown op " + op).c_str());
  } else {
    if (op == "add") loop(state, [&] { return ember::add_out(out, a, b); });
    else if (op == "mul") loop(state, [&] { return ember::mul_out(out, a, b); });
    else if (op == "mul_add") loop(state, [&] { return ember::add_out(out, ember::mul_out(tmp, a, b), cc); });
    else if (op == "addcmul") loop(state, [&] { return ember::addcmul_out(out, cc, a, b); });
    else if (op == "exp") loop(state, [&] { return ember::exp_out(out, a); });
    else if (op == "relu") loop(state, [&] { return ember::clamp_min_out(out, a, 0); });
    else if (op == "tanh") loop(state, [&] { return ember::tanh_out(out, a); });
    else if (op == "sigmoid") loop(state, [&] { return ember::sigmoid_out(out, a); });
    else if (op == "t_copy") loop(state, [&] { return out_t.copy_(a2.t()); });
    else if (op == "sum_dim1") loop(state, [&] { return ember::sum_out(out_r, a2, ember::IntArrayRef(kDim1)); });
    else if (op == "sum_dim0") loop(state, [&] { return ember::sum_out(out_r, a2, ember::IntArrayRef(kDim0)); });
    else state.SkipWithError(("no out= form for " + op).c_str());
  }
  set_counters(state, c);
}

}  // namespace bench
