// learn/seq2seq.hpp — a GRU encoder-decoder, with Bahdanau additive attention or a fixed summary.
//
// {"kind":"seq2seq","src_vocab":Vs,"tgt_vocab":Vt,"embed":E,"hidden":H,"attention":"additive"|"none",
//  "attn_dim":A, "encoder":"forward"|"bidirectional"}  (attn_dim required with "additive", absent with
//  "none"; encoder optional, "forward" when absent)
// The annotations h_j have C = H (forward) or C = 2H (bidirectional) numbers.
// Parameters as PyTorch's state_dict (weights out × in):
//   src_embed.weight Vs×E, tgt_embed.weight Vt×E;
//   encoder = nn.GRU(E, H, batch_first=True[, bidirectional=True]): encoder.weight_ih_l0 3H×E,
//     encoder.weight_hh_l0 3H×H, encoder.bias_ih_l0 3H, encoder.bias_hh_l0 3H; bidirectional adds
//     the same four with the suffix _reverse;
//   decoder = nn.GRUCell(E + C, H): decoder.weight_ih 3H×(E+C), decoder.weight_hh 3H×H,
//     decoder.bias_ih 3H, decoder.bias_hh 3H;
//   additive only: attn.w_s.weight A×H, attn.w_h.weight A×C, attn.w_h.bias A, attn.v.weight 1×A;
//   out.weight Vt×(H+C), out.bias Vt.
// Forward: the encoder runs over the source_lengths[b] valid tokens only (padding is never read).
// Forward encoder: h_j = →h_j (h₀ = 0), s₀ = →h at the last valid token. Bidirectional (Bahdanau
// et al. 2015, §3.2): a second GRU reads the valid tokens last to first, h_j = [→h_j; ←h_j], and
// the decoder starts from the backward state s₀ = ←h_0 (appendix A.2.2 passes it through
// tanh(W_s ·); here it is taken as it is, as a forward encoder's last state is). Step t: with
// attention e_tj = v·tanh(W_s s_{t−1} + W_h h_j + b) over valid j, a_t = softmax(e_t),
// c_t = Σ_j a_tj h_j (Bahdanau et al. 2015, eq. 5–6); without, c_t = the encoder's final states at
// every step (the fixed summary of Cho et al. 2014): →h at the last valid token, and with a
// bidirectional encoder [→h_last; ←h_0]. s_t = GRUCell([tgt_embed(y_{t−1}); c_t], s_{t−1});
// logits_t = out([s_t; c_t]).
// Teacher forcing: target_in is fed as given (the callers shift the targets right by a BOS token).
// Loss: cross-entropy over target_out, −100 ignored, averaged over the counted targets.
#pragma once

#include <vector>

#include "learn/params.hpp"

