// Translate panel: two GRU translators of the mini-language trained side by side, a fixed summary
// and additive attention; their loss curves, accuracy by source length on the test set, and the
// attention model's learned alignment of one sentence beside the lesson's constructed matrix.
// Every number comes from core/lessons/translate.hpp through the setters in this file (training
// slices run before the frame is drawn); this file only formats and forwards edits.
#include "panels/translate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "lesson_ui.hpp"
#include "lessons/alignment.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

using attn::Json;
namespace tl = attn::lessons;

namespace {

constexpr int kCurvePoints = 300;
constexpr int kMaxSteps = 5000;  // ~100 s of wasm per 1000 steps at H 64: more would not finish in a visit

[[noreturn]] void invalid(const std::string& message) { throw attn::Error(attn::ErrorCode::invalid_field, message); }

// Row sums by the core (w · 1), so the page shows the core's numbers, not its own arithmetic.
std::vector<double> core_row_sums(const attn::Matrix& w) {
  const attn::Matrix sums = attn::matmul(w, attn::Matrix::Ones(w.cols(), 1), "weights·1");
  std::vector<double> out(static_cast<size_t>(sums.rows()));
  for (attn::Index i = 0; i < sums.rows(); ++i) out[static_cast<size_t>(i)] = sums(i, 0);
  return out;
}

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::int64_t get_integer(const Json& j, const std::string& key) {
  if (!j.is_number()) invalid(key + " must be an integer");
  const double d = j.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) invalid(key + " must be an integer");
  if (d > 4e18 || d < -4e18) invalid(key + " is out of range");
  return j.is_number_integer() ? j.get<std::int64_t>() : static_cast<std::int64_t>(d);
}

int clamp_int(std::int64_t v) {
  return static_cast<int>(std::max<std::int64_t>(-1000000000, std::min<std::int64_t>(v, 1000000000)));
}

bool get_bool(const Json& j, const std::string& key) {
  if (!j.is_boolean()) invalid(key + " must be true or false");
  return j.get<bool>();
}

void validate(const TranslateInput& in) {
  if (in.steps < 1 || in.steps > kMaxSteps)
    invalid("steps must be between 1 and " + std::to_string(kMaxSteps) + ", got " + std::to_string(in.steps));
  if (in.beam_width < 1 || in.beam_width > 16) invalid("beam width must be between 1 and 16, got " + std::to_string(in.beam_width));
  if (!(in.alpha >= 0.0) || !(in.alpha <= 2.0)) invalid("alpha must be between 0 and 2");
  if (in.hidden != 8 && in.hidden != 16 && in.hidden != 32 && in.hidden != 64)
    invalid("H must be 8, 16, 32 or 64, got " + std::to_string(in.hidden));
  if (!(in.lr > 0.0) || !(in.lr <= 1.0) || !std::isfinite(in.lr)) invalid("the learning rate must be in (0, 1]");
  if (in.row < 0 || in.row > 64) invalid("row must be between 0 and 64 (it is clamped to the alignment's rows), got " + std::to_string(in.row));
}

// Like guarded(), but a success leaves an earlier input error on show.
template <typename F>
bool computed(std::optional<ErrorInfo>& error, F&& compute) {
  std::optional<ErrorInfo> e;
  if (guarded(e, std::forward<F>(compute))) return true;
  error = e;
  return false;
}

const char* status(const TranslateState& t) {
  if (!t.trainer) return "idle";
  if (t.running) return "training";
  if (t.trainer->done()) return "done";
  return t.trainer->step() > 0 ? "paused" : "idle";
}

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100.0 * v);
  return b;
}

void rebuild_curve(TranslateState& t) {
  t.curve_x.clear();
  t.curve_none.clear();
  t.curve_additive.clear();
  if (!t.trainer) return;
  const std::vector<double>& a = t.trainer->losses(false);
  const std::vector<double>& b = t.trainer->losses(true);
  const int n = static_cast<int>(std::min(a.size(), b.size()));
  t.curve_stride = std::max(1, (std::max(1, t.trainer->config().steps) + kCurvePoints - 1) / kCurvePoints);
  for (int i0 = 0; i0 < n; i0 += t.curve_stride) {
    const int i1 = std::min(n, i0 + t.curve_stride);
    double sa = 0, sb = 0;
    for (int i = i0; i < i1; ++i) sa += a[static_cast<size_t>(i)], sb += b[static_cast<size_t>(i)];
    t.curve_x.push_back(i1);
    t.curve_none.push_back(sa / (i1 - i0));
    t.curve_additive.push_back(sb / (i1 - i0));
  }
}

// The caption of the accuracy table, worded from its numbers.
std::string scores_caption(const TranslateScores& sc, int hidden) {
  const auto& n = sc.none.buckets;
  const auto& a = sc.additive.buckets;
  if (n.empty() || a.size() != n.size()) return "";
  const tl::BucketAccuracy &n0 = n.front(), &n1 = n.back(), &a0 = a.front(), &a1 = a.back();
  const auto range = [](const tl::LengthBucket& b) { return std::to_string(b.lo) + "-" + std::to_string(b.hi); };
  std::string c = "At step " + std::to_string(sc.step) + ", on the test set: sentences of " + range(n0.bucket) +
                  " words, fixed summary " + pct(n0.exact_match) + " exact, attention " + pct(a0.exact_match) +
                  "; " + range(n1.bucket) + " words, fixed summary " + pct(n1.exact_match) + " exact, attention " +
                  pct(a1.exact_match) + ". ";
  const double gap0 = a0.exact_match - n0.exact_match, gap1 = a1.exact_match - n1.exact_match;
  if (sc.step == 0) return c + "Untrained: both guess.";
  if (gap1 > gap0 + 0.05) {
    c += "The gap grows with the source's length. ";
  } else {
    c += "Here the gap does not grow with length. ";
  }
  c += "The fixed summary has to squeeze the whole sentence into one vector of " + std::to_string(hidden) +
       " numbers, read only at the start of decoding: a lossy compression that is hard to learn through the long "
       "path from an early source word to a late target word. It is not a word-count limit: on the longest "
       "sentences it still gets " + pct(n1.token_accuracy) + " of the words right. Attention reads every encoder "
       "state again at each step.";
  return c;
}

// The caption of the learned alignment, from its rows: one column holding most rows' weight says
// the encoder's last state carried the phrase; peaks that move say the weights follow the words.
std::string alignment_caption(const TranslateAlignmentView& v) {
  const tl::TeacherForced& f = v.result.forced;
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
  const std::string& w = v.result.source_words[static_cast<size_t>(peak.front())];
  if (v.step == 0) return "Untrained (step 0): these weights come from random parameters and mean nothing yet.";
  if (same == rows && min_peak > 0.5) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f", min_peak);
    return "Measured: every row puts its largest weight (at least " + std::string(b) + ") on \"" + w +
           "\". This is not the lesson's word-by-word alignment: the encoder reads left to right, so its state at \"" +
           w + "\" can already hold a short phrase, and the decoder needs to read nothing else. Try a long "
           "sentence.";
  }
  int distinct = 0;
  for (int j = 0; j < cols; ++j) distinct += std::find(peak.begin(), peak.end(), j) != peak.end();
  return "Measured: the rows' peaks fall on " + std::to_string(distinct) + " of the " + std::to_string(cols) +
         " source words, so the decoder reads different words at different steps. Where French puts the colour "
         "after the noun, compare the noun's and the colour's rows with the English order. Weights show where the "
         "decoder reads, not proof of what it uses.";
}

