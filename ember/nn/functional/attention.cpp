// F::multi_head_attention_forward, op for op as python/ember/nn/_functional_attention.py's
// multi_head_attention_forward (see Note [attention masks] there), so C++, Python and traced graphs compute
// the same values.
#include "ember/nn/functional/attention.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ember/nn/functional/detail.h"
#include "ember/ops/Functions.h"
#include "ember/ops/Operators.h"

namespace ember::nn::functional {

namespace {

constexpr const char* kOp = "multi_head_attention_forward";

std::string shape(IntArrayRef sizes) { return fmt::format("[{}]", fmt::join(sizes, ", ")); }

bool same_sizes(const Tensor& t, std::initializer_list<int64_t> want) { return t.sizes().equals(IntArrayRef(want)); }

Tensor lin(const Tensor& x, const Tensor& w, const Tensor& b) {
  return ember::linear(x, w, detail::optional_tensor(b));
}

// True for batched (3-D) input, false for unbatched (2-D); an error naming the mismatch otherwise.
bool check_ranks(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                 const Tensor& attn_mask, int64_t num_heads) {
  const int64_t d = query.dim();
  EMBER_CHECK(d == 2 || d == 3, "{}: query should be unbatched 2D or batched 3D tensor but received {}-D query "
              "tensor of shape {}", kOp, d, shape(query.sizes()));
  const char* kind = d == 3 ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK(key.dim() == d && value.dim() == d, "{}: For {} `query`, expected `key` and `value` to be {}-D but "
              "found {}-D and {}-D tensors respectively", kOp, kind, d, key.dim(), value.dim());
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == d - 1, "{}: For {} `query`, expected "
              "`key_padding_mask` to be undefined or {}-D but found {}-D tensor of shape {} instead", kOp, kind,
              d - 1, key_padding_mask.dim(), shape(key_padding_mask.sizes()));
  if (attn_mask.defined()) {
    EMBER_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, "{}: For {} `query`, expected `attn_mask` to be "
                "undefined, 2-D or 3-D but found {}-D tensor instead", kOp, kind, attn_mask.dim());
    if (d == 2 && attn_mask.dim() == 3) {
      EMBER_CHECK(same_sizes(attn_mask, {num_heads, query.size(0), key.size(0)}), "{}: Expected `attn_mask` "
                  "shape to be [{}, {}, {}] (num_heads, L, S) but got {}", kOp, num_heads, query.size(0),
                  key.size(0), shape(attn_mask.sizes()));
    }
  }
  return d == 3;
}

// q, k, v projected by the rows [0, E), [E, 2E), [2E, 3E) of the packed (3E, E) weight; self-attention
// (q is k is v) and encoder-decoder attention (k is v) share one matrix product, as Python's.
std::vector<Tensor> in_projection_packed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& w,
                                         const Tensor& b) {
  const int64_t E = q.size(-1);
  EMBER_CHECK(same_sizes(w, {3 * E, E}), "{}: expecting in_proj_weight shape of [{}, {}], but got {}", kOp, 3 * E,
              E, shape(w.sizes()));
  EMBER_CHECK(!b.defined() || same_sizes(b, {3 * E}), "{}: expecting in_proj_bias shape of [{}], but got {}", kOp,
              3 * E, shape(b.sizes()));
  if (k.is_same(v)) {
    if (q.is_same(k)) return lin(q, w, b).chunk(3, -1);
    std::vector<Tensor> ws = w.split(IntArrayRef({E, 2 * E}));
    std::vector<Tensor> bs = b.defined() ? b.split(IntArrayRef({E, 2 * E})) : std::vector<Tensor>(2);
    std::vector<Tensor> kv = lin(k, ws[1], bs[1]).chunk(2, -1);
    return {lin(q, ws[0], bs[0]), kv[0], kv[1]};
  }
  std::vector<Tensor> ws = w.chunk(3);
  std::vector<Tensor> bs = b.defined() ? b.chunk(3) : std::vector<Tensor>(3);
  return {lin(q, ws[0], bs[0]), lin(k, ws[1], bs[1]), lin(v, ws[2], bs[2])};
}

