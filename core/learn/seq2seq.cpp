#include "learn/seq2seq.hpp"

#include <algorithm>
#include <cmath>

#include "learn/layers.hpp"

namespace attn::learn {

namespace {
// The encoder in three parts, so that training runs the recurrences of a whole batch together:
// the embedded tokens and buffers of one source, its GRU sequences, then the annotations.
void encode_inputs(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, const int* source, int len,
                   Seq2SeqActivations::Encoded& e) {
  const int E = c.embed, H = c.hidden, C = c.context_dim();
  e.len = len;
  e.x.resize(static_cast<size_t>(len) * E);
  e.states.resize(static_cast<size_t>(len) * C);
  e.gates.resize(static_cast<size_t>(len) * 3 * H);
  e.hn.resize(static_cast<size_t>(len) * H);
  embedding_forward(e.x.data(), source, tensor_in(layout, P, "src_embed.weight"), len, E);
  if (c.bidirectional) {
    e.fstates.resize(static_cast<size_t>(len) * H);
    e.rx.resize(static_cast<size_t>(len) * E);
    e.rstates.resize(static_cast<size_t>(len) * H);
    e.rgates.resize(static_cast<size_t>(len) * 3 * H);
    e.rhn.resize(static_cast<size_t>(len) * H);
    for (int k = 0; k < len; ++k)
      std::copy_n(e.x.data() + static_cast<size_t>(len - 1 - k) * E, E, e.rx.data() + static_cast<size_t>(k) * E);
  } else {
    e.fstates.clear();
    e.rx.clear();
    e.rstates.clear();
    e.rgates.clear();
    e.rhn.clear();
  }
}

// The forward GRU's sequence (a forward encoder's states are the annotations; a bidirectional
// one's are their first half) and the reverse GRU's, which reads the tokens last to first.
GruSequence forward_sequence(const Seq2SeqConfig& c, Seq2SeqActivations::Encoded& e) {
  GruSequence q;
  q.len = e.len, q.x = e.x.data(), q.gates = e.gates.data(), q.hn = e.hn.data();
  q.states = c.bidirectional ? e.fstates.data() : e.states.data();
  return q;
}
GruSequence reverse_sequence(Seq2SeqActivations::Encoded& e) {
  GruSequence q;
  q.len = e.len, q.x = e.rx.data(), q.states = e.rstates.data(), q.gates = e.rgates.data(), q.hn = e.rhn.data();
  return q;
}

void run_encoders(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, const GruSequence* fw,
                  const GruSequence* bw, int count) {
  const int E = c.embed, H = c.hidden;
  gru_sequences_forward(fw, count, tensor_in(layout, P, "encoder.weight_ih_l0"),
                        tensor_in(layout, P, "encoder.weight_hh_l0"), tensor_in(layout, P, "encoder.bias_ih_l0"),
                        tensor_in(layout, P, "encoder.bias_hh_l0"), E, H);
  if (c.bidirectional)
    gru_sequences_forward(bw, count, tensor_in(layout, P, "encoder.weight_ih_l0_reverse"),
                          tensor_in(layout, P, "encoder.weight_hh_l0_reverse"),
                          tensor_in(layout, P, "encoder.bias_ih_l0_reverse"),
                          tensor_in(layout, P, "encoder.bias_hh_l0_reverse"), E, H);
}

void encode_outputs(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P,
                    Seq2SeqActivations::Encoded& e) {
  const int H = c.hidden, A = c.attn_dim, C = c.context_dim(), len = e.len;
  const double* fstates = c.bidirectional ? e.fstates.data() : e.states.data();
  e.s0.assign(fstates + static_cast<size_t>(len - 1) * H, fstates + static_cast<size_t>(len) * H);
  if (c.bidirectional) {
    for (int j = 0; j < len; ++j) {
      double* hj = e.states.data() + static_cast<size_t>(j) * C;
      std::copy_n(e.fstates.data() + static_cast<size_t>(j) * H, H, hj);
      std::copy_n(e.rstates.data() + static_cast<size_t>(len - 1 - j) * H, H, hj + H);
    }
    // [→h_last; ←h_0]; the decoder starts from ←h_0 (the reverse GRU's last state).
    e.summary = e.s0;
    e.s0.assign(e.rstates.end() - H, e.rstates.end());
    e.summary.insert(e.summary.end(), e.s0.begin(), e.s0.end());
  } else {
    e.summary = e.s0;
  }
  if (c.attention) {
    e.whh.resize(static_cast<size_t>(len) * A);
    linear_forward(e.whh.data(), e.states.data(), tensor_in(layout, P, "attn.w_h.weight"),
                   tensor_in(layout, P, "attn.w_h.bias"), len, C, A);
  } else {
    e.whh.clear();
  }
}
}  // namespace

void seq2seq_encode(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, const int* source, int len,
                    Seq2SeqActivations::Encoded& e) {
  encode_inputs(c, layout, P, source, len, e);
  const GruSequence fw = forward_sequence(c, e);
  const GruSequence bw = c.bidirectional ? reverse_sequence(e) : GruSequence{};
  run_encoders(c, layout, P, &fw, &bw, 1);
  encode_outputs(c, layout, P, e);
}

void seq2seq_attend(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, const double* states,
                    const double* whh, int len, const double* s_prev, double* context, double* weights,
                    double* tanh_out) {
  additive_forward(context, weights, tanh_out, s_prev, states, whh, tensor_in(layout, P, "attn.w_s.weight"),
                   tensor_in(layout, P, "attn.v.weight"), len, c.context_dim(), c.hidden, c.attn_dim);
}

namespace {
// The decoder cell's input rows [tgt_embed(y_{t−1}); c_t] (rows × (E + C)).
void cell_input(const Seq2SeqConfig& c, const double* tgt_embed, int rows, const int* previous, const double* context,
                double* cell_in) {
  const int E = c.embed, C = c.context_dim(), I = E + C;
  for (int b = 0; b < rows; ++b) {
    embedding_forward(cell_in + static_cast<size_t>(b) * I, previous + b, tgt_embed, 1, E);
    std::copy_n(context + static_cast<size_t>(b) * C, C, cell_in + static_cast<size_t>(b) * I + E);
  }
}
}  // namespace

void seq2seq_cell(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, int rows, const int* previous,
                  const double* context, const double* s_prev, double* cell_in, double* gates, double* hn,
                  double* s_next) {
  const int E = c.embed, H = c.hidden, C = c.context_dim(), I = E + C;
  cell_input(c, tensor_in(layout, P, "tgt_embed.weight"), rows, previous, context, cell_in);
  gru_cell_forward(s_next, gates, hn, cell_in, s_prev, tensor_in(layout, P, "decoder.weight_ih"),
                   tensor_in(layout, P, "decoder.weight_hh"), tensor_in(layout, P, "decoder.bias_ih"),
                   tensor_in(layout, P, "decoder.bias_hh"), rows, I, H);
}

void seq2seq_output(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P, int rows, const double* out_in,
                    double* logits) {
  linear_forward(logits, out_in, tensor_in(layout, P, "out.weight"), tensor_in(layout, P, "out.bias"), rows,
                 c.hidden + c.context_dim(), c.tgt_vocab);
}

namespace {
// The sequences decoder step t runs (DecoderRows), in batch order: all, or those with a counted
// target at t or later.
void decoder_rows(const Seq2SeqBatch& batch, DecoderRows which, std::vector<std::vector<int>>& rows) {
  const int B = batch.batch, U = batch.tgt_len;
  std::vector<int> end(static_cast<size_t>(B), U);  // one past the sequence's last counted target
  if (which == DecoderRows::valid)
    for (int b = 0; b < B; ++b) {
      int e = 0;
      for (int t = 0; t < U; ++t)
        if (batch.target_out[static_cast<size_t>(b) * U + t] != kIgnoreIndex) e = t + 1;
      end[static_cast<size_t>(b)] = e;
    }
  rows.resize(static_cast<size_t>(U));
  for (int t = 0; t < U; ++t) {
    rows[t].clear();
    for (int b = 0; b < B; ++b)
      if (t < end[static_cast<size_t>(b)]) rows[t].push_back(b);
  }
}

// dst row r = src row rows[r] (rows of `width` doubles): a step's rows out of a batch-wide array.
void gather_rows(double* dst, const double* src, const std::vector<int>& rows, int width) {
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy_n(src + static_cast<size_t>(rows[r]) * width, width, dst + r * width);
}
// dst row rows[r] = src row r: a step's rows back into a batch-wide array.
void scatter_rows(double* dst, const double* src, const std::vector<int>& rows, int width) {
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy_n(src + r * width, width, dst + static_cast<size_t>(rows[r]) * width);
}
}  // namespace

double seq2seq_forward(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P,
                       const Seq2SeqBatch& batch, Seq2SeqActivations& a, DecoderRows which) {
  const int B = batch.batch, S = batch.src_len, U = batch.tgt_len, E = c.embed, H = c.hidden, A = c.attn_dim;
  const int V = c.tgt_vocab, C = c.context_dim(), I = E + C, O = H + C;
  // encoder over each sequence's valid tokens, the recurrences of the batch step by step together
  a.enc.resize(static_cast<size_t>(B));  // reused: encode_inputs sizes every buffer it fills
  a.s0.assign(static_cast<size_t>(B) * H, 0.0);
  a.summary.assign(static_cast<size_t>(B) * C, 0.0);
  std::vector<GruSequence> fw(static_cast<size_t>(B)), bw(static_cast<size_t>(B));
  for (int b = 0; b < B; ++b) {
    Seq2SeqActivations::Encoded& e = a.enc[static_cast<size_t>(b)];
    encode_inputs(c, layout, P, batch.source.data() + static_cast<size_t>(b) * S,
                  batch.source_lengths[static_cast<size_t>(b)], e);
    fw[static_cast<size_t>(b)] = forward_sequence(c, e);
    if (c.bidirectional) bw[static_cast<size_t>(b)] = reverse_sequence(e);
  }
  run_encoders(c, layout, P, fw.data(), bw.data(), B);
  for (int b = 0; b < B; ++b) {
    Seq2SeqActivations::Encoded& e = a.enc[static_cast<size_t>(b)];
    encode_outputs(c, layout, P, e);
    std::copy(e.s0.begin(), e.s0.end(), a.s0.begin() + static_cast<std::ptrdiff_t>(b) * H);
    std::copy(e.summary.begin(), e.summary.end(), a.summary.begin() + static_cast<std::ptrdiff_t>(b) * C);
  }
  // decoder, the step's sequences together, one step at a time; s holds every sequence's state
  decoder_rows(batch, which, a.rows);
  a.s_prev.resize(static_cast<size_t>(U));
  a.cell_in.resize(static_cast<size_t>(U));
  a.gates.resize(static_cast<size_t>(U));
  a.hn.resize(static_cast<size_t>(U));
  a.context.resize(static_cast<size_t>(U));
  a.weights.resize(static_cast<size_t>(U));
  a.tanh_out.resize(static_cast<size_t>(U));
  a.out_in.assign(static_cast<size_t>(B) * U * O, 0.0);
  std::vector<double> s = a.s0, s_next(static_cast<size_t>(B) * H);
  std::vector<int> tok(static_cast<size_t>(B));
  std::vector<double> ws(static_cast<size_t>(B) * A);
  std::vector<double> dec_wih_t(static_cast<size_t>(I) * 3 * H), dec_whh_t(static_cast<size_t>(H) * 3 * H);
  transpose_weight(dec_wih_t.data(), tensor_in(layout, P, "decoder.weight_ih"), I, 3 * H);
  transpose_weight(dec_whh_t.data(), tensor_in(layout, P, "decoder.weight_hh"), H, 3 * H);
  const double* dec_bih = tensor_in(layout, P, "decoder.bias_ih");
  const double* dec_bhh = tensor_in(layout, P, "decoder.bias_hh");
  const double* tgt_embed = tensor_in(layout, P, "tgt_embed.weight");
  const double* w_s = c.attention ? tensor_in(layout, P, "attn.w_s.weight") : nullptr;
  const double* v = c.attention ? tensor_in(layout, P, "attn.v.weight") : nullptr;
  for (int t = 0; t < U; ++t) {
    const std::vector<int>& rows = a.rows[t];
    const int R = static_cast<int>(rows.size());
    std::vector<double>& sp = a.s_prev[t];
    sp.resize(static_cast<size_t>(R) * H);
    gather_rows(sp.data(), s.data(), rows, H);
    if (R == 0) {  // no sequence has a counted target left (valid rows): nothing runs, no rows saved
      for (std::vector<double>* buf : {&a.context[t], &a.weights[t], &a.tanh_out[t], &a.cell_in[t], &a.gates[t], &a.hn[t]})
        buf->clear();
      continue;
    }
    std::vector<double>& ctx = a.context[t];
    ctx.assign(static_cast<size_t>(R) * C, 0.0);
    if (c.attention) {
      a.weights[t].assign(static_cast<size_t>(R) * S, 0.0);
      a.tanh_out[t].resize(static_cast<size_t>(R) * S * A);  // rows past a source's end are never read
      // W_s s for the step's rows as one product (each row the bits of seq2seq_attend's own)
      linear_forward(ws.data(), sp.data(), w_s, nullptr, R, H, A);
      for (int r = 0; r < R; ++r) {
        const Seq2SeqActivations::Encoded& e = a.enc[static_cast<size_t>(rows[r])];
        additive_forward_ws(ctx.data() + static_cast<size_t>(r) * C, a.weights[t].data() + static_cast<size_t>(r) * S,
                            a.tanh_out[t].data() + static_cast<size_t>(r) * S * A, ws.data() + static_cast<size_t>(r) * A,
                            e.states.data(), e.whh.data(), v, e.len, C, A);
      }
    } else {
      a.weights[t].clear();
      a.tanh_out[t].clear();
      gather_rows(ctx.data(), a.summary.data(), rows, C);
    }
    for (int r = 0; r < R; ++r) tok[static_cast<size_t>(r)] = batch.target_in[static_cast<size_t>(rows[r]) * U + t];
    a.cell_in[t].resize(static_cast<size_t>(R) * I);
    a.gates[t].resize(static_cast<size_t>(R) * 3 * H);
    a.hn[t].resize(static_cast<size_t>(R) * H);
    // seq2seq_cell's step with the decoder's weights transposed once for all steps (the same bits)
    cell_input(c, tgt_embed, R, tok.data(), ctx.data(), a.cell_in[t].data());
    gru_cell_forward_t(s_next.data(), a.gates[t].data(), a.hn[t].data(), a.cell_in[t].data(), sp.data(), dec_wih_t.data(),
                       dec_whh_t.data(), dec_bih, dec_bhh, R, I, H);
    scatter_rows(s.data(), s_next.data(), rows, H);
    for (int r = 0; r < R; ++r) {
      double* row = a.out_in.data() + (static_cast<size_t>(rows[r]) * U + t) * O;
      std::copy_n(s_next.data() + static_cast<size_t>(r) * H, H, row);
      std::copy_n(ctx.data() + static_cast<size_t>(r) * C, C, row + H);
    }
  }
  const int N = B * U;
  a.logits.resize(static_cast<size_t>(N) * V);
  a.probs.resize(static_cast<size_t>(N) * V);
  seq2seq_output(c, layout, P, N, a.out_in.data(), a.logits.data());
  a.loss = cross_entropy_forward(a.probs.data(), a.logits.data(), batch.target_out.data(), N, V, &a.counted);
  return a.loss;
}

void seq2seq_backward(const Seq2SeqConfig& c, const ParamLayout& layout, const double* P,
                      const Seq2SeqBatch& batch, const Seq2SeqActivations& a, double* G) {
  const int B = batch.batch, S = batch.src_len, U = batch.tgt_len, E = c.embed, H = c.hidden, A = c.attn_dim;
  const int V = c.tgt_vocab, C = c.context_dim(), I = E + C, O = H + C, N = B * U;
  std::vector<double> dlogits(static_cast<size_t>(N) * V, 0.0), dout_in(static_cast<size_t>(N) * O, 0.0);
  cross_entropy_backward(dlogits.data(), a.probs.data(), batch.target_out.data(), N, V, a.counted);
  linear_backward(dout_in.data(), tensor_in(layout, G, "out.weight"), tensor_in(layout, G, "out.bias"), dlogits.data(),
                  a.out_in.data(), tensor_in(layout, P, "out.weight"), N, O, V);

  std::vector<std::vector<double>> dstates(static_cast<size_t>(B));  // ∂loss/∂ annotations
  for (int b = 0; b < B; ++b) dstates[b].assign(static_cast<size_t>(a.enc[b].len) * C, 0.0);
  std::vector<std::vector<double>> dwhh(static_cast<size_t>(B));
  if (c.attention)
    for (int b = 0; b < B; ++b) dwhh[b].assign(static_cast<size_t>(a.enc[b].len) * A, 0.0);
  std::vector<double> ds(static_cast<size_t>(B) * H, 0.0);    // ∂loss/∂s_t, carried back
  std::vector<double> dsum(static_cast<size_t>(B) * C, 0.0);  // fixed summary: c_t = summary at every step
  std::vector<double> dsp(static_cast<size_t>(B) * H), din(static_cast<size_t>(B) * I), dctx(static_cast<size_t>(B) * C);
  double* dtgt = tensor_in(layout, G, "tgt_embed.weight");
  std::vector<double> dws(static_cast<size_t>(B) * A);
  double* g_ws = c.attention ? tensor_in(layout, G, "attn.w_s.weight") : nullptr;
  double* g_v = c.attention ? tensor_in(layout, G, "attn.v.weight") : nullptr;
  const double* p_ws = c.attention ? tensor_in(layout, P, "attn.w_s.weight") : nullptr;
  const double* p_v = c.attention ? tensor_in(layout, P, "attn.v.weight") : nullptr;
  std::vector<double> ds_rows(static_cast<size_t>(B) * H);
  for (int t = U - 1; t >= 0; --t) {
    const std::vector<int>& rows = a.rows[t];
    const int R = static_cast<int>(rows.size());
    if (R == 0) continue;  // a step no sequence ran
    // logits_t read [s_t; c_t]
    for (int r = 0; r < R; ++r) {
      const int b = rows[r];
      const double* g = dout_in.data() + (static_cast<size_t>(b) * U + t) * O;
      double* dsb = ds.data() + static_cast<size_t>(b) * H;
      for (int j = 0; j < H; ++j) dsb[j] += g[j];
      std::copy_n(dsb, H, ds_rows.data() + static_cast<size_t>(r) * H);
      for (int j = 0; j < C; ++j) dctx[static_cast<size_t>(r) * C + j] = g[H + j];
    }
    std::fill(dsp.begin(), dsp.end(), 0.0);
    std::fill(din.begin(), din.end(), 0.0);
    gru_cell_backward(din.data(), dsp.data(), tensor_in(layout, G, "decoder.weight_ih"),
                      tensor_in(layout, G, "decoder.weight_hh"), tensor_in(layout, G, "decoder.bias_ih"),
                      tensor_in(layout, G, "decoder.bias_hh"), ds_rows.data(), a.gates[t].data(), a.hn[t].data(),
                      a.cell_in[t].data(), a.s_prev[t].data(), tensor_in(layout, P, "decoder.weight_ih"),
                      tensor_in(layout, P, "decoder.weight_hh"), R, I, H);
    for (int r = 0; r < R; ++r) {
      const int y = batch.target_in[static_cast<size_t>(rows[r]) * U + t];
      embedding_backward(dtgt, din.data() + static_cast<size_t>(r) * I, &y, 1, E);
      for (int j = 0; j < C; ++j) dctx[static_cast<size_t>(r) * C + j] += din[static_cast<size_t>(r) * I + E + j];
    }
    if (c.attention) {
      std::fill(dws.begin(), dws.end(), 0.0);
      for (int r = 0; r < R; ++r) {
        const int b = rows[r];
        const Seq2SeqActivations::Encoded& e = a.enc[static_cast<size_t>(b)];
        additive_backward_ws(dws.data() + static_cast<size_t>(r) * A, dstates[b].data(), dwhh[b].data(), g_v,
                             dctx.data() + static_cast<size_t>(r) * C, a.weights[t].data() + static_cast<size_t>(r) * S,
                             a.tanh_out[t].data() + static_cast<size_t>(r) * S * A, e.states.data(), p_v, e.len, C, A);
      }
      // ds += dws W_s and dW_s += Σ_r dws_r ⊗ s_r for the step's rows as one product, rows in order
      linear_backward(dsp.data(), g_ws, nullptr, dws.data(), a.s_prev[t].data(), p_ws, R, H, A);
    } else {
      for (int r = 0; r < R; ++r)
        residual_backward(dsum.data() + static_cast<size_t>(rows[r]) * C, dctx.data() + static_cast<size_t>(r) * C, C);
    }
    // now ∂loss/∂s_{t−1} of the step's rows (a sequence the step skipped keeps its zero)
    scatter_rows(ds.data(), dsp.data(), rows, H);
  }
  // ds holds ∂loss/∂s₀ through the recurrence; s₀ and the summary are encoder states.
  std::vector<std::vector<double>> dx(static_cast<size_t>(B)), df(static_cast<size_t>(B)), dr(static_cast<size_t>(B)),
      drx(static_cast<size_t>(B));
  std::vector<GruSequence> fw(static_cast<size_t>(B)), bw(static_cast<size_t>(B));
  for (int b = 0; b < B; ++b) {
    const Seq2SeqActivations::Encoded& e = a.enc[static_cast<size_t>(b)];
    const int len = e.len;
    const double* ds_b = ds.data() + static_cast<size_t>(b) * H;
    const double* dsum_b = dsum.data() + static_cast<size_t>(b) * C;
    if (!c.bidirectional) {  // s₀ = summary = h_{len−1}
      double* last = dstates[b].data() + static_cast<size_t>(len - 1) * H;
      for (int j = 0; j < H; ++j) last[j] += ds_b[j] + dsum_b[j];
    } else {  // s₀ = ←h_0 (annotation 0's second half); summary = [→h_{len−1}; ←h_0]
      double* last = dstates[b].data() + static_cast<size_t>(len - 1) * C;
      double* first = dstates[b].data() + H;
      for (int j = 0; j < H; ++j) {
        last[j] += dsum_b[j];
        first[j] += ds_b[j] + dsum_b[H + j];
      }
    }
    if (c.attention)
      linear_backward(dstates[b].data(), tensor_in(layout, G, "attn.w_h.weight"), tensor_in(layout, G, "attn.w_h.bias"),
                      dwhh[b].data(), e.states.data(), tensor_in(layout, P, "attn.w_h.weight"), len, C, A);
    dx[b].assign(static_cast<size_t>(len) * E, 0.0);
    GruSequence& f = fw[static_cast<size_t>(b)];
    f.len = len, f.x = e.x.data(), f.gates = const_cast<double*>(e.gates.data()), f.hn = const_cast<double*>(e.hn.data());
    f.dx = dx[b].data();
    if (!c.bidirectional) {
      f.states = const_cast<double*>(e.states.data()), f.dstates = dstates[b].data();
    } else {
      // Split the annotations' gradient by direction, the reverse GRU's in its reading order.
      df[b].resize(static_cast<size_t>(len) * H);
      dr[b].resize(static_cast<size_t>(len) * H);
      drx[b].assign(static_cast<size_t>(len) * E, 0.0);
      for (int j = 0; j < len; ++j) {
        const double* g = dstates[b].data() + static_cast<size_t>(j) * C;
        std::copy_n(g, H, df[b].data() + static_cast<size_t>(j) * H);
        std::copy_n(g + H, H, dr[b].data() + static_cast<size_t>(len - 1 - j) * H);
      }
      f.states = const_cast<double*>(e.fstates.data()), f.dstates = df[b].data();
      GruSequence& r = bw[static_cast<size_t>(b)];
      r.len = len, r.x = e.rx.data(), r.states = const_cast<double*>(e.rstates.data());
      r.gates = const_cast<double*>(e.rgates.data()), r.hn = const_cast<double*>(e.rhn.data());
      r.dstates = dr[b].data(), r.dx = drx[b].data();
    }
  }
  // Both directions' recurrences, the batch's sequences step by step together (the weight
  // gradients still add sequence by sequence, as one call per sequence would).
  gru_sequences_backward(fw.data(), B, tensor_in(layout, G, "encoder.weight_ih_l0"),
                         tensor_in(layout, G, "encoder.weight_hh_l0"), tensor_in(layout, G, "encoder.bias_ih_l0"),
                         tensor_in(layout, G, "encoder.bias_hh_l0"), tensor_in(layout, P, "encoder.weight_ih_l0"),
                         tensor_in(layout, P, "encoder.weight_hh_l0"), E, H);
  if (c.bidirectional)
    gru_sequences_backward(bw.data(), B, tensor_in(layout, G, "encoder.weight_ih_l0_reverse"),
                           tensor_in(layout, G, "encoder.weight_hh_l0_reverse"),
                           tensor_in(layout, G, "encoder.bias_ih_l0_reverse"),
                           tensor_in(layout, G, "encoder.bias_hh_l0_reverse"),
                           tensor_in(layout, P, "encoder.weight_ih_l0_reverse"),
                           tensor_in(layout, P, "encoder.weight_hh_l0_reverse"), E, H);
  for (int b = 0; b < B; ++b) {
    const int len = a.enc[static_cast<size_t>(b)].len;
    if (c.bidirectional)
      for (int k = 0; k < len; ++k) {
        double* dxj = dx[b].data() + static_cast<size_t>(len - 1 - k) * E;
        const double* g = drx[b].data() + static_cast<size_t>(k) * E;
        for (int i = 0; i < E; ++i) dxj[i] += g[i];
      }
    embedding_backward(tensor_in(layout, G, "src_embed.weight"), dx[b].data(),
                       batch.source.data() + static_cast<size_t>(b) * S, len, E);
  }
}

}  // namespace attn::learn
