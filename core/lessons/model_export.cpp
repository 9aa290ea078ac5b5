#include "lessons/model_export.hpp"

#include <map>

#include "attn/error.hpp"
#include "learn/model_file.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/translate/format.hpp"

namespace attn::lessons {

namespace {
std::string write_model(const learn::Model& model, const std::vector<double>& params,
                        std::map<std::string, std::string> meta) {
  meta["params_fnv1a"] = learn::params_fnv1a(params);
  return learn::write_safetensors(learn::model_safetensors(model, params, std::move(meta)));
}
}  // namespace

std::string heads_model_safetensors(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model, int step,
                                    const std::vector<double>& params) {
  return write_model(learn::make_model(learn::ModelKind::decoder, model, {}), params,
                     {{"kind", "decoder"},
                      {"heads", std::to_string(model.heads)},
                      {"positions", learn::decoder_positions_name(model.positions)},
                      {"context", std::to_string(model.context)},
                      {"seed", std::to_string(cfg.seed)},
                      {"steps", std::to_string(step)},
                      {"config", heads_config_json(cfg).dump()}});
}

std::string translate_model_safetensors(const TranslateConfig& cfg, bool attention, int step,
                                        const std::vector<double>& params) {
  std::map<std::string, std::string> meta{{"kind", "seq2seq"},
                                          {"attention", attention ? "additive" : "none"},
                                          {"seed", std::to_string(cfg.seed)},
                                          {"steps", std::to_string(step)},
                                          {"config", translate_config_json(cfg).dump()}};
  if (cfg.bidirectional) meta["encoder"] = "bidirectional";  // forward files stay as they were
  return write_model(learn::make_model(learn::ModelKind::seq2seq, {}, translate_model_config(cfg, attention)), params,
                     std::move(meta));
}

std::string seq2seq_model_safetensors(const learn::Seq2SeqConfig& model, const std::vector<double>& params) {
  std::map<std::string, std::string> meta{{"kind", "seq2seq"}, {"attention", model.attention ? "additive" : "none"}};
  if (model.bidirectional) meta["encoder"] = "bidirectional";
  return write_model(learn::make_model(learn::ModelKind::seq2seq, {}, model), params, std::move(meta));
}

std::string checkpoint_to_safetensors(const learn::Checkpoint& ckpt, const std::string& which) {
  std::string task;
  if (ckpt.meta.is_object() && ckpt.meta.contains("task") && ckpt.meta["task"].is_string())
    task = ckpt.meta["task"].get<std::string>();
  if (task == "induction") {
    if (!which.empty())
      throw Error(ErrorCode::invalid_field, "the Learned heads checkpoint holds one model: no --model \"" + which + "\"");
    const HeadsRun run = heads_run_from_checkpoint(ckpt);
    const HeadsTrainer trainer(run);  // the decoder configuration the run trained
    return heads_model_safetensors(run.config, trainer.model(), run.step, run.params);
  }
  if (task == "translate") {
    const bool attention = which.empty() || which == "additive";
    if (!attention && which != "none")
      throw Error(ErrorCode::invalid_field, "the Translate checkpoint holds \"none\" and \"additive\", not \"" + which + "\"");
    const TranslateRun run = translate_run_from_checkpoint(ckpt);
    return translate_model_safetensors(run.config, attention, run.step, attention ? run.additive_params : run.none_params);
  }
  throw Error(ErrorCode::invalid_field, "the checkpoint is neither a Learned heads nor a Translate run (meta.task \"" +
                                            task + "\")");
}

}  // namespace attn::lessons
