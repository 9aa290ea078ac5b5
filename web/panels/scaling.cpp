// Scaling panel: why scores are divided by sqrt(d_k). Sampled q·k against d_k (histograms,
// variances), softmax saturation with and without the scale, the tied Q = K case, and the
// row-max subtraction that prevents overflow but does not undo saturation.
#include "panels/scaling.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "panels/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "panels/lesson_ui.hpp"
#include "widgets/plots.hpp"
#include "imgui_stdlib.h"
#include "learn/json_obj.hpp"

namespace app {

namespace {

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// The curve's study is complete: it becomes the curve shown.
void install_curve(AppState& s) {
  ScalingState& c = s.scaling;
  c.curve = c.study->result();
  c.study.reset();
  c.pending = false;
  changed();
}

}  // namespace

bool set_scaling(AppState& s, int d_k, std::uint64_t seed, int samples, bool now) {
  ScalingState& c = s.scaling;
  return guarded(c.error, [&] {
    attn::require_range("d_k", d_k, 1, 512);
    attn::ScalingInput base;  // d_k = 1, 2, 4, ..., 512
    base.seed = seed;
    base.samples = samples;
    // The curve depends on seed and samples only; keep it (or its study in progress) while only d_k moves.
    const bool same_curve = !c.curve.dot.empty() && c.curve.input.seed == seed && c.curve.input.samples == samples;
    const bool same_study = c.study && c.study->input().seed == seed && c.study->input().samples == samples;
    std::optional<attn::ScalingStudy> study;
    if (!same_curve && !same_study) study.emplace(base);  // refuses bad seed/samples before anything changes
    attn::ScalingHistograms selected = attn::scaling_histograms(d_k, seed, samples);
    c.d_k = d_k;
    c.d_k_edit = d_k;
    c.seed = seed;
    c.samples = samples;
    c.selected = std::move(selected);
    if (same_curve) {
      c.study.reset();  // back to the curve shown: a study of other inputs stops
      c.pending = false;
    } else {
      if (study) c.study = std::move(study);  // a new study (restarts one of other inputs)
      c.pending = true;
      if (now) {
        c.study->advance(c.study->total_units());
        install_curve(s);
      }
    }
    changed();
  });
}

bool set_scaling_logits(AppState& s, const std::vector<double>& logits) {
  ScalingState& c = s.scaling;
  return guarded(c.error, [&] {
    attn::SoftmaxStability r = attn::softmax_stability(logits);
    if (logits != c.logits) c.logits_text = attn::dump(Json(logits));
    c.logits = logits;
    c.stability = std::move(r);
    changed();
  });
}

void init_scaling(AppState& s) {
  set_scaling_logits(s, s.scaling.logits);  // the sampling study: show_scaling_panel
}

void show_scaling_panel(AppState& s, bool now) {
  ScalingState& c = s.scaling;
  if (!c.curve.dot.empty() && !c.pending) return;
  c.pending = true;
  if (now) {
    tick_scaling(s, 0.0);
    if (c.study) {
      c.study->advance(c.study->total_units());
      install_curve(s);
    }
  }
}

void tick_scaling(AppState& s, double budget_seconds) {
  ScalingState& c = s.scaling;
  if (!c.pending) return;
  if (!c.study) {
    // First show: the histograms at d_k now, the curve's study from the next slice on.
    if (!set_scaling(s, c.d_k, c.seed, c.samples, false) || !c.study) {
      c.pending = false;  // refused (error shown) or nothing to run
      return;
    }
    return;
  }
  const double t0 = now_seconds();
  do {
    if (c.study->advance(64) == 0) break;
  } while (!c.study->done() && now_seconds() - t0 < budget_seconds);
  if (c.study->done()) install_curve(s);
  changed();
}

Json scaling_inputs_json(const AppState& s) {
  const ScalingState& c = s.scaling;
  return ::attn::obj({{"d_k", c.d_k}, {"seed", c.seed}, {"samples", c.samples}, {"logits", c.logits}});
}

Json scaling_state_json(const AppState& s) {
  const ScalingState& c = s.scaling;
  Json out{{"inputs", scaling_inputs_json(s)},
           {"result",
            {{"curve", attn::to_json(c.curve)},
             {"selected", attn::to_json(c.selected.study)},
             {"histograms", attn::to_json(c.selected)},
             {"stability", attn::to_json(c.stability)},
             {"checks", all_checks({&c.curve.checks, &c.selected.study.checks, &c.stability.checks})}}},
           {"error", error_value(c.error)}};
  if (c.pending) {  // the sampling study waits for or runs in frames (omitted once done)
    out["pending"] = true;
    if (c.study) out["progress"] = ::attn::obj({{"units_done", c.study->units_done()}, {"total_units", c.study->total_units()}});
  }
  return out;
}

bool apply_scaling_json(AppState& s, const Json& patch) {
  ScalingState& c = s.scaling;
  int d_k = c.d_k, samples = c.samples;
  std::uint64_t seed = c.seed;
  bool study = false, ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "d_k")
      d_k = get_int(v, "d_k", -1000000, 1000000), study = true;
    else if (k == "samples")
      samples = get_int(v, "samples", -100000000, 100000000), study = true;
    else if (k == "seed")
      seed = get_lesson_seed(v), study = true;
    else if (k == "logits")
      ok = ok && set_scaling_logits(s, get_numbers(v, "logits"));
    else
      refuse("unknown scaling input '" + k + "'");
  });
  // The same inputs again change nothing: the study stays as it is (and, before the panel was first
  // shown, not computed), so a link that repeats the defaults leaves state() as a fresh page has it.
  const bool same = d_k == c.d_k && seed == c.seed && samples == c.samples && !c.error;
  return ok && (!study || same || set_scaling(s, d_k, seed, samples));
}

