#include "lessons/translate/widths.hpp"

#include <string>

#include "attn/error.hpp"
#include "learn/json_obj.hpp"
#include "learn/params.hpp"
#include "lessons/translate/trainer.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

TranslateConfig translate_width_config(const TranslateConfig& base, int hidden) {
  TranslateConfig c = base;
  c.embed = c.hidden = c.attn_dim = hidden;
  return c;
}

namespace {

TranslateWidthResult width_result(const TranslateTrainer& tr) {
  TranslateWidthResult r;
  r.config = tr.config();
  r.hidden = r.config.hidden;
  const TranslationDataset& d = tr.data();
  r.none = evaluate_translation(tr.model(false), d.test, d.config.buckets);
  r.additive = evaluate_translation(tr.model(true), d.test, d.config.buckets);
  r.agreement = alignment_agreement(tr.model(true), d.test, d.config.buckets);
  if (!tr.losses(false).empty()) r.none_final_loss = tr.losses(false).back();
  if (!tr.losses(true).empty()) r.additive_final_loss = tr.losses(true).back();
  r.none_fnv1a = learn::params_fnv1a(tr.model(false).params);
  r.additive_fnv1a = learn::params_fnv1a(tr.model(true).params);
  return r;
}

Json counts_json(const BucketAccuracy& a) {
  return ::attn::obj({{"lo", a.bucket.lo}, {"hi", a.bucket.hi}, {"sentences", a.sentences},
              {"exact", a.exact}, {"tokens", a.tokens}, {"correct", a.correct}});
}

int count_field(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer() || j[key].get<long long>() < 0 ||
      j[key].get<long long>() > 1000000000)
    bad(where + ": needs a non-negative integer \"" + key + "\"");
  return j[key].get<int>();
}

// A bucket's row: its range and sentence count, the rest the caller's.
template <class Row>
Row bucket_row_from_json(const Json& j, const std::string& where) {
  Row a;
  a.bucket = {count_field(j, "lo", where), count_field(j, "hi", where)};
  a.sentences = count_field(j, "sentences", where);
  return a;
}

BucketAccuracy counts_from_json(const Json& j, const std::string& where) {
  BucketAccuracy a = bucket_row_from_json<BucketAccuracy>(j, where);
  a.exact = count_field(j, "exact", where);
  a.tokens = count_field(j, "tokens", where);
  a.correct = count_field(j, "correct", where);
  if (a.exact > a.sentences || a.correct > a.tokens)
    bad(where + ": more exact sentences or correct words than it has");
  a.exact_match = a.sentences ? static_cast<double>(a.exact) / a.sentences : 0.0;
  a.token_accuracy = a.tokens ? static_cast<double>(a.correct) / a.tokens : 0.0;
  return a;
}

Json agreement_counts_json(const BucketAgreement& a) {
  return ::attn::obj({{"lo", a.bucket.lo}, {"hi", a.bucket.hi}, {"sentences", a.sentences}, {"targets", a.targets},
                      {"on_source", a.on_source}, {"weight_sum", a.weight_sum}});
}

BucketAgreement agreement_counts_from_json(const Json& j, const std::string& where) {
  BucketAgreement a = bucket_row_from_json<BucketAgreement>(j, where);
  a.targets = count_field(j, "targets", where);
  a.on_source = count_field(j, "on_source", where);
  if (!j.contains("weight_sum") || !j["weight_sum"].is_number()) bad(where + ": needs the number \"weight_sum\"");
  a.weight_sum = j["weight_sum"].get<double>();
  if (a.on_source > a.targets || !(a.weight_sum >= 0.0) || a.weight_sum > a.targets)
    bad(where + ": more words on their source, or more weight, than it has target words");
  a.share = a.targets ? static_cast<double>(a.on_source) / a.targets : 0.0;
  a.mean_weight = a.targets ? a.weight_sum / a.targets : 0.0;
  return a;
}

Json eval_counts_json(const TranslateEval& e) {
  Json rows = Json::array();
  for (const BucketAccuracy& b : e.buckets) rows.push_back(counts_json(b));
  return ::attn::obj({{"buckets", rows}, {"overall", counts_json(e.overall)}});
}

