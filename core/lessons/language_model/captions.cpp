#include "lessons/language_model/captions.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>

#include "attn/error.hpp"

namespace attn::lessons::lm {

namespace {
std::string two(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}
// Two significant digits, as the Alignment panel reads a row.
std::string sig(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g", v);
  return b;
}
std::string percent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v);
  return b;
}
}  // namespace

int strongest_head(const std::vector<HeadScore>& scores, double HeadScore::*field) {
  int best = -1;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const double v = scores[i].*field;
    if (std::isnan(v)) continue;
    if (best < 0 || v > scores[static_cast<std::size_t>(best)].*field) best = static_cast<int>(i);
  }
  return best;
}

std::string head_label(int layer, int head) { return std::to_string(layer) + "." + std::to_string(head); }

std::string heads_caption(const std::vector<HeadScore>& scores, int tokens) {
  if (scores.empty()) return "";
  std::string out;
  const int prev = strongest_head(scores, &HeadScore::previous_token);
  if (prev >= 0) {
    const HeadScore& h = scores[static_cast<std::size_t>(prev)];
    out += "On these " + std::to_string(tokens) + " tokens, head " + head_label(h.layer, h.head) +
           " reads the previous token most: " + two(h.previous_token) + " of its weight, on average. ";
  }
  const int ind = strongest_head(scores, &HeadScore::induction);
  if (ind >= 0) {
    const HeadScore& h = scores[static_cast<std::size_t>(ind)];
    out += "On repeated random tokens, head " + head_label(h.layer, h.head) + " has the highest induction score (" +
           two(h.induction) + "). ";
  }
  int parked = 0;
  for (const HeadScore& h : scores) parked += h.first_token >= 0.5 ? 1 : 0;
  out += std::to_string(parked) + " of " + std::to_string(scores.size()) +
         " heads put half or more of their weight on the first token. ";
  out += "A weight says where a head reads, not what it adds: a large weight on a value the output projection "
         "ignores contributes nothing, so these scores suggest roles that ablation has to test.";
  return out;
}

std::string row_reading(const std::vector<double>& weights, int query, const std::vector<std::string>& labels,
                        int shown) {
  const auto label = [&](std::size_t j) { return j < labels.size() ? labels[j] : "#" + std::to_string(j); };
  std::vector<std::size_t> order(weights.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  const std::size_t n = std::min(order.size(), static_cast<std::size_t>(std::max(shown, 0)));
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(), [&](std::size_t a, std::size_t b) {
    return weights[a] != weights[b] ? weights[a] > weights[b] : a < b;
  });
  std::string out = "Query \"" + label(static_cast<std::size_t>(std::max(query, 0))) + "\" (" + std::to_string(query) + ") reads ";
  for (std::size_t r = 0; r < n; ++r) {
    out += (r ? ", \"" : "\"") + label(order[r]) + "\" " + sig(weights[order[r]]);
  }
  return out + ".";
}

std::string contribution_reading(const std::vector<double>& weights, const std::vector<double>& norms,
                                 const std::vector<std::string>& labels) {
  if (weights.size() != norms.size())
    throw Error(ErrorCode::shape_mismatch, "contribution: " + std::to_string(weights.size()) + " weights against " +
                                               std::to_string(norms.size()) + " norms");
  if (weights.empty()) throw Error(ErrorCode::empty_sequence, "contribution: no keys");
  const auto label = [&](std::size_t j) { return j < labels.size() ? labels[j] : "#" + std::to_string(j); };
  // max_element keeps the first of equal values: ties go to the earlier key.
  const std::size_t w = static_cast<std::size_t>(std::max_element(weights.begin(), weights.end()) - weights.begin());
  const std::size_t c = static_cast<std::size_t>(std::max_element(norms.begin(), norms.end()) - norms.begin());
  const std::string first = "The largest weight, " + sig(weights[w]) + " on \"" + label(w) + "\", ";
  if (w == c) return first + "also contributes most (" + sig(norms[c]) + ").";
  return first + "adds " + sig(norms[w]) + " to the head's output; the largest contribution, " + sig(norms[c]) +
         ", comes from \"" + label(c) + "\" at weight " + sig(weights[c]) + ".";
}

