// The decoder analyses (learn/decoder_analysis.hpp) on a small random decoder, in float32 and
// float64, each against a value derived another way: zero ablation against zeroed out_proj columns,
// the cached logits against the full forward, a contribution against the head's own output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "attn/random.hpp"
#include "learn/decoder_analysis.hpp"
#include "support/support.hpp"

using namespace attn;
using learn::DecoderConfig;
using learn::DecoderPositions;

namespace {

// vocab 8, context 12, d_model 8, 2 heads, 2 layers, an MLP of 6, LayerNorm, biases: a GPT-2-shaped
// model small enough to check by hand.
DecoderConfig small_decoder(DecoderPositions positions) {
  DecoderConfig c = attn_test::decoder_config(8, 12, 8, 2, 2, 6, positions, true);
  c.bias = true;
  return c;
}

// B sequences of T random tokens, every position but the last counted (the next token).
learn::DecoderBatch random_batch(int batch, int t, int vocab, std::uint64_t seed) {
  Rng rng(seed);
  learn::DecoderBatch b;
  b.batch = batch;
  b.t = t;
  for (int i = 0; i < batch * t; ++i) b.tokens.push_back(static_cast<int>(rng.below(static_cast<std::uint64_t>(vocab))));
  b.targets.assign(b.tokens.size(), learn::kIgnoreIndex);
  for (int s = 0; s < batch; ++s)
    for (int i = 0; i + 1 < t; ++i) b.targets[static_cast<size_t>(s * t + i)] = b.tokens[static_cast<size_t>(s * t + i + 1)];
  return b;
}

// small_decoder(positions), its parameters drawn from `seed` in the element type S, a random batch
// of B×T tokens and the forward on it.
template <class S>
struct SmallModel {
  DecoderConfig c;
  learn::ParamLayout layout;
  std::vector<S> params;
  learn::DecoderBatch b;
  learn::DecoderActivationsT<S> acts;
  double loss = 0.0;
  SmallModel(std::uint64_t seed, int batch, int t, DecoderPositions positions = DecoderPositions::learned)
      : c(small_decoder(positions)), layout(learn::decoder_layout(c)), b(random_batch(batch, t, c.vocab, seed + 100)) {
    const std::vector<double> p = learn::init_params(layout, seed);
    params.assign(p.begin(), p.end());
    loss = learn::decoder_forward(c, layout, params.data(), b, acts);
  }
};

template <class S>
double max_abs_diff(const std::vector<S>& a, const std::vector<S>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

template <class S>
double tolerance() {
  return sizeof(S) == sizeof(float) ? 1e-4 : 1e-12;
}

}  // namespace

TEMPLATE_TEST_CASE("decoder analysis: zero ablation equals zeroing the head's columns of out_proj.weight",
                   "[learn][analysis]", float, double) {
  using S = TestType;
  const SmallModel<S> m(21, 3, 10);
  const auto& [c, layout, params, b, acts, loss] = m;
  const int dk = c.d_model / c.heads;
  for (int head = 0; head < c.layers * c.heads; ++head) {
    const int l = head / c.heads, h = head % c.heads;
    const learn::HeadInterventionT<S> iv =
        learn::decoder_one_head_intervention<S>(c, head, learn::HeadInterventionT<S>::zero);
    learn::DecoderActivationsT<S> ablated, zeroed;
    learn::decoder_forward(c, layout, params.data(), b, ablated, &iv);
    std::vector<S> p2 = params;
    S* wo = learn::tensor_in(layout, p2.data(), learn::decoder_param_name(l, "attn.out_proj.weight"));
    for (int o = 0; o < c.d_model; ++o)
      for (int k = h * dk; k < (h + 1) * dk; ++k) wo[o * c.d_model + k] = S(0);
    learn::decoder_forward(c, layout, p2.data(), b, zeroed);
    INFO("head " << head);
    CHECK(max_abs_diff(ablated.logits, zeroed.logits) == 0.0);
  }
}

TEMPLATE_TEST_CASE("decoder analysis: mean ablation, patching and the recovered fraction", "[learn][analysis]", float,
                   double) {
  using S = TestType;
  const SmallModel<S> m(22, 4, 9);
  const auto& [c, layout, params, b, clean, loss] = m;
  const std::vector<std::vector<S>> means = learn::decoder_head_output_means(c, clean);
  REQUIRE(means.size() == 4u);
  const int d = c.d_model, dk = d / c.heads, N = b.batch * b.t;
  for (int head = 0; head < 4; ++head) {  // each mean against a sum in double
    const int l = head / c.heads, h = head % c.heads;
    for (int k = 0; k < dk; ++k) {
      double sum = 0.0;
      for (int r = 0; r < N; ++r) sum += clean.layers[static_cast<size_t>(l)].heads_out[static_cast<size_t>(r * d + h * dk + k)];
      CHECK(static_cast<double>(means[static_cast<size_t>(head)][static_cast<size_t>(k)]) ==
            Approx(sum / N).margin(tolerance<S>()));
    }
    // The mean-ablated head passes its mean at every position.
    const learn::HeadInterventionT<S> iv =
        learn::decoder_one_head_intervention<S>(c, head, learn::HeadInterventionT<S>::mean_of_batch, means);
    learn::DecoderActivationsT<S> mean_run;
    learn::decoder_forward(c, layout, params.data(), b, mean_run, &iv);
    for (int r = 0; r < N; ++r)
      for (int k = 0; k < dk; ++k)
        CHECK(mean_run.layers[static_cast<size_t>(l)].heads_out[static_cast<size_t>(r * d + h * dk + k)] ==
              means[static_cast<size_t>(head)][static_cast<size_t>(k)]);
    // Patching a head from its own run changes nothing, to the bit.
    const learn::HeadInterventionT<S> self =
        learn::decoder_one_head_intervention<S>(c, head, learn::HeadInterventionT<S>::patch, {}, &clean);
    learn::DecoderActivationsT<S> p;
    learn::decoder_forward(c, layout, params.data(), b, p, &self);
    CHECK(max_abs_diff(p.logits, clean.logits) == 0.0);
  }
  CHECK(learn::patching_recovered(1.0, 3.0, 1.0) == 1.0);
  CHECK(learn::patching_recovered(1.0, 3.0, 3.0) == 0.0);
  CHECK(learn::patching_recovered(1.0, 3.0, 2.5) == 0.25);
  CHECK(learn::patching_recovered(2.0, 2.0, 1.0) == 0.0);  // a tie: no gap to recover, never NaN
  CHECK_THROWS_AS(learn::decoder_one_head_intervention<S>(c, 4, learn::HeadInterventionT<S>::zero), Error);
  CHECK_THROWS_AS(learn::decoder_one_head_intervention<S>(c, 0, learn::HeadInterventionT<S>::patch), Error);
}

TEMPLATE_TEST_CASE("decoder analysis: maps, scores and the targets' loss", "[learn][analysis]", float, double) {
  using S = TestType;
  const SmallModel<S> m(23, 3, 7);
  const auto& [c, layout, params, b, a, loss] = m;
  const learn::TargetScores ts = learn::decoder_target_scores(a, b.targets, c.vocab);
  CHECK(ts.counted == 3 * 6);
  CHECK(ts.loss == Approx(loss).epsilon(sizeof(S) == sizeof(float) ? 1e-5 : 1e-12));
  // The first-token score's batch mean against each sequence's maps, read one by one.
  const std::vector<double> first = learn::decoder_head_score_means<S>(
      c, a, [](const S* w, int t, int) { return learn::first_token_score(w, t); });
  std::vector<double> want(4, 0.0);
  for (int s = 0; s < b.batch; ++s) {
    const std::vector<std::vector<S>> maps = learn::decoder_head_maps(c, a, s);
    REQUIRE(maps.size() == 4u);
    for (size_t h = 0; h < 4; ++h) {
      double col0 = 0.0;
      for (int i = 0; i < b.t; ++i) col0 += maps[h][static_cast<size_t>(i * b.t)];
      want[h] += col0 / b.t / b.batch;
    }
  }
  for (size_t h = 0; h < 4; ++h) CHECK(first[h] == Approx(want[h]).margin(1e-12));
  // Pattern scores on maps with known answers: a previous-token head and an induction head.
  const int T = 8;
  std::vector<S> prev(T * T, S(0)), induct(T * T, S(0));
  prev[0] = 1;
  for (int i = 1; i < T; ++i) prev[static_cast<size_t>(i * T + i - 1)] = 1;
  for (int i = 0; i < T; ++i) induct[static_cast<size_t>(i * T + (i >= 5 ? i - 2 : i))] = 1;  // period 3 from 5
  CHECK(learn::previous_token_score(prev.data(), T) == 1.0);
  CHECK(learn::diagonal_score(prev.data(), T) == Approx(1.0 / T));
  CHECK(learn::induction_score(induct.data(), T, 5, 3) == 1.0);
  CHECK_THROWS_AS(learn::induction_score(induct.data(), T, 6, 3), Error);
  CHECK_THROWS_AS(learn::decoder_head_maps(c, a, 3), Error);
}

TEMPLATE_TEST_CASE("decoder analysis: a key's contribution through out_proj against the head's output",
                   "[learn][analysis]", float, double) {
  using S = TestType;
  const SmallModel<S> m(24, 2, 6);
  const auto& [c, layout, params, b, a, loss] = m;
  const int d = c.d_model, dk = d / c.heads;
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h)
      for (int q = 0; q < b.t; ++q) {
        const learn::HeadContribution hc = learn::decoder_head_contribution(c, layout, params, a, l, h, 1, q);
        REQUIRE(hc.weights.size() == static_cast<size_t>(b.t));
        // ‖W_O,h · out_h(q)‖ from the head's own output, which is Σ_j a_qj v_j: at most Σ_j ‖c_j‖, and
        // equal at query 0 (one key, weight 1).
        const S* wo = learn::tensor_in(layout, params.data(), learn::decoder_param_name(l, "attn.out_proj.weight"));
        const S* out = a.layers[static_cast<size_t>(l)].heads_out.data() + static_cast<size_t>((b.t + q) * d + h * dk);
        double sq = 0.0;
        for (int o = 0; o < d; ++o) {
          double y = 0.0;
          for (int k = 0; k < dk; ++k) y += static_cast<double>(wo[o * d + h * dk + k]) * out[k];
          sq += y * y;
        }
        double total = 0.0, weights = 0.0;
        for (int j = 0; j < b.t; ++j) total += hc.norms[static_cast<size_t>(j)], weights += hc.weights[static_cast<size_t>(j)];
        INFO("layer " << l << " head " << h << " query " << q);
        CHECK(weights == Approx(1.0).epsilon(1e-5));
        CHECK(std::sqrt(sq) <= total * (1 + 1e-5) + 1e-12);
        if (q == 0) CHECK(std::sqrt(sq) == Approx(total).epsilon(1e-5));
        for (int j = q + 1; j < b.t; ++j) CHECK(hc.norms[static_cast<size_t>(j)] == 0.0);
      }
  CHECK_THROWS_AS(learn::decoder_head_contribution(c, layout, params, a, 0, 0, 2, 0), Error);
}

