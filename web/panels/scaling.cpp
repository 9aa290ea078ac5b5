// Scaling panel: why scores are divided by sqrt(d_k). Sampled q·k against d_k (histograms,
// variances), softmax saturation with and without the scale, the tied Q = K case, and the
// row-max subtraction that prevents overflow but does not undo saturation.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "panels.hpp"
#include "lesson_ui.hpp"
#include "widgets/plots.hpp"
#include "imgui_stdlib.h"

namespace app {

namespace {

// Reads "1000 1001" / "1000, 1001"; false on anything else (the core judges the numbers).
bool parse_numbers(const std::string& text, std::vector<double>* out) {
  std::vector<double> v;
  const char* p = text.c_str();
  while (*p) {
    if (*p == ' ' || *p == ',' || *p == '(' || *p == ')' || *p == '[' || *p == ']' || *p == '\t') {
      ++p;
      continue;
    }
    char* end = nullptr;
    const double x = std::strtod(p, &end);
    if (end == p) return false;
    v.push_back(x);
    p = end;
  }
  *out = std::move(v);
  return true;
}

std::string cell(double v) { return std::isfinite(v) ? short_number(v, 4) : (std::isnan(v) ? "NaN" : "inf"); }

}  // namespace

void draw_scaling_panel(AppState& s, Ui& ui) {
  ScalingState& c = s.lesson.scaling;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "If the d_k components of q and k are independent with mean 0 and variance 1, then q\xC2\xB7k is a sum of "
      "d_k products of variance 1: its variance is d_k. Dividing by \xE2\x88\x9A"
      "d_k brings it back to 1, so the "
      "softmax sees scores of the same spread whatever the head width. Below, q and k are sampled (seeded).");
  txt::note(
      "The assumption is about independent unit-variance components. LayerNorm does not guarantee it after "
      "learned projections, and tied Q = K breaks it outright (see below). Longer sequences mean more "
      "scores, not larger ones.");
  style::error_box(c.error);

  if (c.pending) {  // the sampling study runs before the next frame (show_scaling_panel), not in this draw
    ImGui::TextDisabled("Sampling the study (%d pairs per d_k)...", c.samples);
    return;
  }

  // --- inputs. The study takes a moment at large d_k: it reruns when the slider is released.
  ImGui::SetNextItemWidth(fs * 16.0f);
  ImGui::SliderInt("d_k", &c.d_k_edit, 1, 512, "%d", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) set_scaling(s, c.d_k_edit, c.seed, c.samples);
  if (!ImGui::IsItemActive()) c.d_k_edit = c.d_k;
  ImGui::SameLine(0, fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 7.0f);
  std::uint64_t seed = c.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu"))
    set_scaling(s, c.d_k, seed, c.samples);
  ImGui::SameLine(0, fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 7.0f);
  int samples = c.samples;
  if (ImGui::InputInt("samples N", &samples, 500, 1000, ImGuiInputTextFlags_EnterReturnsTrue))
    set_scaling(s, c.d_k, c.seed, samples);

  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = fs * 1.5f;
  const float half = std::floor((avail - gap) * 0.5f);
  const float hist_h = fs * 9.0f;

