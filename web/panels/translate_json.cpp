// Translate panel: state() and set() — the panel's inputs, its run and its results as JSON, and
// the set() patch forwarded to the setters in translate.cpp.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "app/app_state.hpp"
#include "panels/translate.hpp"
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;
namespace tl = attn::lessons;

namespace {

Json bucket_json(const tl::BucketAccuracy& b) {
  return ::attn::obj({{"exact_match", b.exact_match}, {"token_accuracy", b.token_accuracy}, {"exact", b.exact},
              {"correct", b.correct},         {"tokens", b.tokens},                 {"sentences", b.sentences}});
}

// Each key null: results not computed, or not the ones the panel shows.
void put_nulls(Json& out, std::initializer_list<const char*> keys) {
  for (const char* k : keys) out[k] = nullptr;
}

double mean_of(const std::vector<double>& v, size_t from, size_t to) {
  to = std::min(to, v.size());
  if (from >= to) return 0.0;
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / static_cast<double>(to - from);
}
}  // namespace

Json translate_inputs_json(const TranslateInput& in) {
  return ::attn::obj({{"seed", in.seed},         {"steps", in.steps},           {"lr", in.lr},      {"hidden", in.hidden},
              {"encoder", in.encoder},
              {"sentence", in.sentence}, {"beam_width", in.beam_width}, {"alpha", in.alpha}, {"row", in.row}});
}

// "losses": both models' training losses (thinned to 2000 points), means, validation losses.
static void put_losses(Json& out, const TranslateState& t) {
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
    out["losses"] = ::attn::obj({{"stride", stride},
                         {"note", "none[k] is the loss of step k*stride + 1 (steps count from 1)"},
                         {"none", none},
                         {"additive", add},
                         {"first10", ::attn::obj({{"none", mean_of(a, 0, 10)}, {"additive", mean_of(b, 0, 10)}})},
                         {"last10", ::attn::obj({{"none", mean_of(a, last >= 10 ? last - 10 : 0, last)},
                                     {"additive", mean_of(b, last >= 10 ? last - 10 : 0, last)}})},
                         {"validation_steps", tr.validation_steps()},
                         {"none_validation", tr.validation_losses(false)},
                         {"additive_validation", tr.validation_losses(true)}});
  } else {
    out["losses"] = nullptr;
  }
}

// "accuracy" and "agreement": the test set's scores by source length, and the most-read removal.
static void put_scores(Json& out, const TranslateState& t) {
  if (t.scores) {
    const TranslateScores& sc = *t.scores;
    Json buckets = Json::array();
    for (size_t i = 0; i < sc.none.buckets.size() && i < sc.additive.buckets.size(); ++i) {
      const tl::BucketAccuracy& n = sc.none.buckets[i];
      buckets.push_back(::attn::obj({{"lo", n.bucket.lo}, {"hi", n.bucket.hi}, {"sentences", n.sentences},
                             {"none", bucket_json(n)}, {"additive", bucket_json(sc.additive.buckets[i])}}));
    }
    out["accuracy"] = ::attn::obj({{"step", sc.step},
                           {"set", "test"},
                           {"buckets", buckets},
                           {"overall", ::attn::obj({{"none", bucket_json(sc.none.overall)}, {"additive", bucket_json(sc.additive.overall)}})},
                           {"caption", sc.caption}});
    const auto agree = [](const tl::BucketAgreement& a) {
      return ::attn::obj({{"lo", a.bucket.lo},          {"hi", a.bucket.hi},     {"sentences", a.sentences},
                  {"targets", a.targets},       {"on_source", a.on_source}, {"share", a.share},
                  {"mean_weight", a.mean_weight}});
    };
    Json ab = Json::array();
    for (const tl::BucketAgreement& a : sc.agreement.buckets) ab.push_back(agree(a));
    out["agreement"] = ::attn::obj({{"step", sc.step}, {"set", "test"}, {"buckets", ab}, {"overall", agree(sc.agreement.overall)},
                            {"caption", sc.agreement_caption}});
    out["accuracy"]["most_read_removal"] = ::attn::obj({{"sentences", sc.removal.sentences},
                                                {"exact_intact", sc.removal.exact_intact},
                                                {"exact_removed", sc.removal.exact_removed},
                                                {"exact_match_intact", sc.removal.exact_match_intact},
                                                {"exact_match_removed", sc.removal.exact_match_removed}});
  } else {
    put_nulls(out, {"accuracy", "agreement"});
  }
}