// A Δloss smaller than this (nats per token) is reported as not moving the loss.
constexpr double kAblationMoves = 0.01;

std::string ablation_caption(const std::vector<HeadScore>& scores, double clean_loss, int targets) {
  const int up = strongest_head(scores, &HeadScore::zero_ablation);
  if (up < 0) return "";
  int down = -1, small = 0, measured = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const double d = scores[i].zero_ablation;
    if (std::isnan(d)) continue;
    ++measured;
    small += std::fabs(d) < kAblationMoves ? 1 : 0;
    if (down < 0 || d < scores[static_cast<std::size_t>(down)].zero_ablation) down = static_cast<int>(i);
  }
  const auto signed_two = [](double v) { return (v >= 0 ? "+" : "\xE2\x88\x92") + two(std::fabs(v)); };
  const HeadScore& u = scores[static_cast<std::size_t>(up)];
  std::string out = "Each head ablated alone, on these " + std::to_string(targets) + " next tokens (clean loss " +
                    two(clean_loss) + " nats per token): ";
  if (u.zero_ablation >= kAblationMoves)
    out += "zeroing head " + head_label(u.layer, u.head) + " raises the loss most, " + signed_two(u.zero_ablation);
  else
    out += "no head's zeroing raises the loss by 0.01 or more; the largest change up is head " +
           head_label(u.layer, u.head) + "'s, " + signed_two(u.zero_ablation);
  if (!std::isnan(u.mean_ablation)) out += " (mean ablation " + signed_two(u.mean_ablation) + ")";
  out += ". ";
  const HeadScore& w = scores[static_cast<std::size_t>(down)];
  if (w.zero_ablation <= -kAblationMoves && down != up)
    out += "Zeroing head " + head_label(w.layer, w.head) + " lowers it by " + two(-w.zero_ablation) +
           ": on this prompt that head hurt the prediction. ";
  out += std::to_string(small) + " of " + std::to_string(measured) +
         " heads move it by less than 0.01. One prompt is one measurement: a head's role needs more text.";
  return out;
}

std::string next_token_caption(const std::string& top_text, double top_p, double top_mass, int shown) {
  return "Most probable next token: \"" + top_text + "\" at " + percent(top_p) + ". The " + std::to_string(shown) +
         " shown hold " + percent(top_mass) + " of the distribution; the rest is spread over the other tokens.";
}

namespace {
std::string heads_list(const std::vector<std::string>& heads) {
  if (heads.empty()) return "none";
  std::string s;
  for (std::size_t i = 0; i < heads.size(); ++i) s += (i ? ", " : "") + heads[i];
  return s;
}
}  // namespace

std::string card_caption(const CardFigures& c) {
  struct Base {
    const char* name;
    double loss;
  };
  std::vector<Base> bases = {{"an add-one unigram", c.unigram}, {"an add-one bigram", c.bigram}};
  if (c.bigram_interpolated > 0.0) bases.push_back({"an interpolated bigram", c.bigram_interpolated});
  const Base best = *std::min_element(bases.begin(), bases.end(), [](const Base& a, const Base& b) { return a.loss < b.loss; });
  const auto against = [&](const Base& b) {
    const double diff = b.loss - c.heldout_loss;
    return two(std::fabs(diff)) + (diff >= 0 ? " lower" : " higher") + " than " + b.name + " count model (" + two(b.loss) + ")";
  };
  std::string out = "Trained here on " + c.corpus + " (" + std::to_string(c.tokens_seen) +
                    " tokens seen). On held-out books it scores " + two(c.heldout_loss) + " nats per token: " +
                    against(best);
  if (std::string(best.name) != "an add-one bigram") out += ", " + against(bases[1]);
  out += ". ";
  out += "Heads formed — previous-token: " + heads_list(c.previous_token) + "; induction: " + heads_list(c.induction) +
         "; first-token: " + heads_list(c.first_token) + ".";
  return out;
}

}  // namespace attn::lessons::lm
