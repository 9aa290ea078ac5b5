// A model from a safetensors file (core/learn/model_file.hpp), the model ops (json/model_json.hpp)
// and the export of the shipped checkpoints (lessons/model_export.hpp): configurations read back
// from names and shapes, every refusal with its code, export → load → export bit for bit, and the
// loaded checkpoints' logits equal to the checkpoints' own parameters' to the bit.
#include <json/case_files.hpp>
#include <json/json_case.hpp>
#include <json/learn_json.hpp>
#include <json/model_json.hpp>
#include <learn/checkpoint.hpp>
#include <learn/gpt2_file.hpp>
#include <learn/model_file.hpp>
#include <lessons/learned_heads/format.hpp>
#include <lessons/model_export.hpp>
#include <lessons/translate/translate.hpp>
#include <lessons/translate/captions.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/support.hpp"

namespace {

using attn::ErrorCode;
using attn::Json;
using namespace attn::learn;

ModelFile load(const std::string& bytes, const ModelFileOptions& opt = {}) {
  return load_model_file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), opt);
}

Model small_decoder(DecoderPositions pos, int mlp, bool ln) {
  // vocab 7, context 5, d_model 4, heads 2, layers 2
  return make_model(ModelKind::decoder, DecoderConfig{7, 5, 4, 2, 2, mlp, pos, ln}, {});
}

Model small_seq2seq(bool attention) {
  // vocabularies 6 and 5, embed 3, hidden 4, attn_dim 2
  return make_model(ModelKind::seq2seq, {}, Seq2SeqConfig{6, 5, 3, 4, attention, attention ? 2 : 0});
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("attn-test-" + name)).string();
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

Checkpoint shipped(const std::string& name) {
  const std::string b = attn_test::read_text("../checkpoints/" + name);
  return decode_checkpoint(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
}

}  // namespace

TEST_CASE("model file: every decoder and seq2seq configuration reads back from names and shapes", "[learn][model_file]") {
  std::vector<std::pair<Model, std::map<std::string, std::string>>> models = {
      {small_decoder(DecoderPositions::learned, 0, false), {{"heads", "2"}}},
      {small_decoder(DecoderPositions::learned, 6, true), {{"heads", "2"}}},
      {small_decoder(DecoderPositions::sinusoidal, 6, false), {{"heads", "2"}, {"positions", "sinusoidal"}, {"context", "5"}}},
      {small_decoder(DecoderPositions::rope, 0, true), {{"heads", "2"}, {"positions", "rope"}, {"context", "5"}}},
      {small_decoder(DecoderPositions::none, 3, false), {{"heads", "2"}, {"positions", "none"}, {"context", "5"}}},
      {small_seq2seq(true), {}},
      {small_seq2seq(false), {}},
  };
  for (const auto& [model, meta] : models) {
    const std::vector<double> params = init_params(model.layout, 5);
    const std::string bytes = write_safetensors(model_safetensors(model, params, meta));
    const ModelFile m = load(bytes);
    INFO(attn::model_config_json(model).dump());
    CHECK(attn::model_config_json(m.model) == attn::model_config_json(model));
    CHECK(same_bits(m.params, params));
    CHECK(m.file.metadata == meta);
    // the config JSON is what model_from_json reads
    CHECK(attn::model_config_json(model_from_json(attn::model_config_json(m.model))) == attn::model_config_json(model));
    // F32: the same model, each weight rounded to the nearest float
    const ModelFile f = load(write_safetensors(model_safetensors(model, params, meta), SafeDtype::F32));
    for (size_t i = 0; i < params.size(); ++i) REQUIRE(f.params[i] == static_cast<double>(static_cast<float>(params[i])));
  }
}

