#include "app_state.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <utility>

#include "attn/error.hpp"
#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"
#include "attn/masks.hpp"
#include "attn/tokenizer.hpp"
#include "panels/registry.hpp"

namespace app {

using attn::Json;
using attn::Matrix;

namespace {

ErrorInfo invalid(std::string message) { return ErrorInfo{"invalid_field", std::move(message)}; }

// Row sums of `w`, summed by the core in index order (w · 1), so the page shows the
// core's numbers rather than its own arithmetic.
std::vector<double> row_sums(const Matrix& w) {
  const Matrix sums = attn::matmul(w, Matrix::Ones(w.cols(), 1), "weights·1");
  std::vector<double> out(static_cast<size_t>(sums.rows()));
  for (attn::Index i = 0; i < sums.rows(); ++i) out[static_cast<size_t>(i)] = sums(i, 0);
  return out;
}

bool recompute_alignment(AppState& s, const Matrix& weights, const Matrix& values) {
  AlignmentState& a = s.alignment;
  return guarded(a.error, [&] {
    attn::AlignmentRead r = attn::alignment_read(a.queries, a.keys, weights, values);
    std::vector<double> sums = row_sums(r.weights);
    a.weights = weights;
    a.values = values;
    a.result = std::move(r);
    a.row_sums = std::move(sums);
    ++s.generation;
  });
}

}  // namespace

AppState make_default_state() {
  AppState s;
  reset_alignment(s);
  set_heads_input(s, s.heads.input);
  set_permutation_input(s, s.permutation.input);
  init_lesson_state(s);
  attn::CostInput cost;
  cost.causal_width = 1024;  // a window shorter than the default T = 4096, so it hides something
  set_cost_input(s, cost);  // the weights map waits for show_cost_panel
  init_learned_heads(s);    // step 0 of the default run (training waits for Train)
  return s;
}

// --- Alignment --------------------------------------------------------------

void reset_alignment(AppState& s) {
  const attn::AlignmentRead lesson = attn::lesson_alignment();
  s.alignment.queries = lesson.queries;
  s.alignment.keys = lesson.keys;
  recompute_alignment(s, lesson.weights, lesson.values);
  select_alignment_row(s, 1);
}

bool set_alignment_weight(AppState& s, int row, int col, double value) {
  Matrix w = s.alignment.weights;  // edit a copy: the core validates before we commit
  const bool ok = guarded(s.alignment.error, [&] { attn::set_weight_keep_distribution(w, row, col, value); });
  return ok && recompute_alignment(s, w, s.alignment.values);
}

bool set_alignment_value(AppState& s, int key, int dim, double value) {
  Matrix v = s.alignment.values;
  if (key < 0 || key >= v.rows() || dim < 0 || dim >= v.cols()) {
    s.alignment.error = invalid("value (" + std::to_string(key) + ", " + std::to_string(dim) +
                                ") is outside the " + attn::shape_str(v) + " value matrix");
    return false;
  }
  v(key, dim) = value;
  return recompute_alignment(s, s.alignment.weights, v);
}

bool set_alignment_matrices(AppState& s, const Matrix& weights, const Matrix& values) {
  return recompute_alignment(s, weights, values);
}

void select_alignment_row(AppState& s, int row) {
  const int rows = static_cast<int>(s.alignment.result.weights.rows());
  s.alignment.selected_row = rows > 0 ? std::max(0, std::min(rows - 1, row)) : 0;
}

// --- Random heads -----------------------------------------------------------

bool set_heads_input(AppState& s, const attn::RandomHeadsInput& in) {
  HeadsState& h = s.heads;
  return guarded(h.error, [&] {
    attn::RandomHeadsResult r = attn::random_heads(in);
    std::vector<std::vector<double>> sums;
    for (const attn::AttentionResult& head : r.heads) sums.push_back(row_sums(head.weights));
    h.input = in;
    h.result = std::move(r);
    h.row_sums = std::move(sums);
    if (in.valid_length > 0) h.padding_length = in.valid_length;
    ++s.generation;
  });
}

// --- Permutation ------------------------------------------------------------

bool set_permutation_input(AppState& s, const attn::PermutationInput& in) {
  PermutationState& p = s.permutation;
  return guarded(p.error, [&] {
    attn::PermutationResult r = attn::permutation_experiment(in);
    const attn::Index t = r.weights_x.rows();
    attn::BoolMatrix allowed = in.causal ? attn::causal_mask(t, t, attn::Causal::square)
                                         : attn::BoolMatrix::Constant(t, t, true);
    attn::PositionSymmetryInput sym_in;
    sym_in.sentence = in.sentence;
    sym_in.seed = in.seed;
    sym_in.d_model = in.d_model;
    sym_in.permutation = in.permutation;
    sym_in.causal = in.causal;
    sym_in.positions = in.positions == attn::PositionKind::rope         ? attn::PositionKind::rope
                       : in.positions == attn::PositionKind::sinusoidal ? attn::PositionKind::sinusoidal
                                                                          : attn::PositionKind::none;
    attn::PositionSymmetryResult sym = attn::position_symmetry(sym_in);
    p.pooled = Matrix(2, sym.pooled_x.size());
    p.pooled.row(0) = sym.pooled_x.transpose();
    p.pooled.row(1) = sym.pooled_px.transpose();
    p.symmetry = std::move(sym);
    p.input = in;
    p.result = std::move(r);
    p.allowed = std::move(allowed);
    p.permutation_text = permutation_to_text(in.permutation);
    ++s.generation;
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

bool shuffle_permutation(AppState& s) {
  PermutationState& p = s.permutation;
  attn::PermutationInput in = p.input;
  const int n = static_cast<int>(attn::tokenize(in.sentence).size());
  bool ok = guarded(p.error, [&] { in.permutation = attn::random_permutation(n, p.shuffle_seed); });
  ++p.shuffle_seed;
  return ok && set_permutation_input(s, in);
}

std::string permutation_to_text(const std::vector<int>& p) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) out += (i ? " " : "") + std::to_string(p[i]);
  return out;
}

// --- JSON ---------------------------------------------------------------------

namespace {

Json error_value(const std::optional<ErrorInfo>& e) {
  if (!e) return nullptr;
  return Json{{"code", e->code}, {"message", e->message}};
}

const char* positions_name(attn::PositionKind p) {
  return p == attn::PositionKind::sinusoidal ? "sinusoidal" : (p == attn::PositionKind::rope ? "rope" : "none");
}

Json vector_json(const std::vector<double>& v) { return Json(v); }

// Thrown by the patch readers below for a malformed patch (not a core error).
struct PatchError {
  std::string message;
};

template <typename T>
T get_number(const Json& j, const char* key, T lo, T hi) {
  if (!j.is_number()) throw PatchError{std::string(key) + " must be a number"};
  const double d = j.get<double>();
  if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || d != static_cast<double>(static_cast<long long>(d)))
    throw PatchError{std::string(key) + " must be an integer between " + std::to_string(lo) + " and " +
                     std::to_string(hi)};
  return static_cast<T>(d);
}

bool get_bool(const Json& j, const char* key) {
  if (!j.is_boolean()) throw PatchError{std::string(key) + " must be true or false"};
  return j.get<bool>();
}

std::string get_string(const Json& j, const char* key) {
  if (!j.is_string()) throw PatchError{std::string(key) + " must be a string"};
  return j.get<std::string>();
}

attn::PositionKind get_positions(const Json& j) {
  if (j.is_boolean()) return j.get<bool>() ? attn::PositionKind::sinusoidal : attn::PositionKind::none;
  if (j.is_string() && j == "sinusoidal") return attn::PositionKind::sinusoidal;
  if (j.is_string() && j == "none") return attn::PositionKind::none;
  if (j.is_string() && j == "rope") return attn::PositionKind::rope;
  throw PatchError{"positions must be true, false, \"none\", \"sinusoidal\" or \"rope\""};
}

// Seeds go through JSON as numbers; beyond 2^53 a double cannot carry them exactly.
std::uint64_t get_seed(const Json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  return get_number<std::uint64_t>(j, "seed", 0, (1ULL << 53));
}

bool apply_alignment(AppState& s, const Json& patch) {
  AlignmentState& a = s.alignment;
  Matrix w = a.weights, v = a.values;
  bool matrices = false;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k == "weights") {
      matrices = true;
      try {
        w = attn::matrix_from_json(*it, "weights");
      } catch (const attn::Error& e) {
        a.error = to_info(e);
        return false;
      }
    } else if (k == "values") {
      matrices = true;
      try {
        v = attn::matrix_from_json(*it, "values");
      } catch (const attn::Error& e) {
        a.error = to_info(e);
        return false;
      }
    } else if (k == "selected_row") {
      select_alignment_row(s, get_number<int>(*it, "selected_row", -1000000, 1000000));
    } else if (k == "set_weight") {  // {"row":i,"col":j,"value":x}: the slider's path
      const Json& e = *it;
      if (!e.is_object() || !e.contains("row") || !e.contains("col") || !e.contains("value"))
        throw PatchError{"set_weight needs {row, col, value}"};
      if (!e["value"].is_number()) throw PatchError{"set_weight.value must be a number"};
      if (!set_alignment_weight(s, get_number<int>(e["row"], "row", -1000000, 1000000),
                                get_number<int>(e["col"], "col", -1000000, 1000000),
                                e["value"].get<double>()))
        return false;
      w = a.weights;
    } else if (k == "reset") {
      if (get_bool(*it, "reset")) reset_alignment(s);
      w = a.weights;
      v = a.values;
    } else {
      throw PatchError{"unknown alignment input '" + k + "'"};
    }
  }
  return matrices ? set_alignment_matrices(s, w, v) : true;
}

