// MultiheadAttention, F::multi_head_attention_forward and the Transformer layers, stacks and model against
// PyTorch 1.13 (fixtures/attention.ember, written by fixtures/make_attention_fixtures.py): seeded initial values,
// state dict keys and printing; outputs with bool, float and key padding masks; attention weights averaged and
// per head; kdim/vdim, add_bias_kv, add_zero_attn, unbatched input; input and weight gradients; state dicts
// from PyTorch loaded by name; errors that name the shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestSupport.h"
#include "ember/nn/nn.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"
#include "layer_fixtures.h"

namespace ember::testing {
namespace {

using namespace ember::nn;
namespace F = ember::nn::functional;

constexpr const char* kFile = "attention.ember";

Tensor fx(const std::string& name) { return fixture_from(kFile, name); }

Tensor leaf(const std::string& name) { return fixture_leaf_from(kFile, name); }

// Seeded initial values, keys and printing as Python's; then the module built under another seed loads the
// recorded state dict by name (as one saved from Python would), so later outputs depend on it alone.
template <typename Holder>
void check_and_load(const std::string& name, Holder seeded, Holder& m) {
  expect_module_matches(kFile, name, *seeded);
  m->load_state_dict(fixture_state_dict(kFile, name, *m));
  m->eval();
}

TEST(MultiheadAttention, SelfAttentionWithBoolMask) {
  ember::manual_seed(300);
  MultiheadAttention seeded(8, 2);
  ember::manual_seed(1);
  MultiheadAttention m(8, 2);
  check_and_load("mha_self", seeded, m);
  Tensor x = leaf("mha_self.x");
  auto [out, weights] = m->forward(x, x, x, {}, true, fx("mha_self.attn_mask"));
  EXPECT_TRUE(close(out, fx("mha_self.out"), 1e-5, 1e-5));
  EXPECT_TRUE(close(weights, fx("mha_self.weights"), 1e-5, 1e-6));
  (out * out).sum().backward();
  EXPECT_TRUE(close(x.grad(), fx("mha_self.grad.x"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->in_proj_weight.grad(), fx("mha_self.grad.in_proj_weight"), 1e-4, 1e-5));
}

TEST(MultiheadAttention, CrossAttentionFloatMaskKeyPaddingPerHeadWeights) {
  ember::manual_seed(301);
  MultiheadAttention seeded(8, 2);
  MultiheadAttention m(8, 2);
  check_and_load("mha_cross", seeded, m);
  Tensor q = leaf("mha_cross.q"), kv = leaf("mha_cross.kv");
  auto [out, weights] = m->forward(q, kv, kv, fx("mha_cross.key_padding_mask"), true, fx("mha_cross.attn_mask"),
                                   /*average_attn_weights=*/false);
  EXPECT_TRUE(close(out, fx("mha_cross.out"), 1e-5, 1e-5));
  EXPECT_TRUE(close(weights, fx("mha_cross.weights"), 1e-5, 1e-6));
  EXPECT_EQ(weights.sizes(), IntArrayRef({2, 2, 4, 6}));
  (out * out).sum().backward();
  EXPECT_TRUE(close(q.grad(), fx("mha_cross.grad.q"), 1e-4, 1e-5));
  EXPECT_TRUE(close(kv.grad(), fx("mha_cross.grad.kv"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->out_proj->weight.grad(), fx("mha_cross.grad.out_proj.weight"), 1e-4, 1e-5));
}

TEST(MultiheadAttention, KdimVdimSeparateProjections) {
  auto options = MultiheadAttentionOptions(8, 4).kdim(5).vdim(3);
  ember::manual_seed(302);
  MultiheadAttention seeded(options);
  MultiheadAttention m(options);
  check_and_load("mha_kvdim", seeded, m);
  EXPECT_FALSE(m->_qkv_same_embed_dim);
  EXPECT_FALSE(m->in_proj_weight.defined());
  Tensor q = leaf("mha_kvdim.q"), k = leaf("mha_kvdim.k"), v = leaf("mha_kvdim.v");
  auto [out, weights] = m->forward(q, k, v, fx("mha_kvdim.key_padding_mask"), true, fx("mha_kvdim.attn_mask"));
  EXPECT_TRUE(close(out, fx("mha_kvdim.out"), 1e-5, 1e-5));
  EXPECT_TRUE(close(weights, fx("mha_kvdim.weights"), 1e-5, 1e-6));
  (out * out).sum().backward();
  for (const char* n : {"q", "k", "v"}) {
    Tensor g = std::string(n) == "q" ? q.grad() : std::string(n) == "k" ? k.grad() : v.grad();
    EXPECT_TRUE(close(g, fx(std::string("mha_kvdim.grad.") + n), 1e-4, 1e-5)) << n;
  }
  EXPECT_TRUE(close(m->k_proj_weight.grad(), fx("mha_kvdim.grad.k_proj_weight"), 1e-4, 1e-5));
}

TEST(MultiheadAttention, BiasKvAndZeroAttnWithoutWeights) {
  auto options = MultiheadAttentionOptions(6, 3).add_bias_kv(true).add_zero_attn(true);
  ember::manual_seed(303);
  MultiheadAttention seeded(options);
  MultiheadAttention m(options);
  check_and_load("mha_biaskv", seeded, m);
  Tensor q = leaf("mha_biaskv.q"), kv = leaf("mha_biaskv.kv");
  auto [out, weights] = m->forward(q, kv, kv, fx("mha_biaskv.key_padding_mask"), /*need_weights=*/false,
                                   fx("mha_biaskv.attn_mask"));
  EXPECT_FALSE(weights.defined());
  EXPECT_TRUE(close(out, fx("mha_biaskv.out"), 1e-5, 1e-5));
  out.sum().backward();
  EXPECT_TRUE(close(q.grad(), fx("mha_biaskv.grad.q"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->bias_k.grad(), fx("mha_biaskv.grad.bias_k"), 1e-4, 1e-5));
}

TEST(MultiheadAttention, UnbatchedWithoutBias) {
  auto options = MultiheadAttentionOptions(6, 3).bias(false);
  ember::manual_seed(304);
  MultiheadAttention seeded(options);
  MultiheadAttention m(options);
  check_and_load("mha_unbatched", seeded, m);
  Tensor q = leaf("mha_unbatched.q"), kv = leaf("mha_unbatched.kv");
  auto [out, weights] = m->forward(q, kv, kv, fx("mha_unbatched.key_padding_mask"), true, {}, false);
  EXPECT_TRUE(close(out, fx("mha_unbatched.out"), 1e-5, 1e-5));
  EXPECT_TRUE(close(weights, fx("mha_unbatched.weights"), 1e-5, 1e-6));
  (out * out).sum().backward();
  EXPECT_TRUE(close(q.grad(), fx("mha_unbatched.grad.q"), 1e-4, 1e-5));
  EXPECT_TRUE(close(m->in_proj_weight.grad(), fx("mha_unbatched.grad.in_proj_weight"), 1e-4, 1e-5));
}

TEST(MultiheadAttention, FunctionalFormEqualsModule) {
  ember::manual_seed(301);
  MultiheadAttention m(8, 2);
  m->eval();
  const Tensor q = fx("mha_cross.q"), kv = fx("mha_cross.kv");
  auto fo = F::MultiheadAttentionForwardFuncOptions(8, 2, m->in_proj_weight, m->in_proj_bias, {}, {}, false, 0.0,
                                                    m->out_proj->weight, m->out_proj->bias)
                .training(false)
                .key_padding_mask(fx("mha_cross.key_padding_mask"))
                .attn_mask(fx("mha_cross.attn_mask"));
  auto [out, weights] = F::multi_head_attention_forward(q, kv, kv, fo);
  EXPECT_TRUE(close(out, fx("mha_cross.out"), 1e-5, 1e-5));
  EXPECT_EQ(weights.sizes(), IntArrayRef({2, 4, 6}));
}

TEST(MultiheadAttention, BadArgumentsNameShapes) {
  EMBER_EXPECT_ERROR(MultiheadAttention(MultiheadAttentionOptions(10, 3)), Value,
                     "embed_dim must be divisible by num_heads, got embed_dim=10 and num_heads=3");
  MultiheadAttention m(8, 2);
  const Tensor x = ember::randn({5, 3, 8});
  EMBER_EXPECT_ERROR(m->forward(x, x, x, {}, true, ember::zeros({5, 4}, kBool)), Runtime,
                     "The shape of the 2D attn_mask is [5, 4], but should be [5, 5]");
  EMBER_EXPECT_ERROR(m->forward(x, x, x, ember::zeros({3, 4}, kBool)), Runtime,
                     "expecting key_padding_mask shape of [3, 5] (N, S), but got [3, 4]");
  EMBER_EXPECT_ERROR(m->forward(x, x, x, ember::zeros({3, 5}, kInt64)), Runtime,
                     "only bool and floating types of key_padding_mask");
  EMBER_EXPECT_ERROR(m->forward(ember::randn({5, 3, 6}), x, x), Runtime,
                     "was expecting embedding dimension of 8, but got 6");
}

// ---------------------------------------------------------------------------------------------- transformer

TEST(Transformer, EncoderLayerGeluWithMasks) {
  auto options = TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).activation(ember::kGELU);
  ember::manual_seed(310);
  TransformerEncoderLayer seeded(options);
  TransformerEncoderLayer m(options);
  check_and_load("enc_layer", seeded, m);
  Tensor x = leaf("enc_layer.x");
  Tensor out = m->forward(x, fx("enc_layer.mask"), fx("enc_layer.key_padding_mask"));
  EXPECT_TRUE(close(out, fx("enc_layer.out"), 1e-5, 1e-5));
  (out * out).sum().backward();
  EXPECT_TRUE(close(x.grad(), fx("enc_layer.grad.x"), 1e-4, 1e-4));
  EXPECT_TRUE(close(m->linear1->weight.grad(), fx("enc_layer.grad.linear1.weight"), 1e-4, 1e-4));
}

TEST(Transformer, EncoderLayerReluUnbatchedAndFunctionActivation) {
  auto options = TransformerEncoderLayerOptions(6, 3).dim_feedforward(12);
  ember::manual_seed(311);
  TransformerEncoderLayer seeded(options);
  TransformerEncoderLayer m(options);
  check_and_load("enc_layer_relu", seeded, m);
  EXPECT_TRUE(close(m->forward(fx("enc_layer_relu.x")), fx("enc_layer_relu.out"), 1e-5, 1e-5));
  // A function activation computing relu gives the same values.
  TransformerEncoderLayer f(TransformerEncoderLayerOptions(6, 3).dim_feedforward(12).activation(
      [](const Tensor& t) { return ember::relu(t); }));
  f->load_state_dict(m->state_dict());
  f->eval();
  EXPECT_TRUE(close(f->forward(fx("enc_layer_relu.x")), fx("enc_layer_relu.out"), 1e-5, 1e-5));
}

TEST(Transformer, DecoderLayerGeluWithMasks) {
  auto options = TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).activation(ember::kGELU);
  ember::manual_seed(312);
  TransformerDecoderLayer seeded(options);
  TransformerDecoderLayer m(options);
  check_and_load("dec_layer", seeded, m);
  Tensor tgt = leaf("dec_layer.tgt"), memory = leaf("dec_layer.memory");
  Tensor out = m->forward(tgt, memory, fx("dec_layer.tgt_mask"), {}, {}, fx("dec_layer.memory_key_padding_mask"));
  EXPECT_TRUE(close(out, fx("dec_layer.out"), 1e-5, 1e-5));
  (out * out).sum().backward();
  EXPECT_TRUE(close(tgt.grad(), fx("dec_layer.grad.tgt"), 1e-4, 1e-4));
  EXPECT_TRUE(close(memory.grad(), fx("dec_layer.grad.memory"), 1e-4, 1e-4));
  EXPECT_TRUE(close(m->multihead_attn->in_proj_weight.grad(), fx("dec_layer.grad.multihead_attn.in_proj_weight"),
                    1e-4, 1e-4));
}

TEST(Transformer, EncoderStackWithNorm) {
  auto make = [] {
    return TransformerEncoder(TransformerEncoderOptions(TransformerEncoderLayerOptions(8, 2).dim_feedforward(16), 2)
                                  .norm(AnyModule(LayerNorm(LayerNormOptions({8})))));
  };
  ember::manual_seed(313);
  TransformerEncoder seeded = make();
  TransformerEncoder m = make();
  check_and_load("encoder", seeded, m);
  EXPECT_EQ(m->layers->size(), 2u);
  EXPECT_TRUE(close(m->forward(fx("encoder.x")), fx("encoder.out"), 1e-5, 1e-5));
}

TEST(Transformer, WholeModelWithMasks) {
  auto options = TransformerOptions(8, 2, 2, 2).dim_feedforward(16).dropout(0.0);
  ember::manual_seed(314);
  Transformer seeded(options);
  Transformer m(options);
  check_and_load("transformer", seeded, m);
  Tensor src = leaf("transformer.src"), tgt = leaf("transformer.tgt");
  const Tensor mask = TransformerImpl::generate_square_subsequent_mask(5);
  EXPECT_TRUE(ember::equal(mask, fx("transformer.tgt_mask")));
  const Tensor padding = fx("transformer.src_key_padding_mask");
  Tensor out = m->forward(src, tgt, {}, mask, {}, padding, {}, padding);
  EXPECT_TRUE(close(out, fx("transformer.out"), 1e-5, 1e-5));
  (out * out).sum().backward();
  EXPECT_TRUE(close(src.grad(), fx("transformer.grad.src"), 1e-4, 1e-4));
  EXPECT_TRUE(close(tgt.grad(), fx("transformer.grad.tgt"), 1e-4, 1e-4));
  const Tensor w = m->named_parameters()["encoder.layers.0.linear1.weight"];
  EXPECT_TRUE(close(w.grad(), fx("transformer.grad.encoder.layers.0.linear1.weight"), 1e-4, 1e-4));
}

TEST(Transformer, CloneKeepsValuesAndBadArgumentsNameShapes) {
  ember::manual_seed(314);
  Transformer m(TransformerOptions(8, 2, 1, 1).dim_feedforward(16).dropout(0.0));
  auto copy = std::dynamic_pointer_cast<TransformerImpl>(m->clone());
  ASSERT_TRUE(copy);
  for (const auto& p : m->named_parameters()) {
    EXPECT_TRUE(close(copy->named_parameters()[p.key()], p.value(), 0, 0)) << p.key();
  }
  EMBER_EXPECT_ERROR(Transformer(TransformerOptions(10, 3)), Value,
                     "d_model (10) must be positive and divisible by nhead");
  EMBER_EXPECT_ERROR(m->forward(ember::randn({4, 2, 8}), ember::randn({3, 3, 8})), Runtime,
                     "the batch number of src and tgt must be equal, got src of shape [4, 2, 8] and tgt of shape "
                     "[3, 3, 8]");
  EMBER_EXPECT_ERROR(m->forward(ember::randn({4, 2, 6}), ember::randn({3, 2, 6})), Runtime,
                     "the feature number of src and tgt must be equal to d_model (8)");
  EMBER_EXPECT_ERROR(TransformerEncoderLayer(TransformerEncoderLayerOptions(8, 2).activation(ember::kTanh)), Value,
                     "activation should be ember::kReLU, ember::kGELU or a function");
}

}  // namespace
}  // namespace ember::testing
