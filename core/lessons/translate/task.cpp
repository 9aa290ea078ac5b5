#include "lessons/translate/task.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "lessons/check.hpp"
#include "learn/layers.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

void validate_translate_config(const TranslateConfig& c) {
  validate_translation_data(c.data);
  require_range("embed", c.embed, 1, 256);
  require_range("hidden", c.hidden, 1, 256);
  require_range("attn_dim", c.attn_dim, 1, 256);
  require_range("batch", c.batch, 1, 256);
  require_range("steps", c.steps, 0, 20000);
  require_range("eval_every", c.eval_every, 1, 10000);
  if (!(c.adam.lr > 0.0) || !(c.adam.lr <= 1.0)) bad("lr must be in (0, 1], got " + std::to_string(c.adam.lr));
  if (!(c.clip >= 0.0) || !std::isfinite(c.clip)) bad("clip must be finite and >= 0");
  if (c.batch > c.data.train) bad("batch must not exceed the training pairs (" + std::to_string(c.data.train) + ")");
}

learn::Seq2SeqConfig translate_model_config(const TranslateConfig& cfg, bool attention) {
  learn::Seq2SeqConfig m;
  m.src_vocab = english_vocab().size();
  m.tgt_vocab = french_vocab().size();
  m.embed = cfg.embed;
  m.hidden = cfg.hidden;
  m.attention = attention;
  m.attn_dim = cfg.attn_dim;
  m.bidirectional = cfg.bidirectional;
  return m;
}

learn::Seq2SeqBatch translation_batch(const std::vector<TranslationPair>& pairs, const std::vector<int>& idx) {
  if (idx.empty()) throw Error(ErrorCode::empty_sequence, "a batch needs at least one pair");
  learn::Seq2SeqBatch b;
  b.batch = static_cast<int>(idx.size());
  for (int i : idx) {
    if (i < 0 || i >= static_cast<int>(pairs.size())) bad("pair index " + std::to_string(i) + " is out of range");
    b.src_len = std::max(b.src_len, static_cast<int>(pairs[i].source.size()));
    b.tgt_len = std::max(b.tgt_len, static_cast<int>(pairs[i].target.size()) + 1);
  }
  const int S = b.src_len, U = b.tgt_len;
  b.source.assign(static_cast<size_t>(b.batch) * S, kTranslatePad);
  b.target_in.assign(static_cast<size_t>(b.batch) * U, kTranslatePad);
  b.target_out.assign(static_cast<size_t>(b.batch) * U, learn::kIgnoreIndex);
  for (int r = 0; r < b.batch; ++r) {
    const TranslationPair& p = pairs[static_cast<size_t>(idx[static_cast<size_t>(r)])];
    const int L = static_cast<int>(p.target.size());
    b.source_lengths.push_back(static_cast<int>(p.source.size()));
    for (size_t t = 0; t < p.source.size(); ++t) b.source[static_cast<size_t>(r) * S + t] = p.source[t];
    b.target_in[static_cast<size_t>(r) * U] = kTranslateBos;
    for (int t = 0; t < L; ++t) {
      b.target_in[static_cast<size_t>(r) * U + t + 1] = p.target[static_cast<size_t>(t)];
      b.target_out[static_cast<size_t>(r) * U + t] = p.target[static_cast<size_t>(t)];
    }
    b.target_out[static_cast<size_t>(r) * U + L] = kTranslateEos;
  }
  return b;
}

void teacher_forced_loss_part(const TranslateModel& m, const std::vector<TranslationPair>& pairs, size_t start,
                              double& total, long& counted) {
  std::vector<int> idx;
  for (size_t i = start; i < std::min(pairs.size(), start + kTranslateLossBatch); ++i) idx.push_back(static_cast<int>(i));
  const learn::Seq2SeqBatch b = translation_batch(pairs, idx);
  learn::Seq2SeqActivations acts;
  const double loss = learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts, learn::DecoderRows::valid);
  total += loss * acts.counted;
  counted += acts.counted;
}

double teacher_forced_mean(double total, long counted) { return counted > 0 ? total / static_cast<double>(counted) : 0.0; }

double teacher_forced_loss(const TranslateModel& m, const std::vector<TranslationPair>& pairs) {
  double total = 0.0;
  long counted = 0;
  for (size_t start = 0; start < pairs.size(); start += kTranslateLossBatch)
    teacher_forced_loss_part(m, pairs, start, total, counted);
  return teacher_forced_mean(total, counted);
}

}  // namespace attn::lessons
