#include "json/json_case.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "json/json_lesson_ops.hpp"
#include "json/kernel_json.hpp"
#include "attn/linalg.hpp"
#include "json/fields.hpp"
#include "json/learn_json.hpp"
#include "json/ops.hpp"
#include "learn/json_obj.hpp"

namespace attn {
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

bool has(const Json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && !it->is_null();
}

void reject_unknown_fields(const Json& obj, const std::set<std::string>& known, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!known.count(it.key()))
      fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in " + where);
}

Json empty_rows_json(const std::vector<bool>& flags) {
  Json a = Json::array();
  for (bool b : flags) a.push_back(b);
  return a;
}

Json run_attention(const Fields& f) {
  const Json& req = f.json();
  const Matrix q = f.matrix("query");
  const Matrix k = f.matrix("key");
  const Matrix v = f.matrix("value");
  const MaskSpec mask = mask_from_json(req.value("mask", Json()));
  // "kernel": "dense" (default, the reference) | "tiled" (the fast tiled kernel), "tile": N
  const AttentionResult r = kernels::attention_for_request(req, q, k, v, mask, options_from_json(req));
  Json out = to_json(r);
  add_attention_dropout(req, r, v, out);  // "dropout": {"p", "seed"} (attention dropout)
  return out;
}

Json run_self_attention(const Fields& f) {
  const Json& req = f.json();
  const Matrix x = f.matrix("x");
  HeadWeights w{f.matrix("w_q"), f.matrix("w_k"), f.matrix("w_v")};
  const SelfAttentionResult r =
      self_attention(x, w, mask_from_json(req.value("mask", Json())), options_from_json(req));
  Json out = to_json(r.attention);
  out["query"] = to_json(r.query);
  out["key"] = to_json(r.key);
  out["value"] = to_json(r.value);
  return out;
}

Json run_multi_head(const Fields& f) {
  const Json& req = f.json();
  const Json& h = f.required("heads");
  if (!h.is_number_integer()) fail(ErrorCode::invalid_field, "heads must be an integer >= 1");
  MultiHeadWeights w;
  const long long heads = h.get<long long>();
  if (heads < 1 || heads > 64) fail(ErrorCode::invalid_field, "heads must be between 1 and 64");
  w.heads = static_cast<int>(heads);
  Matrix xq, xkv;
  if (f.has("x")) {
    if (f.has("x_query") || f.has("x_key_value"))
      fail(ErrorCode::invalid_field, "give either \"x\" (self-attention) or \"x_query\" and \"x_key_value\", not both");
    xq = f.matrix("x");
    xkv = xq;
  } else {
    if (!f.has("x_query") && !f.has("x_key_value"))
      fail(ErrorCode::missing_field, "missing field \"x\" (or \"x_query\" and \"x_key_value\")");
    xq = f.matrix("x_query");
    xkv = f.matrix("x_key_value");
  }
  w.w_q = f.matrix("w_q");
  w.w_k = f.matrix("w_k");
  w.w_v = f.matrix("w_v");
  if (f.has("w_o")) w.w_o = f.matrix("w_o");
  const MultiHeadResult r =
      multi_head_attention(xq, xkv, w, mask_from_json(req.value("mask", Json())), options_from_json(req));
  Json weights = Json::array(), scores = Json::array();
  for (const AttentionResult& a : r.heads) {
    weights.push_back(to_json(a.weights));
    scores.push_back(scores_to_json(a.scores, a.allowed));
  }
  return ::attn::obj({{"output", to_json(r.output)}, {"concat", to_json(r.concat)}, {"weights", weights},
              {"scores", scores}, {"empty_row", empty_rows_json(r.heads.front().empty_row)},
              {"scale", r.heads.front().scale}});
}

}  // namespace

std::vector<bool> bools_from_json(const Json& j, const std::string& field) {
  if (!j.is_array()) fail(ErrorCode::invalid_field, field + " must be an array of true/false");
  std::vector<bool> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_boolean())
      fail(ErrorCode::invalid_field, field + "[" + std::to_string(i) + "] must be true or false");
    out.push_back(j[i].get<bool>());
  }
  return out;
}