  // --- histograms at the chosen d_k
  if (!c.selected.dot.empty() && !c.selected_scaled.dot.empty()) {
    const attn::DotProductStats& d = c.selected.dot[0];
    const attn::DotProductStats& ds = c.selected_scaled.dot[0];
    const double r1 = c.selected.input.range, r2 = c.selected_scaled.input.range;
    ImGui::BeginGroup();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("q\xC2\xB7k at d_k = %d", d.d_k);
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextDisabled("var = %s  (\xE2\x89\x88 d_k = %d)", short_number(d.variance, 4).c_str(), d.d_k);
    plot::histogram("raw", d.histogram, -r1, r1, half, hist_h, style::accent_u32(), "q\xC2\xB7k", d.below, d.above);
    ImGui::EndGroup();
    ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(
        "q\xC2\xB7k / \xE2\x88\x9A"
        "d_k");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextDisabled("var = %s  (\xE2\x89\x88 1)", short_number(ds.scaled_variance, 4).c_str());
    plot::histogram("scaled", ds.scaled_histogram, -r2, r2, half, hist_h, IM_COL32(60, 140, 110, 255),
                    "q\xC2\xB7k / \xE2\x88\x9A"
                    "d_k",
                    ds.scaled_below, ds.scaled_above);
    ImGui::EndGroup();
    ImGui::TextDisabled(
        "Each histogram spans \xC2\xB1"
        "4 of its own standard deviations: the left axis grows with "
        "\xE2\x88\x9A"
        "d_k, the right one stays put.");
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted("Tied Q = K:");
    ImGui::PopFont();
    ImGui::SameLine();
    txt::para(("the self-score q\xC2\xB7q = \xE2\x80\x96q\xE2\x80\x96\xC2\xB2 is a sum of squares, so its mean is d_k, "
               "not 0: measured " +
               short_number(d.tied_mean, 4) + " at d_k = " + std::to_string(d.d_k) + ". Scaled, it is still " +
               short_number(d.tied_scaled_mean, 4) +
               " (\xE2\x89\x88 \xE2\x88\x9A"
               "d_k): the diagonal wins more and more as d_k grows.")
                  .c_str());
  }

  // --- variance table and saturation curves over d_k = 1..512
  const attn::ScalingResult& cu = c.curve;
  style::heading(ui.fonts, "Against d_k");
  ImGui::BeginGroup();
  if (ImGui::BeginTable("##var", 4,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchSame,
                        ImVec2(half, 0))) {
    ImGui::TableSetupColumn("d_k");
    ImGui::TableSetupColumn("var(q\xC2\xB7k)");
    ImGui::TableSetupColumn(
        "var(q\xC2\xB7k/\xE2\x88\x9A"
        "d_k)");
    ImGui::TableSetupColumn("mean q\xC2\xB7q");
    ImGui::TableHeadersRow();
    for (const attn::DotProductStats& d : cu.dot) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", d.d_k);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(d.variance, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(d.scaled_variance, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(d.tied_mean, 4).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("N = %d pairs per d_k, seed %llu", cu.input.samples,
                      static_cast<unsigned long long>(cu.input.seed));
  std::vector<double> xs, mw, smw, ent, sent, uni, gu, gs, guni;
  double gmax = cu.uniform_gradient_norm;
  for (const attn::SaturationStats& st : cu.saturation) {
    xs.push_back(st.d_k);
    mw.push_back(st.max_weight);
    smw.push_back(st.scaled_max_weight);
    ent.push_back(st.entropy);
    sent.push_back(st.scaled_entropy);
    uni.push_back(cu.uniform_entropy);
    gu.push_back(st.gradient_norm_unscaled);
    gs.push_back(st.gradient_norm_scaled);
    guni.push_back(cu.uniform_gradient_norm);
    gmax = std::max({gmax, st.gradient_norm_unscaled, st.gradient_norm_scaled});
  }
  ImGui::EndGroup();
  ImGui::SameLine(0, gap);
  ImGui::BeginGroup();
  ImGui::TextDisabled("softmax over %d random keys, mean of %d rows", cu.input.keys, cu.input.rows);
  const float plot_h = fs * 6.0f;  // three stacked curves, as tall as the two of 9 they replace
  plot::line_plot("maxw", xs,
                  {plot::Series{"no scale", mw, IM_COL32(214, 120, 20, 255)}, plot::Series{"scaled by 1/\xE2\x88\x9A"
                                                                                           "d_k",
                                                                                           smw, style::accent_u32()}},
                  true, 0.0, 1.0, half, plot_h, "d_k", "largest weight");
  plot::line_plot(
      "entropy", xs,
      {plot::Series{"no scale", ent, IM_COL32(214, 120, 20, 255)}, plot::Series{"scaled", sent, style::accent_u32()},
       plot::Series{"uniform", uni, IM_COL32(150, 150, 150, 255), true}},
      true, 0.0, std::max(0.1, cu.uniform_entropy * 1.05), half, plot_h, "d_k", "entropy (nats)");
  // The softmax Jacobian's norm, measured by the core's backward pass, under the saturation curves.
  plot::line_plot("gradnorm", xs,
                  {plot::Series{"no scale", gu, IM_COL32(214, 120, 20, 255)},
                   plot::Series{"scaled", gs, style::accent_u32()},
                   plot::Series{"uniform", guni, IM_COL32(150, 150, 150, 255), true}},
                  true, 0.0, std::max(1e-3, gmax * 1.05), half, plot_h, "d_k",
                  "\xE2\x80\x96" "dw/d logits\xE2\x80\x96");
  ImGui::EndGroup();
  if (!cu.saturation.empty()) {
    const attn::SaturationStats& lo = cu.saturation.front();
    const attn::SaturationStats& hi = cu.saturation.back();
    txt::note(("At d_k = " + std::to_string(hi.d_k) + " without the scale: mean largest weight " +
               short_number(hi.max_weight, 3) + ", entropy " + short_number(hi.entropy, 3) +
               " nats, and the softmax's gradient norm \xE2\x80\x96" "dw/d logits\xE2\x80\x96 (Frobenius, by the "
               "backward pass, mean over the same rows) " +
               short_number(hi.gradient_norm_unscaled, 3) + "; scaled: " + short_number(hi.scaled_max_weight, 3) +
               ", " + short_number(hi.scaled_entropy, 3) + " nats and " + short_number(hi.gradient_norm_scaled, 3) +
               ". At d_k = " + std::to_string(lo.d_k) + " the gradient norms are " +
               short_number(lo.gradient_norm_unscaled, 3) + " and " + short_number(lo.gradient_norm_scaled, 3) +
               "; a uniform row gives " + short_number(cu.uniform_gradient_norm, 3) + ".")
                  .c_str());
  }