// The H table embedded at build time (web/CMakeLists.txt; `attn table translate_widths`).
const char kWidthsJson[] =
#include "attn_translate_widths.inc"
    ;

std::string range_of(const tl::LengthBucket& b) { return std::to_string(b.lo) + "-" + std::to_string(b.hi); }

std::string points(double from, double to) {
  const long d = std::lround(100.0 * (to - from));
  return (d > 0 ? "+" : "") + std::to_string(d) + " points";
}

// What the table measured, from its numbers: how far the widest state moved each model's exact
// match per bucket from the narrowest, and where attention at a width passes the fixed summary at
// every width.
std::string widths_caption(const std::vector<tl::TranslateWidthResult>& rows) {
  if (rows.size() < 2) return "";
  const tl::TranslateWidthResult &lo = rows.front(), &hi = rows.back();
  const size_t nb = lo.none.buckets.size();
  if (nb == 0 || hi.none.buckets.size() != nb) return "";
  const auto moves = [&](bool att) {
    std::string c;
    for (size_t b = 0; b < nb; ++b) {
      const tl::BucketAccuracy& x = (att ? lo.additive : lo.none).buckets[b];
      const tl::BucketAccuracy& y = (att ? hi.additive : hi.none).buckets[b];
      c += (b ? (b + 1 == nb ? " and " : ", ") : "") + pct(x.exact_match) + " to " + pct(y.exact_match) + " on " +
           range_of(x.bucket) + " words";
    }
    return c;
  };
  std::string c = "What the H control measured (precomputed: each width trained from its seed for " +
                  std::to_string(lo.config.steps) + " steps at learning rate " + short_number(lo.config.adam.lr, 3) +
                  ", as Train does here). From H " + std::to_string(lo.hidden) + " to H " + std::to_string(hi.hidden) +
                  ", the fixed summary's exact match went from " + moves(false) + "; attention's from " + moves(true) +
                  ". ";
  const size_t last = nb - 1;
  double best_none = 0.0;
  int best_none_h = lo.hidden;
  for (const auto& r : rows)
    if (r.none.buckets[last].exact_match > best_none) best_none = r.none.buckets[last].exact_match, best_none_h = r.hidden;
  const tl::LengthBucket& lb = lo.none.buckets[last].bucket;
  const double long_move = hi.none.buckets[last].exact_match - lo.none.buckets[last].exact_match;
  const tl::BucketAccuracy &l0 = lo.none.buckets[last], &l1 = hi.none.buckets[last];
  if (long_move < 0.05) {
    c += "On the longest sentences (" + range_of(lb) + " words) a state " + std::to_string(hi.hidden / lo.hidden) +
         " times wider moved the fixed summary's exact match by " + points(l0.exact_match, l1.exact_match) +
         " while the words it put in the right place went from " + pct(l0.token_accuracy) + " to " +
         pct(l1.token_accuracy) + ": in this many steps a wider summary carried more of a long sentence, not all of it. ";
  } else {
    c += "On the longest sentences (" + range_of(lb) + " words) the wider state moved the fixed summary by " +
         points(l0.exact_match, l1.exact_match) + ". ";
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

TranslateWidths read_widths() {
  TranslateWidths w;
  try {
    w.rows = tl::translate_widths_from_json(Json::parse(kWidthsJson));
  } catch (const std::exception& e) {  // attn::Error or a parse error of the embedded file
    w.rows.clear();
    w.error = std::string("the precomputed H table could not be read: ") + e.what();
    return w;
  }
  if (w.rows.empty()) return w;
  const size_t nb = w.rows.front().none.buckets.size();
  w.table = attn::Matrix(static_cast<int>(w.rows.size()), static_cast<int>(2 * nb));
  for (size_t b = 0; b < nb; ++b) w.table_cols.push_back("summary " + range_of(w.rows.front().none.buckets[b].bucket));
  for (size_t b = 0; b < nb; ++b) w.table_cols.push_back("attention " + range_of(w.rows.front().none.buckets[b].bucket));
  for (size_t i = 0; i < w.rows.size(); ++i) {
    const tl::TranslateWidthResult& r = w.rows[i];
    w.table_rows.push_back("H " + std::to_string(r.hidden));
    for (size_t b = 0; b < nb && b < r.none.buckets.size() && b < r.additive.buckets.size(); ++b) {
      w.table(static_cast<int>(i), static_cast<int>(b)) = r.none.buckets[b].exact_match;
      w.table(static_cast<int>(i), static_cast<int>(nb + b)) = r.additive.buckets[b].exact_match;
    }
  }
  w.caption = widths_caption(w.rows);
  return w;
}

// A finished run against the precomputed run of the same configuration, hash for hash.
TranslateReproduction reproduction_of(const TranslateState& t) {
  TranslateReproduction r;
  if (!t.trainer || !t.trainer->done()) return r;
  const tl::TranslateTrainer& tr = *t.trainer;
  const Json cfg = tl::translate_config_json(tr.config());
  for (const tl::TranslateWidthResult& w : t.widths.rows) {
    if (tl::translate_config_json(w.config) != cfg) continue;
    r.compared = true;
    r.hidden = w.hidden;
    r.none_fnv1a = attn::learn::hex64(attn::learn::fnv1a_doubles(tr.model(false).params));
    r.additive_fnv1a = attn::learn::hex64(attn::learn::fnv1a_doubles(tr.model(true).params));
    r.want_none_fnv1a = w.none_fnv1a;
    r.want_additive_fnv1a = w.additive_fnv1a;
    r.same = r.none_fnv1a == w.none_fnv1a && r.additive_fnv1a == w.additive_fnv1a;
  }
  return r;
}

// Scores and the alignment of the current step (when a run stops, or the sentence changes).
void refresh_results(AppState& s, bool scores) {
  TranslateState& t = s.translate;
  if (!t.trainer) return;
  const tl::TranslateTrainer& tr = *t.trainer;
  if (scores) {
    computed(t.error, [&] {
      TranslateScores sc;
      sc.step = tr.step();
      sc.none = tl::evaluate_translation(tr.model(false), tr.data().test, tr.data().config.buckets);
      sc.additive = tl::evaluate_translation(tr.model(true), tr.data().test, tr.data().config.buckets);
      sc.caption = scores_caption(sc, tr.config().hidden);
      const size_t nb = std::min(sc.none.buckets.size(), sc.additive.buckets.size());
      sc.table = attn::Matrix(static_cast<int>(nb + 1), 4);
      sc.table_cols = {"summary exact", "summary tokens", "attention exact", "attention tokens"};
      for (size_t i = 0; i <= nb; ++i) {
        const tl::BucketAccuracy& n = i < nb ? sc.none.buckets[i] : sc.none.overall;
        const tl::BucketAccuracy& a = i < nb ? sc.additive.buckets[i] : sc.additive.overall;
        const int r = static_cast<int>(i);
        sc.table(r, 0) = n.exact_match, sc.table(r, 1) = n.token_accuracy;
        sc.table(r, 2) = a.exact_match, sc.table(r, 3) = a.token_accuracy;
        sc.table_rows.push_back((i < nb ? std::to_string(n.bucket.lo) + "-" + std::to_string(n.bucket.hi) + " words"
                                        : std::string("all")) +
                                " (" + std::to_string(n.sentences) + ")");
      }
      t.scores = std::move(sc);
    });
    t.reproduction = reproduction_of(t);
  }
  computed(t.error, [&] {
    TranslateAlignmentView v;
    v.step = tr.step();
    v.result = tl::translate_alignment(tr.model(true), t.input.sentence);
    const tl::TeacherForced& f = v.result.forced;
    v.weights = attn::Matrix(f.rows, f.src_len);
    for (int i = 0; i < f.rows * f.src_len; ++i) v.weights.data()[i] = f.attention[static_cast<size_t>(i)];
    v.row_sums = core_row_sums(v.weights);
    v.greedy = tl::words_of(tl::french_vocab(), v.result.greedy.tokens);
    v.caption = alignment_caption(v);
    v.checks = {attn::check_at_most("rows sum to 1: max |sum - 1|", v.result.max_row_sum_error, 1e-9),
                attn::check_at_most("padding gets 0: max weight on 2 appended PAD positions", v.result.max_padded_weight, 0.0)};
    // Decoding: greedy steps, the teacher-forced pass, beam search (all the core's).
    const tl::TranslationVocab& fr = tl::french_vocab();
    for (const tl::DecodeStep& st : v.result.greedy.steps) {
      TranslateAlignmentView::GreedyRow g;
      g.word = tl::words_of(fr, {st.token});
      g.probability = st.probability;
      for (size_t j = 0; j < st.attention.size(); ++j)
        if (st.attention[j] > g.read_weight) g.read_weight = st.attention[j], g.reads = v.result.source_words[j];
      v.greedy_rows.push_back(std::move(g));
    }
    const int vt = fr.size();
    for (int i = 0; i < f.rows; ++i) {
      TranslateAlignmentView::ForcedRow r;
      const int ref = i < static_cast<int>(v.result.reference.size()) ? v.result.reference[static_cast<size_t>(i)] : tl::kTranslateEos;
      r.reference = tl::words_of(fr, {ref});
      r.argmax = tl::words_of(fr, {f.argmax[static_cast<size_t>(i)]});
      r.p_reference = f.probs[static_cast<size_t>(i * vt + ref)];
      v.forced_rows.push_back(std::move(r));
    }
    const int limit = static_cast<int>(v.result.source.size()) + 10;
    v.summary_greedy = tl::words_of(fr, tl::greedy_decode(tr.model(false), v.result.source, limit).tokens);
    const tl::BeamResult beam = tl::beam_search(tr.model(true), v.result.source, t.input.beam_width, t.input.alpha, limit);
    for (const tl::BeamHypothesis& hyp : beam.finished) {
      TranslateAlignmentView::BeamRow b;
      b.words = tl::words_of(fr, hyp.tokens);
      b.ended = hyp.ended;
      b.length = static_cast<int>(hyp.tokens.size()) + (hyp.ended ? 1 : 0);
      b.log_prob = hyp.log_prob;
      b.penalty = tl::gnmt_length_penalty(b.length, t.input.alpha);
      b.score = hyp.score;
      v.beam_rows.push_back(std::move(b));
    }
    v.beam_best = beam.best;
    v.beam_prefix = tl::beam_prefix_check(tr.model(true), v.result.source, beam);
    const tl::BeamPrefixCheck& pc = v.beam_prefix;
    v.beam_checks = {
        attn::check_at_most("the best hypothesis's " + std::to_string(pc.forced_rows) +
                                " step distributions vs the teacher-forced pass of its words: max |p - q| (" +
                                std::to_string(pc.forced_same_bits) + " rows the same bits)",
                            pc.forced_max_diff, 0.0),
        attn::check_at_most("hypotheses sharing a prefix, " + std::to_string(pc.shared_rows) +
                                " shared steps: max |p - q| (" + std::to_string(pc.shared_same_bits) + " the same bits)",
                            pc.shared_max_diff, 0.0)};
    t.alignment = std::move(v);
  });
  ++s.generation;
}

void start_over(AppState& s) {
  TranslateState& t = s.translate;
  t.trainer = std::make_shared<tl::TranslateTrainer>(translate_config(t.input));
  t.running = false;
  t.from_checkpoint = false;
  t.scores.reset();
  t.alignment.reset();
  t.reproduction = TranslateReproduction{};
  t.steps_per_second = 0.0;
  rebuild_curve(t);
  refresh_results(s, false);  // one sentence's alignment is cheap; the test set waits for a stop
}

Json bucket_json(const tl::BucketAccuracy& b) {
  return Json{{"exact_match", b.exact_match}, {"token_accuracy", b.token_accuracy}, {"exact", b.exact},
              {"correct", b.correct},         {"tokens", b.tokens},                 {"sentences", b.sentences}};
}

double mean_of(const std::vector<double>& v, size_t from, size_t to) {
  to = std::min(to, v.size());
  if (from >= to) return 0.0;
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / static_cast<double>(to - from);
}

}  // namespace

tl::TranslateConfig translate_config(const TranslateInput& in) {
  tl::TranslateConfig cfg;
  cfg.embed = cfg.hidden = cfg.attn_dim = in.hidden;
  cfg.adam.lr = in.lr;
  cfg.seed = in.seed;
  cfg.steps = in.steps;
  return cfg;
}

void init_translate(AppState& s) {
  TranslateState& t = s.translate;
  const attn::AlignmentRead lesson = attn::lesson_alignment();
  t.lesson_weights = lesson.weights;
  t.lesson_rows = lesson.queries;
  t.lesson_cols = lesson.keys;
  t.lesson_row_sums = core_row_sums(lesson.weights);
  t.widths = read_widths();
  start_over(s);
}

void ensure_translate(AppState& s) {
  if (!s.translate.trainer) init_translate(s);
}

bool set_translate_input(AppState& s, const TranslateInput& in) {
  TranslateState& t = s.translate;
  if (in == t.input && t.trainer) {
    t.error.reset();
    return true;
  }
  TranslateInput only_row = t.input;
  only_row.row = in.row;
  if (only_row == in && t.trainer) {  // the traced row alone: nothing to recompute
    const bool ok = guarded(t.error, [&] { validate(in); });
    if (ok) t.input.row = in.row, ++s.generation;
    return ok;
  }
  const bool new_run = !in.same_run(t.input) || !t.trainer;
  const bool ok = guarded(t.error, [&] {
    validate(in);
    tl::validate_translate_config(translate_config(in));
    const std::vector<int> ids = tl::english_ids(in.sentence);  // empty sentence, unknown word
    (void)tl::reference_translation(ids);                        // not a sentence of the grammar
  });
  if (!ok) return false;
  t.input = in;
  if (new_run) {
    start_over(s);
  } else if (!t.running) {
    refresh_results(s, false);
  }
  return true;
}

bool pick_translate_test_sentence(AppState& s, int index) {
  ensure_translate(s);
  TranslateState& t = s.translate;
  const std::vector<tl::TranslationPair>& test = t.trainer->data().test;
  std::string sentence;
  const bool ok = guarded(t.error, [&] {
    if (index < 1 || index > static_cast<int>(test.size()))
      invalid("test sentence must be between 1 and " + std::to_string(test.size()) + ", got " + std::to_string(index));
    sentence = tl::words_of(tl::english_vocab(), test[static_cast<size_t>(index - 1)].source);
  });
  if (!ok) return false;
  TranslateInput e = t.input;
  e.sentence = sentence;
  return set_translate_input(s, e);
}

void translate_train(AppState& s) {
  start_over(s);
  TranslateState& t = s.translate;
  t.running = true;
  ++t.runs;
  t.rate_t0 = now_seconds();
  t.rate_step0 = 0;
}

void translate_pause(AppState& s) {
  TranslateState& t = s.translate;
  if (!t.running) return;
  t.running = false;
  refresh_results(s, true);
}

void translate_continue(AppState& s) {
  TranslateState& t = s.translate;
  if (!t.trainer || t.running || t.trainer->done() || t.from_checkpoint) return;
  t.running = true;
  t.rate_t0 = now_seconds();
  t.rate_step0 = t.trainer->step();
  ++s.generation;
}

void translate_reset(AppState& s) {
  start_over(s);
  refresh_results(s, true);
}

bool translate_wants_checkpoint(const AppState& s, bool shown) {
  const TranslateState& t = s.translate;
  return shown && t.checkpoint.status == TranslateCheckpoint::Status::not_requested &&
         t.input.same_run(TranslateInput{}) && t.trainer && t.trainer->step() == 0 && !t.running;
}

void translate_checkpoint_requested(AppState& s) {
  s.translate.checkpoint.status = TranslateCheckpoint::Status::requested;
  ++s.generation;
}

void translate_checkpoint_failed(AppState& s, const std::string& message) {
  TranslateCheckpoint& c = s.translate.checkpoint;
  c.status = TranslateCheckpoint::Status::failed;
  c.message = message;
  refresh_results(s, true);  // the untrained pair, so the table is not empty
}

bool translate_install_checkpoint(AppState& s, const std::uint8_t* data, std::size_t size) {
  TranslateState& t = s.translate;
  TranslateCheckpoint& c = t.checkpoint;
  c.bytes = size;
  ++s.generation;
  try {
    tl::TranslateRun run = tl::translate_run_from_checkpoint(attn::learn::decode_checkpoint(data, size));
    if (tl::translate_config_json(run.config) != tl::translate_config_json(translate_config(TranslateInput{})))
      invalid("the checkpoint is of another configuration than the default run");
    if (!t.input.same_run(TranslateInput{}) || !t.trainer || t.trainer->step() != 0 || t.running) {
      c.status = TranslateCheckpoint::Status::declined;
      c.message = "not installed: the inputs changed or a run started before it arrived";
      return false;
    }
    t.trainer = std::make_shared<tl::TranslateTrainer>(run);
    t.from_checkpoint = true;
    c.status = TranslateCheckpoint::Status::installed;
    c.message.clear();
    rebuild_curve(t);
    refresh_results(s, true);
    return true;
  } catch (const attn::Error& e) {
    c.status = TranslateCheckpoint::Status::failed;
    c.message = e.what();
    return false;
  }
}

bool tick_translate(AppState& s, double budget_seconds) {
  TranslateState& t = s.translate;
  if (!t.running || !t.trainer) return false;
  tl::TranslateTrainer& tr = *t.trainer;
  const double t0 = now_seconds();
  const bool ok = computed(t.error, [&] {
    do {
      if (tr.advance(1) == 0) break;
    } while (!tr.done() && now_seconds() - t0 < budget_seconds);
  });
  const double t1 = now_seconds();
  if (t1 - t.rate_t0 >= 1.0) {
    t.steps_per_second = (tr.step() - t.rate_step0) / (t1 - t.rate_t0);
    t.rate_t0 = t1;
    t.rate_step0 = tr.step();
  } else if (t.steps_per_second == 0.0 && t1 > t.rate_t0 && tr.step() > t.rate_step0) {
    t.steps_per_second = (tr.step() - t.rate_step0) / (t1 - t.rate_t0);
  }
  rebuild_curve(t);
  if (!ok || tr.done()) {
    t.running = false;
    if (tr.done()) refresh_results(s, true);  // once, at the end of the run
  }
  ++s.generation;
  return true;
}

Json translate_inputs_json(const TranslateInput& in) {
  return Json{{"seed", in.seed},         {"steps", in.steps},           {"lr", in.lr},      {"hidden", in.hidden},
              {"sentence", in.sentence}, {"beam_width", in.beam_width}, {"alpha", in.alpha}, {"row", in.row}};
}

Json translate_state_json(const AppState& s) {
  const TranslateState& t = s.translate;
  Json out = Json::object();
  out["inputs"] = translate_inputs_json(t.input);
  out["status"] = status(t);
  out["running"] = t.running;
  out["runs"] = t.runs;
  const int step = t.trainer ? t.trainer->step() : 0;
  const int total = t.trainer ? t.trainer->config().steps : t.input.steps;
  out["step"] = step;
  out["total"] = total;
  out["progress"] = total > 0 ? static_cast<double>(step) / total : 0.0;
  out["steps_per_second"] = t.steps_per_second;
  out["source"] = t.from_checkpoint ? "checkpoint" : (step > 0 ? "trained here" : "untrained");
  {
    const char* names[] = {"not_requested", "requested", "installed", "declined", "failed"};
    out["checkpoint"] = Json{{"url", kTranslateCheckpointUrl},
                             {"status", names[static_cast<int>(t.checkpoint.status)]},
                             {"bytes", t.checkpoint.bytes},
                             {"message", t.checkpoint.message}};
  }
  if (t.trainer) {
    const tl::TranslateTrainer& tr = *t.trainer;
    const std::vector<double>& a = tr.losses(false);
    const std::vector<double>& b = tr.losses(true);
    const int n = static_cast<int>(a.size());
    const int stride = std::max(1, (n + 1999) / 2000);
    Json none = Json::array(), add = Json::array();
    for (size_t i = 0; i < a.size(); i += static_cast<size_t>(stride)) none.push_back(a[i]);
    for (size_t i = 0; i < b.size(); i += static_cast<size_t>(stride)) add.push_back(b[i]);
    const size_t last = a.size();
    out["losses"] = Json{{"stride", stride},
                         {"note", "none[k] is the loss of step k*stride + 1 (steps count from 1)"},
                         {"none", none},
                         {"additive", add},
                         {"first10", {{"none", mean_of(a, 0, 10)}, {"additive", mean_of(b, 0, 10)}}},
                         {"last10", {{"none", mean_of(a, last >= 10 ? last - 10 : 0, last)},
                                     {"additive", mean_of(b, last >= 10 ? last - 10 : 0, last)}}},
                         {"validation_steps", tr.validation_steps()},
                         {"none_validation", tr.validation_losses(false)},
                         {"additive_validation", tr.validation_losses(true)}};
  } else {
    out["losses"] = nullptr;
  }
  if (t.scores) {
    const TranslateScores& sc = *t.scores;
    Json buckets = Json::array();
    for (size_t i = 0; i < sc.none.buckets.size() && i < sc.additive.buckets.size(); ++i) {
      const tl::BucketAccuracy& n = sc.none.buckets[i];
      buckets.push_back(Json{{"lo", n.bucket.lo}, {"hi", n.bucket.hi}, {"sentences", n.sentences},
                             {"none", bucket_json(n)}, {"additive", bucket_json(sc.additive.buckets[i])}});
    }
    out["accuracy"] = Json{{"step", sc.step},
                           {"set", "test"},
                           {"buckets", buckets},
                           {"overall", {{"none", bucket_json(sc.none.overall)}, {"additive", bucket_json(sc.additive.overall)}}},
                           {"caption", sc.caption}};
  } else {
    out["accuracy"] = nullptr;
  }
  if (t.alignment) {
    const TranslateAlignmentView& v = *t.alignment;
    Json rows = Json::array();
    for (int i = 0; i < v.weights.rows(); ++i) {
      Json r = Json::array();
      for (int j = 0; j < v.weights.cols(); ++j) r.push_back(v.weights(i, j));
      rows.push_back(r);
    }
    out["alignment"] = Json{{"step", v.step},
                            {"sentence", t.input.sentence},
                            {"source_words", v.result.source_words},
                            {"target_words", v.result.target_words},
                            {"weights", rows},
                            {"row_sums", v.row_sums},
                            {"max_row_sum_error", v.result.max_row_sum_error},
                            {"max_padded_weight", v.result.max_padded_weight},
                            {"greedy", v.greedy},
                            {"greedy_ended", v.result.greedy.ended},
                            {"checks", attn::to_json(v.checks)},
                            {"caption", v.caption}};
    if (v.weights.rows() > 0) {
      const int r = std::min(t.input.row, static_cast<int>(v.weights.rows()) - 1);
      Json trace = Json::object();
      trace["row"] = r;
      trace["target_word"] = v.result.target_words[static_cast<size_t>(r)];
      trace["weights"] = rows[static_cast<size_t>(r)];
      out["alignment"]["trace"] = trace;
    }
    Json greedy = Json::array(), forced = Json::array(), beam = Json::array();
    for (size_t i = 0; i < v.greedy_rows.size(); ++i) {
      const auto& g = v.greedy_rows[i];
      greedy.push_back(Json{{"word", g.word}, {"probability", g.probability}, {"reads", g.reads},
                            {"read_weight", g.read_weight}, {"attention", v.result.greedy.steps[i].attention}});
    }
    for (const auto& r : v.forced_rows)
      forced.push_back(Json{{"reference", r.reference}, {"argmax", r.argmax}, {"p_reference", r.p_reference}});
    for (const auto& b : v.beam_rows)
      beam.push_back(Json{{"words", b.words}, {"ended", b.ended}, {"length", b.length}, {"log_prob", b.log_prob},
                          {"penalty", b.penalty}, {"score", b.score}});
    out["decoding"] = Json{{"step", v.step},
                           {"greedy", greedy},
                           {"greedy_ended", v.result.greedy.ended},
                           {"teacher_forced", {{"rows", forced}, {"loss", v.result.forced.loss}}},
                           {"summary_greedy", v.summary_greedy},
                           {"beam", {{"width", t.input.beam_width}, {"alpha", t.input.alpha}, {"best", v.beam_best},
                                     {"finished", beam}, {"formula", "score = log P(Y) / ((5 + |Y|) / 6)^alpha"},
                                     {"prefix", {{"forced_rows", v.beam_prefix.forced_rows},
                                                 {"forced_same_bits", v.beam_prefix.forced_same_bits},
                                                 {"forced_max_diff", v.beam_prefix.forced_max_diff},
                                                 {"shared_rows", v.beam_prefix.shared_rows},
                                                 {"shared_same_bits", v.beam_prefix.shared_same_bits},
                                                 {"shared_max_diff", v.beam_prefix.shared_max_diff}}},
                                     {"checks", attn::to_json(v.beam_checks)}}}};
  } else {
    out["alignment"] = nullptr;
    out["decoding"] = nullptr;
  }
  {
    Json rows = Json::array();
    for (int i = 0; i < t.lesson_weights.rows(); ++i) {
      Json r = Json::array();
      for (int j = 0; j < t.lesson_weights.cols(); ++j) r.push_back(t.lesson_weights(i, j));
      rows.push_back(r);
    }
    out["lesson_alignment"] = Json{{"rows", t.lesson_rows}, {"columns", t.lesson_cols}, {"weights", rows},
                                   {"note", "constructed by the lesson, not learned"}};
  }
  {
    Json rows = Json::array();
    for (const tl::TranslateWidthResult& w : t.widths.rows) {
      const auto model = [](const tl::TranslateEval& e) {
        Json b = Json::array();
        for (const tl::BucketAccuracy& a : e.buckets) {
          Json x = bucket_json(a);
          x["lo"] = a.bucket.lo, x["hi"] = a.bucket.hi;
          b.push_back(x);
        }
        return Json{{"buckets", b}, {"overall", bucket_json(e.overall)}};
      };
      rows.push_back(Json{{"hidden", w.hidden}, {"none", model(w.none)}, {"additive", model(w.additive)},
                          {"none_final_loss", w.none_final_loss}, {"additive_final_loss", w.additive_final_loss},
                          {"none_fnv1a", w.none_fnv1a}, {"additive_fnv1a", w.additive_fnv1a}});
    }
    out["widths"] = Json{{"rows", rows},
                         {"note", "precomputed natively from each width's seed (checkpoints/translate_widths.json); "
                                  "seed, steps and learning rate at their defaults"},
                         {"caption", t.widths.caption},
                         {"error", t.widths.error.empty() ? Json(nullptr) : Json(t.widths.error)}};
  }
  {
    const TranslateReproduction& r = t.reproduction;
    out["reproduction"] = r.compared ? Json{{"compared_with", "the precomputed run at H " + std::to_string(r.hidden)},
                                            {"same", r.same},
                                            {"none_fnv1a", r.none_fnv1a},
                                            {"additive_fnv1a", r.additive_fnv1a},
                                            {"want_none_fnv1a", r.want_none_fnv1a},
                                            {"want_additive_fnv1a", r.want_additive_fnv1a}}
                                     : Json(nullptr);
  }
  out["error"] = t.error ? Json{{"code", t.error->code}, {"message", t.error->message}} : Json(nullptr);
  return out;
}

bool apply_translate_json(AppState& s, const Json& patch) {
  ensure_translate(s);
  TranslateState& t = s.translate;
  TranslateInput in = t.input;
  bool inputs = false, train = false, pause = false, resume = false, reset = false;
  std::optional<int> pick;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (k == "seed") {
      const std::int64_t seed = get_integer(v, k);
      if (seed < 0) invalid("seed must be an integer >= 0");
      in.seed = static_cast<std::uint64_t>(seed), inputs = true;
    } else if (k == "steps") in.steps = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "hidden" || k == "H") in.hidden = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "lr") {
      if (!v.is_number() || !std::isfinite(v.get<double>())) invalid("lr must be a number");
      in.lr = v.get<double>(), inputs = true;
    } else if (k == "sentence") {
      if (!v.is_string()) invalid("sentence must be a string");
      in.sentence = v.get<std::string>(), inputs = true;
    } else if (k == "beam_width") in.beam_width = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "row") in.row = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "alpha") {
      if (!v.is_number() || !std::isfinite(v.get<double>())) invalid("alpha must be a number");
      in.alpha = v.get<double>(), inputs = true;
    } else if (k == "test_sentence") {
      pick = clamp_int(get_integer(v, k));
    } else if (k == "train") train = get_bool(v, k);
    else if (k == "pause") pause = get_bool(v, k);
    else if (k == "continue" || k == "resume") resume = get_bool(v, k);
    else if (k == "reset") reset = get_bool(v, k);
    else invalid("unknown translate input '" + k + "' (seed, steps, lr, hidden, sentence, test_sentence, beam_width, alpha, row, train, pause, continue, reset)");
  }
  if (inputs && !set_translate_input(s, in)) return false;
  if (pick && !pick_translate_test_sentence(s, *pick)) return false;
  if (reset) translate_reset(s);
  if (train) translate_train(s);
  if (pause) translate_pause(s);
  if (resume) translate_continue(s);
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

