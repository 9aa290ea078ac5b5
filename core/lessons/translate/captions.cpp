#include "lessons/translate/captions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attn::lessons {

namespace {

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100.0 * v);
  return b;
}

// Three significant digits, as the page prints a learning rate ("0.005").
std::string short_number(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string points(double from, double to) {
  const long d = std::lround(100.0 * (to - from));
  return (d > 0 ? "+" : "") + std::to_string(d) + " points";
}

}  // namespace

std::string range_of(const LengthBucket& b) { return std::to_string(b.lo) + "-" + std::to_string(b.hi); }

// The caption of the accuracy table, worded from its numbers.
std::string scores_caption(const TranslateEval& none, const TranslateEval& additive, int step, int summary_size,
                           bool bidirectional) {
  const auto& n = none.buckets;
  const auto& a = additive.buckets;
  if (n.empty() || a.size() != n.size()) return "";
  const BucketAccuracy &n0 = n.front(), &n1 = n.back(), &a0 = a.front(), &a1 = a.back();
  const auto range = [](const LengthBucket& b) { return std::to_string(b.lo) + "-" + std::to_string(b.hi); };
  std::string c = "At step " + std::to_string(step) + ", on the test set: sentences of " + range(n0.bucket) +
                  " words, fixed summary " + pct(n0.exact_match) + " exact, attention " + pct(a0.exact_match) +
                  "; " + range(n1.bucket) + " words, fixed summary " + pct(n1.exact_match) + " exact, attention " +
                  pct(a1.exact_match) + ". ";
  const double gap0 = a0.exact_match - n0.exact_match, gap1 = a1.exact_match - n1.exact_match;
  if (step == 0) return c + "Untrained: both guess.";
  if (gap1 > gap0 + 0.05) {
    c += "The gap grows with the source's length. ";
  } else {
    c += "Here the gap does not grow with length. ";
  }
  c += "The fixed summary squeezes the whole sentence into one vector of " + std::to_string(summary_size) +
       " numbers (" + std::string(bidirectional ? "the encoder's final state in each reading direction"
                                                 : "the encoder's last state") +
       ", fed to every decoder step); attention reads every source word's annotation again at each step. On the longest sentences the fixed summary puts " + pct(n1.token_accuracy) +
       " of the words in the right place. This table measures how often each model is right by length; it does "
       "not tell a lossy, hard-to-learn summary from a limit on the number of words, since both would lose more "
       "with length.";
  return c;
}

// The caption of the learned alignment, from its rows: one column holding every row's weight says
// that word's annotation carried the phrase; peaks that move say the weights follow the words.
std::string alignment_caption(const TranslateAlignment& result, int step) {
  const TeacherForced& f = result.forced;
  const int rows = f.rows, cols = f.src_len;
  if (rows <= 0 || cols <= 0) return "";
  std::vector<int> peak(static_cast<size_t>(rows));
  double min_peak = 1.0;
  for (int i = 0; i < rows; ++i) {
    int best = 0;
    for (int j = 1; j < cols; ++j)
      if (f.attention[static_cast<size_t>(i * cols + j)] > f.attention[static_cast<size_t>(i * cols + best)]) best = j;
    peak[static_cast<size_t>(i)] = best;
    min_peak = std::min(min_peak, f.attention[static_cast<size_t>(i * cols + best)]);
  }
  int same = 0;
  for (int p : peak) same += p == peak.front();
  const std::string& w = result.source_words[static_cast<size_t>(peak.front())];
  if (step == 0) return "Untrained (step 0): these weights come from random parameters and mean nothing yet.";
  if (same == rows && min_peak > 0.5) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", min_peak);
    return "Measured: every row puts its largest weight (at least " + std::string(b) + ") on \"" + w +
           "\". This is not the lesson's word-by-word alignment: " +
           (result.bidirectional ? "each annotation joins a left-to-right and a right-to-left reading, so the one at \"" +
                                       w + "\" can already hold words on either side of it."
                                 : "the encoder reads left to right, so its state at \"" + w +
                                       "\" can already hold a short phrase.") + " The map shows where the decoder reads, not what it uses: it "
           "does not show that the other words are not needed. Try a long sentence.";
  }
  int distinct = 0;
  for (int j = 0; j < cols; ++j) distinct += std::find(peak.begin(), peak.end(), j) != peak.end();
  return "Measured: the rows' peaks fall on " + std::to_string(distinct) + " of the " + std::to_string(cols) +
         " source words, so the decoder reads different words at different steps. Where French puts the colour "
         "after the noun, compare the noun's and the colour's rows with the English order. Weights show where the "
         "decoder reads, not proof of what it uses.";
}