TEST_CASE("model file: request options override the metadata, defaults fill what shapes cannot say", "[learn][model_file]") {
  const Model dec = small_decoder(DecoderPositions::rope, 0, false);
  const std::vector<double> params = init_params(dec.layout, 1);
  const std::string bytes = write_safetensors(model_safetensors(dec, params, {{"heads", "4"}, {"positions", "none"}}));
  ModelFileOptions opt;
  CHECK(load(bytes).model.decoder.heads == 4);
  CHECK(load(bytes).model.decoder.positions == DecoderPositions::none);
  CHECK(load(bytes).model.decoder.context == 1024);  // no pos.weight and no "context": the decoder's maximum
  opt.heads = 2;
  opt.positions = "rope";
  opt.context = 9;
  const ModelFile m = load(bytes, opt);
  CHECK(m.model.decoder.heads == 2);
  CHECK(m.model.decoder.positions == DecoderPositions::rope);
  CHECK(m.model.decoder.context == 9);
  // seq2seq: attention "none" asked of a file with attn.* is refused as extra tensors
  const Model s = small_seq2seq(true);
  const std::string sb = write_safetensors(model_safetensors(s, init_params(s.layout, 1), {}));
  ModelFileOptions none;
  none.attention = "none";
  CHECK_ATTN_ERROR(load(sb, none), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(load(sb, none), Catch::Contains("unexpected tensor \"attn."));
}

TEST_CASE("model file: missing, misshapen, extra tensors and bad metadata are refused", "[learn][model_file]") {
  const Model dec = small_decoder(DecoderPositions::learned, 6, true);
  const std::vector<double> params = init_params(dec.layout, 2);
  const Safetensors good = model_safetensors(dec, params, {{"heads", "2"}});
  REQUIRE_NOTHROW(load(write_safetensors(good)));

  Safetensors missing = good;  // drop layers.1.mlp.2.bias
  missing.tensors.erase(std::find_if(missing.tensors.begin(), missing.tensors.end(),
                                     [](const SafeTensor& t) { return t.name == "layers.1.mlp.2.bias"; }));
  CHECK_ATTN_ERROR(load(write_safetensors(missing)), ErrorCode::missing_field);
  CHECK_THROWS_WITH(load(write_safetensors(missing)), Catch::Contains("layers.1.mlp.2.bias"));

  Safetensors misshapen = good;  // out_proj 4×4 → 4×5
  for (SafeTensor& t : misshapen.tensors)
    if (t.name == "layers.0.attn.out_proj.weight") {
      t.shape = {4, 5};
      t.values.resize(20, 0.25);
    }
  CHECK_ATTN_ERROR(load(write_safetensors(misshapen)), ErrorCode::shape_mismatch);
  CHECK_THROWS_WITH(load(write_safetensors(misshapen)),
                    Catch::Contains("layers.0.attn.out_proj.weight") && Catch::Contains("[4, 5]") &&
                        Catch::Contains("[4, 4]"));

  Safetensors extra = good;
  extra.tensors.push_back(SafeTensor{"layers.0.attn.k_proj.weight", SafeDtype::F64, {4, 4}, 0, 0, std::vector<double>(16, 0.0)});
  CHECK_ATTN_ERROR(load(write_safetensors(extra)), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(load(write_safetensors(extra)),
                    Catch::Contains("k_proj") && Catch::Contains("embed.weight, pos.weight, layers.0.ln1.weight"));
  // An in_proj_bias makes it a decoder with biases (GPT-2's option), which needs out_proj.bias too.
  Safetensors half_bias = good;
  half_bias.tensors.push_back(SafeTensor{"layers.0.attn.in_proj_bias", SafeDtype::F64, {12}, 0, 0, std::vector<double>(12, 0.0)});
  CHECK_ATTN_ERROR(load(write_safetensors(half_bias)), ErrorCode::missing_field);
  CHECK_THROWS_WITH(load(write_safetensors(half_bias)), Catch::Contains("layers.0.attn.out_proj.bias"));

  Safetensors no_heads = good;
  no_heads.metadata.clear();
  CHECK_ATTN_ERROR(load(write_safetensors(no_heads)), ErrorCode::missing_field);
  Safetensors bad_heads = good;
  bad_heads.metadata["heads"] = "two";
  CHECK_ATTN_ERROR(load(write_safetensors(bad_heads)), ErrorCode::invalid_field);
  bad_heads.metadata["heads"] = "3";  // does not divide d_model 4
  CHECK_ATTN_ERROR(load(write_safetensors(bad_heads)), ErrorCode::invalid_field);
  Safetensors bad_kind = good;
  bad_kind.metadata["kind"] = "encoder";
  CHECK_ATTN_ERROR(load(write_safetensors(bad_kind)), ErrorCode::invalid_field);
  bad_kind.metadata["kind"] = "seq2seq";  // names say decoder: its tensors are missing
  CHECK_ATTN_ERROR(load(write_safetensors(bad_kind)), ErrorCode::missing_field);

  Safetensors no_pos = good;  // no pos.weight and no "positions"
  no_pos.tensors.erase(no_pos.tensors.begin() + 1);
  CHECK_ATTN_ERROR(load(write_safetensors(no_pos)), ErrorCode::missing_field);
  CHECK_THROWS_WITH(load(write_safetensors(no_pos)), Catch::Contains("positions"));

  Safetensors one_d = good;  // embed.weight as a vector
  one_d.tensors[0].shape = {28};
  CHECK_ATTN_ERROR(load(write_safetensors(one_d)), ErrorCode::shape_mismatch);

  Safetensors nothing;
  nothing.tensors = {SafeTensor{"weight", SafeDtype::F64, {1}, 0, 0, {1.0}}};
  CHECK_ATTN_ERROR(load(write_safetensors(nothing)), ErrorCode::missing_field);
}

TEST_CASE("model file: the loader's parameter limit is 4,194,304, separate from training's", "[learn][model_file]") {
  // vocab 4096, d_model 512, no layers: embed + unembed = 2 · 4096 · 512 = 4,194,304 exactly; a
  // learned pos.weight (1 × 512) is one row too many. F16 zeros keep the file at 8 MiB.
  const auto file = [](bool pos) {
    std::string h = R"({"__metadata__":{"heads":"1","positions":")" + std::string(pos ? "learned" : "none") + R"("},"embed.weight":{"dtype":"F16","shape":[4096,512],"data_offsets":[0,4194304]},)";
    std::uint64_t at = 4194304;
    if (pos) {
      h += R"("pos.weight":{"dtype":"F16","shape":[1,512],"data_offsets":[4194304,4195328]},)";
      at += 1024;
    }
    h += R"("unembed.weight":{"dtype":"F16","shape":[4096,512],"data_offsets":[)" + std::to_string(at) + "," +
         std::to_string(at + 4194304) + "]}}";
    std::string out;
    const std::uint64_t n = h.size();  // 64 bits: size_t is 32 bits in wasm
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    return out + h + std::string(at + 4194304, '\0');
  };
  const ModelFile m = load(file(false));
  CHECK(m.model.layout.total() == kMaxFileParams);
  CHECK(m.model.layout.total() > kMaxParams);
  CHECK_ATTN_ERROR(load(file(true)), ErrorCode::too_large);
  CHECK_THROWS_WITH(load(file(true)), Catch::Contains("4194816") && Catch::Contains("4194304"));
}

TEST_CASE("model file: shipped checkpoints export, load and export again bit for bit", "[learn][model_file]") {
  const attn::lessons::HeadsRun heads = attn::lessons::heads_run_from_checkpoint(shipped("learned_heads.ckpt"));
  const attn::lessons::TranslateRun tr = attn::lessons::translate_run_from_checkpoint(shipped("translate.ckpt"));
  const std::vector<std::tuple<std::string, std::string, const std::vector<double>*>> runs = {
      {"learned_heads.ckpt", "", &heads.params},
      {"translate.ckpt", "none", &tr.none_params},
      {"translate.ckpt", "additive", &tr.additive_params}};
  for (const auto& [name, which, params] : runs) {
    INFO(name << " " << which);
    const std::string bytes = attn::lessons::checkpoint_to_safetensors(shipped(name), which);
    const ModelFile m = load(bytes);
    CHECK(same_bits(m.params, *params));
    CHECK(m.file.metadata.at("params_fnv1a") == hex64(fnv1a_doubles(*params)));
    CHECK(write_safetensors(model_safetensors(m.model, m.params, m.file.metadata)) == bytes);
  }
  CHECK(attn::lessons::checkpoint_to_safetensors(shipped("translate.ckpt")) ==
        attn::lessons::checkpoint_to_safetensors(shipped("translate.ckpt"), "additive"));
  CHECK_ATTN_ERROR(attn::lessons::checkpoint_to_safetensors(shipped("translate.ckpt"), "both"), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::lessons::checkpoint_to_safetensors(shipped("learned_heads.ckpt"), "none"), ErrorCode::invalid_field);
}

TEST_CASE("model ops: a loaded checkpoint gives its parameters' logits to the bit", "[learn][model_file][json]") {
  attn::set_case_file_reader(attn::read_case_file);
  // the decoder: model_logits on the export against decoder_forward on the checkpoint's parameters
  const attn::lessons::HeadsRun heads = attn::lessons::heads_run_from_checkpoint(shipped("learned_heads.ckpt"));
  const attn::lessons::HeadsTrainer trainer(heads);
  const std::string hp = temp_file("heads.safetensors", attn::lessons::checkpoint_to_safetensors(shipped("learned_heads.ckpt")));
  const std::vector<std::vector<int>> tokens = {{1, 2, 3, 4, 1, 2, 3}, {5, 5, 0, 15, 5, 5, 0}};
  const Json out = attn::run_case(Json{{"op", "model_logits"}, {"model", hp}, {"tokens", tokens}});
  DecoderBatch b;
  b.batch = 2;
  b.t = 7;
  for (const auto& r : tokens) b.tokens.insert(b.tokens.end(), r.begin(), r.end());
  b.targets = b.tokens;
  DecoderActivations acts;
  decoder_forward(trainer.model(), trainer.layout(), heads.params.data(), b, acts);
  const int V = trainer.model().vocab, H = trainer.model().heads;
  REQUIRE(out["logits"].size() == 2);
  for (int i = 0; i < 2; ++i)
    for (int t = 0; t < 7; ++t)
      for (int v = 0; v < V; ++v) REQUIRE(out["logits"][i][t][v].get<double>() == acts.logits[(i * 7 + t) * V + v]);
  REQUIRE(out["weights"].size() == static_cast<size_t>(trainer.model().layers));
  for (size_t l = 0; l < acts.layers.size(); ++l)
    for (int i = 0; i < 2; ++i)
      for (int h = 0; h < H; ++h)
        for (int q = 0; q < 7; ++q)
          for (int k = 0; k < 7; ++k)
            REQUIRE(out["weights"][l][i][h][q][k].get<double>() == acts.layers[l].weights[(((i * H + h) * 7) + q) * 7 + k]);
  const Json info = attn::run_case(Json{{"op", "model_info"}, {"model", hp}});
  CHECK(info["params_fnv1a"] == hex64(fnv1a_doubles(heads.params)));
  CHECK(info["kind"] == "decoder");
  CHECK(info["tensors"][0] == Json{{"name", "embed.weight"}, {"dtype", "F64"}, {"shape", {16, 32}}});

  // the attention translator: model_logits on the export against seq2seq_forward, sources of two lengths
  const attn::lessons::TranslateRun tr = attn::lessons::translate_run_from_checkpoint(shipped("translate.ckpt"));
  const Seq2SeqConfig sc = attn::lessons::translate_model_config(tr.config, true);
  const ParamLayout sl = seq2seq_layout(sc);
  const std::string tp = temp_file("translate.safetensors", attn::lessons::checkpoint_to_safetensors(shipped("translate.ckpt")));
  const Json s2s = attn::run_case(Json{{"op", "model_logits"}, {"model", tp}, {"source", {{3, 4, 5}, {6, 7}}},
                                       {"target_in", {{1, 2}, {1, 3}}}});
  Seq2SeqBatch sb;
  sb.batch = 2;
  sb.src_len = 3;
  sb.tgt_len = 2;
  sb.source = {3, 4, 5, 6, 7, 9};  // padding is never read: another id gives the same bits
  sb.source_lengths = {3, 2};
  sb.target_in = sb.target_out = {1, 2, 1, 3};
  Seq2SeqActivations sa;
  seq2seq_forward(sc, sl, tr.additive_params.data(), sb, sa);
  for (int i = 0; i < 2; ++i)
    for (int t = 0; t < 2; ++t) {
      for (int v = 0; v < sc.tgt_vocab; ++v)
        REQUIRE(s2s["logits"][i][t][v].get<double>() == sa.logits[(i * 2 + t) * sc.tgt_vocab + v]);
      REQUIRE(s2s["alignment"][i][t].size() == static_cast<size_t>(sb.source_lengths[i]));
      for (int j = 0; j < sb.source_lengths[i]; ++j) REQUIRE(s2s["alignment"][i][t][j].get<double>() == sa.weights[t][i * 3 + j]);
    }

  // refusals through the ops
  CHECK_ATTN_ERROR(attn::run_case(Json{{"op", "model_logits"}, {"model", hp}, {"tokens", {{1, 99}}}}), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::run_case(Json{{"op", "model_logits"}, {"model", hp}, {"source", {{1}}}}), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::run_case(Json{{"op", "model_logits"}, {"model", tp}, {"source", {{1}, {}}}, {"target_in", {{1}, {1}}}}),
                   ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::run_case(Json{{"op", "model_info"}, {"model", 3}}), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::run_case(Json{{"op", "model_info"}, {"model", hp}, {"heads", 0}}), ErrorCode::invalid_field);
  attn::set_case_file_reader({});  // the page's build: no file access
  CHECK_THROWS_WITH(attn::run_case(Json{{"op", "model_info"}, {"model", hp}}), Catch::Contains("no file access"));
  attn::set_case_file_reader(attn::read_case_file);
  std::filesystem::remove(hp);
  std::filesystem::remove(tp);
}

TEST_CASE("model file: a loaded decoder trains and measures as the panel's own run", "[learn][model_file][lessons]") {
  namespace lh = attn::lessons;
  const lh::HeadsRun run = lh::heads_run_from_checkpoint(shipped("learned_heads.ckpt"));
  const ModelFile m = load(lh::checkpoint_to_safetensors(shipped("learned_heads.ckpt")));
  const lh::HeadsTrainingConfig cfg = lh::heads_config_for_model(m.model.decoder, lh::HeadsTrainingConfig{});
  CHECK(lh::heads_config_json(cfg) == lh::heads_config_json(run.config));  // the file says the run's architecture

  // Measured from the file, the last snapshot's figures are the checkpoint's, bit for bit.
  const lh::HeadsTrainer loaded(cfg, m.model.decoder, m.params);
  CHECK(same_bits(loaded.initial_params(), run.params));
  const lh::InductionBatch held = lh::heldout_batch(cfg.task, cfg.seed, lh::kHeadsHeldout);
  const lh::HeadsSnapshot snap = lh::take_snapshot(loaded.model(), loaded.layout(), loaded.params(), 0, held);
  const lh::HeadsSnapshot& want = run.snapshots.back();
  CHECK(snap.eval.loss == want.eval.loss);
  CHECK(snap.eval.accuracy == want.eval.accuracy);
  REQUIRE(snap.scores.size() == want.scores.size());
  for (size_t i = 0; i < snap.scores.size(); ++i) {
    CHECK(snap.scores[i].induction == want.scores[i].induction);
    CHECK(snap.scores[i].previous_token == want.scores[i].previous_token);
  }

  // Started from the seeded initial draw, it trains exactly as a fresh run (Adam from zero).
  lh::HeadsTrainingConfig few = cfg;
  few.steps = 3;
  lh::HeadsTrainer fresh(few);
  lh::HeadsTrainer from_start(few, fresh.model(), fresh.initial_params());
  fresh.advance(3);
  from_start.advance(3);
  CHECK(same_bits(from_start.params(), fresh.params()));
  CHECK(!same_bits(from_start.params(), from_start.initial_params()));

  // What does not fit is refused by name.
  DecoderConfig other = m.model.decoder;
  other.vocab = 9;
  CHECK_THROWS_WITH(lh::HeadsTrainer(few, other, m.params), Catch::Contains("vocabulary (9 tokens)"));
  CHECK_THROWS_WITH(lh::HeadsTrainer(few, m.model.decoder, std::vector<double>(7, 0.0)), Catch::Contains("7 parameters"));
  // A shorter context gets shorter runs: the longest layout fills it (defaults: prefix 0-7, runs 6-11).
  DecoderConfig short_ctx = m.model.decoder;
  short_ctx.positions = DecoderPositions::rope;
  short_ctx.context = 20;
  const lh::InductionTask t20 = lh::heads_config_for_model(short_ctx, lh::HeadsTrainingConfig{}).task;
  CHECK((t20.context == 20 && t20.run_max == 10 && t20.run_min == 6 && t20.prefix_max == 0));
  short_ctx.context = 5;
  const lh::InductionTask t5 = lh::heads_config_for_model(short_ctx, lh::HeadsTrainingConfig{}).task;
  CHECK((t5.context == 5 && t5.run_max == 2 && t5.run_min == 2 && t5.prefix_max == 1));
  short_ctx.context = 3;
  CHECK_THROWS_WITH(lh::heads_config_for_model(short_ctx, lh::HeadsTrainingConfig{}), Catch::Contains("context (3 tokens)"));
  CHECK_ATTN_ERROR(lh::heads_config_for_model(short_ctx, lh::HeadsTrainingConfig{}), ErrorCode::invalid_field);
}

TEST_CASE("model file: the page's export of a run is attn export's bytes", "[learn][model_file][lessons]") {
  namespace lh = attn::lessons;
  const lh::HeadsRun heads = lh::heads_run_from_checkpoint(shipped("learned_heads.ckpt"));
  const lh::HeadsTrainer trainer(heads);
  CHECK(lh::heads_model_safetensors(trainer.config(), trainer.model(), trainer.step(), trainer.params()) ==
        lh::checkpoint_to_safetensors(shipped("learned_heads.ckpt")));
  const lh::TranslateRun tr = lh::translate_run_from_checkpoint(shipped("translate.ckpt"));
  CHECK(lh::translate_model_safetensors(tr.config, false, tr.step, tr.none_params) ==
        lh::checkpoint_to_safetensors(shipped("translate.ckpt"), "none"));
  CHECK_ATTN_ERROR(lh::translate_model_safetensors(tr.config, true, tr.step, tr.none_params), ErrorCode::shape_mismatch);
}

TEST_CASE("model file: a loaded translator takes its kind's place in the pair", "[learn][model_file][lessons]") {
  namespace lh = attn::lessons;
  const lh::TranslateRun run = lh::translate_run_from_checkpoint(shipped("translate.ckpt"));
  const ModelFile m = load(lh::checkpoint_to_safetensors(shipped("translate.ckpt"), "additive"));
  lh::TranslateConfig few = run.config;
  few.steps = 2;
  const lh::TranslateTrainer loaded(few, m.model.seq2seq, m.params);
  CHECK(same_bits(loaded.model(true).params, run.additive_params));
  const lh::TranslateTrainer seeded(few);
  CHECK(same_bits(loaded.model(false).params, seeded.model(false).params));  // the other model is the seeded one
  // Measured on the file's weights: the shipped run's test figures.
  const lh::TranslateTrainer restored(run);
  const auto buckets = restored.data().config.buckets;
  const lh::TranslateEval a = lh::evaluate_translation(loaded.model(true), loaded.data().test, buckets);
  const lh::TranslateEval b = lh::evaluate_translation(restored.model(true), restored.data().test, buckets);
  CHECK(a.overall.exact_match == b.overall.exact_match);
  CHECK(a.overall.token_accuracy == b.overall.token_accuracy);
  CHECK(loaded.validation_losses(true).front() != seeded.validation_losses(true).front());

  // Started from the seeded draw, it trains as the fresh pair does.
  lh::TranslateTrainer fresh(few);
  lh::TranslateTrainer from_start(few, fresh.model(false).config, fresh.model(false).params);
  // and with its step-0 validation left to the run's first parts
  lh::TranslateTrainer from_start_later(few, fresh.model(false).config, fresh.model(false).params,
                                        lh::TranslateTrainer::StartValidation::pending);
  CHECK(from_start_later.validation_steps().empty());
  fresh.advance(2);
  from_start.advance(2);
  from_start_later.advance(2);
  for (const lh::TranslateTrainer* t : {&from_start, &from_start_later}) {
    CHECK(same_bits(t->model(false).params, fresh.model(false).params));
    CHECK(same_bits(t->model(true).params, fresh.model(true).params));
    CHECK(same_bits(t->validation_losses(false), fresh.validation_losses(false)));
    CHECK(same_bits(t->validation_losses(true), fresh.validation_losses(true)));
  }

  Seq2SeqConfig other = m.model.seq2seq;
  other.src_vocab += 1;
  CHECK_THROWS_WITH(lh::TranslateTrainer(few, other, m.params), Catch::Contains("not the lesson's"));
  CHECK_THROWS_WITH(lh::TranslateTrainer(few, m.model.seq2seq, std::vector<double>(3, 0.0)), Catch::Contains("3 parameters"));
}

namespace {
namespace lh = attn::lessons;

lh::TranslateModel fixture_translator(const std::string& name) {
  const ModelFile f = load(attn_test::read_text("../tests/reference/safetensors/" + name));
  lh::TranslateModel m;
  m.config = f.model.seq2seq;
  m.layout = seq2seq_layout(m.config);
  m.params = f.params;
  return m;
}
}  // namespace

TEST_CASE("model file: a translator over other vocabularies is analysed with tokens as numbers", "[learn][model_file][lessons]") {
  const lh::TranslateModel m = fixture_translator("seq2seq-additive-f64.safetensors");  // torch 1.13's, 6 and 5 ids
  REQUIRE_FALSE(lh::lesson_vocabularies(m.config));
  const lh::TokenAnalysis a = lh::token_analysis(m, {4, 4, 5, 3}, {}, 3, 0.6);
  // The same pass through model_logits (the op checked against torch on this file): the panel's
  // probabilities are the softmax of its logits, its alignment the op's to the bit.
  attn::set_case_file_reader(attn::read_case_file);
  std::vector<int> target_in{1};
  for (int id : a.target) target_in.push_back(id);
  const Json op = attn::run_case(Json{{"op", "model_logits"},
                                      {"model", temp_file("tokens.safetensors", attn_test::read_text("../tests/reference/safetensors/seq2seq-additive-f64.safetensors"))},
                                      {"source", {{4, 4, 5, 3}}}, {"target_in", {target_in}}});
  REQUIRE(a.forced.src_len == 4);
  REQUIRE(a.forced.rows == static_cast<int>(target_in.size()));
  for (int t = 0; t < a.forced.rows; ++t) {
    const Json& z = op["logits"][0][t];
    double mx = -1e300, sum = 0.0;
    for (const Json& v : z) mx = std::max(mx, v.get<double>());
    for (const Json& v : z) sum += std::exp(v.get<double>() - mx);
    for (int k = 0; k < 5; ++k)
      CHECK(std::fabs(a.forced.probs[static_cast<size_t>(t * 5 + k)] - std::exp(z[k].get<double>() - mx) / sum) < 1e-12);
    for (int j = 0; j < 4; ++j)
      CHECK(a.forced.attention[static_cast<size_t>(t * 4 + j)] == op["alignment"][0][t][j].get<double>());
  }
  // No target typed: the greedy output is analysed, teacher forced as decoded (the same bits).
  CHECK_FALSE(a.target_given);
  CHECK(a.target == a.greedy.tokens);
  for (size_t t = 0; t < a.target.size(); ++t) CHECK(a.forced.argmax[t] == a.greedy.tokens[t]);
  CHECK(a.max_row_sum_error < 1e-12);
  CHECK(a.max_padded_weight == 0.0);
  CHECK(a.path_max_diff < 1e-12);
  CHECK(a.beam_prefix.forced_max_diff == 0.0);
  // The checks the panel shows are these figures, each held to its limit.
  REQUIRE(a.checks.size() == 5);
  CHECK(a.checks[0].measured == a.max_row_sum_error);
  CHECK(a.checks[1].measured == a.max_padded_weight);
  CHECK(a.checks[2].measured == a.path_max_diff);
  CHECK(a.checks[3].measured == a.beam_prefix.forced_max_diff);
  CHECK(a.checks[4].measured == a.beam_prefix.shared_max_diff);
  for (const attn::Check& c : a.checks) CHECK(c.pass);
  lh::BeamPrefixCheck off = a.beam_prefix;
  off.shared_max_diff = 1e-17;  // one rounding apart is not the same bits
  CHECK_FALSE(lh::beam_prefix_checks(off, "tokens")[1].pass);
  CHECK_FALSE(lh::intervention_path_check(2e-12).pass);
  REQUIRE(a.removals.size() == 4);
  for (const lh::TokenRemoval& w : a.removals) {
    // Independently: the same removal through the lesson's intervention entry points.
    lh::AttentionIntervention iv;
    iv.removed = w.position;
    CHECK(w.loss == lh::teacher_forced_under(m, a.source, a.target, iv).loss);
    CHECK(w.same_output == (lh::greedy_decode_under(m, a.source, 14, iv).tokens == a.greedy.tokens));
  }
  // A typed target is the one analysed; ids are checked against the model's own vocabularies.
  const lh::TokenAnalysis b = lh::token_analysis(m, {4, 4, 5, 3}, {4, 3}, 1, 0.0);
  CHECK(b.target_given);
  CHECK(b.target == std::vector<int>{4, 3});
  CHECK(b.forced.rows == 3);
  CHECK(b.beam.width == 1);
  CHECK_ATTN_ERROR(lh::token_analysis(m, {6}, {}, 3, 0.6), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(lh::token_analysis(m, {1}, {}, 3, 0.6), ErrorCode::invalid_field);  // 0-2: PAD, BOS, EOS
  CHECK_ATTN_ERROR(lh::token_analysis(m, {3}, {5}, 3, 0.6), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(lh::token_analysis(m, {3}, {-1}, 3, 0.6), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(lh::token_analysis(m, {}, {}, 3, 0.6), ErrorCode::empty_sequence);
  lh::TranslateModel tiny = m;
  tiny.config.tgt_vocab = 2;
  CHECK_THROWS_WITH(lh::token_analysis(tiny, {3}, {}, 3, 0.6), Catch::Contains("BOS (id 1) and EOS (id 2)"));
  // One token: nothing to renormalise, so no removal.
  CHECK(lh::token_analysis(m, {3}, {}, 2, 0.6).removals.empty());
  CHECK(lh::default_token_source(m.config) == std::vector<int>{3, 4, 5, 3});

  // The fixed summary: decoding and teacher forcing, no alignment, no removal.
  const lh::TranslateModel none = fixture_translator("seq2seq-none-f64.safetensors");
  const lh::TokenAnalysis n = lh::token_analysis(none, {4, 4, 5, 3}, {}, 3, 0.6);
  CHECK(n.forced.attention.empty());
  CHECK(n.removals.empty());
  CHECK(n.target == n.greedy.tokens);
}

TEST_CASE("model file: the token analysis's caption is worded from its figures", "[learn][model_file][lessons]") {
  const lh::TranslateModel m = fixture_translator("seq2seq-additive-f64.safetensors");
  lh::TokenAnalysis a = lh::token_analysis(m, {4, 4, 5, 3}, {}, 3, 0.6);
  const std::string c = lh::token_caption(a, true);
  CHECK_THAT(c, Catch::Contains("emits " + std::to_string(a.greedy.tokens.size()) + " token"));
  CHECK_THAT(c, Catch::Contains(a.greedy.ended ? "then chooses EOS" : "without choosing EOS"));
  // Tampered figures change the sentence: another ending, a removal that changed the output, another loss.
  lh::TokenAnalysis t = a;
  t.greedy.ended = !a.greedy.ended;
  CHECK(lh::token_caption(t, true) != c);
  t = a;
  for (lh::TokenRemoval& w : t.removals) w.same_output = true;
  CHECK_THAT(lh::token_caption(t, true), Catch::Contains("leaves the greedy output unchanged"));
  t.removals[2].same_output = false;
  t.removals[2].delta_loss = 9.0;
  CHECK_THAT(lh::token_caption(t, true), Catch::Contains("positions 3") || Catch::Contains("position 3 from"));
  CHECK_THAT(lh::token_caption(t, true), Catch::Contains("position 3 (id 5) is removed (+9"));
  CHECK_THAT(lh::token_caption(a, false), Catch::Contains("no alignment"));
  CHECK(lh::ids_text({}) == "(nothing)");
  CHECK(lh::ids_text({3, 0, 12}) == "3 0 12");
}

TEST_CASE("model file: a translator shown as it came exports to a file that loads back to its bits", "[learn][model_file][lessons]") {
  const lh::TranslateModel m = fixture_translator("seq2seq-additive-f32.safetensors");
  const std::string bytes = lh::seq2seq_model_safetensors(m.config, m.params);
  const ModelFile back = load(bytes);
  CHECK(same_bits(back.params, m.params));
  CHECK(back.file.metadata.at("params_fnv1a") == params_fnv1a(m.params));
  CHECK(lh::seq2seq_model_safetensors(back.model.seq2seq, back.params) == bytes);
  CHECK_ATTN_ERROR(lh::seq2seq_model_safetensors(m.config, std::vector<double>(2, 0.0)), ErrorCode::shape_mismatch);
}

TEST_CASE("model file: a decoder exported in transformers' layout reads back as GPT-2 with the same function",
          "[learn][model_file][gpt2]") {
  for (const bool bias : {false, true})
    for (const bool tied : {false, true}) {
      DecoderConfig c{11, 6, 8, 2, 2, 12, DecoderPositions::learned, true};
      c.bias = bias;
      c.tied_head = tied;
      c.activation = Activation::gelu;
      c.layer_norm_eps = 1e-3;
      c.scale_attn_by_inverse_layer_idx = true;
      const Model m = make_model(ModelKind::decoder, c, {});
      std::vector<double> params = init_params(m.layout, 23);
      for (double& x : params) x = static_cast<double>(static_cast<float>(x));  // F32 holds them exactly
      const TransformersExport e = transformers_export(m, params);
      ModelFileOptions opt;
      opt.config = e.config;
      const ModelFile back =
          load_any_model_file(reinterpret_cast<const std::uint8_t*>(e.safetensors.data()), e.safetensors.size(), opt);
      // The lab's reader (the page's trained panels) names the file's family and refuses it.
      CHECK_THROWS_WITH(load(e.safetensors, opt), Catch::Contains("GPT-2-family"));
      INFO("bias " << bias << ", tied " << tied);
      CHECK(back.layout == "transformers");
      CHECK(back.model.decoder.tied_head == tied);  // lm_head.weight holds wte's bits when tied
      CHECK(back.model.decoder.activation == Activation::gelu);
      CHECK(back.model.decoder.layer_norm_eps == 1e-3);
      CHECK(back.model.decoder.scale_attn_by_inverse_layer_idx);
      // GPT-2 always has biases: a decoder without them comes back with zeros there.
      CHECK(back.model.decoder.bias);
      DecoderBatch b;
      b.batch = 1;
      b.t = 6;
      b.tokens = b.targets = {3, 1, 4, 1, 5, 9};
      DecoderActivations a0, a1;
      decoder_forward(c, m.layout, params.data(), b, a0);
      decoder_forward(back.model.decoder, back.model.layout, back.params.data(), b, a1);
      double worst = 0.0;
      for (size_t i = 0; i < a0.logits.size(); ++i) worst = std::max(worst, std::fabs(a0.logits[i] - a1.logits[i]));
      CHECK(worst < 1e-12);
    }
  // What GPT-2's layout cannot hold is refused, naming it.
  const Model no_mlp = small_decoder(DecoderPositions::learned, 0, true);
  CHECK_THROWS_WITH(transformers_export(no_mlp, init_params(no_mlp.layout, 1)), Catch::Contains("MLP"));
  const Model rope = small_decoder(DecoderPositions::rope, 4, true);
  CHECK_THROWS_WITH(transformers_export(rope, init_params(rope.layout, 1)), Catch::Contains("rope"));
  const Model no_ln = small_decoder(DecoderPositions::learned, 4, false);
  CHECK_THROWS_WITH(transformers_export(no_ln, init_params(no_ln.layout, 1)), Catch::Contains("LayerNorm"));
}
