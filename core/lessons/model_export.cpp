#include "lessons/model_export.hpp"

#include <map>

#include "attn/error.hpp"
#include "learn/model_file.hpp"
#include "lessons/learned_heads.hpp"
#include "lessons/translate.hpp"

namespace attn::lessons {

std::string checkpoint_to_safetensors(const learn::Checkpoint& ckpt, const std::string& which) {
  std::string task;
  if (ckpt.meta.is_object() && ckpt.meta.contains("task") && ckpt.meta["task"].is_string())
    task = ckpt.meta["task"].get<std::string>();
  std::map<std::string, std::string> meta;
  learn::Model model;
  std::vector<double> params;
  if (task == "induction") {
    if (!which.empty())
      throw Error(ErrorCode::invalid_field, "the Learned heads checkpoint holds one model: no --model \"" + which + "\"");
    const HeadsRun run = heads_run_from_checkpoint(ckpt);
    const HeadsTrainer trainer(run);  // the decoder configuration the run trained
    model = learn::make_model(learn::ModelKind::decoder, trainer.model(), {});
    params = run.params;
    meta = {{"kind", "decoder"},
            {"heads", std::to_string(trainer.model().heads)},
            {"positions", learn::decoder_positions_name(trainer.model().positions)},
            {"context", std::to_string(trainer.model().context)},
            {"seed", std::to_string(run.config.seed)},
            {"steps", std::to_string(run.step)},
            {"config", heads_config_json(run.config).dump()}};
  } else if (task == "translate") {
    const bool attention = which.empty() || which == "additive";
    if (!attention && which != "none")
      throw Error(ErrorCode::invalid_field, "the Translate checkpoint holds \"none\" and \"additive\", not \"" + which + "\"");
    const TranslateRun run = translate_run_from_checkpoint(ckpt);
    model = learn::make_model(learn::ModelKind::seq2seq, {}, translate_model_config(run.config, attention));
    params = attention ? run.additive_params : run.none_params;
    meta = {{"kind", "seq2seq"},
            {"attention", attention ? "additive" : "none"},
            {"seed", std::to_string(run.config.seed)},
            {"steps", std::to_string(run.step)},
            {"config", translate_config_json(run.config).dump()}};
  } else {
    throw Error(ErrorCode::invalid_field, "the checkpoint is neither a Learned heads nor a Translate run (meta.task \"" +
                                              task + "\")");
  }
  meta["params_fnv1a"] = learn::hex64(learn::fnv1a_doubles(params));
  return learn::write_safetensors(learn::model_safetensors(model, params, std::move(meta)));
}

}  // namespace attn::lessons
