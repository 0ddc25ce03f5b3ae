// The autograd layer from C++: the engine, grad modes and inference mode, tensor hooks, custom functions,
// gradcheck and anomaly mode. Expected values are worked out by hand (and agree with PyTorch 1.13's).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "TestSupport.h"
#include "ember/api/ember.h"

namespace {

using namespace ember;
using namespace ember::autograd;
using ember::testing::contains;
using ember::testing::make_tensor;
using ember::testing::values;

Tensor leaf(const std::vector<double>& v) {
  Tensor t = make_tensor<double>(v);
  set_requires_grad(t, true);
  return t;
}
std::vector<double> vals(const Tensor& t) { return values<double>(t.to(kFloat64)); }

// ------------------------------------------------------------------------------------------------- engine
TEST(Engine, BackwardAccumulatesIntoLeaves) {
  Tensor x = leaf({1, 2, 3});
  backward({(x * x).sum()});
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{2, 4, 6}));
  backward({(x * 2).sum()});  // accumulates
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{4, 6, 8}));
}

TEST(Engine, GradDoesNotTouchDotGrad) {
  Tensor x = leaf({1, 2});
  variable_list g = grad({(x * x * x).sum()}, {x});
  EXPECT_EQ(vals(g[0]), (std::vector<double>{3, 12}));
  EXPECT_FALSE(autograd::grad(x).defined());
}

TEST(Engine, CreateGraphGivesSecondDerivatives) {
  Tensor x = leaf({1, 2});
  variable_list g = grad({(x * x * x).sum()}, {x}, {}, std::nullopt, true);
  ASSERT_TRUE(requires_grad(g[0]));
  variable_list gg = grad({g[0].sum()}, {x});
  EXPECT_EQ(vals(gg[0]), (std::vector<double>{6, 12}));
}

TEST(Engine, SecondBackwardWithoutRetainGraphRaises) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  backward({y});
  EMBER_EXPECT_ERROR(backward({y}), Runtime, "Trying to backward through the graph a second time");
}

TEST(Engine, RetainGrad) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  retain_grad(y);
  backward({(y * y).sum()});
  EXPECT_EQ(vals(autograd::grad(y)), (std::vector<double>{6, 12}));
}

// -------------------------------------------------------------------------------- grad and inference modes
TEST(GradModes, NoGradRecordsNothing) {
  Tensor x = leaf({1});
  {
    NoGradGuard guard;
    EXPECT_FALSE(GradMode::is_enabled());
    EXPECT_FALSE(requires_grad(x * 2));
    AutoGradMode on(true);
    EXPECT_TRUE(requires_grad(x * 2));
  }
  EXPECT_TRUE(GradMode::is_enabled());
}

TEST(GradModes, InferenceModeMakesInferenceTensors) {
  Tensor normal = make_tensor<double>({1, 2});
  Tensor x = leaf({1, 2});
  Tensor t, view_of_normal, y;
  {
    ember::InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    EXPECT_FALSE(GradMode::is_enabled());
    t = ember::ones({2}, kFloat64);
    view_of_normal = normal.view({2});
    y = x * 2;
    {
      AutoGradMode on(true);  // grad mode on, but the Autograd key stays excluded: still nothing recorded
      EXPECT_FALSE(requires_grad(x * 2));
    }
    {
      InferenceMode off(false);
      EXPECT_FALSE(InferenceMode::is_enabled());
      EXPECT_TRUE(GradMode::is_enabled());
      EXPECT_FALSE(ember::ones({1}).is_inference());
    }
    t.fill_(2);  // in-place on an inference tensor is fine inside
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  EXPECT_TRUE(t.is_inference());
  EXPECT_TRUE(t.view({2}).is_inference());
  EXPECT_FALSE(view_of_normal.is_inference());
  EXPECT_FALSE(requires_grad(y));
  EXPECT_TRUE(y.is_inference());
  EXPECT_EQ(vals(t), (std::vector<double>{2, 2}));  // filled inside
  EMBER_EXPECT_ERROR(t.fill_(1), Runtime, "Inplace update to inference tensor outside InferenceMode");
  EMBER_EXPECT_ERROR(t.view({2}).zero_(), Runtime, "Inplace update to inference tensor outside InferenceMode");
  EMBER_EXPECT_ERROR(x * t, Runtime, "Inference tensors cannot be saved for backward");
  EXPECT_TRUE(requires_grad(x + t));  // add saves nothing: allowed, as PyTorch
  EMBER_EXPECT_ERROR(set_requires_grad(t, true), Runtime, "Setting requires_grad=True on inference tensor");
  EXPECT_FALSE(t.clone().is_inference());
}

// ------------------------------------------------------------------------------------------------- hooks
TEST(Hooks, LeafHookRunsOnceBeforeAccumulation) {
  Tensor x = leaf({1, 1});
  int calls = 0;
  std::vector<double> seen;
  register_hook(x, [&](const Tensor& g) {
    ++calls;
    seen = vals(g);
    return g * 3;
  });
  backward({(x * 2 + x * 3).sum()});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, (std::vector<double>{5, 5}));
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{15, 15}));
}

