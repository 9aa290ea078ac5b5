// core/lessons/language_model/captions.hpp — the Language model panel's sentences, worded from
// the numbers the language-model session measured on whichever model is loaded: the heads'
// scores (previous-token, first-token, induction; learn/decoder_analysis.hpp) and the next-token
// distribution. What a map cannot show is said beside what it shows.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace attn::lessons::lm {

/// One head's scores as the session gives them (NaN: not measured, e.g. previous-token on one
/// token, induction before its probe ran).
struct HeadScore {
  int layer = 0, head = 0;
  double previous_token = 0.0;  ///< mean weight on the key just before the query, in [0, 1]
  double first_token = 0.0;     ///< mean weight on key 0, in [0, 1]
  double induction = 0.0;       ///< mean weight on the key after the earlier copy (Olsson et al. 2022)
  /// Δloss in nats per token on the prompt with this head alone zeroed / set to its mean output
  /// (NaN until measured; > 0: the head helped).
  double zero_ablation = std::numeric_limits<double>::quiet_NaN();
  double mean_ablation = std::numeric_limits<double>::quiet_NaN();
};

/// The head whose `field` is largest (ties: the first in layer-major order; NaN never wins), or
/// -1 when none is measured.
int strongest_head(const std::vector<HeadScore>& scores, double HeadScore::*field);

/// "L.H": a head's name, layer then head, both from 0.
std::string head_label(int layer, int head);

/// The heads caption: the strongest previous-token head and its score, the strongest induction
/// head on repeated random tokens (when measured), how many heads put at least half their weight
/// on the first token, and the caution that weight is not contribution (lesson: "a 99% weight can
/// contribute nothing"). `tokens`: the prompt's length the scores were measured on. Empty scores
/// give "".
std::string heads_caption(const std::vector<HeadScore>& scores, int tokens);

/// The ablation caption, worded from each head's Δloss on the prompt (`targets` next tokens,
/// `clean_loss` nats per token): the head whose zeroing raises the loss most (with its mean
/// ablation) when it raises it by 0.01 or more, the head whose zeroing lowers it most when that is
/// by 0.01 or more, how many move it by less than 0.01, and that one prompt is one measurement.
/// "" when no head is measured.
std::string ablation_caption(const std::vector<HeadScore>& scores, double clean_loss, int targets);

/// The next-token caption: the most probable piece's text and probability, and how much of the
/// distribution the top `shown` hold (`top_mass`, their summed probability).
std::string next_token_caption(const std::string& top_text, double top_p, double top_mass, int shown);

/// One query's row read as the Alignment panel reads one: the `shown` keys of largest weight, in
/// descending order (ties: the earlier key), with their weights to 2 significant digits.
/// `weights`: the row over the keys the query may read (key j has label labels[j]); `query` its
/// position. "Query "was" (12) reads "In" 0.62, "was" 0.2, "earth" 0.05."
std::string row_reading(const std::vector<double>& weights, int query, const std::vector<std::string>& labels,
                        int shown = 3);

/// One query's row of one head, weight against contribution (Kobayashi et al. 2020): which key has
/// the largest weight a_qj and which the largest ‖a_qj · W_O,h v_j‖ (the key's share of the head's
/// output after the output projection), each with its other figure. `weights` and `norms` over the
/// keys 0..query (ties: the earlier key). "The largest weight, 0.62 on "In", adds 0.31 to the
/// head's output; the largest contribution, 1.2, comes from "was" at weight 0.05." or, when one key
/// has both, "The largest weight, 0.62 on "In", also contributes most (1.2)." Throws
/// Error(shape_mismatch) when the two lists differ in length, Error(empty_sequence) when empty.
std::string contribution_reading(const std::vector<double>& weights, const std::vector<double>& norms,
                                 const std::vector<std::string>& labels);

/// The default model's card as the page reads it (checkpoints/kjv-lm.card.json, written by the
/// command that trained the model and measured on the shipped weights).
struct CardFigures {
  std::string corpus;
  long long tokens_seen = 0;
  double heldout_loss = 0.0;                    ///< nats per token on the held-out books
  double unigram = 0.0, bigram = 0.0;           ///< add-one count models fitted on the training books
  double bigram_interpolated = 0.0;             ///< Witten–Bell bigram with the unigram (0: not given)
  std::vector<std::string> previous_token, induction, first_token;  ///< heads formed, "l.h"
};

/// The card's sentence: what the model read, its held-out loss against the best of the count
/// baselines (how many nats lower or higher) and against the add-one bigram, and which heads formed
/// by kind ("none" when a kind has none). Figures rounded to 2 decimals.
std::string card_caption(const CardFigures& c);

}  // namespace attn::lessons::lm
