// Translate panel: two GRU translators of the mini-language trained side by side, a fixed summary
// and additive attention; their loss curves, accuracy by source length on the test set, and the
// attention model's learned alignment of one sentence beside the lesson's constructed matrix.
// Every number comes from core/lessons/translate/ through the setters in this file (training
// slices run before the frame is drawn); this file only formats and forwards edits.
#include "panels/translate.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "panels/lesson_ui.hpp"
#include "learn/checkpoint.hpp"
#include "learn/model.hpp"
#include "lessons/alignment.hpp"
#include "lessons/model_export.hpp"
#include "lessons/translate/captions.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

namespace tl = attn::lessons;

namespace {

constexpr int kCurvePoints = 300;
constexpr int kMaxSteps = 5000;  // ~100 s of wasm per 1000 steps at H 64: more would not finish in a visit
// The Worker's pace for this run (WorkerPace): 100 ms slices and no rest between them, on any
// machine. Alternated in headless Chromium on 2 cores, the default pair, 12 fresh browsers each
// (the machine ran slow): 50 ms slices took 12.6–22.1 s (median 17.2, three runs over the 20 s
// target) against 12.2–19.6 s (median 14.6, none over) at 100 ms, for 6 frames over 50 ms in all
// against 10. A 10 ms rest after each 100 ms slice: 14.1–19.6 s and 6 frames in 6 runs; after
// each 50 ms slice, earlier, 17.5–23.4 s in 3 runs.
constexpr WorkerPace kTranslateWorkerPace{0.100, 0.0};

[[noreturn]] void invalid(const std::string& message) { run_invalid(message); }

// Row sums by the core (w · 1), so the page shows the core's numbers, not its own arithmetic.
std::vector<double> core_row_sums(const attn::Matrix& w) {
  const attn::Matrix sums = attn::matmul(w, attn::Matrix::Ones(w.cols(), 1), "weights·1");
  std::vector<double> out(static_cast<size_t>(sums.rows()));
  for (attn::Index i = 0; i < sums.rows(); ++i) out[static_cast<size_t>(i)] = sums(i, 0);
  return out;
}

void validate(const TranslateInput& in) {
  if (in.steps < 1 || in.steps > kMaxSteps)
    invalid("steps must be between 1 and " + std::to_string(kMaxSteps) + ", got " + std::to_string(in.steps));
  if (in.beam_width < 1 || in.beam_width > 16) invalid("beam width must be between 1 and 16, got " + std::to_string(in.beam_width));
  if (!(in.alpha >= 0.0) || !(in.alpha <= 2.0)) invalid("alpha must be between 0 and 2");
  if (in.hidden != 8 && in.hidden != 16 && in.hidden != 32 && in.hidden != 64)
    invalid("H must be 8, 16, 32 or 64, got " + std::to_string(in.hidden));
  if (in.encoder != "bidirectional" && in.encoder != "forward")
    invalid("encoder must be \"bidirectional\" or \"forward\", got \"" + in.encoder + "\"");
  if (!(in.lr > 0.0) || !(in.lr <= 1.0) || !std::isfinite(in.lr)) invalid("the learning rate must be in (0, 1]");
  if (in.row < 0 || in.row > 64) invalid("row must be between 0 and 64 (it is clamped to the alignment's rows), got " + std::to_string(in.row));
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

// The H table embedded at build time (web/CMakeLists.txt; `attn table translate_widths`).
const char kWidthsJson[] =
#include "attn_translate_widths.inc"
    ;

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
  for (size_t b = 0; b < nb; ++b) w.table_cols.push_back("summary " + tl::range_of(w.rows.front().none.buckets[b].bucket));
  for (size_t b = 0; b < nb; ++b) w.table_cols.push_back("attention " + tl::range_of(w.rows.front().none.buckets[b].bucket));
  for (size_t i = 0; i < w.rows.size(); ++i) {
    const tl::TranslateWidthResult& r = w.rows[i];
    w.table_rows.push_back(std::string(r.config.bidirectional ? "bidirectional" : "forward") + " H " + std::to_string(r.hidden));
    for (size_t b = 0; b < nb && b < r.none.buckets.size() && b < r.additive.buckets.size(); ++b) {
      w.table(static_cast<int>(i), static_cast<int>(b)) = r.none.buckets[b].exact_match;
      w.table(static_cast<int>(i), static_cast<int>(nb + b)) = r.additive.buckets[b].exact_match;
    }
  }
  const TranslateInput defaults;
  w.caption = tl::widths_caption(tl::width_rows_of(w.rows, defaults.encoder == "bidirectional"));
  w.encoders_caption = tl::encoders_caption(w.rows, defaults.hidden);
  return w;
}

// A finished run against the precomputed run of the same configuration, hash for hash.
TranslateReproduction reproduction_of(const TranslateState& t) {
  TranslateReproduction r;
  if (!t.trainer || !t.trainer->done() || t.loaded) return r;  // a loaded model is no table run
  const tl::TranslateTrainer& tr = *t.trainer;
  const Json cfg = tl::translate_config_json(tr.config());
  for (const tl::TranslateWidthResult& w : t.widths.rows) {
    if (tl::translate_config_json(w.config) != cfg) continue;
    r.compared = true;
    r.hidden = w.hidden;
    r.none_fnv1a = attn::learn::params_fnv1a(tr.model(false).params);
    r.additive_fnv1a = attn::learn::params_fnv1a(tr.model(true).params);
    r.want_none_fnv1a = w.none_fnv1a;
    r.want_additive_fnv1a = w.additive_fnv1a;
    r.same = r.none_fnv1a == w.none_fnv1a && r.additive_fnv1a == w.additive_fnv1a;
  }
  if (r.compared) r.sentence = tl::reproduction_sentence(r.same, t.run.from_checkpoint, r.hidden, tr.config().bidirectional,
                                                         r.none_fnv1a,
                                                         r.additive_fnv1a, r.want_none_fnv1a, r.want_additive_fnv1a);
  return r;
}

// The test-set scores of a finished study become the panel's table and captions; the alignment's
// intervention caption, if of the same step, now cites the test set's most-read removal.
void install_scores(AppState& s, const tl::TranslateScoresStudy& st, int step) {
  TranslateState& t = s.translate;
  const tl::TranslateTrainer& tr = *t.trainer;
  computed(t.error, [&] {
    TranslateScores sc;
    sc.step = step;
    sc.none = st.none_eval();
    sc.additive = st.additive_eval();
    sc.caption = tl::scores_caption(sc.none, sc.additive, sc.step, tr.model(false).config.context_dim(),
                                    tr.model(false).config.bidirectional);
    sc.agreement = st.agreement();
    sc.agreement_caption = tl::agreement_caption(sc.agreement, sc.step);
    sc.removal = st.removal();
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
  if (t.scores && t.alignment && t.alignment->step == step)
    t.alignment->intervention_caption =
        tl::intervention_caption(t.alignment->interventions, &t.scores->removal, t.alignment->step);
}

// A model the lab can train is scored in well under a frame: at once. A bigger one (only a
// loaded model can be) is scored across frames, one test sentence per unit (tick_translate).
bool scores_at_once(const tl::TranslateTrainer& tr) {
  return tr.model(false).layout.total() <= attn::learn::kMaxParams && tr.model(true).layout.total() <= attn::learn::kMaxParams;
}

// The test-set scores at the trainer's step: measured in this call when `at_once`, else begun for
// tick_translate to measure a slice per frame.
void refresh_scores(AppState& s, bool at_once) {
  TranslateState& t = s.translate;
  const tl::TranslateTrainer& tr = *t.trainer;
  t.scores_study.reset();
  std::shared_ptr<tl::TranslateScoresStudy> st;
  const bool ok = computed(t.error, [&] {
    st = std::make_shared<tl::TranslateScoresStudy>(tr.model(false), tr.model(true), tr.data().test,
                                                    tr.data().config.buckets);
    if (at_once) st->advance(st->units_total());
  });
  if (!ok) return;
  if (st->done()) {
    install_scores(s, *st, tr.step());
  } else {
    t.scores.reset();  // no figures of another step beside a study under way
    t.scores_study = std::move(st);
    t.scores_study_step = tr.step();
  }
}

// Scores and the alignment of the current step (when a run stops, or the sentence changes).
void refresh_results(AppState& s, bool scores) {
  TranslateState& t = s.translate;
  if (!t.trainer) return;
  const tl::TranslateTrainer& tr = *t.trainer;
  if (scores) refresh_scores(s, scores_at_once(tr));
  computed(t.error, [&] {
    TranslateAlignmentView v;
    v.step = tr.step();
    v.result = tl::translate_alignment(tr.model(true), t.input.sentence);
    const tl::TeacherForced& f = v.result.forced;
    v.weights = attn::Matrix(f.rows, f.src_len);
    for (int i = 0; i < f.rows * f.src_len; ++i) v.weights.data()[i] = f.attention[static_cast<size_t>(i)];
    v.row_sums = core_row_sums(v.weights);
    v.greedy = tl::words_of(tl::french_vocab(), v.result.greedy.tokens);
    v.caption = tl::alignment_caption(v.result, v.step);
    v.interventions = tl::attention_interventions(tr.model(true), t.input.sentence);
    const bool scored_now = t.scores && t.scores->step == v.step;
    v.intervention_caption = tl::intervention_caption(v.interventions, scored_now ? &t.scores->removal : nullptr, v.step);
    v.intervention_checks = {tl::intervention_path_check(v.interventions.path_max_diff)};
    v.checks = v.result.checks;
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
    v.beam_checks = tl::beam_prefix_checks(v.beam_prefix, "words");
    t.alignment = std::move(v);
  });
  changed();
}

// The token model's analyses for its inputs and the panel's beam controls, as drawn; throws the
// core's errors (the state is left alone: the caller installs k only when this returned).
void analyse_tokens(TranslateTokens& k, const TranslateInput& in) {
  k.analysis = tl::token_analysis(k.model, k.source, k.target, in.beam_width, in.alpha);
  const tl::TokenAnalysis& a = k.analysis;
  k.caption = tl::token_caption(a, k.model.config.attention);
  k.rows.clear();
  k.cols.clear();
  for (int id : a.target) k.rows.push_back(std::to_string(id));
  k.rows.push_back("EOS");
  for (size_t j = 0; j < a.source.size(); ++j) k.cols.push_back(std::to_string(j + 1) + ":" + std::to_string(a.source[j]));
  k.weights = attn::Matrix();
  k.row_sums.clear();
  k.checks = a.checks;
  if (k.model.config.attention) {
    k.weights = attn::Matrix(a.forced.rows, a.forced.src_len);
    for (int i = 0; i < a.forced.rows * a.forced.src_len; ++i) k.weights.data()[i] = a.forced.attention[static_cast<size_t>(i)];
    k.row_sums = core_row_sums(k.weights);
  }
}

using StartValidation = tl::TranslateTrainer::StartValidation;

std::shared_ptr<tl::TranslateTrainer> make_trainer(const TranslateInput& in, const TranslateLoaded* loaded,
                                                   StartValidation start = StartValidation::now) {
  if (!loaded) return std::make_shared<tl::TranslateTrainer>(translate_config(in), start);
  return std::make_shared<tl::TranslateTrainer>(translate_config(in), loaded->model, loaded->params, start);
}

// The pair `trainer` (at step 0) replaces the panel's run and its results.
void start_over(AppState& s, std::shared_ptr<tl::TranslateTrainer> trainer) {
  TranslateState& t = s.translate;
  t.trainer = std::move(trainer);
  run_start_over(t.run);
  t.scores.reset();
  t.scores_study.reset();
  t.alignment.reset();
  t.reproduction = TranslateReproduction{};
  rebuild_curve(t);
  refresh_results(s, false);  // one sentence's alignment is cheap; the test set waits for a stop
}

// A new pair at step 0 for the inputs. `start`: its step-0 validation measured now, or (a run
// that starts at once) left to the run's first slices, so that the frame that builds it runs no
// forward pass.
void start_over(AppState& s, StartValidation start = StartValidation::now) {
  start_over(s, make_trainer(s.translate.input, s.translate.loaded.get(), start));
}

}  // namespace

tl::TranslateConfig translate_config(const TranslateInput& in) {
  tl::TranslateConfig cfg;
  cfg.embed = cfg.hidden = cfg.attn_dim = in.hidden;
  cfg.bidirectional = in.encoder == "bidirectional";
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

TranslatorView translator_view(const AppState& s) {
  const TranslateState& t = s.translate;
  return TranslatorView{t.trainer, t.run.from_checkpoint, t.run.running,
                        t.trainer && translate_wants_checkpoint(s, true), t.run.checkpoint};
}

TranslatorView open_translator(AppState& s) {
  ensure_translate(s);
  return translator_view(s);
}

void request_translator_checkpoint(AppState& s) { request_checkpoint(s, translate_panel(), true); }

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
    if (ok) t.input.row = in.row, changed();
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
  if (t.tokens && (in.beam_width != t.input.beam_width || in.alpha != t.input.alpha)) {
    TranslateTokens k = *t.tokens;
    if (!guarded(t.error, [&] { analyse_tokens(k, in); })) return false;
    t.tokens = std::move(k);
  }
  t.input = in;
  if (new_run) {
    start_over(s);
  } else if (!t.run.running) {
    refresh_results(s, false);
  }
  return true;
}

bool set_translate_tokens(AppState& s, const std::vector<int>& source, const std::vector<int>& target) {
  TranslateState& t = s.translate;
  changed();
  if (!t.tokens) {
    t.error = ErrorInfo{"invalid_field", "tokens take a loaded model over other vocabularies (none is loaded)"};
    return false;
  }
  TranslateTokens k = *t.tokens;
  k.source = source;
  k.target = target;
  if (!guarded(t.error, [&] { analyse_tokens(k, t.input); })) return false;
  t.tokens = std::move(k);
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

// Training needs the lesson's pairs: a model over other vocabularies has no data here.
bool refuse_training_tokens(AppState& s) {
  TranslateState& t = s.translate;
  if (!t.tokens) return false;
  t.error = ErrorInfo{"invalid_field", "Train needs the lesson's sentence pairs, and the loaded model's vocabularies (" +
                                           std::to_string(t.tokens->model.config.src_vocab) + " source, " +
                                           std::to_string(t.tokens->model.config.tgt_vocab) +
                                           " target ids) are not the lesson's; Back to the lab's model trains the pair"};
  changed();
  return true;
}

void translate_train(AppState& s) {
  if (refuse_training_tokens(s)) return;
  start_over(s, StartValidation::pending);
  run_started(s.translate.run);
}

namespace {
// Pauses the pair's run (run_paused). A validation the slices left pending is measured first, so
// that a paused run's curves are whole and a run past its last step goes on to its end-of-run
// measurement instead of pausing. True when the run paused.
bool pause_run(TranslateState& t) {
  if (t.trainer && t.run.running) computed(t.error, [&] { t.trainer->advance(0); });
  return run_paused(t.run, t.trainer && t.trainer->done());
}
}  // namespace

void translate_pause(AppState& s) {
  if (pause_run(s.translate)) refresh_results(s, true);
}

void translate_continue(AppState& s) {
  TranslateState& t = s.translate;
  if (refuse_training_tokens(s)) return;
  if (!t.trainer || t.run.running || t.trainer->done() || t.run.from_checkpoint) return;
  run_resumed(t.run, t.trainer->step());
  t.scores_study.reset();  // an earlier step's scores under way: the run's end scores its own step
  changed();
}

void translate_reset(AppState& s) {
  start_over(s);
  refresh_results(s, true);
}

void translate_unload_model(AppState& s) {
  TranslateState& t = s.translate;
  if (t.tokens && !t.loaded) {  // the pair behind it was never touched
    t.tokens.reset();
    t.run.model.reset();
    t.error.reset();
    changed();
    return;
  }
  if (!t.loaded) return;
  t.tokens.reset();
  t.loaded.reset();
  t.run.model.reset();
  start_over(s);
  refresh_results(s, true);
}

bool translate_wants_checkpoint(const AppState& s, bool shown) {
  const TranslateState& t = s.translate;
  return run_wants_checkpoint(t.run, shown,
                              !t.loaded && t.input.same_run(TranslateInput{}) && t.trainer && t.trainer->step() == 0);
}

static void translate_checkpoint_failed(AppState& s, const std::string& message) {
  run_checkpoint_failed(s.translate.run, message);
  refresh_results(s, true);  // the untrained pair, so the table is not empty
}

static bool translate_install_checkpoint(AppState& s, const std::uint8_t* data, std::size_t size) {
  TranslateState& t = s.translate;
  changed();
  const auto take = [&] {
    const tl::TranslateRun run = default_run_from_checkpoint(data, size, tl::translate_run_from_checkpoint,
                                                             tl::translate_config_json, translate_config(TranslateInput{}));
    if (t.loaded || !t.input.same_run(TranslateInput{}) || !t.trainer || t.trainer->step() != 0 || t.run.running)
      return false;
    t.trainer = std::make_shared<tl::TranslateTrainer>(run);
    return true;
  };
  return run_install_checkpoint(t.run, size, take, [&] {
    rebuild_curve(t);
    refresh_results(s, true);
    host_trained_event(s, "translate", t.trainer->step(), "checkpoint");
  });
}

namespace {
// The run's last part, after its last step: the test-set scores at that step, one test sentence
// per unit (run_end_slice), then the typed sentence's alignment, which cites them.
void tick_run_end(AppState& s, double budget_seconds) {
  TranslateState& t = s.translate;
  const int step = t.trainer->step();
  run_end_slice(
      t.error, t.run, t.scores_study, t.scores_study_step, step, budget_seconds,
      [&] {
        refresh_scores(s, false);
        return t.scores_study != nullptr;
      },
      [&] {
        const std::shared_ptr<tl::TranslateScoresStudy> keep = std::move(t.scores_study);
        install_scores(s, *keep, step);
      },
      [&] {
        refresh_results(s, false);  // the alignment of the last step, citing its scores when they are in
        host_trained_event(s, "translate", step, "trained here");
      });
}
}  // namespace

bool tick_translate(AppState& s, double budget_seconds) {
  TranslateState& t = s.translate;
  if (t.scores_study && t.trainer && !t.run.running) {  // a big model's scores, one slice per frame
    if (run_study_slice(t.error, budget_seconds, t.scores_study) && t.scores_study->done()) {
      const std::shared_ptr<tl::TranslateScoresStudy> keep = std::move(t.scores_study);
      install_scores(s, *keep, t.scores_study_step);
    }
    changed();
    return true;
  }
  if (!t.run.running || !t.trainer) return false;
  tl::TranslateTrainer& tr = *t.trainer;
  if (run_in_worker(t.run, tr.done())) {
    if (run_worker_tick(t.error, t.run, tr, 0, kTranslateWorkerPace, [] {}, [&] { rebuild_curve(t); })) changed();
    return true;
  }
  if (!tr.done()) t.run.steps_in = "page";
  if (run_tick(t.error, t.run, tr, budget_seconds, [&] { return tr.advance_part() != 0; },
               [&] { tick_run_end(s, budget_seconds); }))
    rebuild_curve(t);
  changed();
  return true;
}

namespace {
// "additive" (or ""): the attention model; "none": the fixed summary.
std::string translate_export(const AppState& s, const std::string& which, std::string& file_name) {
  const TranslateState& t = s.translate;
  if (which != "" && which != "additive" && which != "none")
    invalid("the Translate panel's models are \"none\" (the fixed summary) and \"additive\", not \"" + which + "\"");
  if (t.tokens) {  // the model shown, as it came (it cannot train here)
    const bool attention = t.tokens->model.config.attention;
    if (which != "" && which != (attention ? "additive" : "none"))
      invalid(std::string("the Translate panel shows a loaded ") + (attention ? "additive" : "none") +
              " model: export it with \"\" or \"" + (attention ? "additive" : "none") + "\", not \"" + which + "\"");
    file_name = std::string("translate_loaded_") + (attention ? "additive" : "none") + ".safetensors";
    return tl::seq2seq_model_safetensors(t.tokens->model.config, t.tokens->model.params);
  }
  if (!t.trainer) invalid("the Translate panel has no models yet (open it first)");
  const bool attention = which != "none";
  const tl::TranslateTrainer& tr = *t.trainer;
  file_name = std::string("translate_") + (attention ? "additive" : "none") + "_step" + std::to_string(tr.step()) +
              ".safetensors";
  if (t.loaded && t.loaded->model.attention == attention)  // the loaded model's slot: its own shape, not the inputs'
    return tl::seq2seq_model_safetensors(tr.model(attention).config, tr.model(attention).params);
  return tl::translate_model_safetensors(tr.config(), attention, tr.step(), tr.model(attention).params);
}

void translate_model_refused(AppState& s, const std::string& code, const std::string& message) {
  run_model_refused(s.translate.run, s.translate.error, code, message);
  changed();
}

std::string seq2seq_config_line(const attn::learn::Seq2SeqConfig& c) {
  return std::string("seq2seq, ") + (c.attention ? "additive attention" : "fixed summary") + ", source vocab " +
         std::to_string(c.src_vocab) + ", target vocab " + std::to_string(c.tgt_vocab) + ", E " + std::to_string(c.embed) +
         ", H " + std::to_string(c.hidden) + (c.attention ? ", A " + std::to_string(c.attn_dim) : std::string()) +
         (c.bidirectional ? ", bidirectional encoder" : ", forward encoder");
}

// A model over other vocabularies: shown instead of the pair, tokens as numbers.
bool translate_install_tokens(AppState& s, const std::string& name, std::size_t bytes, attn::learn::ModelFile&& file) {
  TranslateState& t = s.translate;
  TranslateTokens k;
  std::optional<ErrorInfo> e;
  const bool ok = guarded(e, [&] {
    k.model.config = file.model.seq2seq;
    k.model.layout = attn::learn::seq2seq_layout(k.model.config);
    k.model.params = std::move(file.params);
    k.source = tl::default_token_source(k.model.config);
    analyse_tokens(k, t.input);
  });
  if (!ok) {
    translate_model_refused(s, e->code, name + ": " + e->message);
    return false;
  }
  run_model_loaded(t.run, name, bytes, seq2seq_config_line(k.model.config), k.model.params);
  // The pair behind the loaded model pauses (past its last step it finishes its measurement);
  // a loaded pair, replaced, starts over below.
  const bool paused = pause_run(t);
  t.tokens = std::move(k);
  t.error.reset();
  if (t.loaded) {  // a lesson-vocabulary model loaded before leaves the pair
    t.loaded.reset();
    start_over(s);
    refresh_results(s, true);
  } else if (paused) {
    refresh_results(s, true);  // as a pause does: the pair's figures at the step it stopped at
  }
  return true;
}

bool translate_install_model(AppState& s, const std::string& name, std::size_t bytes, attn::learn::ModelFile&& file) {
  ensure_translate(s);
  TranslateState& t = s.translate;
  changed();
  if (!tl::lesson_vocabularies(file.model.seq2seq)) return translate_install_tokens(s, name, bytes, std::move(file));
  auto loaded = std::make_shared<TranslateLoaded>(TranslateLoaded{file.model.seq2seq, std::move(file.params)});
  std::optional<ErrorInfo> e;
  std::shared_ptr<tl::TranslateTrainer> trainer;  // built once: it checks the lesson's vocabularies
  if (!guarded(e, [&] { trainer = make_trainer(t.input, loaded.get()); })) {
    translate_model_refused(s, e->code, name + ": " + e->message);
    return false;
  }
  run_model_loaded(t.run, name, bytes, seq2seq_config_line(loaded->model), loaded->params);
  t.tokens.reset();
  t.loaded = std::move(loaded);
  t.error.reset();
  start_over(s, std::move(trainer));  // alignment and decoding of the model as it came
  refresh_scores(s, scores_at_once(*t.trainer));  // accuracy by length, agreement, most-read removal (in slices for a big model)
  return true;
}

const ModelHooks kModel = {attn::learn::ModelKind::seq2seq, translate_install_model, translate_model_refused,
                           translate_export, [](const AppState& s) { return s.translate.run.model ? &*s.translate.run.model : nullptr; }};

const CheckpointHooks kCheckpoint = {kTranslateCheckpointUrl, translate_wants_checkpoint,
                                     checkpoint_requested_hook<&AppState::translate>, translate_install_checkpoint,
                                     translate_checkpoint_failed};

// The panel's model is built on first show, never at page start; then the training slice, before
// anything is drawn.
void translate_tick(AppState& s, bool shown) {
  if (shown) ensure_translate(s);
  // The Worker's script and wasm load, and it rehearses the run, while the panel is read.
  if (shown)
    train_worker::warm("translate", [&s] {
      const TranslateState& t = s.translate;
      return attn::learn::encode_checkpoint(make_trainer(t.input, t.loaded.get(), StartValidation::pending)->state_checkpoint());
    });
  tick_translate(s);
}
}  // namespace

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"translate", "Translate", "fixed summary vs attention", "Translate: a fixed summary against attention",
    translate_state_json, apply_translate_json, error_of<&AppState::translate>,
    [](const AppState& s) { return translate_inputs_json(s.translate.input); },  // never the run
    draw_translate_panel, [](AppState& s, bool) { ensure_translate(s); }, translate_tick,
    [](const AppState& s) { return run_needs_frames(s.translate.run) || s.translate.scores_study != nullptr; }, &kCheckpoint, &kModel,
    [](const AppState& s) { return s.translate.run.running; }};
const PanelDef& translate_panel() { return kPanel; }

}  // namespace app