TEST(Hooks, NonLeafHookChangesUpstreamGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  register_hook(y, [](const Tensor& g) { return g * 10; });
  backward({(y * 1).sum()});
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{20, 20}));
}

TEST(Hooks, ReturningUndefinedKeepsTheGradientAndRemoveWorks) {
  Tensor x = leaf({1});
  int calls = 0;
  register_hook(x, [&](const Tensor&) {
    ++calls;
    return Tensor();
  });
  RemovableHandle h = register_hook(x, [](const Tensor& g) { return g * 100; });
  h.remove();
  h.remove();  // a second remove does nothing
  backward({(x * 2).sum()});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{2}));
}

TEST(Hooks, RemovedHooksDoNotAccumulate) {
  Tensor x = leaf({1});
  for (int i = 0; i < 100; ++i) register_hook(x, [](const Tensor& g) { return g; }).remove();
  EXPECT_LE(get_meta(x)->hooks.size(), 1u);
  Tensor y = x * 2;
  for (int i = 0; i < 100; ++i) register_hook(y, [](const Tensor& g) { return g; }).remove();
  EXPECT_LE(grad_fn(y)->tensor_pre_hooks.size(), 1u);
}

TEST(Hooks, NodePreHooksRunAfterTensorHooksAndPostHooksReplaceGradInputs) {
  // As PyTorch 1.13: the tensor hooks of y, then y.grad_fn's pre-hooks (registration order), then the node,
  // then its post-hooks, which see what it consumed and may change what it computed.
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  std::vector<std::string> order;
  Node& node = *grad_fn(y);
  register_prehook(node, [&](variable_list& g) {
    order.push_back("pre " + std::to_string(vals(g[0])[0]));
    g[0] = g[0] + 1;
  });
  register_hook(y, [&](const Tensor& g) {
    order.push_back("tensor");
    return g * 10;
  });
  register_hook(node, [&](variable_list& grad_inputs, const variable_list& grad_outputs) {
    order.push_back("post " + std::to_string(vals(grad_outputs[0])[0]) + " " + std::to_string(vals(grad_inputs[0])[0]));
    grad_inputs[0] = grad_inputs[0] * 100;
  });
  RemovableHandle h = register_prehook(node, [&](variable_list&) { order.push_back("removed"); });
  h.remove();
  backward({(y * 3).sum()});
  EXPECT_EQ(order, (std::vector<std::string>{"tensor", "pre 30.000000", "post 31.000000 62.000000"}));
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{6200, 6200}));
  EXPECT_LE(node.pre_hooks.size(), 2u);
}

TEST(Hooks, OrderWithRetainGrad) {
  // retain_grad is a hook too: it sees the hooks registered before it, not those after (PyTorch 1.13).
  Tensor x = leaf({1});
  Tensor y = x * 2;
  register_hook(y, [](const Tensor& g) { return g * 3; });
  retain_grad(y);
  register_hook(y, [](const Tensor& g) { return g * 5; });
  backward({(y * 1).sum()});
  EXPECT_EQ(vals(grad(y)), (std::vector<double>{3}));
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{30}));
}

TEST(Hooks, GradCapturesBeforeHooksOfItsInputs) {
  Tensor x = leaf({1});
  Tensor y = x * 2;
  register_hook(y, [](const Tensor& g) { return g * 3; });
  EXPECT_EQ(vals(grad({(y * 2).sum()}, {y}, {}, true)[0]), (std::vector<double>{2}));
  EXPECT_EQ(vals(grad({(y * 2).sum()}, {x})[0]), (std::vector<double>{12}));
}

