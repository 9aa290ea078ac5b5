// Alignment panel: the lesson's constructed "the black cat" → "le chat noir" read.
#include "panels/alignment.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <functional>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"
#include "attn/masks.hpp"
#include "attn/tokenizer.hpp"
#include "panels/patch.hpp"
#include "panels/recall.hpp"
#include "panels/ui.hpp"
#include "learn/json_obj.hpp"

namespace app {

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"alignment", "Alignment", "a constructed cross-read", "Alignment: a soft read of the source",
    json_entry<AlignmentState, alignment_state_json>, apply_entry<AlignmentState, apply_alignment_json>,
    error_entry<AlignmentState>, json_entry<AlignmentState, alignment_link_inputs>, [](AppState& s, Ui& ui) {
      // The check-yourself strip, under the panel's checks in its right column.
      draw_alignment_panel(state_of<AlignmentState>(s), ui, [&] { draw_recall_strip(s, ui, "alignment"); });
    }};
const PanelDef& alignment_panel() { return kPanel; }

namespace {

bool recompute_alignment(AlignmentState& a, const Matrix& weights, const Matrix& values) {
  return guarded(a.error, [&] {
    attn::AlignmentRead r = attn::alignment_read(a.queries, a.keys, weights, values);
    std::vector<double> sums = row_sums(r.weights);
    a.weights = weights;
    a.values = values;
    a.result = std::move(r);
    a.row_sums = std::move(sums);
    changed();
  });
}

}  // namespace

// --- Alignment --------------------------------------------------------------

void reset_alignment(AlignmentState& a) {
  const attn::AlignmentRead lesson = attn::lesson_alignment();
  a.queries = lesson.queries;
  a.keys = lesson.keys;
  recompute_alignment(a, lesson.weights, lesson.values);
  select_alignment_row(a, 1);
}

bool set_alignment_weight(AlignmentState& a, int row, int col, double value) {
  Matrix w = a.weights;  // edit a copy: the core validates before we commit
  const bool ok = guarded(a.error, [&] { attn::set_weight_keep_distribution(w, row, col, value); });
  return ok && recompute_alignment(a, w, a.values);
}

bool set_alignment_value(AlignmentState& a, int key, int dim, double value) {
  Matrix v = a.values;
  if (key < 0 || key >= v.rows() || dim < 0 || dim >= v.cols()) {
    a.error = invalid("value (" + std::to_string(key) + ", " + std::to_string(dim) +
                                ") is outside the " + attn::shape_str(v) + " value matrix");
    return false;
  }
  v(key, dim) = value;
  return recompute_alignment(a, a.weights, v);
}

bool set_alignment_matrices(AlignmentState& a, const Matrix& weights, const Matrix& values) {
  return recompute_alignment(a, weights, values);
}

void select_alignment_row(AlignmentState& a, int row) {
  const int rows = static_cast<int>(a.result.weights.rows());
  a.selected_row = rows > 0 ? std::max(0, std::min(rows - 1, row)) : 0;
}

namespace {

bool apply_alignment(AlignmentState& a, const Json& patch) {
  Matrix w = a.weights, v = a.values;
  bool matrices = false;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k == "weights" || k == "values") {
      matrices = true;
      if (!guarded(a.error, [&] { (k == "weights" ? w : v) = attn::matrix_from_json(*it, k.c_str()); })) return false;
    } else if (k == "selected_row") {
      select_alignment_row(a, get_number<int>(*it, "selected_row", -1000000, 1000000));
    } else if (k == "set_weight") {  // {"row":i,"col":j,"value":x}: the slider's path
      const Json& e = *it;
      if (!e.is_object() || !e.contains("row") || !e.contains("col") || !e.contains("value"))
        throw PatchError{"set_weight needs {row, col, value}"};
      if (!e["value"].is_number()) throw PatchError{"set_weight.value must be a number"};
      if (!set_alignment_weight(a, get_number<int>(e["row"], "row", -1000000, 1000000),
                                get_number<int>(e["col"], "col", -1000000, 1000000),
                                e["value"].get<double>()))
        return false;
      w = a.weights;
    } else if (k == "reset") {
      if (get_bool(*it, "reset")) reset_alignment(a);
      w = a.weights;
      v = a.values;
    } else {
      throw PatchError{"unknown alignment input '" + k + "'"};
    }
  }
  return matrices ? set_alignment_matrices(a, w, v) : true;
}

}  // namespace