// --- drawing -------------------------------------------------------------------------------

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

// The raw and scaled score histograms at the chosen d_k on one shared axis, and the tied Q = K note.
static void draw_histograms(const ScalingState& c, Ui& ui, float half, bool beside, float gap) {
  const float fs = ImGui::GetFontSize();
  const float hist_h = fs * 9.0f;
  const attn::ScalingHistograms& h = c.selected;
  if (!h.study.dot.empty()) {
    const attn::DotProductStats& d = h.study.dot[0];
    ImGui::BeginGroup();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("q\xC2\xB7k at d_k = %d", d.d_k);
    ImGui::PopFont();
    widgets::dim_after(("var = " + short_number(d.variance, 4) + "  (\xE2\x89\x88 d_k = " + std::to_string(d.d_k) + ")").c_str());
    plot::histogram("raw", d.histogram, h.lo, h.hi, h.y_max, half, hist_h, style::accent_u32(), "q\xC2\xB7k");
    ImGui::EndGroup();
    if (beside) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(
        "q\xC2\xB7k / \xE2\x88\x9A"
        "d_k");
    ImGui::PopFont();
    widgets::dim_after(("var = " + short_number(d.scaled_variance, 4) + "  (\xE2\x89\x88 1)").c_str());
    plot::histogram("scaled", d.scaled_histogram, h.lo, h.hi, h.y_max, half, hist_h, IM_COL32(60, 140, 110, 255),
                     "q\xC2\xB7k / \xE2\x88\x9A"
                     "d_k");
    ImGui::EndGroup();
    if (d.below + d.above > 0)
      widgets::dim_wrapped(("Outside the axis: " + std::to_string(d.below) + " raw scores below, " +
                            std::to_string(d.above) + " above.")
                               .c_str());
    widgets::dim_wrapped(h.caption.c_str());
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
}

// The variance table and the saturation and gradient curves over d_k = 1..512.
static void draw_against_d_k(const ScalingState& c, Ui& ui, float half, bool beside, float gap) {
  const float fs = ImGui::GetFontSize();
  const attn::ScalingResult& cu = c.curve;
  style::heading(ui.fonts, "Against d_k");
  ImGui::BeginGroup();
  if (widgets::begin_table_fit("##var", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchSame, half, static_cast<int>(cu.dot.size()) + 1)) {
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
    widgets::end_table_fit();
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
  if (beside) ImGui::SameLine(0, gap);
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + half);
  ImGui::TextDisabled("softmax over %d random keys, mean of %d rows", cu.input.keys, cu.input.rows);
  const float plot_h = fs * 8.0f;  // three stacked curves, each tall enough for three labelled y values
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
  ImGui::PopTextWrapPos();
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
}

// Overflow: the naive and the stable softmax on logits the learner types.
static void draw_stability(AppState& s) {
  ScalingState& c = s.scaling;
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 14.0f, "logits"));
  if (ImGui::InputText("logits", &c.logits_text, ImGuiInputTextFlags_EnterReturnsTrue)) {
    std::vector<double> v;
    if (parse_numbers(c.logits_text, &v))
      set_scaling_logits(s, v);
    else
      c.error = ErrorInfo{"invalid_field", "logits: type numbers separated by spaces, e.g. 1000 1001"};
  }
  widgets::dim_after("(Enter to apply)");
  const attn::SoftmaxStability& st = c.stability;
  if (widgets::begin_table_fit("##stab", static_cast<int>(st.logits.size()) + 1, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit, 0.0f, 4)) {
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
    widgets::end_table_fit();
  }
  txt::para(st.caption.c_str());
  style::check_lines(st.checks);
}