bool apply_heads(AppState& s, const Json& patch) {
  HeadsState& h = s.heads;
  attn::RandomHeadsInput in = h.input;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k == "sentence") {
      in.sentence = get_string(*it, "sentence");
      h.sentence_text = in.sentence;
    } else if (k == "seed") {
      in.seed = get_seed(*it);
    } else if (k == "d_model") {
      in.d_model = get_number<int>(*it, "d_model", -1000000, 1000000);
    } else if (k == "heads") {
      in.heads = get_number<int>(*it, "heads", -1000000, 1000000);
    } else if (k == "d_k") {
      in.d_k = get_number<int>(*it, "d_k", -1000000, 1000000);
    } else if (k == "causal") {
      in.causal = get_bool(*it, "causal");
    } else if (k == "key_padding") {
      in.valid_length = get_bool(*it, "key_padding") ? h.padding_length : -1;
    } else if (k == "valid_length") {
      in.valid_length = it->is_null() ? -1 : get_number<int>(*it, "valid_length", -1000000, 1000000);
    } else if (k == "positions") {
      in.positions = get_positions(*it);
    } else if (k == "init") {
      const std::string init = get_string(*it, "init");
      if (init != "core" && init != "torch_replica") throw PatchError{"init must be \"core\" or \"torch_replica\""};
      in.init = init == "core" ? attn::HeadsInit::core : attn::HeadsInit::torch_replica;
    } else {
      throw PatchError{"unknown heads input '" + k + "'"};
    }
  }
  return set_heads_input(s, in);
}

