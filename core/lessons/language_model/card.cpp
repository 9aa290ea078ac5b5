#include "lessons/language_model/card.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"
#include "learn/decoder_analysis.hpp"
#include "learn/json_obj.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

void check_tokens(const std::vector<int>& s, int vocab, const char* what) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] < 0 || s[i] >= vocab)
      bad(ErrorCode::invalid_field, std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(s[i]) +
                                        " is outside the vocabulary of " + std::to_string(vocab));
}

}  // namespace

LmBaselines lm_baselines(const std::vector<int>& train, const std::vector<int>& heldout, int vocab) {
  if (train.size() < 2 || heldout.size() < 2)
    bad(ErrorCode::empty_sequence, "the baselines need at least 2 training and 2 held-out tokens");
  check_tokens(train, vocab, "train");
  check_tokens(heldout, vocab, "heldout");
  const std::size_t V = static_cast<std::size_t>(vocab);
  std::vector<long long> uni(V, 0), out(V, 0), followers(V, 0);
  std::unordered_map<std::uint64_t, long long> pair;
  for (const int t : train) ++uni[static_cast<std::size_t>(t)];
  for (std::size_t i = 1; i < train.size(); ++i) {
    const std::uint64_t key = static_cast<std::uint64_t>(train[i - 1]) * V + static_cast<std::uint64_t>(train[i]);
    if (pair[key]++ == 0) ++followers[static_cast<std::size_t>(train[i - 1])];
    ++out[static_cast<std::size_t>(train[i - 1])];
  }
  const double n = static_cast<double>(train.size()), v = static_cast<double>(vocab);
  LmBaselines b;
  double su = 0.0, sb = 0.0, sw = 0.0;
  for (std::size_t i = 1; i < heldout.size(); ++i) {
    const std::size_t a = static_cast<std::size_t>(heldout[i - 1]), t = static_cast<std::size_t>(heldout[i]);
    const double pu = (static_cast<double>(uni[t]) + 1.0) / (n + v);
    const auto it = pair.find(static_cast<std::uint64_t>(a) * V + t);
    const double cab = it == pair.end() ? 0.0 : static_cast<double>(it->second);
    const double ca = static_cast<double>(out[a]);
    const double pb = (cab + 1.0) / (ca + v);
    double pw = pu;
    if (ca > 0.0) {
      const double lambda = ca / (ca + static_cast<double>(followers[a]));
      pw = lambda * (cab / ca) + (1.0 - lambda) * pu;
    }
    su -= det::log(pu);
    sb -= det::log(pb);
    sw -= det::log(pw);
    ++b.targets;
  }
  b.unigram = su / static_cast<double>(b.targets);
  b.bigram = sb / static_cast<double>(b.targets);
  b.bigram_interpolated = sw / static_cast<double>(b.targets);
  return b;
}

LmEval lm_heldout_loss(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const std::vector<int>& heldout, int max_windows) {
  if (heldout.size() < 2) bad(ErrorCode::empty_sequence, "the held-out text needs at least 2 tokens");
  check_tokens(heldout, cfg.vocab, "heldout");
  const std::size_t T = static_cast<std::size_t>(cfg.context);
  std::vector<std::size_t> starts;
  for (std::size_t s = 0; s + 1 < heldout.size(); s += T) {
    if (max_windows > 0 && starts.size() >= static_cast<std::size_t>(max_windows)) break;
    starts.push_back(s);
  }
  LmEval e;
  double sum = 0.0;
  constexpr std::size_t kBatch = 8;
  for (std::size_t first = 0; first < starts.size(); first += kBatch) {
    const std::size_t last = std::min(starts.size(), first + kBatch);
    learn::DecoderBatch b;
    b.batch = static_cast<int>(last - first);
    // A short last window is padded with its own tokens and ignored targets (the batch has one T').
    const std::size_t t = std::min(T, heldout.size() - 1 - starts[first]);
    b.t = static_cast<int>(t);
    for (std::size_t w = first; w < last; ++w) {
      const std::size_t len = std::min(t, heldout.size() - 1 - starts[w]);
      for (std::size_t i = 0; i < t; ++i) {
        const bool real = i < len;
        b.tokens.push_back(heldout[starts[w] + (real ? i : 0)]);
        b.targets.push_back(real ? heldout[starts[w] + i + 1] : learn::kIgnoreIndex);
      }
    }
    learn::DecoderActivations a;
    learn::decoder_forward(cfg, layout, params.data(), b, a);
    const learn::TargetScores s = learn::decoder_target_scores(a, b.targets, cfg.vocab);
    sum += s.loss * s.counted;
    e.targets += s.counted;
  }
  e.windows = static_cast<int>(starts.size());
  e.loss = sum / static_cast<double>(e.targets);
  return e;
}

