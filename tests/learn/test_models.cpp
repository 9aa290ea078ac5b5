// Both models' gradients against central finite differences, parameter by parameter; init laws;
// Adam and clipping by hand; determinism of training.
#include "learn/model.hpp"
#include "learn/layers.hpp"
#include "support/support.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace attn::learn;
using attn_test::check_grads;
using attn_test::sample_indices;

namespace {

/// Checks every tensor of the model (up to `per_tensor` entries each) by finite differences.
void fd_model(const Model& model, std::vector<double> params, const Batch& batch, size_t per_tensor) {
  std::vector<double> grads;
  loss_and_grads(model, params, batch, grads);
  auto f = [&] {
    std::vector<double> g;
    if (model.kind == ModelKind::decoder) {
      DecoderActivations a;
      return decoder_forward(model.decoder, model.layout, params.data(), batch.decoder, a);
    }
    Seq2SeqActivations a;
    return seq2seq_forward(model.seq2seq, model.layout, params.data(), batch.seq2seq, a);
  };
  for (const ParamInfo& p : model.layout.params()) {
    std::vector<size_t> idx;
    // The key bias adds q·b_k to every score of a query: the softmax cancels it, so its gradient is
    // exactly zero analytically and finite differences measure only rounding. Checked as zero instead.
    const bool key_bias = p.name.size() > 17 && p.name.compare(p.name.size() - 17, 17, "attn.in_proj_bias") == 0;
    const size_t d = p.size() / 3;
    for (size_t i : sample_indices(p.size(), per_tensor)) {
      if (key_bias && i >= d && i < 2 * d) {
        CHECK(std::fabs(grads[p.offset + i]) < 1e-14);
        continue;
      }
      idx.push_back(p.offset + i);
    }
    INFO("parameter " << p.name);
    LEARN_CHECK_GRADS(check_grads(f, params, grads, idx, p.name));
  }
}

DecoderBatch decoder_batch(attn::Rng& rng, int b, int t, int vocab, int ignored_every) {
  DecoderBatch d;
  d.batch = b;
  d.t = t;
  for (int i = 0; i < b * t; ++i) {
    d.tokens.push_back(static_cast<int>(rng.below(vocab)));
    d.targets.push_back(ignored_every > 0 && i % ignored_every == 1 ? kIgnoreIndex : static_cast<int>(rng.below(vocab)));
  }
  return d;
}

// The full forward over one sequence (its tokens stand in as targets; the loss is not read).
DecoderActivations forward_one(const DecoderConfig& c, const Model& m, const std::vector<double>& params,
                               const std::vector<int>& seq) {
  DecoderBatch b;
  b.batch = 1;
  b.t = static_cast<int>(seq.size());
  b.tokens = b.targets = seq;
  DecoderActivations a;
  decoder_forward(c, m.layout, params.data(), b, a);
  return a;
}

}  // namespace

TEST_CASE("learn fd: decoder - every position signal - with and without MLP and LayerNorm", "[learn][fd]") {
  struct Variant {
    DecoderPositions pos;
    int mlp;
    bool ln;
    int layers, heads;
  };
  const Variant variants[] = {{DecoderPositions::learned, 6, false, 2, 2}, {DecoderPositions::sinusoidal, 0, false, 1, 1},
                              {DecoderPositions::rope, 5, true, 2, 2},     {DecoderPositions::none, 0, true, 1, 2},
                              {DecoderPositions::rope, 0, false, 1, 2}};
  std::uint64_t seed = 11;
  for (const Variant& v : variants) {
    const DecoderConfig c = attn_test::decoder_config(6, 6, 4, v.heads, v.layers, v.mlp, v.pos, v.ln);
    const Model m = make_model(ModelKind::decoder, c, {});
    attn::Rng rng(seed++);
    Batch b;
    b.decoder = decoder_batch(rng, 2, 5, c.vocab, 4);  // T' = 5 < context 6; every 4th target ignored
    validate_batch(m, b);
    std::vector<double> params = init_params(m.layout, seed);
    for (double& x : params) x += 0.3 * rng.normal();  // move LayerNorm off its identity init
    INFO("positions " << decoder_positions_name(v.pos) << ", mlp " << v.mlp << ", layer_norm " << v.ln);
    fd_model(m, params, b, 24);
  }
}

