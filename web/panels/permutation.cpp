// Permutation panel: f(P·X) next to P·f(X); when a causal mask or positions break equivariance.
#include "panels/permutation.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
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
#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "imgui_stdlib.h"
#include "panels/lesson_ui.hpp"
#include "learn/json_obj.hpp"

namespace app {

constexpr char kRecall[] = "positions";  // the check-yourself strip under the panel's checks
constexpr PanelDef kPanel = own_state_panel<PermutationState, permutation_state_json, apply_permutation_json, permutation_link_inputs, draw_permutation_panel, kRecall>(
    "permutation", "Permutation", "order, masks, positions", "Permutation: what self-attention knows about order");  // its entry in the panel table (registry.cpp)
const PanelDef& permutation_panel() { return kPanel; }

// --- Permutation ------------------------------------------------------------

bool set_permutation_input(PermutationState& p, const attn::PermutationInput& in) {
  return guarded(p.error, [&] {
    attn::PermutationResult r = attn::permutation_experiment(in);
    const attn::Index t = r.weights_x.rows();
    attn::BoolMatrix allowed = in.causal ? attn::causal_mask(t, t, attn::Causal::square)
                                         : attn::BoolMatrix::Constant(t, t, true);
    attn::PositionSymmetryResult sym = attn::position_symmetry(in);
    p.pooled = Matrix(2, sym.pooled_x.size());
    p.pooled.row(0) = sym.pooled_x.transpose();
    p.pooled.row(1) = sym.pooled_px.transpose();
    p.symmetry = std::move(sym);
    p.input = in;
    p.result = std::move(r);
    p.allowed = std::move(allowed);
    p.permutation_text = permutation_to_text(in.permutation);
    changed();
  });
}

bool parse_permutation(const std::string& text, std::vector<int>* out, ErrorInfo* error) {
  std::vector<int> p;
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isspace(c) || c == ',' || c == '(' || c == ')' || c == '[' || c == ']') {
      ++i;
      continue;
    }
    if (!std::isdigit(c) && c != '-') {
      *error = invalid(std::string("the permutation may hold only integers; found '") +
                       static_cast<char>(c) + "'");
      return false;
    }
    size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    const std::string number = text.substr(i, j - i);
    errno = 0;
    const long v = std::strtol(number.c_str(), nullptr, 10);
    if (number == "-" || errno != 0 || v < std::numeric_limits<int>::min() ||
        v > std::numeric_limits<int>::max()) {
      *error = invalid("the permutation entry '" + number + "' is not a usable integer");
      return false;
    }
    p.push_back(static_cast<int>(v));
    i = j;
  }
  if (p.empty()) {
    *error = invalid("the permutation is empty; give each position 0..T-1 once");
    return false;
  }
  *out = std::move(p);
  return true;
}

bool shuffle_permutation(PermutationState& p) {
  attn::PermutationInput in = p.input;
  const int n = static_cast<int>(attn::tokenize(in.sentence).size());
  bool ok = guarded(p.error, [&] { in.permutation = attn::random_permutation(n, p.shuffle_seed); });
  ++p.shuffle_seed;
  return ok && set_permutation_input(p, in);
}

std::string permutation_to_text(const std::vector<int>& p) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) out += (i ? " " : "") + std::to_string(p[i]);
  return out;
}

namespace {

bool apply_permutation(PermutationState& p, const Json& patch) {
  attn::PermutationInput in = p.input;
  bool perm_given = false, shuffle = false;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (read_sentence_field(k, *it, in, p.sentence_text)) {
      continue;
    } else if (k == "permutation") {
      if (it->is_string()) {
        ErrorInfo e;
        p.permutation_text = it->get<std::string>();
        if (!parse_permutation(p.permutation_text, &in.permutation, &e)) {
          p.error = e;
          return false;
        }
      } else {
        if (!it->is_array()) throw PatchError{"permutation must be an array of integers"};
        in.permutation.clear();
        for (const Json& x : *it) in.permutation.push_back(get_number<int>(x, "permutation entry", -1000000, 1000000));
        p.permutation_text = permutation_to_text(in.permutation);
      }
      perm_given = true;
    } else if (k == "causal") {
      in.causal = get_bool(*it, "causal");
    } else if (k == "positions") {
      in.positions = get_positions(*it);
    } else if (k == "query") {
      in.query = get_number<int>(*it, "query", -1000000, 1000000);
    } else if (k == "shuffle_seed") {
      p.shuffle_seed = get_seed(*it);
    } else if (k == "shuffle") {
      shuffle = get_bool(*it, "shuffle");
    } else {
      throw PatchError{"unknown permutation input '" + k + "'"};
    }
  }
  // A new sentence of another length needs a new permutation; draw one rather than fail.
  const int n = static_cast<int>(attn::tokenize(in.sentence).size());
  if (!perm_given && static_cast<int>(in.permutation.size()) != n && n > 0) {
    in.permutation = attn::random_permutation(n, p.shuffle_seed++);
    if (in.query >= n) in.query = 0;
  }
  if (!set_permutation_input(p, in)) return false;
  return shuffle ? shuffle_permutation(p) : true;
}

}  // namespace