// q, k, v projected by separate weights (E, E), (E, E_k), (E, E_v) and the chunks of in_proj_bias (3E).
std::vector<Tensor> in_projection(const Tensor& q, const Tensor& k, const Tensor& v,
                                  const MultiheadAttentionForwardFuncOptions& o) {
  const int64_t Eq = q.size(-1), Ek = k.size(-1), Ev = v.size(-1);
  const Tensor* ws[3] = {&o.q_proj_weight(), &o.k_proj_weight(), &o.v_proj_weight()};
  const char* names[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  const int64_t in[3] = {Eq, Ek, Ev};
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(ws[i]->defined(), "{}: use_separate_proj_weight is true but {} is undefined", kOp, names[i]);
    EMBER_CHECK(same_sizes(*ws[i], {Eq, in[i]}), "{}: expecting {} shape of [{}, {}], but got {}", kOp, names[i],
                Eq, in[i], shape(ws[i]->sizes()));
  }
  const Tensor& b = o.in_proj_bias();
  EMBER_CHECK(!b.defined() || same_sizes(b, {3 * Eq}), "{}: expecting in_proj_bias shape of [{}], but got {}", kOp,
              3 * Eq, shape(b.sizes()));
  std::vector<Tensor> bs = b.defined() ? b.chunk(3) : std::vector<Tensor>(3);
  return {lin(q, *ws[0], bs[0]), lin(k, *ws[1], bs[1]), lin(v, *ws[2], bs[2])};
}

// mask with one more entry at the end of its last dim: 0 / false, which masks nothing.
Tensor pad_last(const Tensor& mask) { return ember::pad(mask, {0, 1}, "constant", std::nullopt); }