std::string agreement_caption(const AlignmentAgreement& ag, int step) {
  if (ag.overall.targets == 0) return "";
  std::string by;
  for (size_t b = 0; b < ag.buckets.size(); ++b)
    by += (b ? ", " : "") + pct(ag.buckets[b].share) + " on " + range_of(ag.buckets[b].bucket) + " words";
  char w[32];
  std::snprintf(w, sizeof w, "%.2f", ag.overall.mean_weight);
  std::string c = step == 0 ? "Untrained (step 0), so this is chance: " : "Measured at step " + std::to_string(step) + ": ";
  c += "over the " + std::to_string(ag.overall.targets) + " target words of the test set (teacher forced), " +
       pct(ag.overall.share) + " put their largest weight on the English word they translate (" + by +
       "), with a mean weight of " + w + " there. The grammar knows which word each French word translates; this "
       "counts how often the decoder reads most from it, not whether it uses only that word.";
  return c;
}

std::string intervention_caption(const AttentionInterventions& r, const MostReadRemoval* test, int step) {
  if (r.removals.empty()) return "";
  const auto quote = [](const std::vector<int>& ids) { return "\"" + words_of(french_vocab(), ids) + "\""; };
  const auto signed3 = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.3g", v);
    return std::string(b);
  };
  std::string changed, kept;
  const WordRemoval* most = &r.removals.front();
  for (const WordRemoval& w : r.removals) {
    if (w.delta_loss > most->delta_loss) most = &w;
    std::string& list = w.output != r.output ? changed : kept;
    list += (list.empty() ? "" : ", ") + ("\"" + w.word + "\"");
  }
  std::string c = "Measured at step " + std::to_string(step) + ": intact, the decoder writes " + quote(r.output) + ". ";
  if (changed.empty())
    c += "Removing any one source word from the attention leaves that output unchanged; ";
  else
    c += "Removing " + changed + " from the attention changes the output" +
         (kept.empty() ? std::string() : " (removing " + kept + " does not)") + "; ";
  c += "the loss moves most when \"" + most->word + "\" is removed (" + signed3(most->delta_loss) + " nats per word).";
  if (r.forced_applies)
    c += " Forcing the lesson's constructed weights gives " + quote(r.forced_output) + " (loss " +
         signed3(r.forced_delta_loss) + ").";
  if (test && test->sentences)
    c += " Over the " + std::to_string(test->sentences) + " test sentences, hiding the source word read most " +
         (test->exact_removed < test->exact_intact ? "drops" : "moves") + " exact match from " +
         pct(test->exact_match_intact) + " to " + pct(test->exact_match_removed) + ".";
  return c;
}

std::string ids_text(const std::vector<int>& ids) {
  if (ids.empty()) return "(nothing)";
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out;
}

std::string token_caption(const TokenAnalysis& r, bool attention) {
  const auto signed3 = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.3g", v);
    return std::string(b);
  };
  std::string c = "Greedy decoding from BOS (id 1) emits " + std::to_string(r.greedy.tokens.size()) + " token" +
                  (r.greedy.tokens.size() == 1 ? "" : "s") + " [" + ids_text(r.greedy.tokens) + "] and " +
                  (r.greedy.ended ? "then chooses EOS (id 2)" : "stops at the step limit without choosing EOS (id 2)") +
                  ". Teacher forced on " +
                  (r.target_given ? "the target typed" : "that output") +
                  ", the loss is " +
                  short_number(r.forced.loss) + " nats per token, EOS included.";
  if (!attention) return c + " A fixed summary reads no source position by position: there is no alignment to show or remove.";
  if (r.removals.empty()) return c + " A one-token source has nothing to renormalise, so no position is removed.";
  std::string changed;
  const TokenRemoval* most = &r.removals.front();
  int n_changed = 0;
  for (const TokenRemoval& w : r.removals) {
    if (w.delta_loss > most->delta_loss) most = &w;
    if (!w.same_output) changed += (n_changed++ ? ", " : "") + std::to_string(w.position + 1);
  }
  c += n_changed ? " Removing source position" + std::string(n_changed > 1 ? "s " : " ") + changed +
                       " from the attention changes the greedy output"
                 : " Removing any one source position from the attention leaves the greedy output unchanged";
  c += "; the loss moves most when position " + std::to_string(most->position + 1) + " (id " +
       std::to_string(most->token) + ") is removed (" + signed3(most->delta_loss) + " nats per token).";
  return c;
}

