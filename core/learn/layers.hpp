// learn/layers.hpp — layers of the small models, each an explicit forward/backward pair.
//
// In the manner of llm.c's train_gpt2.c: plain row-major double buffers, shapes first in each
// comment (N = rows, e.g. B·T positions), the backward reads the forward's saved activations and
// ACCUMULATES (+=) into gradient buffers, which the caller zeroes once per step. Weights are
// stored as PyTorch stores them, out × in (nn.Linear.weight), so y = x·Wᵀ + b.
//
// Determinism: every sum runs in a fixed order (over the reduced index, ascending), with
// attn::det's exp/tanh/sigmoid/sin/cos and no fused multiply-add (the core is compiled with
// -ffp-contract=off), so the same inputs give the same bits natively and in wasm. Loops may be
// vectorised only across independent outputs, which does not change any sum's order.
//
// These functions check nothing (they are the inner loops); the models validate shapes and
// tokens before calling them.
#pragma once

#include <cstdint>
#include <vector>

namespace attn::learn {

// ---------------------------------------------------------------- embedding (nn.Embedding)
/// out[N×C] = table[tokens[n]] (table V×C). Backward: dtable[tokens[n]] += dout[n].
void embedding_forward(double* out, const int* tokens, const double* table, int n, int c);
void embedding_backward(double* dtable, const double* dout, const int* tokens, int n, int c);

// ---------------------------------------------------------------- linear (nn.Linear)
/// out[N×OC] = inp[N×IC]·weightᵀ + bias; weight OC×IC (torch layout), bias OC or nullptr.
/// Each output is bias (or 0) plus the products in ascending k.
void linear_forward(double* out, const double* inp, const double* weight, const double* bias, int n, int ic,
                    int oc);
/// weightᵀ (IC×OC) of a weight OC×IC, for linear_forward_t: a caller that applies one weight to
/// many small batches (a recurrence's steps) transposes it once.
void transpose_weight(double* wt, const double* weight, int ic, int oc);
/// linear_forward with the weight given transposed (wt IC×OC, transpose_weight): the same sums,
/// so the same bits, for any N.
void linear_forward_t(double* out, const double* inp, const double* wt, const double* bias, int n, int ic, int oc);
/// dinp[N×IC] += dout·weight (skipped if dinp is nullptr); dweight[OC×IC] += doutᵀ·inp;
/// dbias[OC] += Σ_n dout (skipped if nullptr).
void linear_backward(double* dinp, double* dweight, double* dbias, const double* dout, const double* inp,
                     const double* weight, int n, int ic, int oc);

// ---------------------------------------------------------------- activations and residual add
/// out[N] = max(0, inp). Backward: dinp += dout where inp > 0 (the kink at 0 gets gradient 0, as torch).
void relu_forward(double* out, const double* inp, int n);
void relu_backward(double* dinp, const double* dout, const double* inp, int n);
/// GELU, exact (Hendrycks & Gimpel 2016; torch's nn.GELU(), nanoGPT): out[N] = x·Φ(x),
/// Φ(x) = (1 + erf(x/√2))/2 (attn::det::erf). Backward: dinp += dout·(Φ(x) + x·φ(x)), φ(x) = e^{−x²/2}/√(2π).
void gelu_forward(double* out, const double* inp, int n);
void gelu_backward(double* dinp, const double* dout, const double* inp, int n);
/// GELU's tanh approximation, GPT-2's "gelu_new" (transformers' NewGELUActivation):
/// out[N] = 0.5·x·(1 + tanh(u)), u = sqrt(2/π)·(x + 0.044715·x³). Backward: dinp += dout·
/// (0.5·(1 + t) + 0.5·x·(1 − t²)·sqrt(2/π)·(1 + 3·0.044715·x²)), t = tanh(u).
void gelu_new_forward(double* out, const double* inp, int n);
void gelu_new_backward(double* dinp, const double* dout, const double* inp, int n);
/// x[N] += y. Backward: the residual stream's gradient flows to both: dy += dx (dx unchanged).
void residual_forward(double* x, const double* y, int n);
void residual_backward(double* dy, const double* dx, int n);

// ---------------------------------------------------------------- LayerNorm (nn.LayerNorm, eps 1e-5 unless given)
/// Ba, Kiros & Hinton 2016: out[N×C] = (x − mean)·rstd·weight + bias, rstd = 1/sqrt(var + eps) with the
/// biased variance (divide by C, as torch). Saves mean[N] and rstd[N].
void layernorm_forward(double* out, double* mean, double* rstd, const double* inp, const double* weight,
                       const double* bias, int n, int c, double eps = 1e-5);
void layernorm_backward(double* dinp, double* dweight, double* dbias, const double* dout, const double* inp,
                        const double* weight, const double* mean, const double* rstd, int n, int c);

// ---------------------------------------------------------------- rotary positions (RoPE)
/// cos/sin of m·θ_i for positions m = 0..T−1 and pairs i = 0..D/2−1, θ_i = base^(−2i/D)
/// (Su et al. 2021, eq. 34), computed exactly as attn::apply_rope does (same bits).
struct RopeTable {
  int t = 0, d = 0;
  std::vector<double> cos, sin;  ///< T × (D/2)
};
RopeTable rope_table(int t, int d, double base = 10000.0);
/// Rotates, in place, each pair (2i, 2i+1) of rows x[m·stride .. + D) by the angle (first + m)·θ_i,
/// m = 0..t−1 (first > 0: rows that continue a sequence, as a K/V-cached step does; first + t must
/// not exceed table.t). Backward: the rotation is orthogonal, so dx is rotated by −m·θ_i, in place.
void rope_forward(double* x, const RopeTable& table, int t, int stride, int first = 0);
void rope_backward(double* dx, const RopeTable& table, int t, int stride);

// ---------------------------------------------------------------- scaled dot-product attention
/// One head: q Tq×d_k, k Tk×d_k, v Tk×d_v, each row-strided (a head's columns inside a wider buffer);
/// out Tq×d_v (strided), weights Tq×Tk (dense, saved for the backward).
struct AttentionShape {
  int tq = 0, tk = 0, dk = 0, dv = 0;
  int q_stride = 0, k_stride = 0, v_stride = 0, out_stride = 0;
  double scale = 1.0;  ///< scores = scale · q·k (Vaswani et al. 2017, eq. 1: 1/sqrt(d_k))
};
/// weights = softmax over the allowed keys of scale·q·kᵀ, out = weights·v. `allowed` is a Tq×Tk
/// allowed mask (1 = this query may attend to this key; nullptr = every key). A masked key is left
/// out of the max, the normaliser and the sum (weight exactly 0); a row with no allowed key gets
/// zero weights and a zero output (the "zero" empty-row policy). Returns nothing; out is overwritten.
void attention_forward(double* out, double* weights, const double* q, const double* k, const double* v,
                       const unsigned char* allowed, const AttentionShape& s);
/// dq, dk, dv (same strides as q, k, v) += the gradients for dout (strided like out). Softmax
/// backward ds_ij = w_ij (dw_ij − Σ_j' w_ij' dw_ij'): a masked key (w = 0) and an empty row get
/// exactly zero gradient.
void attention_backward(double* dq, double* dk, double* dv, const double* dout, const double* weights,
                        const double* q, const double* k, const double* v, const AttentionShape& s);

// ---------------------------------------------------------------- GRU cell (nn.GRUCell)
/// PyTorch's gate order r, z, n (Cho et al. 2014, with b_hn inside the reset product):
///   r = σ(W_ir x + b_ir + W_hr h + b_hr), z = σ(W_iz x + b_iz + W_hz h + b_hz),
///   n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)), h' = (h − n) ⊙ z + n.
/// x N×I, h N×H, w_ih 3H×I, w_hh 3H×H, b_ih 3H, b_hh 3H → h_out N×H.
/// Saves gates N×3H (r, z, n after their nonlinearities) and hn N×H (W_hn h + b_hn).
void gru_cell_forward(double* h_out, double* gates, double* hn, const double* x, const double* h,
                      const double* w_ih, const double* w_hh, const double* b_ih, const double* b_hh, int n,
                      int in, int hid);
/// gru_cell_forward with both weights given transposed (transpose_weight: w_ih_t I×3H, w_hh_t
/// H×3H), for a recurrence that applies them at every step: the same bits.
void gru_cell_forward_t(double* h_out, double* gates, double* hn, const double* x, const double* h,
                        const double* w_ih_t, const double* w_hh_t, const double* b_ih, const double* b_hh, int n,
                        int in, int hid);
/// dx (nullptr to skip), dh += gradients for dh_out; dw_ih, dw_hh, db_ih, db_hh += theirs.
void gru_cell_backward(double* dx, double* dh, double* dw_ih, double* dw_hh, double* db_ih, double* db_hh,
                       const double* dh_out, const double* gates, const double* hn, const double* x,
                       const double* h, const double* w_ih, const double* w_hh, int n, int in, int hid);

// ---------------------------------------------------------------- GRU over a sequence (nn.GRU, one layer)
/// One sequence of a batch read by gru_sequences_forward / gru_sequences_backward: its length T and
/// its buffers, laid out as gru_sequence_forward's (x T×I, states T×H, gates T×3H, hn T×H; for the
/// backward pass dstates T×H, consumed, and dx T×I accumulated or nullptr).
struct GruSequence {
  int len = 0;
  const double* x = nullptr;
  double* states = nullptr;
  double* gates = nullptr;
  double* hn = nullptr;
  double* dstates = nullptr;
  double* dx = nullptr;
};

/// gru_sequence_forward for `count` sequences of their own lengths (nn.GRU over a padded batch read
/// as pack_padded_sequence does: no step past a sequence's end). Each sequence's states, gates and
/// hn are overwritten (sequences must not share them). Step s runs W_hh h_{s−1} for every
/// sequence still reading as one product, so each sequence gets the bits it gets alone.
void gru_sequences_forward(const GruSequence* seqs, int count, const double* w_ih, const double* w_hh,
                           const double* b_ih, const double* b_hh, int in, int hid);
/// gru_sequence_backward for `count` sequences: each sequence's dstates is modified in place (row
/// s−1 receives the recurrence's gradient from step s; read it as consumed) and its dx (if any)
/// accumulates; sequences must not share these buffers. The weight gradients add the sequences'
/// terms in the order of the sequences, each sequence's last step first: the order of calling
/// gru_sequence_backward on each in turn.
void gru_sequences_backward(const GruSequence* seqs, int count, double* dw_ih, double* dw_hh, double* db_ih,
                            double* db_hh, const double* w_ih, const double* w_hh, int in, int hid);

/// x T×I → states T×H with h₀ = 0 (states[t] is the output at t). Saves gates T×3H and hn T×H.
void gru_sequence_forward(double* states, double* gates, double* hn, const double* x, const double* w_ih,
                          const double* w_hh, const double* b_ih, const double* b_hh, int t, int in, int hid);
/// dstates T×H: the gradient reaching each output (it is consumed; the buffer is overwritten);
/// dx T×I (nullptr to skip) and the weight gradients accumulate.
void gru_sequence_backward(double* dx, double* dw_ih, double* dw_hh, double* db_ih, double* db_hh,
                           double* dstates, const double* states, const double* gates, const double* hn,
                           const double* x, const double* w_ih, const double* w_hh, int t, int in, int hid);

// ---------------------------------------------------------------- Bahdanau additive attention
/// Bahdanau, Cho & Bengio 2015, eq. 6 and appendix A.1.2: e_j = v·tanh(W_s s + W_h h_j + b) over the
/// valid source positions j < len, a = softmax(e), context = Σ_j a_j h_j.
/// s H_s (decoder state), hs S×H (encoder states), whh S×A = W_h h_j + b (precomputed once per
/// sequence with linear_forward), w_s A×H_s, v A (attn.v.weight, 1×A).
/// → context H, weights S (0 beyond len), saves tanh_out len×A.
void additive_forward(double* context, double* weights, double* tanh_out, const double* s, const double* hs,
                      const double* whh, const double* w_s, const double* v, int len, int hs_dim, int s_dim,
                      int a);
/// additive_forward with ws = W_s s (A) given: a batch computes W_s s for all its rows as one
/// product (linear_forward), which gives each row the bits of the one-row call. Writes context,
/// weights (S, 0 beyond len) and only the first len rows of tanh_out.
void additive_forward_ws(double* context, double* weights, double* tanh_out, const double* ws, const double* hs,
                         const double* whh, const double* v, int len, int hs_dim, int a);
/// ds (s_dim), dhs (S×H), dwhh (S×A), dw_s, dv += the gradients for dcontext.
void additive_backward(double* ds, double* dhs, double* dwhh, double* dw_s, double* dv, const double* dcontext,
                       const double* weights, const double* tanh_out, const double* s, const double* hs,
                       const double* w_s, const double* v, int len, int hs_dim, int s_dim, int a);
/// additive_backward without W_s: dws (A) += ∂loss/∂(W_s s), so that a batch takes ds += dws W_s
/// and dW_s += Σ_rows dws ⊗ s as one product over its rows (linear_backward; rows in ascending
/// order add dW_s's terms in the order of one additive_backward per row).
void additive_backward_ws(double* dws, double* dhs, double* dwhh, double* dv, const double* dcontext,
                          const double* weights, const double* tanh_out, const double* hs, const double* v, int len,
                          int hs_dim, int a);

// ---------------------------------------------------------------- softmax cross-entropy
inline constexpr int kIgnoreIndex = -100;  ///< nn.CrossEntropyLoss's default ignore_index
/// logits N×V, targets N (kIgnoreIndex = not counted) → probs N×V (softmax, saved; rows of ignored
/// targets too) and the mean of −log p[target] over the counted targets (PyTorch's reduction
/// "mean" with ignore_index). *counted receives their number; with none counted the loss is 0.
double cross_entropy_forward(double* probs, const double* logits, const int* targets, int n, int v,
                             int* counted);
/// dlogits N×V += (p − onehot(target)) / counted for counted rows (ignored rows get nothing).
void cross_entropy_backward(double* dlogits, const double* probs, const int* targets, int n, int v, int counted);

// ---------------------------------------------------------------- float32 forward (layers_f32.cpp)
// The forward layers above over float buffers, for full-size models held in float32 (GPT-2 small
// and up); the same contracts, shapes and orders. The decoder's forward is one template over the
// element type and calls these by overload. Sums over k ascending in float; LayerNorm's statistics,
// the softmax's exponentials and normaliser and the GELUs in double from the float inputs, rounded
// once. No backward: training stays in float64.
void embedding_forward(float* out, const int* tokens, const float* table, int n, int c);
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc);
void relu_forward(float* out, const float* inp, int n);
void gelu_forward(float* out, const float* inp, int n);
void gelu_new_forward(float* out, const float* inp, int n);
void residual_forward(float* x, const float* y, int n);
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight, const float* bias,
                       int n, int c, double eps = 1e-5);
void rope_forward(float* x, const RopeTable& table, int t, int stride, int first = 0);
void attention_forward(float* out, float* weights, const float* q, const float* k, const float* v,
                       const unsigned char* allowed, const AttentionShape& s);
double cross_entropy_forward(float* probs, const float* logits, const int* targets, int n, int v, int* counted = nullptr);

}  // namespace attn::learn