MaskSpec mask_from_json(const Json& j) {
  MaskSpec m;
  if (j.is_null()) return m;
  if (!j.is_object()) fail(ErrorCode::invalid_field, "mask must be an object");
  reject_unknown_fields(j, {"causal", "key_valid", "allowed", "half_width", "window"}, "mask");
  if (has(j, "causal")) {
    const Json& c = j["causal"];
    if (c.is_boolean()) m.causal = c.get<bool>() ? Causal::square : Causal::none;
    else if (c == "top_left") m.causal = Causal::top_left;
    else if (c == "bottom_right") m.causal = Causal::bottom_right;
    else fail(ErrorCode::invalid_field, "mask.causal must be false, true, \"top_left\" or \"bottom_right\"");
  }
  if (has(j, "key_valid")) m.key_valid = bools_from_json(j["key_valid"], "mask.key_valid");
  if (has(j, "allowed")) {
    const Json& a = j["allowed"];
    if (!a.is_array() || a.empty())
      fail(ErrorCode::invalid_field, "mask.allowed must be a non-empty array of rows of true/false");
    const size_t cols = a[0].is_array() ? a[0].size() : 0;
    BoolMatrix b(static_cast<Index>(a.size()), static_cast<Index>(cols));
    for (size_t i = 0; i < a.size(); ++i) {
      const std::vector<bool> row = bools_from_json(a[i], "mask.allowed[" + std::to_string(i) + "]");
      if (row.size() != cols)
        fail(ErrorCode::shape_mismatch, "mask.allowed row " + std::to_string(i) + " has " +
                                            std::to_string(row.size()) + " entries, row 0 has " +
                                            std::to_string(cols));
      for (size_t c = 0; c < cols; ++c) b(static_cast<Index>(i), static_cast<Index>(c)) = row[c];
    }
    m.allowed = b;
  }
  // The symmetric half-width |i − j| <= w; "window" is its former spelling, still accepted.
  if (has(j, "half_width") && has(j, "window"))
    fail(ErrorCode::invalid_field, "give mask.half_width or its former spelling mask.window, not both");
  if (has(j, "half_width") || has(j, "window")) {
    const char* spelling = has(j, "half_width") ? "half_width" : "window";
    const std::string name = std::string("mask.") + spelling;
    const Json& w = j[spelling];
    if (!w.is_number_integer()) fail(ErrorCode::invalid_field, name + " must be an integer");
    // A window wider than any sequence allows everything; keep huge unsigned values from wrapping.
    const long long v = w.is_number_unsigned() ? static_cast<long long>(std::min<std::uint64_t>(
                                                     w.get<std::uint64_t>(), kMaxTokens))
                                               : w.get<long long>();
    if (v < 0) fail(ErrorCode::invalid_mask, name + " must be >= 0, got " + std::to_string(v));
    m.half_width = v;
  }
  return m;
}

AttentionOptions options_from_json(const Json& j) {
  AttentionOptions o;
  if (has(j, "scale")) {
    const Json& s = j["scale"];
    if (!s.is_number()) fail(ErrorCode::invalid_field, "scale must be a number");
    const double v = s.get<double>();
    if (!std::isfinite(v) || !(v > 0.0))
      fail(ErrorCode::invalid_scale, "scale must be a finite number > 0, got " + s.dump());
    o.scale = v;
  }
  if (has(j, "empty_rows")) {
    const Json& e = j["empty_rows"];
    if (e == "error") o.empty_rows = EmptyRows::error;
    else if (e == "zero") o.empty_rows = EmptyRows::zero;
    else fail(ErrorCode::invalid_field, "empty_rows must be \"error\" or \"zero\"");
  }
  return o;
}