TEMPLATE_TEST_CASE("decoder analysis: K/V-cache logits equal the full forward's, and generation's checks",
                   "[learn][analysis]", float, double) {
  using S = TestType;
  for (DecoderPositions pos : {DecoderPositions::learned, DecoderPositions::sinusoidal, DecoderPositions::rope}) {
    const SmallModel<S> m(25, 1, 10, pos);
    const auto& [c, layout, params, one, a, loss] = m;
    std::vector<S> full;
    const learn::CacheCheck cc = learn::decoder_cache_check(c, layout, params, one.tokens, &full);
    INFO("positions " << learn::decoder_positions_name(pos));
    CHECK(cc.positions == 10);
    CHECK(cc.max_diff <= tolerance<S>());
    CHECK(max_abs_diff(full, a.logits) == 0.0);  // the full forward on its own
    // Greedy: each token the first argmax of the previous prefix's last cached row.
    const std::vector<int> g = learn::decoder_greedy(c, layout, params, {one.tokens[0]}, 20);
    REQUIRE(g.size() == 12u);  // stops at the context
    for (size_t k = 1; k < g.size(); ++k) {
      const std::vector<int> prefix(g.begin(), g.begin() + static_cast<long>(k));
      const std::vector<S> lg = learn::decoder_incremental_logits(c, layout, params, prefix);
      const S* last = lg.data() + (k - 1) * static_cast<size_t>(c.vocab);
      CHECK(g[k] == static_cast<int>(std::max_element(last, last + c.vocab) - last));
    }
    const learn::GenerationDependency dep = learn::decoder_generation_dependency(c, layout, params, one.tokens[0], 10);
    CHECK(dep.generation.size() == 10u);
    CHECK(dep.forced_earlier_max_diff == 0.0);
    CHECK(dep.sequential_steps == 1 + dep.dependent_steps);
    CHECK(dep.forced_at == 5);
    CHECK(dep.later_steps == 4);
    const learn::FutureEditCheck fe = learn::decoder_future_edit_check(c, layout, params, one.tokens, full);
    CHECK(fe.edits == 9);
    CHECK(fe.future_max_diff == 0.0);
    CHECK(fe.target_max_diff > 0.0);
  }
}