Json alignment_state_json(const AlignmentState& a) {
  return ::attn::obj({{"inputs", ::attn::obj({{"queries", a.queries}, {"keys", a.keys}, {"weights", attn::to_json(a.weights)},
                          {"values", attn::to_json(a.values)}})},
              {"selected_row", a.selected_row},
              {"result", attn::to_json(a.result)},
              {"row_sums", vector_json(a.row_sums)},
              {"error", error_value(a.error)}});
}

// The link inputs mirror the "inputs" above (minus what a link need not carry); the browser
// test "a link reproduces the view" checks that they stay the same.
Json alignment_link_inputs(const AlignmentState& a) {
  return ::attn::obj({{"weights", attn::to_json(a.weights)}, {"values", attn::to_json(a.values)}, {"selected_row", a.selected_row}});
}

bool apply_alignment_json(AlignmentState& a, const Json& patch) { return apply_alignment(a, patch); }

// --- drawing -------------------------------------------------------------------------------

namespace {

const char* kDot = "\xC2\xB7";    // ·
const char* kTimes = "\xC3\x97";  // ×

std::string vec_text(const attn::Matrix& m, attn::Index row) {
  std::string s = "(";
  for (attn::Index c = 0; c < m.cols(); ++c) s += (c ? ", " : "") + short_number(m(row, c), 4);
  return s + ")";
}

// The value triangle (2-D values), every context, and the selected row's pulls.
// Only maps numbers to pixels: the contexts themselves come from the core.
void value_plot(const attn::AlignmentRead& r, int selected, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  if (r.values.cols() != 2 || r.values.rows() == 0) {
    widgets::dim_wrapped("The plot needs 2-D values.");
    return;
  }
  // Data bounds; equal scale on both axes so the triangle keeps its shape.
  double lo_x = r.values(0, 0), hi_x = lo_x, lo_y = r.values(0, 1), hi_y = lo_y;
  auto grow = [&](double x, double y) {
    lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x), lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y);
  };
  for (attn::Index j = 0; j < r.values.rows(); ++j) grow(r.values(j, 0), r.values(j, 1));
  for (attn::Index i = 0; i < r.contexts.rows(); ++i) grow(r.contexts(i, 0), r.contexts(i, 1));
  const double span_x = std::max(hi_x - lo_x, 1e-9), span_y = std::max(hi_y - lo_y, 1e-9);
  const float margin_x = fs * 3.5f, margin_y = fs * 2.2f;  // room for the labels
  const float inner_w = std::max(40.0f, width - 2 * margin_x);
  const float inner_h = std::max(inner_w * 0.45f, std::min(inner_w, static_cast<float>(inner_w * span_y / span_x)));
  const double scale = std::min(inner_w / span_x, inner_h / span_y);
  const float height = inner_h + 2 * margin_y;

  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  const ImVec2 p1(p0.x + width, p0.y + height);
  dl->AddRectFilled(p0, p1, IM_COL32(255, 255, 255, 255), 8.0f);
  dl->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border), 8.0f);
  const double cx = 0.5 * (lo_x + hi_x), cy = 0.5 * (lo_y + hi_y);
  const ImVec2 mid(0.5f * (p0.x + p1.x), 0.5f * (p0.y + p1.y));
  auto to_px = [&](double x, double y) {
    return ImVec2(mid.x + static_cast<float>((x - cx) * scale), mid.y - static_cast<float>((y - cy) * scale));
  };
  dl->PushClipRect(p0, p1, true);

  // Axes through the origin when it is in view.
  const ImU32 axis = IM_COL32(215, 215, 215, 255);
  const ImVec2 o = to_px(0, 0);
  if (o.x > p0.x && o.x < p1.x) dl->AddLine(ImVec2(o.x, p0.y + 4), ImVec2(o.x, p1.y - 4), axis);
  if (o.y > p0.y && o.y < p1.y) dl->AddLine(ImVec2(p0.x + 4, o.y), ImVec2(p1.x - 4, o.y), axis);

  // Hull of the values (a triangle for three keys): every context lands inside it.
  const int k = static_cast<int>(r.values.rows());
  std::vector<ImVec2> pts;
  ImVec2 centroid(0, 0);
  for (int j = 0; j < k; ++j) {
    pts.push_back(to_px(r.values(j, 0), r.values(j, 1)));
    centroid.x += pts.back().x / k;
    centroid.y += pts.back().y / k;
  }
  if (k == 3) dl->AddTriangleFilled(pts[0], pts[1], pts[2], IM_COL32(31, 111, 178, 26));
  for (int j = 0; j < k; ++j)
    for (int l = j + 1; l < k; ++l) dl->AddLine(pts[j], pts[l], IM_COL32(31, 111, 178, 110), 1.5f);

  // A label placed off a point, away from (out = true) or toward the centroid.
  auto label_at = [&](ImVec2 at, const std::string& text, ImU32 col, bool out, bool boxed) {
    ImVec2 dir(at.x - centroid.x, at.y - centroid.y);
    const float len = std::sqrt(dir.x * dir.x + dir.y * dir.y);
    dir = len > 1e-3f ? ImVec2(dir.x / len, dir.y / len) : ImVec2(0, -1);
    if (!out) dir = ImVec2(-dir.x, -dir.y);
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    ImVec2 pos(at.x + dir.x * 12.0f, at.y + dir.y * 12.0f);
    pos.x += dir.x >= 0 ? 0.0f : -ts.x;          // extend away from the point
    pos.y += dir.y >= 0 ? 0.0f : -ts.y;
    if (std::fabs(dir.x) < 0.35f) pos.x = at.x - ts.x * 0.5f;
    pos.x = std::max(p0.x + 4, std::min(p1.x - 4 - ts.x, pos.x));
    pos.y = std::max(p0.y + 2, std::min(p1.y - 2 - ts.y, pos.y));
    if (boxed) dl->AddRectFilled(ImVec2(pos.x - 3, pos.y - 1), ImVec2(pos.x + ts.x + 3, pos.y + ts.y + 1),
                                 IM_COL32(255, 255, 255, 225), 3.0f);
    dl->AddText(pos, col, text.c_str());
  };

  // The selected row's pulls: one line per key, as thick as its weight.
  const bool has_sel = selected >= 0 && selected < r.contexts.rows();
  if (has_sel) {
    const ImVec2 c = to_px(r.contexts(selected, 0), r.contexts(selected, 1));
    for (int j = 0; j < k && j < r.weights.cols(); ++j) {
      const double w = r.weights(selected, j);
      if (!(w > 0)) continue;
      const int alpha = 70 + static_cast<int>(170 * std::min(1.0, w));
      dl->AddLine(c, pts[j], IM_COL32(214, 120, 20, alpha), 1.0f + 6.0f * static_cast<float>(w));
    }
  }
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (int i = 0; i < r.contexts.rows(); ++i) {
    if (i == selected) continue;
    const ImVec2 c = to_px(r.contexts(i, 0), r.contexts(i, 1));
    dl->AddCircleFilled(c, 5.0f, IM_COL32(255, 255, 255, 255));
    dl->AddCircle(c, 5.0f, dim, 16, 1.5f);
    label_at(c, i < static_cast<int>(r.queries.size()) ? r.queries[i] : "?", dim, false, false);
  }
  for (int j = 0; j < k; ++j) {
    dl->AddCircleFilled(pts[j], 6.0f, IM_COL32(31, 111, 178, 255));
    label_at(pts[j], (j < static_cast<int>(r.keys.size()) ? r.keys[j] : "?") + " " + vec_text(r.values, j), text,
             true, true);
  }
  if (has_sel) {
    const ImVec2 c = to_px(r.contexts(selected, 0), r.contexts(selected, 1));
    dl->AddCircleFilled(c, 7.0f, IM_COL32(214, 120, 20, 255));
    dl->AddCircle(c, 7.0f, IM_COL32(255, 255, 255, 255), 16, 2.0f);
    // The traced context's name and coordinates sit in the corner, clear of the crowd.
    const std::string caption = (selected < static_cast<int>(r.queries.size()) ? r.queries[selected] : "?") +
                                " = " + vec_text(r.contexts, selected);
    const ImVec2 ts = ImGui::CalcTextSize(caption.c_str());
    const ImVec2 at(p1.x - ts.x - 10, p0.y + 8);
    dl->AddCircleFilled(ImVec2(at.x - 10, at.y + ts.y * 0.5f), 5.0f, IM_COL32(214, 120, 20, 255));
    dl->AddText(at, IM_COL32(150, 80, 10, 255), caption.c_str());
  }
  dl->PopClipRect();
}

}  // namespace