TEST_CASE("learn fd: decoder with GPT-2 options - biases - gelu and gelu_new - LayerNorm eps - tied head - scaling",
          "[learn][fd]") {
  struct Variant {
    Activation act;
    bool bias, tied, scale, inverse;
    double eps;
  };
  const Variant variants[] = {{Activation::gelu_new, true, true, true, false, 1e-5},
                              {Activation::gelu, true, false, true, true, 1e-3},
                              {Activation::gelu_new, false, true, false, true, 0.1}};
  std::uint64_t seed = 41;
  for (const Variant& v : variants) {
    DecoderConfig c = attn_test::decoder_config(7, 6, 6, 2, 2, 8, DecoderPositions::learned, true);
    c.activation = v.act;
    c.bias = v.bias;
    c.tied_head = v.tied;
    c.scale_attn_weights = v.scale;
    c.scale_attn_by_inverse_layer_idx = v.inverse;
    c.layer_norm_eps = v.eps;
    const Model m = make_model(ModelKind::decoder, c, {});
    CHECK((m.layout.find("unembed.weight") < 0) == v.tied);
    CHECK((m.layout.find("layers.1.attn.in_proj_bias") >= 0) == v.bias);
    CHECK((m.layout.find("layers.0.attn.out_proj.bias") >= 0) == v.bias);
    attn::Rng rng(seed++);
    Batch b;
    b.decoder = decoder_batch(rng, 2, 5, c.vocab, 4);
    validate_batch(m, b);
    std::vector<double> params = init_params(m.layout, seed);
    for (double& x : params) x += 0.3 * rng.normal();  // biases and LayerNorms off their init
    INFO("activation " << activation_name(v.act) << ", bias " << v.bias << ", tied " << v.tied << ", scale " << v.scale
                       << ", inverse layer " << v.inverse << ", eps " << v.eps);
    fd_model(m, params, b, 24);
  }
}

TEST_CASE("learn: K/V-cache decoding with GPT-2 options equals the full forward - and greedy generation is its argmax",
          "[learn]") {
  DecoderConfig c = attn_test::decoder_config(11, 9, 6, 3, 2, 12, DecoderPositions::learned, true);
  c.activation = Activation::gelu_new;
  c.bias = c.tied_head = c.scale_attn_by_inverse_layer_idx = true;
  const Model m = make_model(ModelKind::decoder, c, {});
  const std::vector<double> params = init_params(m.layout, 5);
  const std::vector<int> prompt = {3, 1, 4};
  const std::vector<int> gen = decoder_generate(c, m.layout, params, prompt, 6);
  REQUIRE(gen.size() == 6);
  // Each new token is the full forward's argmax over the sequence so far (first maximum).
  std::vector<int> seq = prompt;
  for (int g : gen) {
    const DecoderActivations a = forward_one(c, m, params, seq);
    const double* last = a.logits.data() + (seq.size() - 1) * static_cast<size_t>(c.vocab);
    const int argmax = static_cast<int>(std::max_element(last, last + c.vocab) - last);
    CHECK(g == argmax);
    seq.push_back(g);
  }
  // The cached logits equal the full forward's row by row.
  const DecoderActivations a = forward_one(c, m, params, seq);
  const std::vector<double> cached = decoder_incremental_logits(c, m.layout, params, seq);
  REQUIRE(cached.size() == a.logits.size());
  for (size_t i = 0; i < cached.size(); ++i) CHECK(std::fabs(cached[i] - a.logits[i]) < 1e-12);
  // Sampling: seeded, so the same seed repeats; a different one usually differs; τ must be >= 0.
  CHECK(decoder_generate(c, m.layout, params, prompt, 6, 1.5, 9) == decoder_generate(c, m.layout, params, prompt, 6, 1.5, 9));
  CHECK_THROWS(decoder_generate(c, m.layout, params, prompt, 6, -1.0, 9));
  CHECK_THROWS(decoder_generate(c, m.layout, params, prompt, 7));  // 3 + 7 > context 9
}