TEST(Hooks, Errors) {
  Tensor plain = make_tensor<double>({1});
  EMBER_EXPECT_ERROR(register_hook(plain, [](const Tensor& g) { return g; }), Runtime,
                     "cannot register a hook on a tensor that doesn't require gradient");
  Tensor x = leaf({1, 2});
  register_hook(x, [](const Tensor&) { return ember::ones({3}, kFloat64); }, "resize");
  EMBER_EXPECT_ERROR(backward({(x * 2).sum()}), Runtime, "hook 'resize' has changed the size of value");
  Tensor z = leaf({1, 2});
  register_hook(z, [](const Tensor& g) { return g.to(kFloat32); }, "cast");
  EMBER_EXPECT_ERROR(backward({(z * 2).sum()}), Runtime, "hook 'cast' has changed the type of value");
}

// ------------------------------------------------------------------------------------------ custom Function
struct MulConst : Function<MulConst> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double c) {
    ctx->saved_data["c"] = c;
    return x * c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["c"].to_double(), Tensor()};
  }
};

// exp with its output saved; the backward uses ops, so create_graph differentiates through it.
struct MyExp : Function<MyExp> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    EXPECT_FALSE(GradMode::is_enabled());
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(CustomFunction, ForwardBackwardAndSavedData) {
  Tensor x = leaf({1, 2});
  Tensor y = MulConst::apply(x, 3.0);
  ASSERT_TRUE(grad_fn(y));
  EXPECT_TRUE(contains(grad_fn(y)->name(), "MulConst"));
  backward({y.sum()});
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{3, 3}));
}

TEST(CustomFunction, SavedOutputAndDoubleBackward) {
  Tensor x = leaf({0, 1});
  Tensor y = MyExp::apply(x);
  variable_list g = grad({y.sum()}, {x}, {}, std::nullopt, true);
  EXPECT_NEAR(vals(g[0])[1], std::exp(1.0), 1e-12);
  variable_list gg = grad({g[0].sum()}, {x});
  EXPECT_NEAR(vals(gg[0])[1], std::exp(1.0), 1e-12);
  EXPECT_NEAR(vals(gg[0])[0], 1.0, 1e-12);
}

TEST(CustomFunction, NothingRecordedWithoutGrad) {
  Tensor x = make_tensor<double>({1});
  EXPECT_FALSE(grad_fn(MulConst::apply(x, 2.0)));
  Tensor l = leaf({1});
  NoGradGuard guard;
  EXPECT_FALSE(requires_grad(MulConst::apply(l, 2.0)));
}

struct WrongCount : Function<WrongCount> {
  static Tensor forward(AutogradContext*, const Tensor& x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};
struct GradForNumber : Function<GradForNumber> {
  static Tensor forward(AutogradContext*, const Tensor& x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0], grads[0]}; }
};
struct BadShape : Function<BadShape> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list) { return {ember::ones({3}, kFloat64)}; }
};

TEST(CustomFunction, BackwardResultErrors) {
  Tensor x = leaf({1, 2});
  EMBER_EXPECT_ERROR(backward({WrongCount::apply(x, 1.0).sum()}), Runtime,
                     "returned an incorrect number of gradients (expected 2, got 1)");
  EMBER_EXPECT_ERROR(backward({GradForNumber::apply(x, 1.0).sum()}), Runtime,
                     "but the corresponding forward input was not a Variable");
  EMBER_EXPECT_ERROR(backward({BadShape::apply(x).sum()}), Runtime,
                     "returned an invalid gradient at index 0 - got [3] but expected shape compatible with [2]");
}

struct InplaceDouble : Function<InplaceDouble> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(ember::full({}, 2, kFloat64, std::nullopt));
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

TEST(CustomFunction, MarkDirty) {
  Tensor x = leaf({1, 2});
  EMBER_EXPECT_ERROR(InplaceDouble::apply(leaf({1})), Runtime,
                     "a leaf Variable that requires grad has been used in an in-place operation.");
  Tensor a = x * 1;
  Tensor b = InplaceDouble::apply(a);
  EXPECT_EQ(a.impl(), b.impl());
  EXPECT_TRUE(contains(grad_fn(a)->name(), "InplaceDouble"));
  backward({b.sum()});
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{2, 2}));
}

struct TwoOutputs : Function<TwoOutputs> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x, bool materialize) {
    Tensor idx = x.argmax();
    Tensor twice = x * 2;
    ctx->mark_non_differentiable({idx});
    ctx->set_materialize_grads(materialize);
    ctx->saved_data["needs0"] = ctx->needs_input_grad(0);
    return {twice, x * 3, idx};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_TRUE(ctx->saved_data["needs0"].to_bool());
    EXPECT_TRUE(ctx->needs_input_grad(0));
    Tensor g = grads[0] * 2;
    if (grads[1].defined()) g = g + grads[1] * 3;
    EXPECT_EQ(grads[2].defined(), ctx->saved_data.count("materialized") > 0);
    return {g, Tensor()};
  }
};