bool apply_permutation(AppState& s, const Json& patch) {
  PermutationState& p = s.permutation;
  attn::PermutationInput in = p.input;
  bool perm_given = false, shuffle = false;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k == "sentence") {
      in.sentence = get_string(*it, "sentence");
      p.sentence_text = in.sentence;
    } else if (k == "seed") {
      in.seed = get_seed(*it);
    } else if (k == "d_model") {
      in.d_model = get_number<int>(*it, "d_model", -1000000, 1000000);
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
  if (!set_permutation_input(s, in)) return false;
  return shuffle ? shuffle_permutation(s) : true;
}

}  // namespace

Json alignment_state_json(const AppState& s) {
  const AlignmentState& a = s.alignment;
  return Json{{"inputs", {{"queries", a.queries}, {"keys", a.keys}, {"weights", attn::to_json(a.weights)},
                          {"values", attn::to_json(a.values)}}},
              {"selected_row", a.selected_row},
              {"result", attn::to_json(a.result)},
              {"row_sums", vector_json(a.row_sums)},
              {"error", error_value(a.error)}};
}

Json heads_state_json(const AppState& s) {
  const HeadsState& h = s.heads;
  Json heads_rows = Json::array();
  for (const auto& r : h.row_sums) heads_rows.push_back(vector_json(r));
  return Json{{"inputs", {{"sentence", h.input.sentence}, {"seed", h.input.seed}, {"d_model", h.input.d_model},
                          {"heads", h.input.heads}, {"d_k", h.input.d_k}, {"causal", h.input.causal},
                          {"key_padding", h.input.valid_length >= 0},
                          {"valid_length", h.input.valid_length >= 0 ? Json(h.input.valid_length) : Json(nullptr)},
                          {"positions", positions_name(h.input.positions)},
                          {"init", h.input.init == attn::HeadsInit::core ? "core" : "torch_replica"}}},
              {"sentence_text", h.sentence_text},
              {"result", attn::to_json(h.result)},
              {"row_sums", heads_rows},
              {"error", error_value(h.error)}};
}