// attn_mask as bool or floating (1 or N * num_heads, L, S).
Tensor canonical_attn_mask(Tensor mask, int64_t bsz, int64_t num_heads, int64_t tgt_len, int64_t src_len) {
  if (mask.dtype() == kUInt8) {
    EMBER_WARN("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
    mask = mask.to(kBool);
  }
  EMBER_CHECK(mask.is_floating_point() || mask.dtype() == kBool, "{}: Only float, byte, and bool types are "
              "supported for attn_mask, not {}", kOp, mask.dtype());
  if (mask.dim() == 2) {
    EMBER_CHECK(same_sizes(mask, {tgt_len, src_len}), "{}: The shape of the 2D attn_mask is {}, but should be "
                "[{}, {}] (L, S).", kOp, shape(mask.sizes()), tgt_len, src_len);
    return mask.unsqueeze(0);
  }
  EMBER_CHECK(same_sizes(mask, {bsz * num_heads, tgt_len, src_len}), "{}: The shape of the 3D attn_mask is {}, but "
              "should be [{}, {}, {}] (N * num_heads, L, S).", kOp, shape(mask.sizes()), bsz * num_heads, tgt_len,
              src_len);
  return mask;
}

// A bool mask (true: masked) as the float mask of dtype that adds -inf there and 0 elsewhere.
Tensor additive(const Tensor& mask, DType dtype) {
  return ember::zeros(mask.sizes(), dtype).masked_fill_(mask, -std::numeric_limits<double>::infinity());
}

// (length, N, num_heads * head_dim) -> (N * num_heads, length, head_dim).
Tensor heads_first(const Tensor& x, int64_t length, int64_t bsz, int64_t num_heads, int64_t head_dim) {
  return x.contiguous().view({length, bsz * num_heads, head_dim}).transpose(0, 1);
}

Tensor static_kv(const Tensor& t, const char* name, int64_t bsz, int64_t num_heads, int64_t head_dim) {
  EMBER_CHECK(t.dim() == 3 && t.size(0) == bsz * num_heads && t.size(2) == head_dim, "{}: expecting {} of shape "
              "[{}, S, {}] (N * num_heads, S, head_dim), but got {}", kOp, name, bsz * num_heads, head_dim,
              shape(t.sizes()));
  return t;
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                        const Tensor& value_in,
                                                        const MultiheadAttentionForwardFuncOptions& o) {
  const int64_t num_heads = o.num_heads();
  Tensor key_padding_mask = o.key_padding_mask();
  const bool batched = check_ranks(query_in, key_in, value_in, key_padding_mask, o.attn_mask(), num_heads);
  Tensor query = query_in, key = key_in, value = value_in;
  if (!batched) {
    // Three new tensors, as Python's: unbatched input takes the unshared projections.
    query = query_in.unsqueeze(1);
    key = key_in.unsqueeze(1);
    value = value_in.unsqueeze(1);
    if (key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dtype() == kBool ||
              key_padding_mask.is_floating_point(), "{}: only bool and floating types of key_padding_mask are "
              "supported, got {}", kOp, key_padding_mask.dtype());
  EMBER_CHECK(embed_dim == o.embed_dim_to_check(), "{}: was expecting embedding dimension of {}, but got {} (query "
              "of shape {})", kOp, o.embed_dim_to_check(), embed_dim, shape(query_in.sizes()));
  EMBER_CHECK(num_heads > 0 && embed_dim % num_heads == 0, "{}: embed_dim {} not divisible by num_heads {}", kOp,
              embed_dim, num_heads);
  const int64_t head_dim = embed_dim / num_heads;
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), "{}: key's sequence and batch dims "
                "of {} do not match value's {}", kOp, shape(key_in.sizes()), shape(value_in.sizes()));
  } else {
    EMBER_CHECK(key.sizes().equals(value.sizes()), "{}: key shape {} does not match value shape {}", kOp,
                shape(key_in.sizes()), shape(value_in.sizes()));
  }
  EMBER_CHECK(key.size(1) == bsz, "{}: query's batch size {} does not match key's {} (query {}, key {})", kOp, bsz,
              key.size(1), shape(query_in.sizes()), shape(key_in.sizes()));

  // input projections
  std::vector<Tensor> qkv;
  if (o.use_separate_proj_weight()) {
    qkv = in_projection(query, key, value, o);
  } else {
    EMBER_CHECK(o.in_proj_weight().defined(), "{}: use_separate_proj_weight is false but in_proj_weight is "
                "undefined", kOp);
    qkv = in_projection_packed(query, key, value, o.in_proj_weight(), o.in_proj_bias());
  }
  Tensor q = qkv[0], k = qkv[1], v = qkv[2];

  Tensor attn_mask = o.attn_mask();
  if (attn_mask.defined()) attn_mask = canonical_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len);

  // one more key and value from bias_k / bias_v
  EMBER_CHECK(o.bias_k().defined() == o.bias_v().defined(), "{}: bias_k and bias_v must both be given or both be "
              "undefined", kOp);
  if (o.bias_k().defined()) {
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(), "{}: bias cannot be added to static key or "
                "value.", kOp);
    k = ember::cat({k, o.bias_k().repeat({1, bsz, 1})});
    v = ember::cat({v, o.bias_v().repeat({1, bsz, 1})});
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_last(key_padding_mask);
  }

  // (length, N, E) -> (N * num_heads, length, head_dim)
  q = heads_first(q, tgt_len, bsz, num_heads, head_dim);
  k = o.static_k().defined() ? static_kv(o.static_k(), "static_k", bsz, num_heads, head_dim)
                             : heads_first(k, k.size(0), bsz, num_heads, head_dim);
  v = o.static_v().defined() ? static_kv(o.static_v(), "static_v", bsz, num_heads, head_dim)
                             : heads_first(v, v.size(0), bsz, num_heads, head_dim);

  if (o.add_zero_attn()) {
    Tensor zeros = ember::zeros({bsz * num_heads, 1, head_dim}, k.dtype());
    k = ember::cat({k, zeros}, 1);
    v = ember::cat({v, zeros.to(v.dtype())}, 1);
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_last(key_padding_mask);
  }
  src_len = k.size(1);

  // one additive mask (Note [attention masks] in python/ember/nn/_functional_attention.py)
  if (key_padding_mask.defined()) {
    EMBER_CHECK(same_sizes(key_padding_mask, {bsz, src_len}), "{}: expecting key_padding_mask shape of [{}, {}] "
                "(N, S), but got {}", kOp, bsz, src_len, shape(key_padding_mask.sizes()));
    key_padding_mask = key_padding_mask.view({bsz, 1, 1, src_len})
                           .expand({-1, num_heads, -1, -1})
                           .reshape({bsz * num_heads, 1, src_len});
    if (!attn_mask.defined()) {
      attn_mask = key_padding_mask;
    } else if (key_padding_mask.dtype() == kBool) {
      attn_mask = attn_mask.dtype() == kBool
                      ? attn_mask.logical_or(key_padding_mask)
                      : attn_mask.masked_fill(key_padding_mask, -std::numeric_limits<double>::infinity());
    } else {
      if (attn_mask.dtype() == kBool) attn_mask = additive(attn_mask, q.dtype());
      attn_mask = attn_mask + key_padding_mask;
    }
  }
  if (attn_mask.defined() && attn_mask.dtype() == kBool) attn_mask = additive(attn_mask, q.dtype());

  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  // attention: (N * num_heads, L, S) weights, (N * num_heads, L, head_dim) output
  Tensor q_scaled = q / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor weights = attn_mask.defined() ? ember::baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
                                       : ember::bmm(q_scaled, k.transpose(-2, -1));
  weights = weights.softmax(-1);
  if (dropout_p > 0.0) weights = ember::dropout(weights, dropout_p, true);
  Tensor out = ember::bmm(weights, v);
  out = out.transpose(0, 1).contiguous().view({tgt_len * bsz, embed_dim});
  out = lin(out, o.out_proj_weight(), o.out_proj_bias());
  out = out.view({tgt_len, bsz, out.size(1)});

  if (!o.need_weights()) return {batched ? out : out.squeeze(1), Tensor()};
  weights = weights.view({bsz, num_heads, tgt_len, src_len});
  if (o.average_attn_weights()) weights = weights.sum(IntArrayRef({1})) / static_cast<double>(num_heads);
  if (!batched) {
    out = out.squeeze(1);
    weights = weights.squeeze(0);
  }
  return {out, weights};
}

}  // namespace ember::nn::functional