TranslateEval eval_counts_from_json(const Json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("buckets") || !j["buckets"].is_array() || j["buckets"].empty() ||
      !j.contains("overall"))
    bad(where + ": needs \"buckets\" (a non-empty array) and \"overall\"");
  TranslateEval e;
  for (size_t i = 0; i < j["buckets"].size(); ++i)
    e.buckets.push_back(counts_from_json(j["buckets"][i], where + ".buckets[" + std::to_string(i) + "]"));
  e.overall = counts_from_json(j["overall"], where + ".overall");
  return e;
}

}  // namespace

TranslateWidthResult translate_width_result(const TranslateConfig& base, int hidden) {
  const TranslateConfig cfg = translate_width_config(base, hidden);
  TranslateTrainer tr(cfg);
  tr.advance(cfg.steps);
  return width_result(tr);
}

TranslateWidthResult translate_width_result_of(const TranslateRun& run) { return width_result(TranslateTrainer(run)); }

Json translate_widths_json(const TranslateConfig& base, const std::vector<TranslateWidthResult>& rows) {
  Json widths = Json::array();
  for (const TranslateWidthResult& r : rows)
    widths.push_back(::attn::obj({{"hidden", r.hidden}, {"config", translate_config_json(r.config)},
                          {"none", eval_counts_json(r.none)}, {"additive", eval_counts_json(r.additive)},
                          {"agreement", [&] {
                             Json rows = Json::array();
                             for (const BucketAgreement& b : r.agreement.buckets) rows.push_back(agreement_counts_json(b));
                             return ::attn::obj({{"buckets", rows}, {"overall", agreement_counts_json(r.agreement.overall)}});
                           }()},
                          {"none_final_loss", r.none_final_loss}, {"additive_final_loss", r.additive_final_loss},
                          {"none_fnv1a", r.none_fnv1a}, {"additive_fnv1a", r.additive_fnv1a}}));
  return ::attn::obj({{"table", "translate_widths"},
              {"generated_by", "attn table translate_widths (core/cli/attn_main.cpp; lessons/translate.hpp "
                               "translate_width_result): each width trained from its seed natively"},
              {"base", translate_config_json(base)},
              {"widths", widths}});
}

std::vector<TranslateWidthResult> translate_widths_from_json(const Json& j) {
  if (!j.is_object() || j.value("table", "") != "translate_widths" || !j.contains("widths") || !j["widths"].is_array())
    bad("translate widths table: needs \"table\": \"translate_widths\" and a \"widths\" array");
  std::vector<TranslateWidthResult> out;
  for (size_t i = 0; i < j["widths"].size(); ++i) {
    const Json& w = j["widths"][i];
    const std::string where = "translate widths table: widths[" + std::to_string(i) + "]";
    if (!w.is_object() || !w.contains("config")) bad(where + ": needs a \"config\"");
    TranslateWidthResult r;
    r.hidden = count_field(w, "hidden", where);
    r.config = translate_config_from_json(w["config"]);
    if (r.config.hidden != r.hidden) bad(where + ": its config's hidden differs from \"hidden\"");
    r.none = eval_counts_from_json(w.value("none", Json()), where + ".none");
    r.additive = eval_counts_from_json(w.value("additive", Json()), where + ".additive");
    const Json ag = w.value("agreement", Json());
    if (!ag.is_object() || !ag.contains("buckets") || !ag["buckets"].is_array() || !ag.contains("overall"))
      bad(where + ": needs \"agreement\" with \"buckets\" and \"overall\"");
    for (size_t k = 0; k < ag["buckets"].size(); ++k)
      r.agreement.buckets.push_back(
          agreement_counts_from_json(ag["buckets"][k], where + ".agreement.buckets[" + std::to_string(k) + "]"));
    r.agreement.overall = agreement_counts_from_json(ag["overall"], where + ".agreement.overall");
    if (!w.contains("none_final_loss") || !w["none_final_loss"].is_number() || !w.contains("additive_final_loss") ||
        !w["additive_final_loss"].is_number())
      bad(where + ": needs the numbers none_final_loss and additive_final_loss");
    r.none_final_loss = w["none_final_loss"].get<double>();
    r.additive_final_loss = w["additive_final_loss"].get<double>();
    r.none_fnv1a = w.value("none_fnv1a", "");
    r.additive_fnv1a = w.value("additive_fnv1a", "");
    out.push_back(r);
  }
  return out;
}

}  // namespace attn::lessons