Json permutation_state_json(const PermutationState& p) {
  return ::attn::obj({{"inputs", ::attn::obj({{"sentence", p.input.sentence}, {"seed", p.input.seed}, {"d_model", p.input.d_model},
                          {"permutation", p.input.permutation}, {"causal", p.input.causal},
                          {"positions", positions_name(p.input.positions)}, {"query", p.input.query},
                          {"shuffle_seed", p.shuffle_seed}})},
              {"sentence_text", p.sentence_text},
              {"permutation_text", p.permutation_text},
              {"result", attn::to_json(p.result)},
              {"symmetry", attn::to_json(p.symmetry)},
              {"error", error_value(p.error)}});
}

Json permutation_link_inputs(const PermutationState& p) {
  return ::attn::obj({{"sentence", p.input.sentence}, {"seed", p.input.seed}, {"d_model", p.input.d_model},
              {"permutation", p.input.permutation}, {"causal", p.input.causal},
              {"positions", positions_name(p.input.positions)}, {"query", p.input.query},
              {"shuffle_seed", p.shuffle_seed}});
}

bool apply_permutation_json(PermutationState& p, const Json& patch) { return apply_permutation(p, patch); }

// --- drawing -------------------------------------------------------------------------------

namespace {

std::vector<std::string> dim_labels(attn::Index n) {
  std::vector<std::string> out;
  for (attn::Index i = 0; i < n; ++i) out.push_back(std::to_string(i));
  return out;
}

// Colour range symmetric around 0 covering both matrices (display only).
double abs_range(const attn::Matrix& a, const attn::Matrix& b) {
  double m = 1e-12;
  if (a.size()) m = std::max(m, a.cwiseAbs().maxCoeff());
  if (b.size()) m = std::max(m, b.cwiseAbs().maxCoeff());
  return m;
}

struct Pane {
  const char* id;
  const char* title;
  const char* subtitle;
  HeatmapSpec spec;
};

// Heatmaps side by side with titles, sharing the width; on a narrow canvas one under the other.
void panes(std::initializer_list<Pane> list, Ui& ui) {
  const float fs = ImGui::GetFontSize();
  const float gap = fs * 2.0f;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int n = static_cast<int>(list.size());
  // Side by side while each map keeps some room; on a narrow canvas one under the other.
  const bool side_by_side = avail > fs * 14.0f * n;
  const float w = side_by_side ? std::floor((avail - gap * (n - 1)) / n) : avail;
  int k = 0;
  for (const Pane& p : list) {
    if (k++ && side_by_side) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(p.title);
    ImGui::PopFont();
    if (p.subtitle[0]) widgets::dim_after(p.subtitle);
    HeatmapSpec spec = p.spec;
    spec.width = w;
    heatmap(p.id, spec, ui.gpu);
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  }
}

}  // namespace

// One query with the keys and values permuted together: the same output.
static void draw_kv_check(PermutationState& p) {
  const attn::PermutationResult& r = p.result;
  const float field = ImGui::GetFontSize() * 7.0f;  // as the input row's fields
  const int t = static_cast<int>(r.tokens.size());
  int query = p.input.query;
  ImGui::SetNextItemWidth(widgets::fit_labeled(field * 1.5f, "query"));
  if (widgets::slider_int("query", &query, 0, std::max(0, t - 1))) {
    attn::PermutationInput q = p.input;
    q.query = query;
    set_permutation_input(p, q);
  }
  const std::string quoted = "\"" + (query >= 0 && query < t ? r.tokens[static_cast<size_t>(query)] : std::string("?")) + "\"";
  widgets::dim_after(quoted.c_str());
  auto vec = [](const attn::Vector& v) {
    std::string out = "(";
    for (attn::Index i = 0; i < v.size(); ++i) out += (i ? ", " : "") + short_number(v(i), 3);
    return out + ")";
  };
  style::paragraph(("K, V in order:           " + vec(r.query_output)).c_str());
  style::paragraph(("K, V permuted together: " + vec(r.query_output_kv_permuted)).c_str());
  ImGui::Text("max |difference| = %s", short_number(r.kv_diff, 3).c_str());
  style::note("A fixed query sees the same set of (key, value) pairs in another order; the weighted sum does not care.");
}