  // --- stability
  style::heading(ui.fonts, "Overflow is a different problem");
  ImGui::SetNextItemWidth(fs * 14.0f);
  if (ImGui::InputText("logits", &c.logits_text, ImGuiInputTextFlags_EnterReturnsTrue)) {
    std::vector<double> v;
    if (parse_numbers(c.logits_text, &v))
      set_scaling_logits(s, v);
    else
      c.error = ErrorInfo{"invalid_field", "logits: type numbers separated by spaces, e.g. 1000 1001"};
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(Enter to apply)");
  const attn::SoftmaxStability& st = c.stability;
  if (ImGui::BeginTable("##stab", static_cast<int>(st.logits.size()) + 1,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, fs * 16.0f);
    for (size_t j = 0; j < st.logits.size(); ++j)
      ImGui::TableSetupColumn(("logit " + short_number(st.logits[j], 6)).c_str(), ImGuiTableColumnFlags_WidthFixed,
                              fs * 8.0f);
    ImGui::TableHeadersRow();
    auto row = [&](const char* name, const std::vector<double>& v) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
      for (double x : v) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cell(x).c_str());
      }
    };
    row("exp(logit)", st.naive_exp);
    row("naive exp / sum", st.naive_weights);
    row("exp(logit - max) / sum", st.stable_weights);
    row("softmax(logit - max)", st.gap_weights);
    ImGui::EndTable();
  }
  txt::para(((st.naive_overflowed ? std::string("exp() of these logits overflows a double, and inf/inf is NaN. ")
                                  : std::string("These logits do not overflow exp(); logits near 1000 would. ")) +
             "Subtracting the row max gives finite weights, identical to the softmax of the gaps: the "
             "distribution itself is unchanged (largest weight " +
             short_number(st.max_weight, 4) + ", entropy " + short_number(st.entropy, 4) +
             " nats). The subtraction fixes overflow, not saturation.")
                .c_str());

  style::heading(ui.fonts, "Checks");
  ImGui::TextDisabled("across d_k = 1, 2, 4, ..., 512");
  style::check_lines(cu.checks);
  ImGui::TextDisabled("at the chosen d_k = %d", c.d_k);
  style::check_lines(c.selected.checks);
  ImGui::TextDisabled("the logits above");
  style::check_lines(st.checks);
  draw_recall_strip(s, ui, "scaling");
}

}  // namespace app
