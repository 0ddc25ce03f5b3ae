// The engine frees the graph (issue 4's leak check, part 1): after training-like steps — forward, backward,
// an in-place update under no_grad — every node of the step's graph is gone once its tensors are, including
// graphs with saved outputs, in-place ops, views rebased by CopySlices and retain_graph. Nodes hold the saved
// tensors, so a node that outlives its step would keep its tensors too. tests/leak/train_loop.cpp runs the same
// kind of loop under LeakSanitizer for what weak references cannot see (cycles of other objects).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "ember/autograd/autograd.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace {

using namespace ember;
namespace ag = ember::autograd;

// Weak references to every node reachable from t's grad_fn.
std::vector<std::weak_ptr<ag::Node>> graph_of(const Tensor& t) {
  std::vector<std::weak_ptr<ag::Node>> out;
  std::vector<std::shared_ptr<ag::Node>> stack{ag::grad_fn(t)};
  std::vector<ag::Node*> seen;
  while (!stack.empty()) {
    std::shared_ptr<ag::Node> n = stack.back();
    stack.pop_back();
    if (!n || std::find(seen.begin(), seen.end(), n.get()) != seen.end()) continue;
    seen.push_back(n.get());
    out.push_back(n);
    for (const ag::Edge& e : n->next_edges()) stack.push_back(e.fn);
  }
  return out;
}

size_t alive(const std::vector<std::weak_ptr<ag::Node>>& nodes) {
  size_t n = 0;
  for (const auto& w : nodes) n += !w.expired();
  return n;
}

Tensor floats(const std::vector<float>& v) {
  return tensor_from_buffer(v.data(), {static_cast<int64_t>(v.size())}, DType::Float32);
}

Tensor param(const std::vector<float>& v) {
  Tensor t = floats(v);
  ag::set_requires_grad(t, true);
  return t;
}

// One SGD step on loss(w, c); returns weak references to the step's graph.
template <class F>
std::vector<std::weak_ptr<ag::Node>> step(Tensor& w, Tensor& c, F&& loss_of, bool retain = false) {
  std::vector<std::weak_ptr<ag::Node>> graph;
  {
    Tensor loss = loss_of(w, c);
    graph = graph_of(loss);
    EXPECT_GT(graph.size(), 2u);
    ag::backward({loss}, {}, retain);
    if (retain) ag::backward({loss});
  }
  ag::NoGradGuard no_grad;
  for (Tensor* p : {&w, &c}) {
    p->sub_(ag::grad(*p) * 0.1);
    ag::set_grad(*p, Tensor());
  }
  return graph;
}

void expect_freed(const std::vector<std::weak_ptr<ag::Node>>& graph) {
  // The AccumulateGrad nodes of the leaves are owned by the graph only (the leaf keeps a weak reference).
  EXPECT_EQ(alive(graph), 0u) << "of " << graph.size() << " nodes";
}

TEST(GraphLifetime, PlainOpsAndSavedOutputs) {
  Tensor w = param({0.5f, -1.0f}), c = param({0.25f, 0.0f});
  Tensor x = floats({1.0f, 2.0f});
  for (int i = 0; i < 5; ++i)
    expect_freed(step(w, c, [&](const Tensor& w, const Tensor& c) {
      Tensor h = (w * x + c).exp();  // exp saves its output
      return (h.tanh() * h).sum();
    }));
}

TEST(GraphLifetime, InplaceOpsAndViews) {
  Tensor w = param({0.5f, -1.0f, 2.0f}), c = param({0.25f, 0.0f, 1.0f});
  for (int i = 0; i < 5; ++i)
    expect_freed(step(w, c, [&](const Tensor& w, const Tensor& c) {
      Tensor y = w * c;
      y.mul_(w);                                  // in place on a non-leaf
      y.narrow(0, 1, 2).add_(c.narrow(0, 0, 2));  // in place on a view: CopySlices + AsStridedBackward0
      Tensor out = ember::zeros({3});
      out.select(0, 0).copy_(y.select(0, 2));     // a plain base gets history
      return (y.sin() + out).sum();
    }));
}

TEST(GraphLifetime, RetainGraphThenFree) {
  Tensor w = param({0.5f}), c = param({1.5f});
  for (int i = 0; i < 3; ++i)
    expect_freed(step(w, c, [&](const Tensor& w, const Tensor& c) { return (w * c).exp().sum(); }, true));
}

TEST(GraphLifetime, ForwardWithoutBackward) {
  // A graph that backward never runs goes with its last tensor (nothing in it refers back to its outputs).
  Tensor w = param({0.5f, 2.0f, -1.0f});
  std::vector<std::weak_ptr<ag::Node>> graph;
  {
    Tensor y = w.exp() * w;
    y.narrow(0, 0, 2).mul_(w.narrow(0, 1, 2));
    Tensor out = ember::zeros({3});
    out.select(0, 1).copy_(y.select(0, 2));
    Tensor loss = (out + y.sin()).sum();
    graph = graph_of(loss);
    EXPECT_GT(graph.size(), 5u);
  }
  expect_freed(graph);
}

}  // namespace