bool int_field(const char* label, int* v, float width) {
  ImGui::SetNextItemWidth(width);
  ImGui::InputInt(label, v, 0, 0);
  return ImGui::IsItemDeactivatedAfterEdit();
}

// Greedy steps beside the teacher-forced pass, then beam search with its controls.
void draw_decoding(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  const TranslateAlignmentView& v = *t.alignment;
  const float fs = ImGui::GetFontSize();
  style::heading(ui.fonts, "Decoding the sentence");
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  const txt::TwoColumns dc = txt::two_columns(0.5f);
  txt::begin_column(dc.left_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Greedy, step by step (generation)");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##greedy", 4, tf, dc.left_w, static_cast<int>(v.greedy_rows.size()) + 1)) {
    for (const char* c : {"step", "word", "p", "reads most"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < v.greedy_rows.size(); ++i) {
      const auto& g = v.greedy_rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu", i + 1);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.word.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(g.probability, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s (%s)", g.reads.c_str(), short_number(g.read_weight, 2).c_str());
    }
    widgets::end_table_fit();
  }
  txt::note("Each step feeds back the word it chose; a wrong word changes every later step.");
  ImGui::TextWrapped("Fixed summary, greedy: %s", v.summary_greedy.c_str());
  txt::end_column(dc.left_w);
  if (dc.two) ImGui::SameLine(dc.x0 + dc.left_w + dc.gap);
  txt::begin_column(dc.right_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Teacher forced (training)");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##forced", 3, tf, dc.right_w, static_cast<int>(v.forced_rows.size()) + 1)) {
    for (const char* c : {"reference", "p(reference)", "model's argmax"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& r : v.forced_rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.reference.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(r.p_reference, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.argmax.c_str());
    }
    widgets::end_table_fit();
  }
  ImGui::TextWrapped("Loss %s per word. All positions in one pass: each is fed the reference's previous word, "
                     "whatever the model would have said.", short_number(v.result.forced.loss, 3).c_str());
  txt::end_column(dc.right_w);

  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Beam search");
  ImGui::PopFont();
  {
    TranslateInput e = t.input;
    bool changed = false;
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 8, "width"));
    if (ImGui::SliderInt("width", &e.beam_width, 1, 16)) changed = true;
    widgets::same_line_if_fits(widgets::labeled_width(fs * 8, "alpha"), fs);
    float a = static_cast<float>(e.alpha);
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 8, "alpha"));
    if (ImGui::SliderFloat("alpha", &a, 0.0f, 2.0f, "%.2f")) e.alpha = std::round(a * 100.0) / 100.0, changed = true;
    if (changed) set_translate_input(s, e);
  }
  ImGui::TextWrapped("score(Y) = log P(Y) / lp(Y),   lp(Y) = ((5 + |Y|) / 6)^\xCE\xB1   (Wu et al. 2016; |Y| counts "
                     "the emitted words, <eos> included)");
  if (widgets::begin_table_fit("##beam", 6, tf, 0.0f, 2 * static_cast<int>(v.beam_rows.size()) + 1)) {
    for (const char* c : {"hypothesis", "ended", "|Y|", "log P", "lp", "score"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < v.beam_rows.size(); ++i) {
      const auto& b = v.beam_rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s%s", static_cast<int>(i) == v.beam_best ? "best: " : "", b.words.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(b.ended ? "yes" : "no");
      ImGui::TableNextColumn();
      ImGui::Text("%d", b.length);
      for (double x : {b.log_prob, b.penalty, b.score}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(x, 4).c_str());
      }
    }
    widgets::end_table_fit();
  }
  style::check_lines(v.beam_checks);
  txt::note("Search changes which sequence is found, not the model: every hypothesis is scored with the same "
            "decoder steps, measured above. Width 1 is greedy. \xCE\xB1 = 0 ranks by log P alone, which favours "
            "short outputs.");
}