// "alignment" and "decoding": the sentence's weights, interventions, greedy, teacher forced and beam.
static void put_alignment(Json& out, const TranslateState& t) {
  if (t.alignment) {
    const TranslateAlignmentView& v = *t.alignment;
    const Json rows = attn::to_json(v.weights);
    out["alignment"] = ::attn::obj({{"step", v.step},
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
                            {"caption", v.caption}});
    {
      const tl::AttentionInterventions& iv = v.interventions;
      const tl::TranslationVocab& fr = tl::french_vocab();
      Json removals = Json::array();
      for (const tl::WordRemoval& w : iv.removals)
        removals.push_back(::attn::obj({{"position", w.position}, {"word", w.word}, {"loss", w.loss}, {"delta_loss", w.delta_loss},
                                {"output", tl::words_of(fr, w.output)}, {"exact", w.exact}}));
      Json j{{"loss", iv.loss},           {"output", tl::words_of(fr, iv.output)}, {"exact", iv.exact},
             {"path_max_diff", iv.path_max_diff}, {"removals", removals}, {"caption", v.intervention_caption},
             {"checks", attn::to_json(v.intervention_checks)}};
      j["forced_lesson_weights"] =
          iv.forced_applies ? ::attn::obj({{"weights", tl::lesson_constructed_weights()}, {"loss", iv.forced_loss},
                                   {"delta_loss", iv.forced_delta_loss}, {"output", tl::words_of(fr, iv.forced_output)},
                                   {"exact", iv.forced_exact}})
                            : Json();
      out["alignment"]["interventions"] = j;
    }
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
      greedy.push_back(::attn::obj({{"word", g.word}, {"probability", g.probability}, {"reads", g.reads},
                            {"read_weight", g.read_weight}, {"attention", v.result.greedy.steps[i].attention}}));
    }
    for (const auto& r : v.forced_rows)
      forced.push_back(::attn::obj({{"reference", r.reference}, {"argmax", r.argmax}, {"p_reference", r.p_reference}}));
    for (const auto& b : v.beam_rows)
      beam.push_back(::attn::obj({{"words", b.words}, {"ended", b.ended}, {"length", b.length}, {"log_prob", b.log_prob},
                          {"penalty", b.penalty}, {"score", b.score}}));
    out["decoding"] = ::attn::obj({{"step", v.step},
                           {"greedy", greedy},
                           {"greedy_ended", v.result.greedy.ended},
                           {"teacher_forced", ::attn::obj({{"rows", forced}, {"loss", v.result.forced.loss}})},
                           {"summary_greedy", v.summary_greedy},
                           {"beam", ::attn::obj({{"width", t.input.beam_width}, {"alpha", t.input.alpha}, {"best", v.beam_best},
                                     {"finished", beam}, {"formula", "score = log P(Y) / ((5 + |Y|) / 6)^alpha"},
                                     {"prefix", ::attn::obj({{"forced_rows", v.beam_prefix.forced_rows},
                                                 {"forced_same_bits", v.beam_prefix.forced_same_bits},
                                                 {"forced_max_diff", v.beam_prefix.forced_max_diff},
                                                 {"shared_rows", v.beam_prefix.shared_rows},
                                                 {"shared_same_bits", v.beam_prefix.shared_same_bits},
                                                 {"shared_max_diff", v.beam_prefix.shared_max_diff}})},
                                     {"checks", attn::to_json(v.beam_checks)}})}});
  } else {
    put_nulls(out, {"alignment", "decoding"});
  }
}