TEST_CASE("learn fd: seq2seq with additive attention and the fixed summary, forward and bidirectional encoders - padded sources",
          "[learn][fd]") {
  for (int variant = 0; variant < 4; ++variant) {
    const int attention = variant % 2;
    Seq2SeqConfig c = attn_test::seq2seq_config(5, 6, 3, 4, attention == 1, 3);
    c.bidirectional = variant >= 2;
    const Model m = make_model(ModelKind::seq2seq, DecoderConfig{}, c);
    attn::Rng rng(20 + variant);
    Batch b;
    Seq2SeqBatch& s = b.seq2seq;
    s.batch = 3;
    s.src_len = 5;
    s.tgt_len = 4;
    s.source_lengths = {5, 2, 3};
    for (int i = 0; i < s.batch * s.src_len; ++i) s.source.push_back(static_cast<int>(rng.below(c.src_vocab)));
    for (int i = 0; i < s.batch * s.tgt_len; ++i) {
      s.target_in.push_back(static_cast<int>(rng.below(c.tgt_vocab)));
      s.target_out.push_back(i % 5 == 3 ? kIgnoreIndex : static_cast<int>(rng.below(c.tgt_vocab)));
    }
    validate_batch(m, b);
    const std::vector<double> params = init_params(m.layout, 30 + variant);
    INFO("attention " << (c.attention ? "additive" : "none") << ", encoder "
                      << (c.bidirectional ? "bidirectional" : "forward"));
    fd_model(m, params, b, 24);

    // Padding is never read: other tokens in the padded positions give the same bits.
    std::vector<double> g1, g2;
    const double l1 = loss_and_grads(m, params, b, g1);
    Batch b2 = b;
    b2.seq2seq.source[1 * s.src_len + 3] = (b2.seq2seq.source[1 * s.src_len + 3] + 1) % c.src_vocab;
    b2.seq2seq.source[2 * s.src_len + 4] = 99;  // not even a valid token: never read
    const double l2 = loss_and_grads(m, params, b2, g2);
    CHECK(l1 == l2);
    CHECK(g1 == g2);
  }
}

TEST_CASE("learn: init laws have PyTorch's bounds and moments", "[learn]") {
  const DecoderConfig c = attn_test::decoder_config(64, 64, 64, 4, 1, 128, DecoderPositions::learned, true);
  const Model dec = make_model(ModelKind::decoder, c, {});
  const Seq2SeqConfig s = attn_test::seq2seq_config(40, 40, 32, 48, true, 24);
  const Model s2s = make_model(ModelKind::seq2seq, DecoderConfig{}, s);
  for (const Model* m : {&dec, &s2s}) {
    const std::vector<double> p = init_params(m->layout, 5);
    for (const ParamInfo& info : m->layout.params()) {
      INFO(info.name);
      const double* x = p.data() + info.offset;
      const size_t n = info.size();
      double mean = 0.0, sq = 0.0, mx = 0.0;
      for (size_t i = 0; i < n; ++i) {
        mean += x[i];
        sq += x[i] * x[i];
        mx = std::max(mx, std::fabs(x[i]));
      }
      mean /= n;
      const double var = sq / n - mean * mean;
      // Expected law, derived here from PyTorch 1.13's reset_parameters, independently of the layout code.
      const std::string& nm = info.name;
      double bound = -1.0, want_var = -1.0;
      auto ends = [&](const char* suffix) {
        const std::string s2(suffix);
        return nm.size() >= s2.size() && nm.compare(nm.size() - s2.size(), s2.size(), s2) == 0;
      };
      if (nm == "embed.weight" || nm == "pos.weight" || ends("_embed.weight")) want_var = 1.0;  // N(0, 1)
      else if (ends("in_proj_weight")) bound = std::sqrt(6.0 / (c.d_model + 3 * c.d_model));  // xavier_uniform
      else if (nm.rfind("encoder.", 0) == 0 || nm.rfind("decoder.", 0) == 0) bound = 1.0 / std::sqrt(s.hidden);
      else if (nm.find("ln") != std::string::npos) {
        const double want = ends("weight") ? 1.0 : 0.0;
        for (size_t i = 0; i < n; ++i) CHECK(x[i] == want);
        continue;
      } else if (nm == "out.weight" || nm == "out.bias") bound = 1.0 / std::sqrt(2.0 * s.hidden);
      else if (nm == "attn.v.weight") bound = 1.0 / std::sqrt(s.attn_dim);
      else if (nm.rfind("attn.w_", 0) == 0) bound = 1.0 / std::sqrt(s.hidden);
      else if (ends("mlp.2.weight") || ends("mlp.2.bias")) bound = 1.0 / std::sqrt(c.mlp);
      else bound = 1.0 / std::sqrt(c.d_model);  // out_proj, mlp.0, unembed: fan_in d_model
      if (bound > 0) want_var = bound * bound / 3.0;
      REQUIRE(want_var > 0);
      if (bound > 0) CHECK(mx <= bound);
      if (bound > 0 && n >= 500) CHECK(mx > 0.95 * bound);
      // moments within 5 standard errors (var of x ~ want_var; var of x² for the uniform: 4/45 b⁴, normal: 2)
      const double se_mean = std::sqrt(want_var / n);
      const double se_var = bound > 0 ? std::sqrt(4.0 / 45.0 * std::pow(bound, 4) / n) : std::sqrt(2.0 / n);
      CHECK(std::fabs(mean) <= 5 * se_mean);
      CHECK(std::fabs(var - want_var) <= 5 * se_var + 1e-12);
    }
  }
}