void draw_body(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  const float fs = ImGui::GetFontSize();
  const TranslateInput& cur = t.input;

  txt::para(
      "Two small GRU translators of a made-up English-to-French language are trained here, side by side: one "
      "decodes from a fixed summary, the encoder's last state (Cho et al. 2014), the other re-reads every encoder "
      "state at each step through additive attention (Bahdanau et al. 2015). Same seed, same batches, same number "
      "of steps; the only difference is the attention. French puts colours after the noun, so the alignment is "
      "not the diagonal.");
  style::error_box(t.error);

  // --- inputs (seed, steps, lr, H start over; the sentence only re-reads the alignment)
  {
    TranslateInput e = cur;
    bool changed = false;
    const auto next = [&](float w) { widgets::same_line_if_fits(w, fs); };
    int seed = static_cast<int>(std::min<std::uint64_t>(e.seed, 2000000000));
    if (int_field("seed", &seed, fs * 4.5f)) e.seed = static_cast<std::uint64_t>(std::max(0, seed)), changed = true;
    next(widgets::labeled_width(fs * 4.5f, "steps"));
    if (int_field("steps", &e.steps, fs * 4.5f)) changed = true;
    next(widgets::labeled_width(fs * 5.0f, "learning rate"));
    ImGui::SetNextItemWidth(fs * 5.0f);
    ImGui::InputDouble("learning rate", &e.lr, 0, 0, "%.4g");
    if (ImGui::IsItemDeactivatedAfterEdit()) changed = true;
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("H:");
    for (int v : {8, 16, 32, 64}) {
      widgets::same_line_if_fits(widgets::check_width(std::to_string(v).c_str()));
      ImGui::PushID(v);
      if (ImGui::RadioButton(std::to_string(v).c_str(), e.hidden == v)) e.hidden = v, changed = true;
      ImGui::PopID();
    }
    if (e.hidden != 32) widgets::dim_after("(H other than 32: trained from scratch here)");
    if (changed) set_translate_input(s, e);
  }

  // --- Train / Pause / Continue / Reset, progress
  const tl::TranslateTrainer* tr = t.trainer.get();
  {
    const bool can_continue = tr && !t.running && !tr->done() && tr->step() > 0 && !t.from_checkpoint;
    if (ImGui::Button("Train")) translate_train(s);
    widgets::same_line_if_fits(widgets::button_width("Pause"));
    ImGui::BeginDisabled(!t.running);
    if (ImGui::Button("Pause")) translate_pause(s);
    ImGui::EndDisabled();
    widgets::same_line_if_fits(widgets::button_width("Continue"));
    ImGui::BeginDisabled(!can_continue);
    if (ImGui::Button("Continue")) translate_continue(s);
    ImGui::EndDisabled();
    widgets::same_line_if_fits(widgets::button_width("Reset"));
    if (ImGui::Button("Reset")) translate_reset(s);
    tr = t.trainer.get();
    const int step = tr ? tr->step() : 0, total = tr ? tr->config().steps : cur.steps;
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "step %d / %d", step, total);
    widgets::same_line_if_fits(fs * 12, fs);
    ImGui::ProgressBar(total > 0 ? static_cast<float>(step) / total : 0.0f,
                       ImVec2(std::max(fs * 10, widgets::width_left()), 0), overlay);
    txt::note((std::string(t.from_checkpoint ? "done (the shipped run)" : status(t)) + "; " +
               (t.steps_per_second > 0 ? short_number(t.steps_per_second, 3) : std::string("-")) +
               " steps/s (both models); batches of 16 sentence pairs, Adam, clip 1, E = H = A = " +
               std::to_string(cur.hidden) + "; run " + std::to_string(t.runs))
                  .c_str());
    using CS = TranslateCheckpoint::Status;
    if (t.from_checkpoint) {
      txt::note(("Opened trained: the default pair after " + std::to_string(step) +
                 " steps, from the shipped checkpoint (" + short_number(t.checkpoint.bytes / 1000.0, 3) +
                 " kB, fetched when this panel opened). Train runs the same seed here.")
                    .c_str());
    }
    if (t.reproduction.compared) {
      const TranslateReproduction& r = t.reproduction;
      const std::string what = t.from_checkpoint ? "The shipped checkpoint's parameters" : "This run's parameters";
      txt::note((r.same ? what + " are bit for bit those of the precomputed native run at H " + std::to_string(r.hidden) +
                              " (FNV-1a of the float64 bits: " + r.none_fnv1a + ", " + r.additive_fnv1a + ")."
                        : what + " differ from the precomputed native run at H " + std::to_string(r.hidden) +
                              " (FNV-1a " + r.none_fnv1a + ", " + r.additive_fnv1a + "; the table's " + r.want_none_fnv1a +
                              ", " + r.want_additive_fnv1a + "): this build does not reproduce it.")
                    .c_str());
    }
    if (t.from_checkpoint) {
    } else if (t.checkpoint.status == CS::requested) {
      txt::note("Fetching the trained checkpoint of the default pair...");
    } else if (t.checkpoint.status == CS::failed) {
      txt::note(("The trained checkpoint is not available (" + t.checkpoint.message +
                 "); press Train to train the default pair here.")
                    .c_str());
    }
  }
  if (!tr) return;

  // --- loss curves: training (per step) and validation (every eval_every steps)
  const txt::TwoColumns col = txt::two_columns(0.5f);
  const ImU32 c_none = IM_COL32(214, 120, 20, 255), c_add = IM_COL32(31, 111, 178, 255);
  txt::begin_column(col.left_w);
  style::heading(ui.fonts, "Training loss");
  {
    double ymax = 1.0;
    for (double v : t.curve_none) ymax = std::max(ymax, v * 1.05);
    for (double v : t.curve_additive) ymax = std::max(ymax, v * 1.05);
    if (t.curve_x.size() >= 2) {
      plot::line_plot("train loss", t.curve_x,
                      {plot::Series{"fixed summary", t.curve_none, c_none, false},
                       plot::Series{"attention", t.curve_additive, c_add, false}},
                      false, 0.0, ymax, col.left_w, fs * 12, "step", "cross-entropy", 6, false);
    } else {
      txt::note("No steps yet: press Train.");
    }
    txt::note(("Mean cross-entropy per target word of each step's batch (teacher forcing)" +
               std::string(t.curve_stride > 1 ? ", averaged over " + std::to_string(t.curve_stride) + " steps" : "") + ".")
                  .c_str());
  }
  txt::end_column(col.left_w);
  if (col.two) ImGui::SameLine(col.x0 + col.left_w + col.gap);
  txt::begin_column(col.right_w);
  style::heading(ui.fonts, "Validation loss");
  {
    std::vector<double> xs;
    for (int v : tr->validation_steps()) xs.push_back(v);
    const std::vector<double>& vn = tr->validation_losses(false);
    const std::vector<double>& va = tr->validation_losses(true);
    double ymax = 1.0;
    for (double v : vn) ymax = std::max(ymax, v * 1.05);
    for (double v : va) ymax = std::max(ymax, v * 1.05);
    if (xs.size() >= 2 && vn.size() == xs.size() && va.size() == xs.size()) {
      plot::line_plot("validation loss", xs,
                      {plot::Series{"fixed summary", vn, c_none, false}, plot::Series{"attention", va, c_add, false}},
                      false, 0.0, ymax, col.right_w, fs * 12, "step", "cross-entropy", 6, true);
    } else {
      txt::note("Validation runs at step 0 and every 50 steps.");
    }
    txt::note("The same loss on held-out sentences no batch contains (teacher forced).");
  }
  txt::end_column(col.right_w);

  // --- accuracy by source length
  style::heading(ui.fonts, "Accuracy by source length (test set, greedy decoding)");
  if (t.running) ImGui::TextDisabled("Scored when training stops (end or pause).");
  if (t.scores) {
    const TranslateScores& sc = *t.scores;
    HeatmapSpec spec;
    spec.values = &sc.table;
    spec.row_labels = &sc.table_rows;
    spec.col_labels = &sc.table_cols;
    spec.value_name = "fraction";
    spec.row_axis = "source length (sentences)";
    spec.col_axis = "model, measure";
    spec.version = static_cast<std::uint64_t>(sc.step) + 1;
    spec.numbers = true;
    const txt::TwoColumns acc = txt::two_columns(0.55f);
    txt::begin_column(acc.left_w);
    spec.width = std::min(acc.left_w, fs * 34);
    spec.max_cell = fs * 5.5f;
    heatmap("translate_accuracy", spec, ui.gpu);
    txt::end_column(acc.left_w);
    if (acc.two) ImGui::SameLine(acc.x0 + acc.left_w + acc.gap);
    txt::begin_column(acc.right_w);
    {
      // Both models on one plot: exact match (solid) and token accuracy (dashed) per bucket,
      // at each bucket's longest source.
      std::vector<double> xs, ne, nt, ae, at;
      for (size_t i = 0; i < sc.none.buckets.size() && i < sc.additive.buckets.size(); ++i) {
        xs.push_back(sc.none.buckets[i].bucket.hi);
        ne.push_back(sc.none.buckets[i].exact_match), nt.push_back(sc.none.buckets[i].token_accuracy);
        ae.push_back(sc.additive.buckets[i].exact_match), at.push_back(sc.additive.buckets[i].token_accuracy);
      }
      const ImU32 cn = IM_COL32(214, 120, 20, 255), ca = IM_COL32(31, 111, 178, 255);
      if (xs.size() >= 2)
        plot::line_plot("accuracy by length", xs,
                        {plot::Series{"summary exact", ne, cn, false}, plot::Series{"attention exact", ae, ca, false},
                         plot::Series{"summary tokens", nt, cn, true}, plot::Series{"attention tokens", at, ca, true}},
                        false, 0.0, 1.0, acc.right_w, fs * 14, "longest source in the bucket (words)", "fraction");
    }
    txt::end_column(acc.right_w);
    ImGui::TextWrapped("%s", sc.caption.c_str());
    txt::note("Exact: the greedy output equals the reference sentence. Tokens: reference words the output has at "
              "the same position. In brackets: test sentences per length bucket.");
  }

  // --- what the H control measured: the precomputed table of every width
  style::heading(ui.fonts, "What a wider state changes (exact match by width H)");
  if (!t.widths.error.empty()) {
    txt::note(t.widths.error.c_str());
  } else if (!t.widths.rows.empty()) {
    HeatmapSpec ws;
    ws.values = &t.widths.table;
    ws.row_labels = &t.widths.table_rows;
    ws.col_labels = &t.widths.table_cols;
    ws.value_name = "exact match";
    ws.row_axis = "width H (= E = A)";
    ws.col_axis = "model, source length";
    ws.version = 1;
    ws.numbers = true;
    ws.vmin = 0.0;
    ws.vmax = 1.0;
    ws.width = std::min(ImGui::GetContentRegionAvail().x, fs * 40);
    ws.max_cell = fs * 4.5f;
    heatmap("translate_widths", ws, ui.gpu);
    ImGui::TextWrapped("%s", t.widths.caption.c_str());
    txt::note(cur.seed == 17 && cur.steps == 1000 && cur.lr == 5e-3
                  ? ("Your run is the H " + std::to_string(cur.hidden) + " row's configuration; Train reproduces it here.").c_str()
                  : "The table is for seed 17, 1000 steps and learning rate 0.005; your run's own figures are above.");
  }

  // --- the learned alignment beside the constructed one
  style::heading(ui.fonts, "Alignment: learned vs constructed");
  {
    static char buf[512];
    static std::string shown;
    if (shown != cur.sentence) {
      std::snprintf(buf, sizeof buf, "%s", cur.sentence.c_str());
      shown = cur.sentence;
    }
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 30, "sentence"));
    ImGui::InputText("sentence", buf, sizeof buf);
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      TranslateInput e = cur;
      e.sentence = buf;
      if (!set_translate_input(s, e)) shown.clear();
    }
    for (const char* ex : {"the black cat", "the big dog sees a white mouse",
                           "a small grey horse chases the black cat with a big blue ball and the dog eats a green book"}) {
      widgets::same_line_if_fits(widgets::button_width(ex));
      if (widgets::wrapped_button(ex)) {
        TranslateInput e = cur;
        e.sentence = ex;
        set_translate_input(s, e);
      }
    }
    // Any held-out sentence, by its number in the test set.
    static int test_index = 1;
    const int n_test = static_cast<int>(t.trainer ? t.trainer->data().test.size() : 0);
    widgets::same_line_if_fits(widgets::labeled_width(fs * 4.0f, "test sentence (1-300)"), fs);
    ImGui::SetNextItemWidth(fs * 4.0f);
    const std::string label = "test sentence (1-" + std::to_string(n_test) + ")";
    ImGui::InputInt(label.c_str(), &test_index, 0, 0);
    if (ImGui::IsItemDeactivatedAfterEdit()) pick_translate_test_sentence(s, test_index);
  }
  const txt::TwoColumns ac = txt::two_columns(0.6f);
  txt::begin_column(ac.left_w);
  if (t.alignment) {
    const TranslateAlignmentView& v = *t.alignment;
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("Learned (attention model, step %d)", v.step);
    ImGui::PopFont();
    HeatmapSpec spec;
    spec.values = &v.weights;
    spec.row_labels = &v.result.target_words;
    spec.col_labels = &v.result.source_words;
    spec.row_sums = &v.row_sums;
    spec.row_axis = "target";
    spec.col_axis = "source";
    spec.version = s.generation;
    spec.numbers = true;
    spec.width = ac.left_w;
    spec.max_cell = 48.0f;
    const int traced = std::min(cur.row, static_cast<int>(v.weights.rows()) - 1);
    spec.selected_row = traced;
    const HeatmapEvent ev = heatmap("translate_alignment", spec, ui.gpu);
    if (ev.clicked_row >= 0 && ev.clicked_row != cur.row) {
      TranslateInput e = cur;
      e.row = ev.clicked_row;
      set_translate_input(s, e);
    }
    if (traced >= 0) {
      // The traced row: where this target word's decoder step reads, word by word.
      plot::BarColumn bc;
      bc.title = "weight of \"" + v.result.target_words[static_cast<size_t>(traced)] + "\"";
      for (int j = 0; j < v.weights.cols(); ++j) bc.values.push_back(v.weights(traced, j));
      bc.max = 1.0;
      plot::bar_table("translate_trace", v.result.source_words, {bc}, std::min(ac.left_w, fs * 24));
      ImGui::TextDisabled("Click a row to trace it.");
    }
    ImGui::TextWrapped("Greedy translation: %s%s", v.greedy.c_str(), v.result.greedy.ended ? "" : " (no <eos>)");
    style::check_lines(v.checks);
    ImGui::TextWrapped("%s", v.caption.c_str());
    txt::note("Rows: the reference French words then <eos>, teacher forced; columns: the English words.");
  } else if (t.running) {
    txt::note("Read when training stops.");
  }
  txt::end_column(ac.left_w);
  if (ac.two) ImGui::SameLine(ac.x0 + ac.left_w + ac.gap);
  txt::begin_column(ac.right_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Constructed (the lesson's, not learned)");
  ImGui::PopFont();
  HeatmapSpec ls;
  ls.values = &t.lesson_weights;
  ls.row_labels = &t.lesson_rows;
  ls.col_labels = &t.lesson_cols;
  ls.row_sums = &t.lesson_row_sums;
  ls.row_axis = "target";
  ls.col_axis = "source";
  ls.version = 1;
  ls.numbers = true;
  ls.width = ac.right_w;
  ls.max_cell = 48.0f;
  heatmap("translate_lesson_alignment", ls, ui.gpu);
  txt::note("The lesson wrote these weights by hand to show the idea (each French word reads its English word). "
            "A trained model need not do that: compare the measured matrix on the left.");
  txt::end_column(ac.right_w);
  if (t.alignment) draw_decoding(s, ui);
}

}  // namespace

void draw_translate_panel(AppState& s, Ui& ui) {
  ImGui::PushTextWrapPos(0.0f);
  draw_body(s, ui);
  ImGui::PopTextWrapPos();
}

}  // namespace app