Json permutation_state_json(const AppState& s) {
  const PermutationState& p = s.permutation;
  return Json{{"inputs", {{"sentence", p.input.sentence}, {"seed", p.input.seed}, {"d_model", p.input.d_model},
                          {"permutation", p.input.permutation}, {"causal", p.input.causal},
                          {"positions", positions_name(p.input.positions)}, {"query", p.input.query},
                          {"shuffle_seed", p.shuffle_seed}}},
              {"sentence_text", p.sentence_text},
              {"permutation_text", p.permutation_text},
              {"result", attn::to_json(p.result)},
              {"symmetry", attn::to_json(p.symmetry)},
              {"error", error_value(p.error)}};
}

// The link inputs mirror the "inputs" above (minus what a link need not carry); the browser
// test "a link reproduces the view" checks that they stay the same.
Json alignment_link_inputs(const AppState& s) {
  const AlignmentState& a = s.alignment;
  return Json{{"weights", attn::to_json(a.weights)}, {"values", attn::to_json(a.values)}, {"selected_row", a.selected_row}};
}

Json heads_link_inputs(const AppState& s) {
  const HeadsState& h = s.heads;
  return Json{{"sentence", h.input.sentence}, {"seed", h.input.seed}, {"d_model", h.input.d_model},
              {"heads", h.input.heads}, {"d_k", h.input.d_k}, {"causal", h.input.causal},
              {"valid_length", h.input.valid_length >= 0 ? Json(h.input.valid_length) : Json(nullptr)},
              {"positions", positions_name(h.input.positions)},
              {"init", h.input.init == attn::HeadsInit::core ? "core" : "torch_replica"}};
}

Json permutation_link_inputs(const AppState& s) {
  const PermutationState& p = s.permutation;
  return Json{{"sentence", p.input.sentence}, {"seed", p.input.seed}, {"d_model", p.input.d_model},
              {"permutation", p.input.permutation}, {"causal", p.input.causal},
              {"positions", positions_name(p.input.positions)}, {"query", p.input.query},
              {"shuffle_seed", p.shuffle_seed}};
}

bool apply_alignment_json(AppState& s, const Json& patch) { return apply_alignment(s, patch); }
bool apply_heads_json(AppState& s, const Json& patch) { return apply_heads(s, patch); }
bool apply_permutation_json(AppState& s, const Json& patch) { return apply_permutation(s, patch); }

Json state_json(const AppState& s) {
  Json out = Json{{"panel", panel_name(s.panel)}, {"frames", s.frames}};
  for (const PanelDef& p : panels()) out[p.name] = p.state(s);
  out["recall"] = recall_state_json(s);  // the "check yourself" strips, shared by the panels
  return out;
}

Json apply_json(AppState& s, const Json& patch) {
  auto fail = [](const std::string& code, const std::string& message) {
    return Json{{"ok", false}, {"error", {{"code", code}, {"message", message}}}};
  };
  if (!patch.is_object()) return fail("invalid_field", "set() takes an object like {heads: {seed: 3}}");
  // Which panel's error to report if a setter fails.
  const std::optional<ErrorInfo>* last_error = nullptr;
  try {
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string& k = it.key();
      if (k == "panel") {
        // A panel's heavy first computation runs now: state() right after shows it complete.
        if (!it->is_string() || !show_panel(s, it->get<std::string>(), true))
          return fail("invalid_field", "panel must be one of " + panel_names_list());
        continue;
      }
      if (!it->is_object()) return fail("invalid_field", k + " takes an object of inputs");
      bool ok = true;
      if (k == "recall") {
        ok = apply_recall_json(s, *it);
        last_error = &s.lesson.recall.error;
      } else if (const int i = panel_index(k); i >= 0) {
        const PanelDef& p = panels()[static_cast<size_t>(i)];
        ok = p.apply(s, *it);
        last_error = p.error(s);
      } else {
        return fail("invalid_field", "unknown key '" + k + "' (expected panel, " + panel_names_list() + ", recall)");
      }
      if (!ok && last_error && *last_error) return fail((*last_error)->code, (*last_error)->message);
    }
  } catch (const PatchError& e) {
    return fail("invalid_field", e.message);
  } catch (const attn::Error& e) {
    return fail(e.code_name(), e.what());
  } catch (const std::exception& e) {
    return fail("internal", e.what());
  }
  return Json{{"ok", true}};
}

}  // namespace app