TEST_CASE("learn: Adam and clip_grad_norm follow torch's formulas - by hand", "[learn]") {
  // Two parameters, two steps, lr 0.1, betas (0.9, 0.999), eps 1e-8, weight decay 0.01.
  std::vector<double> p = {1.0, -2.0};
  AdamState st;
  AdamConfig cfg;
  cfg.lr = 0.1;
  cfg.weight_decay = 0.01;
  const double g1[2] = {0.5, -0.25}, g2[2] = {-1.0, 2.0};
  double m[2] = {0, 0}, v[2] = {0, 0}, ref[2] = {1.0, -2.0};
  for (int t = 1; t <= 2; ++t) {
    const double* g = t == 1 ? g1 : g2;
    for (int i = 0; i < 2; ++i) {
      const double gi = g[i] + 0.01 * ref[i];
      m[i] = 0.9 * m[i] + 0.1 * gi;
      v[i] = 0.999 * v[i] + 0.001 * gi * gi;
      const double mhat = m[i] / (1 - std::pow(0.9, t)), vhat = v[i] / (1 - std::pow(0.999, t));
      ref[i] -= 0.1 * mhat / (std::sqrt(vhat) + 1e-8);  // Kingma & Ba, Algorithm 1
    }
    adam_step(p.data(), g, 2, st, cfg);
  }
  CHECK(st.step == 2);
  for (int i = 0; i < 2; ++i) CHECK(p[i] == Approx(ref[i]).epsilon(1e-12));
  // Step 1 of Adam moves each parameter by about lr·sign(g): the bias correction at work.
  std::vector<double> q = {0.0};
  AdamState s1;
  const double g = 3e-4;
  adam_step(q.data(), &g, 1, s1, AdamConfig{});
  CHECK(q[0] == Approx(-1e-3).epsilon(1e-4));

  std::vector<double> grads = {3.0, 4.0};
  CHECK(clip_grad_norm(grads.data(), 2, 1.0) == 5.0);
  CHECK(grads[0] == Approx(3.0 / (5.0 + 1e-6)).epsilon(1e-15));
  CHECK(grads[1] == Approx(4.0 / (5.0 + 1e-6)).epsilon(1e-15));
  std::vector<double> small = {0.3, 0.4};
  clip_grad_norm(small.data(), 2, 1.0);  // below max_norm: unchanged
  CHECK(small[0] == 0.3);
  CHECK(small[1] == 0.4);
}