namespace attn::learn {

struct Seq2SeqConfig {
  int src_vocab = 16, tgt_vocab = 16, embed = 32, hidden = 32;
  bool attention = true;  ///< "additive" (true) or "none"
  int attn_dim = 32;      ///< A, additive only
  bool bidirectional = false;  ///< encoder "bidirectional" (true) or "forward"
  /// C: the width of an annotation h_j and of the context c_t (H, or 2H bidirectional).
  int context_dim() const { return bidirectional ? 2 * hidden : hidden; }
};

/// B pairs: source B×S (row-major; positions ≥ source_lengths[b] are padding), target_in and
/// target_out B×U.
struct Seq2SeqBatch {
  int batch = 0, src_len = 0, tgt_len = 0;
  std::vector<int> source, source_lengths, target_in, target_out;
};

struct Seq2SeqActivations {
  struct Encoded {
    int len = 0;
    /// x len×E; states: the annotations h_j len×C; gates len×3H and hn len×H of the forward GRU
    std::vector<double> x, states, gates, hn;
    std::vector<double> whh;                    ///< len×A, W_h h_j + b (additive)
    /// Bidirectional only: the forward GRU's states (len×H); the reverse GRU's input (x last to
    /// first), states, gates and hn, in its own reading order (row k is source position len−1−k).
    std::vector<double> fstates, rx, rstates, rgates, rhn;
    std::vector<double> s0;                     ///< H: the decoder's first state
    std::vector<double> summary;                ///< C: the fixed summary (the encoder's final states)
  };
  std::vector<Encoded> enc;                     ///< one per sequence
  std::vector<double> s0, summary;              ///< B×H, B×C
  // per decoder step t (U of them), one row per sequence the step ran: rows[t][r] is row r's
  // sequence (every b = 0..B−1 in order with DecoderRows::all; R = rows[t].size())
  std::vector<std::vector<int>> rows;
  std::vector<std::vector<double>> s_prev, cell_in, gates, hn, context;  ///< R×H, R×(E+C), R×3H, R×H, R×C
  std::vector<std::vector<double>> weights, tanh_out;  ///< R×S (0 past a source), R×S×A (rows past a source unspecified)
  std::vector<double> out_in;                   ///< (B·U)×(H+C), [s_t; c_t], row b·U + t
  std::vector<double> logits, probs;            ///< (B·U)×Vt
  double loss = 0.0;
  int counted = 0;
};

/// Layout with PyTorch 1.13's default laws: Embedding N(0, 1); GRU and GRUCell U(±1/sqrt(H)) on every
/// tensor; Linear weight and bias U(±1/sqrt(fan_in)) (attn.w_s: fan_in H; attn.w_h: C; attn.v: A; out: H + C).
ParamLayout seq2seq_layout(const Seq2SeqConfig& cfg);

/// vocabularies 1..4096, embed, hidden, attn_dim 1..512. Throws Error(invalid_field).
void validate_seq2seq_config(const Seq2SeqConfig& cfg);

/// B 1..512, S and U 1..512, B·max(S, U) <= 65536; lengths in 1..S; valid source tokens in [0, Vs),
/// target_in in [0, Vt), target_out in [0, Vt) or −100, at least one counted target.
void validate_seq2seq_batch(const Seq2SeqConfig& cfg, const Seq2SeqBatch& batch);

/// Which sequences each decoder step runs. all: every sequence at every step (padded steps too, as
/// a padded batch through torch's GRUCell does; acts.weights[t] is then B×S). valid: step t runs
/// only the sequences with a counted target at t or later. The steps left out feed no counted
/// loss term, so the loss is the same bits, and their terms in the gradient are exact zeros, so
/// seq2seq_backward adds the same bits (training's choice: less work for ragged targets).
enum class DecoderRows { all, valid };

/// Forward pass (the header's equations), teacher forced; returns the mean loss (also acts.loss).
/// Built from the per-step pieces below, which decoding (greedy, beam, interventions) calls too.
double seq2seq_forward(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params,
                       const Seq2SeqBatch& batch, Seq2SeqActivations& acts, DecoderRows rows = DecoderRows::all);

// ---------------------------------------------------------------- the forward's pieces
// One forward per model: teacher-forced training and step-by-step decoding run the same code.

/// Encodes one source of len >= 1 valid tokens (ids in [0, Vs), unchecked): e.x len×E, the
/// annotations len×C (each GRU from h = 0), the GRUs' gates, s₀ (H), the fixed summary (C), and
/// W_h h_j + b len×A with additive attention (the header's equations).
void seq2seq_encode(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params, const int* source,
                    int len, Seq2SeqActivations::Encoded& e);

/// Bahdanau attention of one decoder state s_{t−1} (H) over an encoded source (annotations len×C
/// and whh = W_h h_j + b len×A, as seq2seq_encode gives them): weights (len), tanh_out (len×A) and
/// the context c_t (C). Additive models only.
void seq2seq_attend(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params, const double* states,
                    const double* whh, int len, const double* s_prev, double* context, double* weights,
                    double* tanh_out);

/// The decoder's GRU cell on B rows: cell_in = [tgt_embed(previous); context] (B×(E+C)),
/// s_next = GRUCell(cell_in, s_prev) (B×H), saving the gates (B×3H) and hn (B×H). previous ids are
/// in [0, Vt) (unchecked).
void seq2seq_cell(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params, int rows,
                  const int* previous, const double* context, const double* s_prev, double* cell_in, double* gates,
                  double* hn, double* s_next);

/// logits (rows×Vt) = out(out_in), out_in = [s_t; c_t] rows×(H+C).
void seq2seq_output(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params, int rows,
                    const double* out_in, double* logits);
/// Gradients of acts.loss (the forward's, same batch) added to grads (layout's order), the
/// reverse of every equation above.
void seq2seq_backward(const Seq2SeqConfig& cfg, const ParamLayout& layout, const double* params,
                      const Seq2SeqBatch& batch, const Seq2SeqActivations& acts, double* grads);

}  // namespace attn::learn