// What the table measured, from its numbers: how far the widest state moved each model's exact
// match per bucket from the narrowest, and where attention at a width passes the fixed summary at
// every width.
std::string widths_caption(const std::vector<TranslateWidthResult>& rows) {
  if (rows.size() < 2) return "";
  const TranslateWidthResult &lo = rows.front(), &hi = rows.back();
  const size_t nb = lo.none.buckets.size();
  if (nb == 0 || hi.none.buckets.size() != nb) return "";
  const auto moves = [&](bool att) {
    std::string c;
    for (size_t b = 0; b < nb; ++b) {
      const BucketAccuracy& x = (att ? lo.additive : lo.none).buckets[b];
      const BucketAccuracy& y = (att ? hi.additive : hi.none).buckets[b];
      c += (b ? (b + 1 == nb ? " and " : ", ") : "") + pct(x.exact_match) + " to " + pct(y.exact_match) + " on " +
           range_of(x.bucket) + " words";
    }
    return c;
  };
  std::string c = "What the H control measured with the " +
                  std::string(lo.config.bidirectional ? "bidirectional" : "forward") +
                  " encoder (precomputed: each width trained from its seed for " +
                  std::to_string(lo.config.steps) + " steps at learning rate " + short_number(lo.config.adam.lr) +
                  ", as Train does here). From H " + std::to_string(lo.hidden) + " to H " + std::to_string(hi.hidden) +
                  ", the fixed summary's exact match went from " + moves(false) + "; attention's from " + moves(true) +
                  ". ";
  const size_t last = nb - 1;
  double best_none = 0.0;
  int best_none_h = lo.hidden;
  for (const auto& r : rows)
    if (r.none.buckets[last].exact_match > best_none) best_none = r.none.buckets[last].exact_match, best_none_h = r.hidden;
  const LengthBucket& lb = lo.none.buckets[last].bucket;
  const double long_move = hi.none.buckets[last].exact_match - lo.none.buckets[last].exact_match;
  const BucketAccuracy &l0 = lo.none.buckets[last], &l1 = hi.none.buckets[last];
  if (long_move < 0.05) {
    c += "On the longest sentences (" + range_of(lb) + " words) a state " + std::to_string(hi.hidden / lo.hidden) +
         " times wider moved the fixed summary's exact match by " + points(l0.exact_match, l1.exact_match) +
         " while the words it put in the right place went from " + pct(l0.token_accuracy) + " to " +
         pct(l1.token_accuracy) + ": in this many steps a wider summary carried more of a long sentence, not all of it. ";
  } else {
    c += "On the longest sentences (" + range_of(lb) + " words) the wider state moved the fixed summary by " +
         points(l0.exact_match, l1.exact_match) + ". ";
  }
  // Attention has its own limit when the state is narrow: say so when the narrowest width's
  // attention model misses most long sentences.
  if (lo.additive.buckets[last].exact_match < 0.5) {
    std::string by;
    for (size_t b = 0; b < nb; ++b) by += (b ? " / " : "") + pct(lo.additive.buckets[b].exact_match);
    c += "Attention needs width too: at H " + std::to_string(lo.hidden) + " its exact match by length is " + by + ". ";
  }
  for (const auto& r : rows) {
    if (r.additive.buckets[last].exact_match > best_none) {
      c += "Attention at H " + std::to_string(r.hidden) + " (" + pct(r.additive.buckets[last].exact_match) +
           " there) already beats the fixed summary at every width (" +
           (best_none == 0.0 ? std::string("0% at each") : "best " + pct(best_none) + ", at H " + std::to_string(best_none_h)) +
           ").";
      break;
    }
  }
  return c;
}