// The permutation typed (a refused one stays in the field beside its error) and Shuffle; `in`
// follows what was applied.
static void draw_permutation_field(PermutationState& p, attn::PermutationInput& in) {
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 12.0f, "permutation P"));
  if (ImGui::InputText("permutation P", &p.permutation_text)) {
    // On a rejected permutation the typed text stays in the field, next to the error.
    ErrorInfo e;
    std::vector<int> perm;
    if (parse_permutation(p.permutation_text, &perm, &e)) {
      in.permutation = perm;
      set_permutation_input(p, in);
      in = p.input;
    } else {
      p.error = e;
    }
  }
  widgets::same_line_if_fits(widgets::text_width("(?)"));
  style::help_marker("New row i of P\xC2\xB7X is old row P[i]. Each of 0..T-1 must appear once.");
  widgets::same_line_if_fits(widgets::button_width("Shuffle"), fs * 1.5f);
  if (ImGui::Button("Shuffle")) {
    shuffle_permutation(p);
    in = p.input;
  }
  char next_seed[48];
  std::snprintf(next_seed, sizeof next_seed, "(next seed %llu)", static_cast<unsigned long long>(p.shuffle_seed));
  widgets::dim_after(next_seed);
}

void draw_permutation_panel(PermutationState& p, Ui& ui) {
  const attn::PermutationResult& r = p.result;
  const float fs = ImGui::GetFontSize();
  const bool equivariant_setting = !p.input.causal && p.input.positions == attn::PositionKind::none;

  style::paragraph(
      "f is one self-attention head with no mask and no positions. Reorder the tokens with P: try Shuffle, "
      "the causal mask or positions; notice whether the difference map f(P\xC2\xB7X) \xE2\x88\x92 P\xC2\xB7" "f(X) stays at zero.");
  style::error_box(p.error);

  // --- inputs
  attn::PermutationInput in = p.input;
  bool changed = false;
  const float field = fs * 7.0f;
  if (widgets::sentence_field(p.sentence_text)) {
    // Sentence edits go through the patch path so a new length gets a fresh permutation (a string
    // never fails the patch's readers; the setter keeps its error in p.error).
    apply_permutation(p, ::attn::obj({{"sentence", p.sentence_text}}));
    in = p.input;
  }
  if (widgets::seed_field(in.seed, field)) changed = true;

  draw_permutation_field(p, in);
  widgets::same_line_if_fits(widgets::check_width("causal mask"), fs * 1.5f);
  if (ImGui::Checkbox("causal mask", &in.causal)) changed = true;
  // On a line of its own: the row above is full.
  if (widgets::position_choice(in.positions)) changed = true;
  const bool positions = p.input.positions != attn::PositionKind::none;
  if (changed) set_permutation_input(p, in);

  // --- the headline number
  ImGui::Dummy(ImVec2(0, 2));
  ImGui::PushFont(ui.fonts.heading);
  const std::string headline = "max |f(PX) \xE2\x88\x92 P f(X)| = " + short_number(r.max_diff, 3);
  widgets::text_wrapped_here(headline.c_str());
  ImGui::PopFont();
  const std::string why =
      equivariant_setting ? std::string("no mask, no positions: equal up to rounding")
                          : std::string(p.input.causal && positions ? "causal mask and positions"
                                        : (p.input.causal ? "causal mask"
                                                          : (p.input.positions == attn::PositionKind::rope
                                                                 ? "RoPE positions"
                                                                 : "sinusoidal positions"))) +
                                ": equivariance breaks";
  if (widgets::same_line_if_fits(widgets::text_width(why.c_str()), fs)) ImGui::AlignTextToFramePadding();
  ImGui::PushStyleColor(ImGuiCol_Text, equivariant_setting ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)
                                                           : ImVec4(0.75f, 0.25f, 0.1f, 1.0f));
  widgets::text_wrapped_here(why.c_str());
  ImGui::PopStyleColor();

  style::check_lines(r.checks);

  const std::vector<std::string> dims = dim_labels(r.x.cols());
  const double xr = abs_range(r.x, r.px);
  const double fr = abs_range(r.f_px, r.p_f_x);
  auto matrix_spec = [&](const attn::Matrix& m, const std::vector<std::string>& rows, double range) {
    HeatmapSpec spec;
    spec.values = &m;
    spec.row_labels = &rows;
    spec.col_labels = &dims;
    spec.vmin = -range;
    spec.vmax = range;
    spec.map = ColorMap::sunset;  // signed entries
    spec.version = generation();
    spec.value_name = "entry";
    spec.row_axis = "token";
    spec.col_axis = "feature";
    spec.max_cell = 32.0f;
    return spec;
  };
  style::heading(ui.fonts, "Outputs, and their difference");
  // The difference on the outputs' own range: rounding-size entries stay white, a broken
  // symmetry shows at the scale of the outputs it changed.
  panes({Pane{"f_px", "f(P\xC2\xB7X)", "(attend, then read the reordered input)", matrix_spec(r.f_px, r.permuted_tokens, fr)},
         Pane{"p_f_x", "P\xC2\xB7" "f(X)", "(attend in order, then reorder)", matrix_spec(r.p_f_x, r.permuted_tokens, fr)},
         Pane{"difference", "f(P\xC2\xB7X) \xE2\x88\x92 P\xC2\xB7" "f(X)", "(on the outputs' range)",
              matrix_spec(r.difference, r.permuted_tokens, fr)}},
        ui);

  // --- detail, collapsed
  style::details("What breaks the symmetry", [&] {
    style::note(
        "f(PX) = P f(X) is equivariance. It does not mean the outputs stay in the same order: each output moves "
        "with its token. A causal mask already encodes an order (who may look at whom), so it breaks the symmetry "
        "even without position embeddings. Positions belong to slots, not tokens: they are added after "
        "reordering, so a moved token gets a new position. Neither guarantees anything about longer inputs.");
  });
  style::details("The inputs X and P\xC2\xB7X", [&] {
    panes({Pane{"x", "X", "(tokens in order)", matrix_spec(r.x, r.tokens, xr)},
           Pane{"px", "P\xC2\xB7X", "(rows reordered by P)", matrix_spec(r.px, r.permuted_tokens, xr)}},
          ui);
  });
  style::details("Attention weights", [&] {
    auto weight_spec = [&](const attn::Matrix& m, const std::vector<std::string>& tokens) {
      HeatmapSpec spec;
      spec.values = &m;
      spec.allowed = &p.allowed;
      spec.row_labels = &tokens;
      spec.col_labels = &tokens;
      spec.vmin = 0.0;
      spec.vmax = 1.0;
      spec.version = generation();
      spec.numbers = true;
      spec.max_cell = 48.0f;
      return spec;
    };
    panes({Pane{"w_x", "weights of f(X)", "", weight_spec(r.weights_x, r.tokens)},
           Pane{"w_px", "weights of f(P\xC2\xB7X)", "", weight_spec(r.weights_px, r.permuted_tokens)}},
          ui);
  });
  // --- K/V check: one query, keys and values permuted together
  style::details("Permute K and V together", [&] { draw_kv_check(p); });

  // --- mean pooling, from a second implementation of the same head (attn::position_symmetry)
  const attn::PositionSymmetryResult& sym = p.symmetry;
  const bool pooling_open = style::details("Order-blind mean pooling", [&] {
    static const std::vector<std::string> pooled_rows{"mean f(X)", "mean f(PX)"};
    HeatmapSpec pooled = matrix_spec(p.pooled, pooled_rows, std::max(1e-12, p.pooled.size() ? p.pooled.cwiseAbs().maxCoeff() : 1.0));
    pooled.row_axis = "summary";
    pooled.numbers = true;
    pooled.max_cell = 48.0f;
    heatmap("pooled", pooled, ui.gpu);
    widgets::text_wrapped_here(("max |mean f(PX) \xE2\x88\x92 mean f(X)| = " + short_number(sym.pooled_diff, 3)).c_str());
    style::note("Averaging the outputs over positions forgets which row was which. With an equivariant f the "
                "average of the reordered outputs is the same average: the summary is permutation invariant. "
                "With a causal mask or positions f is no longer equivariant, so neither is the summary. "
                "RoPE rotates queries and keys by their position, so scores depend on the offset m - n only; it "
                "gives order information, not a guarantee about longer inputs.");
    style::check_lines(sym.checks);
  });
  if (!pooling_open) style::check_lines(sym.checks);
}

}  // namespace app