// "tokens": a model the user brought, read on its own ids (and what the lab's pair shows is null).
static void put_tokens(Json& out, const TranslateState& t) {
  if (t.tokens) {
    const TranslateTokens& k = *t.tokens;
    const tl::TokenAnalysis& a = k.analysis;
    const int V = k.model.config.tgt_vocab;
    Json greedy = Json::array(), forced = Json::array(), beam = Json::array(), removals = Json::array();
    for (const tl::DecodeStep& st : a.greedy.steps)
      greedy.push_back(::attn::obj({{"token", st.token}, {"probability", st.probability}, {"attention", st.attention}}));
    for (int i = 0; i < a.forced.rows; ++i) {
      const int want = i < static_cast<int>(a.target.size()) ? a.target[static_cast<size_t>(i)] : tl::kTranslateEos;
      forced.push_back(::attn::obj({{"target", want}, {"argmax", a.forced.argmax[static_cast<size_t>(i)]},
                                    {"p_target", a.forced.probs[static_cast<size_t>(i * V + want)]}}));
    }
    const Json rows = attn::to_json(k.weights);
    for (const tl::BeamHypothesis& h : a.beam.finished)
      beam.push_back(::attn::obj({{"tokens", h.tokens}, {"ended", h.ended}, {"log_prob", h.log_prob}, {"score", h.score}}));
    for (const tl::TokenRemoval& w : a.removals)
      removals.push_back(::attn::obj({{"position", w.position}, {"token", w.token}, {"loss", w.loss}, {"delta_loss", w.delta_loss},
                                      {"output", w.output}, {"ended", w.ended}, {"same_output", w.same_output}}));
    out["tokens"] = ::attn::obj(
        {{"source", a.source},
         {"target", a.target},
         {"target_given", a.target_given},
         {"conventions", "ids 0 PAD, 1 BOS (starts decoding), 2 EOS (ends it); greedy stops after source length + 10 steps"},
         {"greedy", ::attn::obj({{"tokens", a.greedy.tokens}, {"ended", a.greedy.ended}, {"steps", greedy}})},
         {"teacher_forced", ::attn::obj({{"rows", forced}, {"loss", a.forced.loss}})},
         {"alignment", k.model.config.attention
                           ? ::attn::obj({{"rows", k.rows}, {"columns", k.cols}, {"weights", rows}, {"row_sums", k.row_sums},
                                          {"max_row_sum_error", a.max_row_sum_error},
                                          {"max_padded_weight", a.max_padded_weight}})
                           : Json(nullptr)},
         {"path_max_diff", a.path_max_diff},
         {"beam", ::attn::obj({{"width", t.input.beam_width}, {"alpha", t.input.alpha}, {"best", a.beam.best}, {"finished", beam},
                               {"prefix", ::attn::obj({{"forced_rows", a.beam_prefix.forced_rows},
                                                       {"forced_max_diff", a.beam_prefix.forced_max_diff},
                                                       {"shared_rows", a.beam_prefix.shared_rows},
                                                       {"shared_max_diff", a.beam_prefix.shared_max_diff}})}})},
         {"removals", removals},
         {"caption", k.caption},
         {"checks", attn::to_json(k.checks)},
         {"needs_lesson_words", tl::lesson_word_analyses()}});
    // The lab's pair waits behind the loaded model; its results are not what the panel shows.
    put_nulls(out, {"accuracy", "agreement", "alignment", "decoding"});
  }
}

Json translate_state_json(const AppState& s) {
  const TranslateState& t = s.translate;
  Json out = Json::object();
  out["inputs"] = translate_inputs_json(t.input);
  run_state_json(out, t.run, progress_of(t.trainer.get(), t.input.steps), kTranslateCheckpointUrl);
  put_losses(out, t);
  if (t.scores_study) {  // while measured in slices: a big model's scores, or a run past its last step
    const tl::TranslateScoresStudy& st = *t.scores_study;
    out["scores_progress"] = ::attn::obj({{"step", t.scores_study_step}, {"phase", st.phase()},
                                          {"units_done", st.units_done()}, {"units_total", st.units_total()}});
  }
  put_scores(out, t);
  put_alignment(out, t);
  {
    Json rows = Json::array();
    for (int i = 0; i < t.lesson_weights.rows(); ++i) {
      Json r = Json::array();
      for (int j = 0; j < t.lesson_weights.cols(); ++j) r.push_back(t.lesson_weights(i, j));
      rows.push_back(r);
    }
    out["lesson_alignment"] = ::attn::obj({{"rows", t.lesson_rows}, {"columns", t.lesson_cols}, {"weights", rows},
                                   {"note", "constructed by the lesson, not learned"}});
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
        return ::attn::obj({{"buckets", b}, {"overall", bucket_json(e.overall)}});
      };
      rows.push_back(::attn::obj({{"hidden", w.hidden}, {"encoder", w.config.bidirectional ? "bidirectional" : "forward"},
                          {"none", model(w.none)}, {"additive", model(w.additive)},
                          {"agreement", ::attn::obj({{"share", w.agreement.overall.share},
                                                     {"mean_weight", w.agreement.overall.mean_weight},
                                                     {"targets", w.agreement.overall.targets}})},
                          {"none_final_loss", w.none_final_loss}, {"additive_final_loss", w.additive_final_loss},
                          {"none_fnv1a", w.none_fnv1a}, {"additive_fnv1a", w.additive_fnv1a}}));
    }
    out["widths"] = ::attn::obj({{"rows", rows},
                         {"note", "precomputed natively from each width's seed (checkpoints/translate_widths.json); "
                                  "seed, steps and learning rate at their defaults"},
                         {"caption", t.widths.caption},
                         {"encoders_caption", t.widths.encoders_caption},
                         {"error", t.widths.error.empty() ? Json(nullptr) : Json(t.widths.error)}});
  }
  {
    const TranslateReproduction& r = t.reproduction;
    out["reproduction"] = r.compared ? ::attn::obj({{"compared_with", "the precomputed run at H " + std::to_string(r.hidden)},
                                            {"same", r.same},
                                            {"none_fnv1a", r.none_fnv1a},
                                            {"additive_fnv1a", r.additive_fnv1a},
                                            {"want_none_fnv1a", r.want_none_fnv1a},
                                            {"want_additive_fnv1a", r.want_additive_fnv1a}})
                                     : Json(nullptr);
  }
  put_tokens(out, t);
  out["error"] = t.error ? ::attn::obj({{"code", t.error->code}, {"message", t.error->message}}) : Json(nullptr);
  return out;
}

