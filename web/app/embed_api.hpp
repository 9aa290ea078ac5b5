// web/app/embed_api.hpp — the C functions behind the course-page features of window.attentionLab
// (embed.js, web/page/embed/): embed mode, the link state, the text mirror, the page tools' feedback.
//
// Same conventions as api.hpp: UTF-8 JSON in and out, replies valid until the next call.
#pragma once

#include "json/json_case.hpp"
#include "platform/emscripten_shim.hpp"

namespace app {
struct AppState;
/// The inputs a link must carry to reproduce the view: {"panel": name, "<panel>": {key: value}}
/// for every panel with inputs (state_json's "inputs", minus what set() cannot take back:
/// alignment's token lists, heads' key_padding (valid_length carries it), script's run count),
/// plus alignment.selected_row and additive.step. Each object is a valid set() patch. Computed
/// without serialising any result.
attn::Json link_inputs(const AppState& s);
}  // namespace app

extern "C" {
/// {"panel",...}: app::link_inputs of the current state.
ATTN_EXPORT const char* attn_app_link_inputs();
/// app::view::view_json(max_cells): what the last frame showed (heatmaps with exact values,
/// checks, errors); max_cells > 0 cuts large matrices to their top-left 50×50.
ATTN_EXPORT const char* attn_app_view(int max_cells);
/// Embed mode on (1) or off (0): the panel alone, no navigation.
ATTN_EXPORT void attn_app_set_embed(int on);
/// Every detail section drawn open (1) or collapsed as the panel chose (0): link details=open.
ATTN_EXPORT void attn_app_set_details_open(int on);
/// Tab (dir 1) or Shift+Tab (dir -1) in the canvas: the keyboard cursor moves to the next or
/// previous control in reading order (widgets/keyboard_nav.hpp). 0 when there is none: the page
/// then lets the browser move the focus out of the canvas.
ATTN_EXPORT int attn_app_tab(int dir);
/// The canvas got the focus by Tab (dir 1) or Shift+Tab (-1): the cursor shows on the first or last control.
ATTN_EXPORT void attn_app_focus_entered(int dir);
/// The canvas lost the focus: the keyboard cursor is hidden.
ATTN_EXPORT void attn_app_focus_left();
/// A short confirmation beside the page tools ("Link copied").
ATTN_EXPORT void attn_app_toast(const char* text);
}