void draw_alignment_panel(AlignmentState& a, Ui& ui, const std::function<void()>& foot) {
  const attn::AlignmentRead& r = a.result;
  const int tq = static_cast<int>(r.weights.rows()), tk = static_cast<int>(r.weights.cols());

  style::paragraph(
      "Translating \"the black cat\" into \"le chat noir\" as a cross-attention read. Each target word "
      "(row, a query) spreads one unit of weight over the source words (columns, keys). Its context is the "
      "weighted average of the source values, so it always lands inside their triangle.");
  style::note(
      "These weights are made up for the lesson, not measured from a trained model. A real model's "
      "source vectors also carry context, so even a sharp alignment is not a word-for-word dictionary.");
  style::error_box(a.error);

  const float avail = ImGui::GetContentRegionAvail().x;
  const bool two_col = avail > ImGui::GetFontSize() * 46;
  const float left_w = two_col ? std::floor(avail * 0.47f) : avail;

  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + left_w);  // the column's text wraps at its width
  style::heading(ui.fonts, "Weights (rows: target, columns: source)");
  HeatmapSpec spec;
  spec.values = &r.weights;
  spec.row_labels = &r.queries;
  spec.col_labels = &r.keys;
  spec.row_sums = &a.row_sums;
  spec.vmin = 0.0;
  spec.vmax = 1.0;
  spec.version = generation();
  spec.numbers = true;
  spec.width = left_w;
  spec.max_cell = 72.0f;
  spec.selected_row = a.selected_row;
  const HeatmapEvent ev = heatmap("alignment_weights", spec, ui.gpu);
  if (ev.clicked_row >= 0) select_alignment_row(a, ev.clicked_row);
  widgets::dim_wrapped("Click a row to trace it.");

  style::heading(ui.fonts, "Edit the weights and values");
  // No keyboard hint on a touch device.
  widgets::dim_wrapped(style::touch_sizes()
                           ? "Drag a weight: the rest of its row rescales to keep the sum at 1."
                           : "Drag a weight (Ctrl+click to type one): the rest of its row rescales to keep the sum at 1.");
  // One slider per weight: moving one rescales the others so the row still sums to 1.
  if (widgets::begin_table_fit("##weights", tk + 1, ImGuiTableFlags_SizingStretchSame, left_w, tq + 1)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 3.2f);
    for (int j = 0; j < tk; ++j) ImGui::TableSetupColumn(j < static_cast<int>(r.keys.size()) ? r.keys[j].c_str() : "?");
    ImGui::TableHeadersRow();
    for (int i = 0; i < tq; ++i) {
      ImGui::PushID(i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(i < static_cast<int>(r.queries.size()) ? r.queries[i].c_str() : "?");
      for (int j = 0; j < tk; ++j) {
        ImGui::TableNextColumn();
        ImGui::PushID(j);
        double w = r.weights(i, j);
        const double lo = 0.0, hi = 1.0;
        ImGui::SetNextItemWidth(-FLT_MIN);
        if (widgets::slider_double("##w", &w, lo, hi, "%.3f"))
          set_alignment_weight(a, i, j, w);
        ImGui::PopID();
      }
      ImGui::PopID();
    }
    widgets::end_table_fit();
  }
  widgets::dim_wrapped("Values: one 2-D vector per source word.");
  if (widgets::begin_table_fit("##values", static_cast<int>(r.values.cols()) + 1, ImGuiTableFlags_SizingStretchSame, left_w, static_cast<int>(r.values.rows()) + 1)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 3.2f);
    for (attn::Index c = 0; c < r.values.cols(); ++c) ImGui::TableSetupColumn(c == 0 ? "x" : (c == 1 ? "y" : "more"));
    ImGui::TableHeadersRow();
    for (int j = 0; j < static_cast<int>(r.values.rows()); ++j) {
      ImGui::PushID(100 + j);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(j < static_cast<int>(r.keys.size()) ? r.keys[j].c_str() : "?");
      widgets::matrix_row_fields(r.values, j, 0, 0.1, [&](int c, double v) { set_alignment_value(a, j, c, v); });
      ImGui::PopID();
    }
    widgets::end_table_fit();
  }
  if (ImGui::Button("Reset to the lesson's numbers")) reset_alignment(a);
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();

  if (two_col) ImGui::SameLine(0, ImGui::GetFontSize() * 2.0f);
  ImGui::BeginGroup();
  const int sel = a.selected_row;
  if (sel >= 0 && sel < tq && sel < static_cast<int>(r.contributions.size())) {
    const std::string q = sel < static_cast<int>(r.queries.size()) ? r.queries[sel] : "?";
    style::heading(ui.fonts, ("Tracing \"" + q + "\"").c_str());
    // Row selector as radio buttons (the heatmap rows are clickable too).
    for (int i = 0; i < tq; ++i) {
      if (i) ImGui::SameLine();
      ImGui::PushID(1000 + i);
      if (ImGui::RadioButton(i < static_cast<int>(r.queries.size()) ? r.queries[i].c_str() : "?", sel == i))
        select_alignment_row(a, i);
      ImGui::PopID();
    }
    // In words, then in numbers; every figure is the core's (weights, values, contributions, context).
    std::string words = q + " = ", numbers = q + " = ", terms = "    = ";
    for (int j = 0; j < tk; ++j) {
      const std::string key = j < static_cast<int>(r.keys.size()) ? r.keys[j] : "?";
      const std::string w = short_number(r.weights(sel, j), 4);
      words += (j ? " + " : "") + w + " " + kTimes + " " + key;
      numbers += (j ? " + " : "") + w + kDot + vec_text(r.values, j);
      terms += (j ? " + " : "") + vec_text(r.contributions[static_cast<size_t>(sel)], j);
    }
    numbers += " = " + vec_text(r.contexts, sel);
    ImGui::Dummy(ImVec2(0, 2));
    ImGui::PushFont(ui.fonts.bold);
    style::paragraph(words.c_str());
    ImGui::PopFont();
    style::paragraph(numbers.c_str());
    style::paragraph((terms + " = " + vec_text(r.contexts, sel)).c_str());
    style::note(
        "Each term is weight times value. A weight says how much a key is used, not how much it adds: a "
        "large weight on a value near zero contributes almost nothing.");
    const float side = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 30.0f);
    value_plot(r, sel, std::max(side, 160.0f));
    style::note("Blue: the source values and their triangle. Orange: the traced context, pulled toward each "
                "value by its weight. Grey: the other contexts.");
  }
  style::heading(ui.fonts, "Checks");
  style::check_lines(r.checks);
  foot();
  ImGui::EndGroup();
}

}  // namespace app