bool apply_translate_json(AppState& s, const Json& patch) {
  ensure_translate(s);
  TranslateState& t = s.translate;
  TranslateInput in = t.input;
  RunPatch run;
  bool inputs = false;
  std::optional<int> pick;
  bool unload = false;
  std::optional<std::pair<std::vector<int>, std::vector<int>>> tokens;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (read_run_patch(k, v, in.seed, in.steps, in.lr, run)) continue;
    if (k == "hidden" || k == "H") in.hidden = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "encoder") {
      if (!v.is_string()) run_invalid("encoder must be \"bidirectional\" or \"forward\"");
      in.encoder = v.get<std::string>(), inputs = true;
    }
    else if (k == "sentence") {
      if (!v.is_string()) run_invalid("sentence must be a string");
      in.sentence = v.get<std::string>(), inputs = true;
    } else if (k == "beam_width") in.beam_width = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "row") in.row = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "alpha") {
      if (!v.is_number() || !std::isfinite(v.get<double>())) run_invalid("alpha must be a number");
      in.alpha = v.get<double>(), inputs = true;
    } else if (k == "test_sentence") {
      pick = run_clamp_int(run_integer(v, k));
    } else if (k == "tokens") {
      if (!v.is_object()) run_invalid("tokens must be an object {source: [ids], target: [ids]}");
      std::vector<int> src, tgt;
      for (auto jt = v.begin(); jt != v.end(); ++jt) {
        if (jt.key() != "source" && jt.key() != "target") run_invalid("unknown tokens field '" + jt.key() + "' (source, target)");
        if (!jt->is_array()) run_invalid("tokens." + jt.key() + " must be a list of token ids");
        std::vector<int>& ids = jt.key() == "source" ? src : tgt;
        for (const Json& id : *jt) ids.push_back(run_clamp_int(run_integer(id, "tokens." + jt.key())));
      }
      if (!v.contains("source") && s.translate.tokens) src = s.translate.tokens->source;
      tokens = std::make_pair(src, tgt);
    } else if (k == "model") {
      if (!v.is_null()) run_invalid("model takes null (back to the lab's models); a file comes through the page (loadModel)");
      unload = true;
    } else run_invalid("unknown translate input '" + k + "' (seed, steps, lr, hidden, encoder, sentence, test_sentence, beam_width, alpha, row, train, pause, continue, reset, model, tokens)");
  }
  inputs = inputs || run.inputs;
  if (unload) translate_unload_model(s);
  if (inputs && !set_translate_input(s, in)) return false;
  if (pick && !pick_translate_test_sentence(s, *pick)) return false;
  if (tokens && !set_translate_tokens(s, tokens->first, tokens->second)) return false;
  if (run.reset) translate_reset(s);
  if (run.train) translate_train(s);
  if (run.pause) translate_pause(s);
  if (run.resume) translate_continue(s);
  return true;
}

}  // namespace app
