// Headless app test: the Language model panel on torch's GPT-2-family fixtures (tests/reference/
// gpt2, transformers' layout): loading by link, the next-token distribution and the maps against
// torch 1.13's logits and weights, greedy generation against torch's tokens, refusals that keep the
// model, and the JSON core's model_logits on the same file.
#include "support.hpp"

#include <fstream>

#include "json/case_files.hpp"
#include "json/ops.hpp"
#include "panels/lm_link.hpp"

namespace headless {

namespace {

const char* kFixtures = "tests/reference/gpt2/";

Json fixture(const std::string& name) {
  std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/" + kFixtures + name);
  expect(static_cast<bool>(in), "fixture " + name + " readable");
  Json j;
  in >> j;
  return j;
}

// Frames until the panel has nothing under way (the native Worker answers at the next tick).
Json settled(Driver& d) {
  for (int i = 0; i < 20; ++i) {
    d.frames(2);
    const Json s = api_state()["language_model"];
    if (!s["busy"].get<bool>()) return s;
  }
  fail("the Language model panel stays busy");
  return api_state()["language_model"];
}

// softmax of a logit row in long double: the reference the panel's probabilities are held to.
std::vector<double> softmax(const Json& row) {
  long double mx = -1e300L, z = 0;
  for (const Json& x : row) mx = std::max(mx, static_cast<long double>(x.get<double>()));
  std::vector<long double> e;
  for (const Json& x : row) e.push_back(std::exp(static_cast<long double>(x.get<double>()) - mx)), z += e.back();
  std::vector<double> p;
  for (long double v : e) p.push_back(static_cast<double>(v / z));
  return p;
}

// A bad input is refused with `code`, shows the error, and leaves every figure as it was.
void refused(const Json& patch, const std::string& code) {
  Json before = api_state()["language_model"];
  const Json reply = api_set({{"language_model", patch}});
  expect(reply.value("ok", true) == false, "accepted bad input " + patch.dump());
  expect(reply.contains("error") && reply["error"].value("code", "") == code,
         "code for " + patch.dump() + ": " + reply.dump());
  Json after = api_state()["language_model"];
  expect(after["error"].is_object(), "the panel shows the error of " + patch.dump());
  for (Json* j : {&before, &after}) j->erase("error");
  expect(after == before, "a refused " + patch.dump() + " changed the panel: " + Json::diff(before, after).dump().substr(0, 400));
}

}  // namespace

void check_language_model(Driver& d, app::App& a) {
  (void)a;
  open_panel_step("language_model");
  Json s = settled(d);
  // The default checkpoint loads when the panel opens, or, where it is absent, the panel says so.
  expect(s["model"].is_object() || s["error"].is_object(), "the default model loaded or its failure is shown");
  if (s["model"].is_object()) {  // the shipped default: GPT-2's tokenizer through its trimmed vocabulary
    expect(s["model"]["source"] == "default", "the default model's source");
    expect(!s["tokens"].empty() && s["pieces"].size() == s["tokens"].size(), "the prompt in GPT-2's pieces");
    expect(s["next"].size() == 10, "ten next tokens of the default model");
    expect(s["card"]["caption"].get<std::string>().find("nats per token") != std::string::npos, "the card's caption");
    // The induction probe draws the model's own ids: with a trimmed vocabulary it still runs.
    expect(s["scores"].size() == 16 && s["scores"][0]["induction"].is_number(), "induction scores of the default model");
    expect(s["captions"]["trace"].get<std::string>().find("reads") != std::string::npos, "the traced row's sentence");
    expect(s["contribution"]["caption"].get<std::string>().find("The largest weight") == 0, "the default model's contribution sentence");
    // A word the Bible never uses is left out and named; the rest of the prompt is kept.
    expect_accepted({{"language_model", {{"prompt", "And God said hello"}}}});
    s = settled(d);
    expect(s["dropped"].get<std::string>().find("hello") != std::string::npos, "a token outside the vocabulary named: " + s["dropped"].dump());
    expect(s["error"].is_null() && s["tokens"].size() == 3, "the rest of the prompt kept");
  }

  const std::string base = kFixtures;
  expect_accepted({{"language_model", {{"model", base + "hf-generate-model.safetensors"},
                                       {"config", base + "hf-generate-model.config.json"}}}});
  s = settled(d);
  expect(s["error"].is_null(), "the fixture loads: " + s["error"].dump());
  expect(s["model"]["source"] == "url" && s["model"]["layout"] == "transformers", "the link's model is held");
  expect(s["model"]["config"]["vocab"] == 61, "its config: vocab 61");
  // Not GPT-2's vocabulary: the prompt became token ids.
  expect(s["tokens"].size() == 8 && s["tokens"][7] == 7, "the prompt became the first 8 ids");

  const Json torch = fixture("hf-generate-model.json");
  const std::vector<int> tokens = torch["case"]["tokens"][0].get<std::vector<int>>();
  expect_accepted({{"language_model", {{"tokens", tokens}}}});
  s = settled(d);
  expect(s["tokens"] == Json(tokens) && s["prompt"] == "3 14 15", "the prompt's ids");
  // Next-token probabilities: torch's logits' softmax (float32, within the fixture's tolerance).
  const Json& logits = torch["expect"]["logits"][0];
  const std::vector<double> ref = softmax(logits[logits.size() - 1]);
  expect(s["next"].size() == 10, "ten next tokens");
  for (const Json& row : s["next"]) {
    const int id = row["id"].get<int>();
    expect(std::fabs(row["p"].get<double>() - ref[static_cast<std::size_t>(id)]) <= 2e-4,
           "next token " + std::to_string(id) + ": torch's probability");
  }
  for (std::size_t i = 1; i < s["next"].size(); ++i)
    expect(s["next"][i - 1]["p"].get<double>() >= s["next"][i]["p"].get<double>(), "next tokens by probability");
  // The same file through the JSON core's model_logits (float32): equal to 1e-6.
  Json req = torch["case"];
  req["model"] = std::string(ATTN_SOURCE_DIR) + "/" + base + "hf-generate-model.safetensors";
  req["config"] = std::string(ATTN_SOURCE_DIR) + "/" + base + "hf-generate-model.config.json";
  // As the attn tool does: model_logits reads files, tensor by tensor.
  attn::register_file_ops();
  attn::set_case_file_reader(attn::read_case_file);
  attn::set_case_file_ranges({attn::case_file_size, attn::read_case_file_range});
  const Json core = attn::run_case(req);
  attn::set_case_file_reader({});
  attn::set_case_file_ranges({});
  expect(core.contains("logits"), "model_logits answers: " + core.dump().substr(0, 200));
  const Json& core_logits = core["logits"][0];
  const std::vector<double> p_core = softmax(core_logits[core_logits.size() - 1]);
  for (const Json& row : s["next"])
    expect(std::fabs(row["p"].get<double>() - p_core[row["id"].get<std::size_t>()]) <= 1e-6,
           "next token " + row["id"].dump() + ": model_logits' probability");
  // The enlarged map: torch's weights of layer 1, head 2, query rows.
  expect_accepted({{"language_model", {{"layer", 1}, {"head", 2}}}});
  s = api_state()["language_model"];
  const Json& w = torch["expect"]["weights"][1][0][2];
  const Json& mine = s["map"]["weights"];
  expect(mine.size() == w.size(), "the map is t x t");
  for (std::size_t i = 0; i < w.size(); ++i)
    for (std::size_t j = 0; j < w[i].size(); ++j)
      expect(std::fabs(mine[i][j].get<double>() - w[i][j].get<double>()) <= 2e-4, "map weight = torch's");
  // Head scores: previous-token = mean of the sub-diagonal, measured on the same map.
  double prev = 0.0;
  for (std::size_t i = 1; i < w.size(); ++i) prev += mine[i][i - 1].get<double>();
  prev /= static_cast<double>(w.size() - 1);
  expect(s["scores"].size() == 6, "2 layers x 3 heads of scores");
  expect(std::fabs(s["scores"][5]["previous_token"].get<double>() - prev) <= 1e-6, "head 1.2's previous-token score");
  expect(s["captions"]["heads"].get<std::string>().find("heads put half or more") != std::string::npos, "heads caption");

  // Weight against contribution of the traced row (the last query): its weights are torch's row, and
  // norm_j / weight_j = ‖W_O,h v_j‖ belongs to the key, not the query, so two queries agree on it.
  s = settled(d);
  const Json last = s["contribution"];
  expect(last.is_object() && last["layer"] == 1 && last["head"] == 2 && last["query"] == 2 && last["weights"].size() == 3,
         "the traced row's contribution: " + last.dump().substr(0, 200));
  for (std::size_t j = 0; j < 3; ++j)
    expect(std::fabs(last["weights"][j].get<double>() - w[2][j].get<double>()) <= 2e-4, "contribution weight = torch's");
  expect(last["caption"].get<std::string>().find("The largest weight") == 0, "the contribution's sentence");
  expect_accepted({{"language_model", {{"query", 1}}}});
  const Json mid = settled(d)["contribution"];
  expect(mid["query"] == 1 && mid["norms"].size() == 2, "query 1's contribution");
  for (std::size_t j = 0; j < 2; ++j) {
    const double a = last["norms"][j].get<double>() / last["weights"][j].get<double>();
    const double b = mid["norms"][j].get<double>() / mid["weights"][j].get<double>();
    expect(std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(a)), "key " + std::to_string(j) + "'s |W_O v_j| is the same from both queries");
  }

