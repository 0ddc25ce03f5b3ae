// The autograd engine called from several threads at once, as PyTorch 1.13 allows (its autograd notes,
// "Concurrency on CPU" and "Thread Safety on Autograd Node"): each thread's backward() or grad() runs on that
// thread; a leaf shared by several threads' graphs (Hogwild-style training) receives every thread's gradient
// (Note [concurrent accumulation]); a graph kept with retain_graph can be differentiated from all threads at
// once. Values are integers in float64, so every sum is exact whatever order the threads add in. `make tsan`
// runs these under ThreadSanitizer.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::autograd;
using ember::testing::make_tensor;
using ember::testing::values;

constexpr int kThreads = 8;
constexpr int kIterations = 25;

Tensor leaf(const std::vector<double>& v) {
  Tensor t = make_tensor<double>(v);
  set_requires_grad(t, true);
  return t;
}
std::vector<double> vals(const Tensor& t) { return values<double>(t.to(kFloat64)); }

// Runs body(t) on kThreads threads at once (t = 0 .. kThreads - 1) and waits for all of them.
template <class F>
void on_threads(F body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
  for (auto& th : threads) th.join();
}

TEST(EngineThreads, EachThreadDifferentiatesItsOwnGraph) {
  std::vector<int> wrong(kThreads, 0);
  on_threads([&](int t) {
    const double a = t + 1;
    Tensor x = leaf({a, a + 1, a + 2});
    for (int k = 0; k < kIterations; ++k) {
      // First and second derivatives of sum(x^3): 3 x^2 and 6 x.
      variable_list g = grad({(x * x * x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
      variable_list gg = grad({g[0].sum()}, {x});
      if (vals(g[0]) != std::vector<double>{3 * a * a, 3 * (a + 1) * (a + 1), 3 * (a + 2) * (a + 2)}) ++wrong[t];
      if (vals(gg[0]) != std::vector<double>{6 * a, 6 * (a + 1), 6 * (a + 2)}) ++wrong[t];
      backward({(x * 2).sum()});  // accumulates 2 into x.grad
    }
    if (vals(autograd::grad(x)) != std::vector<double>(3, 2.0 * kIterations)) ++wrong[t];
  });
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// Every thread builds its own graphs from one shared leaf and calls backward() concurrently: the leaf's .grad
// sums every thread's gradient (none lost), both for an elementwise use and through a matrix product.
TEST(EngineThreads, SharedLeafReceivesEveryThreadsGradient) {
  Tensor w = leaf(std::vector<double>(12, 1.0));
  Tensor w2 = make_tensor<double>(std::vector<double>(12, 1.0), {4, 3});  // used through matmul
  set_requires_grad(w2, true);
  on_threads([&](int t) {
    const double c = t + 1;
    Tensor x = make_tensor<double>({c, 0, 1, 2, 0, c, 1, 0}, {2, 4});
    for (int k = 0; k < kIterations; ++k) {
      backward({(w * c).sum()});
      backward({x.matmul(w2).sum()});
    }
  });
  // d/dw sum(c w) = c, summed over the threads' c = 1..8 and the iterations.
  EXPECT_EQ(vals(autograd::grad(w)), std::vector<double>(12, 36.0 * kIterations));
  // d/dw2 sum(x w2) = the column sums of x broadcast over w2's columns: rows (c, c, 2, 2) per call.
  std::vector<double> want;
  for (double row : {36.0, 36.0, 2.0 * kThreads, 2.0 * kThreads})
    for (int j = 0; j < 3; ++j) want.push_back(row * kIterations);
  EXPECT_EQ(vals(autograd::grad(w2)), want);
}

// The first part of the graph is built once and retained; every thread differentiates its own continuation
// through it, concurrently (the shared nodes' saved tensors are read by all threads).
TEST(EngineThreads, RetainedSharedGraphFromManyThreads) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = x * x * x;  // shared: MulBackward0 nodes holding saved tensors
  std::vector<int> wrong(kThreads, 0);
  on_threads([&](int t) {
    const double c = t + 1;
    for (int k = 0; k < kIterations; ++k) {
      variable_list g = grad({(h * c).sum()}, {x}, {}, /*retain_graph=*/true);
      if (vals(g[0]) != std::vector<double>{3 * c, 12 * c, 27 * c}) ++wrong[t];
    }
  });
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  // The shared graph is still whole afterwards.
  EXPECT_EQ(vals(grad({h.sum()}, {x})[0]), (std::vector<double>{3, 12, 27}));
}

// Without retain_graph the first backward through the shared part frees it: every other thread's backward
// either got through before that or raises PyTorch's "second time" error; none reads freed tensors (Note
// [concurrent backward]). The leaf is reached only at the end, so its .grad holds exactly the threads that got
// through.
TEST(EngineThreads, SharedGraphFreedByOneThreadRaisesInTheOthers) {
  Tensor x = leaf({1, 2, 3});
  Tensor h = x * x * x;
  std::vector<int> passed(kThreads, 0), other_error(kThreads, 0);
  on_threads([&](int t) {
    try {
      backward({(h * double(t + 1)).sum()});
      passed[t] = 1;
    } catch (const Error& e) {
      if (std::string(e.what()).find("backward through the graph a second time") == std::string::npos)
        other_error[t] = 1;
    }
  });
  double c = 0;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(other_error[t], 0) << "thread " << t;
    if (passed[t]) c += t + 1;
  }
  EXPECT_GT(c, 0);
  EXPECT_EQ(vals(autograd::grad(x)), (std::vector<double>{3 * c, 12 * c, 27 * c}));
}

// Threads train one shared module Hogwild-style (forward, backward, no optimizer step): each parameter's .grad
// is the sum of every thread's gradient, as with the same calls made one after another.
TEST(EngineThreads, SharedModuleParametersAccumulateFromEveryThread) {
  manual_seed(0);
  nn::Linear fc(nn::LinearOptions(4, 2).bias(true));
  {
    NoGradGuard no_grad;
    fc->weight.copy_(make_tensor<float>({1, -1, 2, 0, 0, 1, -2, 1}, {2, 4}));
    fc->bias.copy_(make_tensor<float>({1, -1}, {2}));
  }
  auto input = [](int t) {
    const float c = static_cast<float>(t);
    return make_tensor<float>({c, 1, 0, 2, 1, c, 1, 0, 0, 0, c, 1}, {3, 4});
  };
  auto step = [&](int t) { (fc->forward(input(t)) * fc->forward(input(t))).sum().backward(); };
  for (int t = 0; t < kThreads; ++t) step(t);  // one after another: the reference
  Tensor want_w = autograd::grad(fc->weight).clone(), want_b = autograd::grad(fc->bias).clone();
  fc->zero_grad();
  on_threads(step);
  EXPECT_TRUE(equal(autograd::grad(fc->weight), want_w));
  EXPECT_TRUE(equal(autograd::grad(fc->bias), want_b));
}

}  // namespace