TEST_CASE("learn: training lowers the loss - and the same seed gives the same bits", "[learn]") {
  const DecoderConfig c = attn_test::decoder_config(8, 8, 8, 2, 1);
  const Model m = make_model(ModelKind::decoder, c, {});
  auto run = [&](int steps) {
    std::vector<double> p = init_params(m.layout, 3), g;
    AdamState st;
    AdamConfig cfg;
    cfg.lr = 1e-2;
    attn::Rng rng(4);
    std::vector<double> losses;
    for (int s = 0; s < steps; ++s) {
      Batch b;
      // a learnable rule: the next token is the current one plus 1 (mod V)
      b.decoder.batch = 4;
      b.decoder.t = 8;
      for (int i = 0; i < 32; ++i) b.decoder.tokens.push_back(static_cast<int>(rng.below(8)));
      for (int i = 0; i < 32; ++i) b.decoder.targets.push_back((b.decoder.tokens[i] + 1) % 8);
      losses.push_back(train_step(m, p, st, cfg, 1.0, b, g));
    }
    return std::make_pair(losses, p);
  };
  const auto a = run(40), b = run(40);
  CHECK(a.second == b.second);
  double first = 0, last = 0;
  for (int i = 0; i < 5; ++i) {
    first += a.first[i];
    last += a.first[35 + i];
  }
  INFO("mean loss, steps 1-5: " << first / 5 << ", steps 36-40: " << last / 5);
  CHECK(last < 0.8 * first);
}

TEST_CASE("learn: seq2seq leaves out padded decoder steps with the same loss and gradient bits", "[learn]") {
  // Ragged targets (a sequence whose only counted target is its first, one with an ignored target
  // before its last counted one, one with none counted, a last step none counts): every step of every sequence (all)
  // against the steps before each sequence's last counted target (valid), bit for bit.
  for (int variant = 0; variant < 4; ++variant) {
    Seq2SeqConfig c = attn_test::seq2seq_config(7, 9, 4, 5, variant % 2 == 1, 3);
    c.bidirectional = variant >= 2;
    const Model m = make_model(ModelKind::seq2seq, DecoderConfig{}, c);
    attn::Rng rng(70 + variant);
    Seq2SeqBatch s;
    s.batch = 5;
    s.src_len = 6;
    s.tgt_len = 8;
    s.source_lengths = {6, 2, 4, 1, 5};
    const int ends[] = {7, 1, 4, 0, 6};  // one past each sequence's last counted target
    for (int i = 0; i < s.batch * s.src_len; ++i) s.source.push_back(static_cast<int>(rng.below(c.src_vocab)));
    for (int b = 0; b < s.batch; ++b)
      for (int t = 0; t < s.tgt_len; ++t) {
        s.target_in.push_back(static_cast<int>(rng.below(c.tgt_vocab)));
        const bool counted = t < ends[b] && !(b == 2 && t == 1);
        s.target_out.push_back(counted ? static_cast<int>(rng.below(c.tgt_vocab)) : kIgnoreIndex);
      }
    validate_seq2seq_batch(c, s);
    std::vector<double> params = init_params(m.layout, 80 + variant);
    for (double& x : params) x += 0.2 * rng.normal();
    INFO("attention " << (c.attention ? "additive" : "none") << ", encoder " << (c.bidirectional ? "bidirectional" : "forward"));
    Seq2SeqActivations all, valid;
    const double l_all = seq2seq_forward(c, m.layout, params.data(), s, all, DecoderRows::all);
    const double l_valid = seq2seq_forward(c, m.layout, params.data(), s, valid, DecoderRows::valid);
    // the steps each mode ran: every sequence; then only those with a counted target still to come
    for (int t = 0; t < s.tgt_len; ++t) {
      std::vector<int> want;
      for (int b = 0; b < s.batch; ++b)
        if (t < ends[b]) want.push_back(b);
      CHECK(valid.rows[static_cast<size_t>(t)] == want);  // empty at t = 7
      CHECK(all.rows[static_cast<size_t>(t)].size() == 5u);
    }
    CHECK(std::memcmp(&l_all, &l_valid, sizeof l_all) == 0);
    CHECK(all.counted == valid.counted);
    std::vector<double> g_all(m.layout.total(), 0.0), g_valid(m.layout.total(), 0.0);
    seq2seq_backward(c, m.layout, params.data(), s, all, g_all.data());
    seq2seq_backward(c, m.layout, params.data(), s, valid, g_valid.data());
    for (const ParamInfo& p : m.layout.params()) {
      INFO("parameter " << p.name);
      CHECK(std::memcmp(g_all.data() + p.offset, g_valid.data() + p.offset, p.size() * sizeof(double)) == 0);
    }
  }
}