TEST(CustomFunction, NonDifferentiableOutputsAndMaterializedGrads) {
  Tensor x = leaf({1, 5});
  variable_list out = TwoOutputs::apply(x, true);
  EXPECT_TRUE(requires_grad(out[0]));
  EXPECT_FALSE(requires_grad(out[2]));
  std::dynamic_pointer_cast<FunctionNode>(grad_fn(out[0]))->ctx.saved_data["materialized"] = true;
  backward({out[0].sum()});
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{2, 2}));
  variable_list out2 = TwoOutputs::apply(x, false);
  backward({out2[0].sum()});  // grads[1] and grads[2] are undefined
  EXPECT_EQ(vals(grad(x)), (std::vector<double>{4, 4}));
}

// ------------------------------------------------------------------------------------------------ gradcheck
struct WrongGrad : Function<WrongGrad> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 3}; }
};
// Right first derivative (3x^2), wrong second: the backward is built from x.detach().
struct Cube : Function<Cube> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0].detach();
    return {grads[0] * x * x * 3};
  }
};

TEST(Gradcheck, PassesForOpsAndFindsWrongGradients) {
  Tensor x = leaf({0.5, -1.25, 2.0});
  Tensor w = leaf({1.5, 0.25, -0.75});
  auto f = [](const variable_list& in) { return variable_list{(in[0] * in[1]).sin() + in[0].exp()}; };
  EXPECT_TRUE(gradcheck(f, {x, w}));
  EXPECT_TRUE(gradgradcheck(f, {x, w}));
  GradcheckResult r = gradcheck([](const variable_list& in) { return variable_list{WrongGrad::apply(in[0])}; }, {x});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "Jacobian mismatch for output 0 with respect to input 0"));
  auto cube = [](const variable_list& in) { return variable_list{Cube::apply(in[0])}; };
  EXPECT_TRUE(gradcheck(cube, {x}));
  EXPECT_FALSE(gradgradcheck(cube, {x}).ok);
  // An input element of a non-contiguous (transposed) input is perturbed in place through an alias.
  Tensor m = make_tensor<double>({1, 2, 3, 4, 5, 6}, {2, 3}).t();
  set_requires_grad(m, true);
  EXPECT_TRUE(gradcheck([](const variable_list& in) { return variable_list{in[0].exp().sum(0)}; }, {m}));
  EXPECT_EQ(m._version(), 0u);
}

TEST(Gradcheck, NeedsAnInputThatRequiresGrad) {
  EMBER_EXPECT_ERROR(gradcheck([](const variable_list& in) { return in; }, {make_tensor<double>({1})}), Value,
                     "gradcheck expects at least one input tensor to require gradient");
}

// ---------------------------------------------------------------------------------------------- anomaly
struct NanGrad : Function<NanGrad> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0] * std::numeric_limits<double>::quiet_NaN()};
  }
};

TEST(Anomaly, NanInBackwardRaisesNamingTheNode) {
  Tensor x = leaf({1});
  {
    DetectAnomalyGuard guard;
    EXPECT_TRUE(AnomalyMode::is_enabled());
    Tensor y = NanGrad::apply(x);
    EXPECT_FALSE(grad_fn(y)->anomaly_trace.empty());
    EMBER_EXPECT_ERROR(backward({y.sum()}), Runtime, "returned nan values in its 0th output.");
    Tensor z = x.sqrt() * 0 + x * 0;  // not a NaN: fine
    backward({z.sum()});
    Tensor s = (x * 0).sqrt();  // SqrtBackward0 gives inf at 0, which MulBackward0 multiplies by 0
    EMBER_EXPECT_ERROR(backward({s.sum()}), Runtime, "Function 'MulBackward0' returned nan values in its 0th output.");
  }
  EXPECT_FALSE(AnomalyMode::is_enabled());
  Tensor y = NanGrad::apply(x);
  EXPECT_TRUE(grad_fn(y)->anomaly_trace.empty());
  backward({y.sum()});  // off: the NaN goes through
  EXPECT_TRUE(std::isnan(vals(grad(x))[0]));
  {
    DetectAnomalyGuard guard(true, /*check_nan=*/false);
    backward({NanGrad::apply(x).sum()});
  }
}

}  // namespace