std::vector<LmHeadScore> lm_head_scores(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                        const std::vector<double>& params, const std::vector<int>& heldout,
                                        std::uint64_t seed) {
  constexpr int kSequences = 8;
  const int T = cfg.context;
  if (heldout.size() < static_cast<std::size_t>(kSequences) * T)
    bad(ErrorCode::empty_sequence, "the head scores need " + std::to_string(kSequences * T) + " held-out tokens");
  check_tokens(heldout, cfg.vocab, "heldout");
  learn::DecoderBatch text;
  text.batch = kSequences;
  text.t = T;
  text.tokens.assign(heldout.begin(), heldout.begin() + static_cast<long>(kSequences) * T);
  text.targets = text.tokens;
  learn::DecoderActivations a;
  learn::decoder_forward(cfg, layout, params.data(), text, a);
  const std::vector<double> prev = learn::decoder_head_score_means<double>(
      cfg, a, [](const double* w, int t, int) { return learn::previous_token_score(w, t); });
  const std::vector<double> first = learn::decoder_head_score_means<double>(
      cfg, a, [](const double* w, int t, int) { return learn::first_token_score(w, t); });

  const int period = T / 2;
  learn::DecoderBatch rep;
  rep.batch = kSequences;
  rep.t = 2 * period;
  Rng rng(seed);
  for (int s = 0; s < kSequences; ++s) {
    std::vector<int> half(static_cast<std::size_t>(period));
    for (int& x : half) x = static_cast<int>(rng.below(static_cast<std::uint64_t>(cfg.vocab)));
    rep.tokens.insert(rep.tokens.end(), half.begin(), half.end());
    rep.tokens.insert(rep.tokens.end(), half.begin(), half.end());
  }
  rep.targets = rep.tokens;
  learn::DecoderActivations r;
  learn::decoder_forward(cfg, layout, params.data(), rep, r);
  const std::vector<double> ind = learn::decoder_head_score_means<double>(
      cfg, r, [period](const double* w, int t, int) { return learn::induction_score(w, t, period, period); });

  std::vector<LmHeadScore> out;
  for (int l = 0; l < cfg.layers; ++l)
    for (int h = 0; h < cfg.heads; ++h) {
      const std::size_t id = static_cast<std::size_t>(l * cfg.heads + h);
      out.push_back({l, h, prev[id], ind[id], first[id]});
    }
  return out;
}

std::vector<std::string> lm_formed_heads(const std::vector<LmHeadScore>& heads, double LmHeadScore::*score,
                                         double threshold) {
  std::vector<std::string> out;
  for (const LmHeadScore& h : heads)
    if (h.*score >= threshold) out.push_back(std::to_string(h.layer) + "." + std::to_string(h.head));
  return out;
}

Json lm_card_json(const LmCard& c) {
  const auto eval = [](const LmEval& e) { return obj({{"loss", e.loss}, {"targets", e.targets}, {"windows", e.windows}}); };
  Json heads = Json::array();
  for (const LmHeadScore& h : c.heads)
    heads.push_back(obj({{"layer", h.layer}, {"head", h.head}, {"previous_token", h.previous_token},
                         {"induction", h.induction}, {"first_token", h.first_token}}));
  return obj({
      {"corpus", c.corpus},
      {"books", c.books},
      {"heldout_books", obj({{"books", c.heldout_books}, {"count", c.heldout_book_count}})},
      {"verses", c.verses},
      {"vocab", c.vocab},
      {"steps", c.steps},
      {"batch", c.batch},
      {"context", c.context},
      {"train_tokens", c.train_tokens},
      {"heldout_tokens", c.heldout_tokens},
      {"tokens_seen", c.tokens_seen},
      {"final_train_loss", c.final_train_loss},
      {"heldout_loss", eval(c.heldout)},
      {"slice_loss", eval(c.slice)},
      {"baselines", obj({{"unigram", c.baselines.unigram},
                         {"bigram", c.baselines.bigram},
                         {"bigram_interpolated", c.baselines.bigram_interpolated},
                         {"targets", c.baselines.targets},
                         {"smoothing", "unigram and bigram add-one (Laplace); bigram_interpolated Witten-Bell with the "
                                       "add-one unigram; fitted on the training books"}})},
      {"heads", heads},
      {"formed", obj({{"previous_token", lm_formed_heads(c.heads, &LmHeadScore::previous_token, kPreviousTokenFormed)},
                      {"induction", lm_formed_heads(c.heads, &LmHeadScore::induction, kInductionFormed)},
                      {"first_token", lm_formed_heads(c.heads, &LmHeadScore::first_token, kFirstTokenFormed)}})},
      {"thresholds", obj({{"previous_token", kPreviousTokenFormed},
                          {"induction", kInductionFormed},
                          {"first_token", kFirstTokenFormed}})},
      {"params_fnv1a", c.params_fnv1a},
      {"reproduce", obj({{"steps", static_cast<int>(c.first_losses.size())},
                         {"params_fnv1a", c.first_steps_fnv1a},
                         {"losses", c.first_losses}})},
      {"training_seconds", c.seconds},
  });
}

}  // namespace attn::lessons