std::vector<TranslateWidthResult> width_rows_of(const std::vector<TranslateWidthResult>& rows, bool bidirectional) {
  std::vector<TranslateWidthResult> out;
  for (const TranslateWidthResult& r : rows)
    if (r.config.bidirectional == bidirectional) out.push_back(r);
  return out;
}

std::string encoders_caption(const std::vector<TranslateWidthResult>& rows, int hidden) {
  const TranslateWidthResult *bi = nullptr, *fw = nullptr;
  for (const TranslateWidthResult& r : rows)
    if (r.hidden == hidden) (r.config.bidirectional ? bi : fw) = &r;
  if (!bi || !fw) return "";
  const size_t nb = bi->additive.buckets.size();
  if (nb == 0 || fw->additive.buckets.size() != nb) return "";
  const auto by = [&](const TranslateEval& e) {
    std::string c;
    for (size_t b = 0; b < nb; ++b) c += (b ? " / " : "") + pct(e.buckets[b].exact_match);
    return c;
  };
  std::string c = "Encoders at H " + std::to_string(hidden) + " (precomputed, both from seed " +
                  std::to_string(bi->config.seed) + " for " + std::to_string(bi->config.steps) +
                  " steps): attention's exact match by length is " + by(bi->additive) +
                  " with Bahdanau's bidirectional encoder and " + by(fw->additive) +
                  " with a forward one; the largest weight falls on the English word being translated for " +
                  pct(bi->agreement.overall.share) + " and " + pct(fw->agreement.overall.share) + " of target words. ";
  const size_t last = nb - 1;
  const int long_bi = bi->additive.buckets[last].exact, long_fw = fw->additive.buckets[last].exact;
  const LengthBucket& lb = bi->additive.buckets[last].bucket;
  const int n = bi->additive.buckets[last].sentences;
  if (long_bi == long_fw) {
    c += "On " + range_of(lb) + " words they are level (" + std::to_string(long_bi) + " of " + std::to_string(n) + "). ";
  } else {
    c += "On " + range_of(lb) + " words the " + std::string(long_bi > long_fw ? "bidirectional" : "forward") +
         " encoder gets " + std::to_string(std::abs(long_bi - long_fw)) + " more of " + std::to_string(n) +
         " sentences exactly right. ";
  }
  const int on_bi = bi->agreement.overall.on_source, on_fw = fw->agreement.overall.on_source;
  if (on_bi != on_fw)
    c += "Its alignment agrees with the grammar's more often with the " +
         std::string(on_bi > on_fw ? "bidirectional" : "forward") + " encoder (" +
         points(std::min(bi->agreement.overall.share, fw->agreement.overall.share),
                std::max(bi->agreement.overall.share, fw->agreement.overall.share)) + "). ";
  c += "Each figure is one seed's run: the table does not measure how far another seed would move it.";
  return c;
}

std::string reproduction_sentence(bool same, bool from_checkpoint, int hidden, bool bidirectional,
                                  const std::string& none_fnv1a,
                                  const std::string& additive_fnv1a, const std::string& want_none_fnv1a,
                                  const std::string& want_additive_fnv1a) {
  const std::string what = from_checkpoint ? "The shipped checkpoint's parameters" : "This run's parameters";
  const std::string run = "the precomputed native run at H " + std::to_string(hidden) + " with the " +
                          (bidirectional ? "bidirectional" : "forward") + " encoder";
  return same ? what + " are bit for bit those of " + run +
                    " (FNV-1a of the float64 bits: " + none_fnv1a + ", " + additive_fnv1a + ")."
              : what + " differ from " + run + " (FNV-1a " +
                    none_fnv1a + ", " + additive_fnv1a + "; the table's " + want_none_fnv1a + ", " +
                    want_additive_fnv1a + "): this build does not reproduce it.";
}

}  // namespace attn::lessons
