#include "lessons/translate/decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 3 || ids[i] >= vocab)
      bad(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
          " is not a word id (3.." + std::to_string(vocab - 1) + ")");
}

}  // namespace

EncodedSource encode_source(const TranslateModel& m, const std::vector<int>& source) {
  // The lesson's word check first, then the model's own (empty, length, vocabulary).
  if (!source.empty() && source.size() <= 512) check_ids(source, m.config.src_vocab, "source");
  return learn::seq2seq_encode_source(m, source);
}

void decoder_step(const TranslateModel& m, const EncodedSource& enc, std::vector<double>& s, int previous,
                  std::vector<double>& probs, std::vector<double>& attention, const AttentionIntervention* iv,
                  int step) {
  learn::seq2seq_decoder_step(m, enc, s, previous, probs, attention, iv, step);
}

std::vector<double> next_distribution(const TranslateModel& m, const std::vector<int>& source,
                                      const std::vector<int>& prefix) {
  const EncodedSource enc = encode_source(m, source);
  std::vector<double> s = enc.s0, probs, att;
  learn::seq2seq_decoder_step(m, enc, s, kTranslateBos, probs, att);
  for (int y : prefix) learn::seq2seq_decoder_step(m, enc, s, y, probs, att);
  return probs;
}

GreedyDecode greedy_decode(const TranslateModel& m, const std::vector<int>& source, int max_steps) {
  return greedy_decode_under(m, source, max_steps, AttentionIntervention{});
}

TeacherForced teacher_forced(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target) {
  if (!source.empty() && source.size() <= 512) check_ids(source, m.config.src_vocab, "source");
  return learn::seq2seq_teacher_forced(m, source, target, kTranslateBos, kTranslateEos);
}

BeamResult beam_search(const TranslateModel& m, const std::vector<int>& source, int width, double alpha,
                       int max_steps) {
  learn::require_beam_arguments(width, alpha, max_steps);
  const EncodedSource enc = encode_source(m, source);
  return learn::seq2seq_beam_search(m, enc, kTranslateBos, kTranslateEos, width, alpha, max_steps);
}

namespace {

// max |a_i - b_i| (infinity when the sizes differ), and whether the bits are equal.
std::pair<double, bool> row_difference(const double* a, const std::vector<double>& b, size_t n) {
  if (b.size() != n) return {std::numeric_limits<double>::infinity(), false};
  double d = 0.0;
  for (size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return {d, std::memcmp(a, b.data(), n * sizeof(double)) == 0};
}

}  // namespace

std::vector<Check> beam_prefix_checks(const BeamPrefixCheck& pc, const std::string& unit) {
  return {check_at_most("the best hypothesis's " + std::to_string(pc.forced_rows) +
                            " step distributions vs the teacher-forced pass of its " + unit + ": max |p - q| (" +
                            std::to_string(pc.forced_same_bits) + " rows the same bits)",
                        pc.forced_max_diff, 0.0),
          check_at_most("hypotheses sharing a prefix, " + std::to_string(pc.shared_rows) + " shared steps: max |p - q| (" +
                            std::to_string(pc.shared_same_bits) + " the same bits)",
                        pc.shared_max_diff, 0.0)};
}

BeamPrefixCheck beam_prefix_check(const TranslateModel& m, const std::vector<int>& source, const BeamResult& beam) {
  BeamPrefixCheck c;
  if (beam.finished.empty()) return c;
  const size_t V = static_cast<size_t>(m.config.tgt_vocab);
  const BeamHypothesis& best = beam.finished[static_cast<size_t>(beam.best)];
  const TeacherForced tf = teacher_forced(m, source, best.tokens);
  for (size_t t = 0; t < best.distributions.size() && t < static_cast<size_t>(tf.rows); ++t) {
    const auto [d, same] = row_difference(tf.probs.data() + t * V, best.distributions[t], V);
    ++c.forced_rows;
    c.forced_same_bits += same;
    c.forced_max_diff = std::max(c.forced_max_diff, d);
  }
  for (size_t a = 0; a < beam.finished.size(); ++a) {
    for (size_t b = a + 1; b < beam.finished.size(); ++b) {
      const BeamHypothesis &x = beam.finished[a], &y = beam.finished[b];
      // step t's distribution depends on the first t tokens: shared while those agree
      for (size_t t = 0; t < x.distributions.size() && t < y.distributions.size(); ++t) {
        if (t > 0 && (t > x.tokens.size() || t > y.tokens.size() || x.tokens[t - 1] != y.tokens[t - 1])) break;
        const auto [d, same] = row_difference(x.distributions[t].data(), y.distributions[t], x.distributions[t].size());
        ++c.shared_rows;
        c.shared_same_bits += same;
        c.shared_max_diff = std::max(c.shared_max_diff, d);
      }
    }
  }
  return c;
}

TeacherForced teacher_forced_under(const TranslateModel& m, const std::vector<int>& source,
                                   const std::vector<int>& target, const AttentionIntervention& iv) {
  learn::require_target_ids(target, m.config.tgt_vocab);
  const EncodedSource enc = encode_source(m, source);
  return learn::seq2seq_teacher_forced_steps(m, enc, target, kTranslateBos, kTranslateEos, &iv);
}

GreedyDecode greedy_decode_under(const TranslateModel& m, const std::vector<int>& source, int max_steps,
                                 const AttentionIntervention& iv) {
  learn::require_decode_steps(max_steps);
  const EncodedSource enc = encode_source(m, source);
  // No intervention: none passed, so the fixed summary decodes here too.
  return learn::seq2seq_greedy_decode(m, enc, kTranslateBos, kTranslateEos, max_steps,
                                      iv.removed >= 0 || !iv.forced.empty() ? &iv : nullptr);
}

}  // namespace attn::lessons