void draw_scaling_panel(AppState& s, Ui& ui) {
  ScalingState& c = s.scaling;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "Independent unit-variance components make q\xC2\xB7k's variance d_k; dividing by \xE2\x88\x9A"
      "d_k brings it back to 1. Try the d_k slider; notice how the spread of each histogram changes.");
  style::error_box(c.error);

  // --- inputs. The study takes a moment at large d_k: it reruns when the slider is released.
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 16.0f, "d_k"));
  widgets::slider_int("d_k", &c.d_k_edit, 1, 512, "%d", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) set_scaling(s, c.d_k_edit, c.seed, c.samples, false);
  if (!ImGui::IsItemActive()) c.d_k_edit = c.d_k;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 7.0f, "seed"), fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 7.0f);
  std::uint64_t seed = c.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu"))
    set_scaling(s, c.d_k, seed, c.samples, false);
  widgets::same_line_if_fits(widgets::labeled_width(fs * 7.0f, "samples N"), fs * 1.5f);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 7.0f, "samples N"));
  int samples = c.samples;
  if (ImGui::InputInt("samples N", &samples, 500, 1000, ImGuiInputTextFlags_EnterReturnsTrue))
    set_scaling(s, c.d_k, c.seed, samples, false);
  if (c.pending) {  // the study runs in slices before each frame (tick_scaling), never in this draw
    if (c.study)
      ImGui::TextDisabled("Running the study: %lld / %lld \xE2\x80\xA6  (d_k = 1, 2, 4, ..., 512; %d pairs per d_k)",
                          c.study->units_done(), c.study->total_units(), c.study->input().samples);
    else
      ImGui::TextDisabled("Running the study \xE2\x80\xA6  (%d pairs per d_k)", c.samples);
    if (c.curve.dot.empty()) return;  // nothing to show yet; afterwards the last complete curve stays
  }

  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = fs * 1.5f;
  // Two columns (histograms, table and curves) while each keeps some room; narrow: one under the other.
  const bool beside = avail > fs * 30.0f;
  const float half = beside ? std::floor((avail - gap) * 0.5f) : avail;

  // --- histograms at the chosen d_k
  draw_histograms(c, ui, half, beside, gap);

  // --- variance table and saturation curves over d_k = 1..512
  draw_against_d_k(c, ui, half, beside, gap);

  // --- the claims across d_k = 1..512 and at the chosen d_k, as one list
  style::check_lines({c.curve.checks, c.selected.study.checks});

  // --- detail, collapsed
  style::details("When it does not hold", [&] {
    txt::note(
        "If the d_k components of q and k are independent with mean 0 and variance 1, then q\xC2\xB7k is a sum of "
        "d_k products of variance 1: its variance is d_k. Dividing by \xE2\x88\x9A"
        "d_k brings it back to 1, so the softmax sees scores of the same spread whatever the head width. Here q "
        "and k are sampled (seeded). The assumption is about independent unit-variance components. LayerNorm "
        "does not guarantee it after learned projections, and tied Q = K breaks it outright (above). Longer "
        "sequences mean more scores, not larger ones.");
  });
  if (!style::details("Softmax overflow", [&] { draw_stability(s); })) style::check_lines(c.stability.checks);
  draw_recall_strip(s, ui, "scaling");
}

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"scaling", "Scaling", "why divide by \xE2\x88\x9A" "d_k",
    "Scaling: why scores are divided by \xE2\x88\x9A" "d_k", scaling_state_json, apply_scaling_json,
    error_of<&AppState::scaling>, scaling_inputs_json, draw_scaling_panel,
    show_scaling_panel, [](AppState& s, bool) { tick_scaling(s); },
    [](const AppState& s) { return s.scaling.pending; }};
const PanelDef& scaling_panel() { return kPanel; }

}  // namespace app