  // Greedy generation with the K/V cache: torch's tokens.
  const Json greedy = fixture("hf-generate-greedy.json");
  expect_accepted({{"language_model", {{"steps", greedy["case"]["steps"]}, {"temperature", 0}, {"generate", true}}}});
  s = settled(d);
  expect(s["generation"]["tokens"] == greedy["expect"]["tokens"], "greedy generation = torch's: " + s["generation"].dump());

  // Refusals keep the model and the figures.
  const std::string hash = s["model"]["hash"].dump();
  refused({{"layer", 2}}, "invalid_field");
  refused({{"temperature", -1}}, "invalid_field");
  refused({{"prompt", "3 fourteen"}}, "invalid_field");
  refused({{"prompt", ""}}, "empty_sequence");
  expect(api_state()["language_model"]["tokens"] == Json(tokens), "a refused prompt keeps the tokens");
  // A query is checked against the prompt of its own patch, not the one shown.
  refused({{"tokens", {1, 2, 3}}, {"query", 3}}, "invalid_field");
  expect_accepted({{"language_model", {{"tokens", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, {"query", 8}}}});
  s = settled(d);
  expect(s["inputs"]["query"] == 8 && s["contribution"]["query"] == 8, "query 8 of a 10-token prompt: " + s["inputs"].dump());
  expect_accepted({{"language_model", {{"tokens", tokens}, {"query", -1}}}});
  settled(d);
  expect_accepted({{"language_model", {{"prompt", "3 14 99"}}}});
  s = settled(d);
  expect(s["error"].is_object() && s["error"]["message"].get<std::string>().find("tokens[2]") != std::string::npos,
         "an id past the vocabulary is named: " + s["error"].dump());
  expect_accepted({{"language_model", {{"model", base + "bad-missing-tensor.safetensors"}}}});
  s = settled(d);
  expect(s["error"]["code"] == "missing_field", "a file missing a tensor is refused: " + s["error"].dump());
  expect(s["model"]["source"] == "url" && s["model"]["hash"].dump() == hash, "the last good model stays");
  expect_accepted({{"language_model", {{"model", base + "no-such-file.safetensors"}}}});
  s = settled(d);
  expect(s["error"].is_object() && s["model"]["hash"].dump() == hash, "a missing file leaves the model");
  // Each head ablated alone: torch 1.13's Δloss (tests/reference/generate_lm_ablation.py, float64)
  // within float32's rounding of losses near 12 nats.
  std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/tests/reference/lm_ablation_torch.json");
  Json ab;
  in >> ab;
  expect_accepted({{"language_model", {{"tokens", ab["tokens"]}}}});
  s = settled(d);
  expect(s["ablation"].is_null() && s["scores"][0]["zero_ablation"].is_null(), "no ablation before it is asked");
  expect_accepted({{"language_model", {{"ablate", true}}}});
  s = settled(d);
  expect(s["ablation"].is_object() && s["ablation"]["targets"] == 7, "ablation over 7 next tokens: " + s["ablation"].dump());
  expect(std::fabs(s["ablation"]["clean_loss"].get<double>() - ab["clean_loss"].get<double>()) <= 1e-4, "torch's clean loss");
  expect(s["scores"].size() == ab["heads"].size(), "every head ablated");
  for (std::size_t k = 0; k < ab["heads"].size(); ++k)
    for (const char* mode : {"zero", "mean"})
      expect(std::fabs(s["scores"][k][std::string(mode) + "_ablation"].get<double>() - ab["heads"][k][mode].get<double>()) <= 1e-4,
             "head " + std::to_string(k) + " " + mode + " ablation = torch's");
  expect(s["captions"]["ablation"].get<std::string>().find("Each head ablated alone, on these 7 next tokens") == 0,
         "the ablation's sentence");
  // A new prompt clears the figures: they were measured on the old one.
  expect_accepted({{"language_model", {{"tokens", {3, 14}}}}});
  s = settled(d);
  expect(s["ablation"].is_null() && s["scores"][0]["zero_ablation"].is_null(), "a new prompt clears the ablation");
  // Asked with a new prompt, ablation waits for its forward; one token has no next token to score.
  expect_accepted({{"language_model", {{"tokens", {3, 14, 15}}, {"ablate", true}}}});
  s = settled(d);
  expect(s["ablation"]["targets"] == 2, "ablation of the new prompt: " + s["ablation"].dump());
  expect_accepted({{"language_model", {{"tokens", {3}}}}});
  settled(d);
  refused({{"ablate", true}}, "invalid_field");
  d.sweep(61);
  app::lm_link::reset_native();
}

}  // namespace headless
