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