Json to_json(const Matrix& m) {
  Json rows = Json::array();
  for (Index i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

Json scores_to_json(const Matrix& scores, const BoolMatrix& allowed) {
  Json rows = Json::array();
  for (Index i = 0; i < scores.rows(); ++i) {
    Json row = Json::array();
    for (Index j = 0; j < scores.cols(); ++j)
      row.push_back(allowed(i, j) ? Json(scores(i, j)) : Json());
    rows.push_back(std::move(row));
  }
  return rows;
}

Matrix matrix_from_json(const Json& j, const std::string& field) {
  if (!j.is_array()) fail(ErrorCode::invalid_field, field + " must be an array of rows of numbers");
  if (j.empty()) fail(ErrorCode::empty_sequence, field + " has no rows (T = 0)");
  if (static_cast<Index>(j.size()) > kMaxTokens)
    fail(ErrorCode::too_large, field + " has " + std::to_string(j.size()) + " rows; the limit is " +
                                   std::to_string(kMaxTokens));
  if (!j[0].is_array()) fail(ErrorCode::invalid_field, field + "[0] must be an array of numbers");
  const size_t cols = j[0].size();
  if (cols == 0) fail(ErrorCode::empty_sequence, field + " rows are empty (d = 0)");
  if (static_cast<Index>(cols) > kMaxWidth)
    fail(ErrorCode::too_large, field + " rows have " + std::to_string(cols) + " entries; the limit is " +
                                   std::to_string(kMaxWidth));
  Matrix m(static_cast<Index>(j.size()), static_cast<Index>(cols));
  for (size_t i = 0; i < j.size(); ++i) {
    const Json& row = j[i];
    if (!row.is_array()) fail(ErrorCode::invalid_field, field + "[" + std::to_string(i) + "] must be an array of numbers");
    if (row.size() != cols)
      fail(ErrorCode::shape_mismatch, field + " row " + std::to_string(i) + " has " + std::to_string(row.size()) +
                                          " entries but row 0 has " + std::to_string(cols));
    for (size_t c = 0; c < cols; ++c) {
      if (!row[c].is_number())
        fail(ErrorCode::invalid_field, field + "[" + std::to_string(i) + "][" + std::to_string(c) +
                                           "] is " + (row[c].is_string() ? "a string" : std::string("an ") + row[c].type_name()) +
                                           ", not a number");
      m(static_cast<Index>(i), static_cast<Index>(c)) = row[c].get<double>();
    }
  }
  require_finite(m, field);
  return m;
}

Json error_json(const Error& e) {
  return ::attn::obj({{"error", ::attn::obj({{"code", e.code_name()}, {"message", e.what()}})}});
}

std::string dump(const Json& j) {
  // nlohmann writes the shortest decimal that reads back to the same double.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

const std::vector<OpSpec>& core_ops() {
  static const std::vector<OpSpec> ops = {
      {"attention", {"query", "key", "value", "mask", "scale", "empty_rows", "dropout", "kernel", "tile"}, run_attention},
      {"self_attention", {"x", "w_q", "w_k", "w_v", "mask", "scale", "empty_rows"}, run_self_attention},
      {"multi_head", {"heads", "x", "x_query", "x_key_value", "w_q", "w_k", "w_v", "w_o", "mask", "scale", "empty_rows"},
       run_multi_head},
  };
  return ops;
}

namespace {
std::vector<OpSpec>& table() {
  static std::vector<OpSpec> ops = [] {
    std::vector<OpSpec> all = core_ops();
    for (const auto* part : {&lesson_ops(), &learn_ops()}) all.insert(all.end(), part->begin(), part->end());
    return all;
  }();
  return ops;
}
}  // namespace

const std::vector<OpSpec>& op_table() { return table(); }

void add_ops(const std::vector<OpSpec>& part) {
  std::vector<OpSpec>& ops = table();
  for (const OpSpec& op : part) {
    bool known = false;
    for (const OpSpec& o : ops) known = known || std::string(o.name) == op.name;
    if (!known) ops.push_back(op);
  }
}

std::string op_names(const std::vector<OpSpec>& ops) {
  std::string out;
  for (const OpSpec& op : ops) out += (out.empty() ? "" : ", ") + std::string(op.name);
  return out;
}

std::optional<Json> run_op(const std::vector<OpSpec>& ops, const std::string& name, const Json& request) {
  for (const OpSpec& op : ops) {
    if (name != op.name) continue;
    const Fields f(request, name + " case");
    if (!op.checks_own_fields) {
      std::vector<std::string> known = op.fields;
      known.push_back("op");
      f.check_known(known);
    }
    return op.run(f);
  }
  return std::nullopt;
}

Json run_case(const Json& req) {
  if (!req.is_object()) fail(ErrorCode::invalid_json, "a case must be a JSON object, got " + std::string(req.type_name()));
  const Fields f(req, "case");
  const Json& op = f.required("op");
  if (!op.is_string()) fail(ErrorCode::invalid_field, "\"op\" must be a string");
  const std::string name = op.get<std::string>();
  if (std::optional<Json> out = run_op(op_table(), name, req)) return *out;
  fail(ErrorCode::unknown_op, "unknown op \"" + name + "\"; known ops: " + op_names(op_table()));
}

namespace {
// Cases nest at most 3 deep (multi_head weights); refuse absurd nesting before
// parsing, so no recursive walk (parse, dump, destruction) can exhaust the stack.
constexpr int kMaxNesting = 16;

void require_shallow(const std::string& text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxNesting)
        fail(ErrorCode::invalid_json, "input nests arrays/objects deeper than " +
                                          std::to_string(kMaxNesting) + " levels");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
}
}  // namespace

Json run_case_text(const std::string& text, bool* ok) {
  if (ok) *ok = false;
  try {
    require_shallow(text);
    Json req;
    try {
      req = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw Error(ErrorCode::invalid_json, std::string("input is not valid JSON: ") + e.what());
    } catch (const Json::out_of_range& e) {
      // nlohmann reports a literal such as 1e400 as out_of_range 406 while parsing.
      throw Error(ErrorCode::non_finite,
                  std::string("a number in the input does not fit a double (it would be infinite): ") + e.what());
    }
    Json out = run_case(req);
    if (ok) *ok = true;
    return out;
  } catch (const Error& e) {
    return error_json(e);
  } catch (const Json::exception& e) {
    // A type error from nlohmann (e.g. a number out of range for an integer field).
    return error_json(Error(ErrorCode::invalid_field, e.what()));
  } catch (const std::bad_alloc&) {
    return error_json(Error(ErrorCode::too_large, "out of memory for this case"));
  }
}

// ---------------------------------------------------------------------------
// Experiment structs

Json to_json(const Check& c) {
  return ::attn::obj({{"claim", c.claim}, {"measured", c.measured}, {"limit", c.limit},
              {"expect", c.expect_at_most ? "at_most" : "above"}, {"pass", c.pass}});
}

Json to_json(const std::vector<Check>& checks) {
  Json a = Json::array();
  for (const Check& c : checks) a.push_back(to_json(c));
  return a;
}

Json to_json(const AttentionResult& r) {
  return ::attn::obj({{"output", to_json(r.output)}, {"weights", to_json(r.weights)},
              {"scores", scores_to_json(r.scores, r.allowed)}, {"empty_row", empty_rows_json(r.empty_row)},
              {"scale", r.scale}});
}

Json to_json(const AlignmentRead& r) {
  Json contributions = Json::array();
  for (const Matrix& m : r.contributions) contributions.push_back(to_json(m));
  return ::attn::obj({{"queries", r.queries}, {"keys", r.keys}, {"weights", to_json(r.weights)},
              {"values", to_json(r.values)}, {"contexts", to_json(r.contexts)},
              {"contributions", contributions}, {"checks", to_json(r.checks)}});
}

Json to_json(const RandomHeadsResult& r) {
  Json heads = Json::array();
  for (const AttentionResult& h : r.heads)
    heads.push_back(::attn::obj({{"weights", to_json(h.weights)}, {"scores", scores_to_json(h.scores, h.allowed)},
                         {"output", to_json(h.output)}}));
  return ::attn::obj({{"tokens", r.tokens}, {"x", to_json(r.x)}, {"heads", heads}, {"checks", to_json(r.checks)}});
}

Json to_json(const PermutationResult& r) {
  auto vec = [](const Vector& v) {
    Json a = Json::array();
    for (Index i = 0; i < v.size(); ++i) a.push_back(v(i));
    return a;
  };
  return ::attn::obj({{"tokens", r.tokens}, {"permuted_tokens", r.permuted_tokens}, {"x", to_json(r.x)},
              {"px", to_json(r.px)}, {"f_px", to_json(r.f_px)}, {"p_f_x", to_json(r.p_f_x)},
              {"max_diff", r.max_diff}, {"weights_x", to_json(r.weights_x)},
              {"weights_px", to_json(r.weights_px)}, {"query_output", vec(r.query_output)},
              {"query_output_kv_permuted", vec(r.query_output_kv_permuted)}, {"kv_diff", r.kv_diff},
              {"checks", to_json(r.checks)}});
}

}  // namespace attn
