// Headless app test: the navigation and the Random heads panel.
#include "support.hpp"

namespace headless {

// navigation by clicking the sidebar
void check_navigation(Driver& d, app::App& a) {
  g_step = "nav";
  d.click("##nav", 3);
  expect(api_state()["panel"] == "heads", "the fourth nav entry opens the heads panel");
}

// random heads
void check_random_heads(Driver& d, app::App& a) {
  g_step = "heads";
  d.sweep(47);
  d.click("causal mask");
  expect(api_state()["heads"]["inputs"]["causal"] == true, "causal checkbox");
  d.click("key padding");
  expect(api_state()["heads"]["inputs"]["key_padding"] == true, "key padding checkbox");
  d.click("sinusoidal");
  expect(api_state()["heads"]["inputs"]["positions"] == "sinusoidal", "sinusoidal radio");
  d.click("RoPE");
  expect(api_state()["heads"]["inputs"]["positions"] == "rope", "RoPE radio");
  d.click("Re-roll");
  expect(api_state()["heads"]["inputs"]["seed"] == 18, "Re-roll advances the seed");
  d.click("sentence");
  d.type(" again");
  expect(api_state()["heads"]["result"]["tokens"].size() == 7, "typing a word adds a token");
  d.press(kEnter);
  for (int h = 1; h <= 8; ++h) {
    expect_accepted({{"heads", {{"heads", h}}}});
    d.frames(2);
  }
  expect(api_state()["heads"]["result"]["heads"].size() == 8, "8 heads drawn");
  // The anatomy of one head (state().heads.anatomy), each step against the core's own result.
  expect_accepted({{"heads", {{"head", 5}, {"query_row", 5}, {"anatomy_step", 2}}}});
  d.frames(2);
  {
    const Json st = api_state()["heads"];
    const Json& an = st["anatomy"];
    const Json& core = st["result"]["heads"][5];
    expect(an["head"] == 5 && an["query_row"] == 5 && an["step"] == 2, "anatomy: head, query row and step set");
    expect(an["q"].size() == st["result"]["tokens"].size() && an["q"][0].size() == st["inputs"]["d_k"], "anatomy: q is T\xC3\x97" "d_k");
    for (size_t j = 0; j < an["weights"].size(); ++j) {
      expect(an["weights"][j] == core["weights"][5][j], "anatomy: weights are the head's row");
      expect(an["masked"][j] == core["scores"][5][j], "anatomy: masked scores are the contract's scores, null where masked");
      expect(an["scaled"][j].get<double>() == an["raw_scores"][j].get<double>() * an["scale"].get<double>(),
             "anatomy: scaled = raw \xC3\x97 scale");
    }
    expect(an["output"] == core["output"][5], "anatomy: the output is the head's output row");
  }
  d.click("all steps");
  expect(api_state()["heads"]["anatomy"]["step"] == 6, "all steps shown");
  d.sweep(61);
  expect_rejected({{"heads", {{"head", 8}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"query_row", 99}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"anatomy_step", 7}}}}, "heads", "invalid_field");
  d.sweep(97);
  expect_rejected({{"heads", {{"sentence", ""}}}}, "heads", "empty_sequence");
  std::string long_sentence;
  for (int i = 0; i < 600; ++i) long_sentence += "w" + std::to_string(i % 50) + " ";
  expect_rejected({{"heads", {{"sentence", long_sentence}}}}, "heads", "too_large");
  d.frames(3);
  expect_rejected({{"heads", {{"heads", 9}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"d_model", 0}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"valid_length", 0}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"seed", -3}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"nonsense", 1}}}}, "heads", "invalid_field");
  d.frames(3);
  // A large but allowed input: 512 tokens, 8 heads (labels thin out, cells shrink).
  std::string big;
  for (int i = 0; i < 512; ++i) big += "t" + std::to_string(i % 97) + " ";
  expect_accepted({{"heads", {{"sentence", big}, {"heads", 8}, {"causal", false}, {"key_padding", false}}}});
  d.frames(2);
  d.sweep(173);
  expect_accepted({{"heads", {{"sentence", "The cat sat on the mat"}, {"heads", 2}}}});
  expect_state_finite();
}

}  // namespace headless
