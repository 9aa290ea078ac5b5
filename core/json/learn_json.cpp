#include "json/learn_json.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "json/json_case.hpp"
#include "json/ops.hpp"
#include "attn/masks.hpp"
#include "learn/layers.hpp"
#include "learn/json_obj.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

bool has(const Json& o, const char* f) {
  auto it = o.find(f);
  return it != o.end() && !it->is_null();
}

const Json& require(const Json& o, const char* f, const std::string& where = "") {
  if (!has(o, f)) fail(ErrorCode::missing_field, "missing field \"" + where + f + "\"");
  return o[f];
}

void reject_unknown(const Json& o, const std::set<std::string>& known, const std::string& where) {
  for (auto it = o.begin(); it != o.end(); ++it)
    if (!known.count(it.key())) fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in " + where);
}

int int_field(const Json& o, const char* f, const std::string& where, std::optional<int> fallback = std::nullopt) {
  if (!has(o, f)) {
    if (fallback) return *fallback;
    fail(ErrorCode::missing_field, "missing field \"" + where + f + "\"");
  }
  const Json& j = o[f];
  if (!j.is_number_integer()) fail(ErrorCode::invalid_field, where + f + " must be an integer");
  const long long v = j.is_number_unsigned() ? static_cast<long long>(std::min<std::uint64_t>(j.get<std::uint64_t>(), 1u << 30))
                                             : j.get<long long>();
  if (v < -(1LL << 30) || v > (1LL << 30)) fail(ErrorCode::invalid_field, where + f + " is out of range");
  return static_cast<int>(v);
}

double number_field(const Json& o, const char* f, const std::string& where, double fallback) {
  if (!has(o, f)) return fallback;
  const Json& j = o[f];
  if (!j.is_number()) fail(ErrorCode::invalid_field, where + f + " must be a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail(ErrorCode::non_finite, where + f + " must be finite");
  return v;
}

/// A B×T array of integer rows (all rows the same length).
std::vector<int> int_rows(const Json& j, const std::string& field, int& rows, int& cols) {
  if (!j.is_array() || j.empty() || !j[0].is_array() || j[0].empty())
    fail(ErrorCode::empty_sequence, field + " must be a non-empty array of non-empty rows of integers");
  if (j.size() > 512) fail(ErrorCode::too_large, field + " has " + std::to_string(j.size()) + " rows; at most 512");
  rows = static_cast<int>(j.size());
  cols = static_cast<int>(j[0].size());
  if (cols > 1024) fail(ErrorCode::too_large, field + " rows have " + std::to_string(cols) + " entries; at most 1024");
  std::vector<int> out;
  out.reserve(static_cast<size_t>(rows) * cols);
  for (size_t r = 0; r < j.size(); ++r) {
    if (!j[r].is_array() || static_cast<int>(j[r].size()) != cols)
      fail(ErrorCode::shape_mismatch, field + "[" + std::to_string(r) + "] must have " + std::to_string(cols) +
                                          " entries, like row 0");
    for (size_t c = 0; c < j[r].size(); ++c) {
      const Json& v = j[r][c];
      if (!v.is_number_integer() || v.get<long long>() < -(1LL << 30) || v.get<long long>() > (1LL << 30))
        fail(ErrorCode::invalid_field, field + "[" + std::to_string(r) + "][" + std::to_string(c) + "] must be an integer");
      out.push_back(static_cast<int>(v.get<long long>()));
    }
  }
  return out;
}

std::vector<int> int_list(const Json& j, const std::string& field) {
  if (!j.is_array()) fail(ErrorCode::invalid_field, field + " must be an array of integers");
  std::vector<int> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer() || j[i].get<long long>() < -(1LL << 30) || j[i].get<long long>() > (1LL << 30))
      fail(ErrorCode::invalid_field, field + "[" + std::to_string(i) + "] must be an integer");
    out.push_back(static_cast<int>(j[i].get<long long>()));
  }
  return out;
}

Json vec_json(const double* x, size_t n) {
  Json a = Json::array();
  for (size_t i = 0; i < n; ++i) a.push_back(x[i]);
  return a;
}

/// A loss, gradient or parameter that overflowed (huge inputs, a learning rate far too large) is
/// refused with a message rather than written out as NaN or null.
void require_finite(const std::vector<double>& x, const Model& model, const std::string& what) {
  for (const ParamInfo& p : model.layout.params())
    for (size_t i = 0; i < p.size(); ++i)
      if (!std::isfinite(x[p.offset + i]))
        fail(ErrorCode::non_finite, what + " of \"" + p.name + "\" (entry " + std::to_string(i) +
                                        ") is not finite: the numbers overflowed");
}

void require_finite_loss(double loss, const std::string& where) {
  if (!std::isfinite(loss))
    fail(ErrorCode::non_finite, where + "the loss is not finite: the logits overflowed (inputs or parameters too large)");
}

Json attention_backward_op(const Json& req) {
  if (has(req, "kernel") || has(req, "tile"))
    fail(ErrorCode::invalid_field, "attention_backward runs the dense reference only: remove \"kernel\"/\"tile\"");
  if (has(req, "dropout"))
    fail(ErrorCode::invalid_field, "attention_backward has no dropout: remove \"dropout\"");
  const Matrix q = matrix_from_json(require(req, "query"), "query");
  const Matrix k = matrix_from_json(require(req, "key"), "key");
  const Matrix v = matrix_from_json(require(req, "value"), "value");
  const Matrix g = matrix_from_json(require(req, "grad_output"), "grad_output");
  const MaskSpec mask = mask_from_json(req.value("mask", Json()));
  // The forward op validates shapes, masks, scale and empty rows with its own codes and messages.
  const AttentionResult fwd = attention(q, k, v, mask, options_from_json(req));
  if (g.rows() != q.rows() || g.cols() != v.cols())
    fail(ErrorCode::shape_mismatch, "grad_output is " + std::to_string(g.rows()) + "x" + std::to_string(g.cols()) +
                                        " but the output is " + std::to_string(q.rows()) + "x" +
                                        std::to_string(v.cols()) + " (Tq x d_v)");
  AttentionShape s;
  s.tq = static_cast<int>(q.rows());
  s.tk = static_cast<int>(k.rows());
  s.dk = static_cast<int>(q.cols());
  s.dv = static_cast<int>(v.cols());
  s.q_stride = s.k_stride = s.dk;
  s.v_stride = s.out_stride = s.dv;
  s.scale = fwd.scale;
  std::vector<unsigned char> allowed(static_cast<size_t>(s.tq) * s.tk);
  for (int i = 0; i < s.tq; ++i)
    for (int j = 0; j < s.tk; ++j) allowed[static_cast<size_t>(i) * s.tk + j] = fwd.allowed(i, j) ? 1 : 0;
  Matrix out(s.tq, s.dv), w(s.tq, s.tk), dq = Matrix::Zero(s.tq, s.dk), dk = Matrix::Zero(s.tk, s.dk),
      dv = Matrix::Zero(s.tk, s.dv);
  attention_forward(out.data(), w.data(), q.data(), k.data(), v.data(), allowed.data(), s);
  attention_backward(dq.data(), dk.data(), dv.data(), g.data(), w.data(), q.data(), k.data(), v.data(), s);
  if (!dq.allFinite() || !dk.allFinite() || !dv.allFinite())
    fail(ErrorCode::non_finite, "a gradient overflowed: grad_output, query, key or value are too large");
  return ::attn::obj({{"output", to_json(out)}, {"weights", to_json(w)}, {"grad_query", to_json(dq)},
              {"grad_key", to_json(dk)}, {"grad_value", to_json(dv)}, {"scale", fwd.scale}});
}

const std::set<std::string> kDecoderBatchFields = {"tokens", "targets"};
const std::set<std::string> kSeq2SeqBatchFields = {"source", "source_lengths", "target_in", "target_out"};

std::set<std::string> with(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

Json model_gradients_op(const Json& req) {
  const Model model = model_from_json(require(req, "model"));
  reject_unknown(req, with({"op", "model", "params"}, model.kind == ModelKind::decoder ? kDecoderBatchFields
                                                                                       : kSeq2SeqBatchFields),
                 "model_gradients case");
  const std::vector<double> params = params_from_json(model, require(req, "params"));
  const Batch batch = batch_from_json(model, req);
  std::vector<double> grads;
  const double loss = loss_and_grads(model, params, batch, grads);
  require_finite_loss(loss, "");
  require_finite(grads, model, "the gradient");
  return ::attn::obj({{"loss", loss}, {"grads", params_to_json(model, grads)}});
}

AdamConfig adam_from_json(const Json& j) {
  AdamConfig c;
  if (j.is_null()) return c;
  if (!j.is_object()) fail(ErrorCode::invalid_field, "optimizer must be an object such as {\"name\":\"adam\",\"lr\":0.001}");
  reject_unknown(j, {"name", "lr", "betas", "eps", "weight_decay"}, "optimizer");
  if (has(j, "name") && j["name"] != "adam")
    fail(ErrorCode::invalid_field, "optimizer.name must be \"adam\" (the only optimiser), got " + j["name"].dump());
  c.lr = number_field(j, "lr", "optimizer.", c.lr);
  if (!(c.lr > 0.0)) fail(ErrorCode::invalid_field, "optimizer.lr must be > 0, got " + dump(Json(c.lr)));
  if (has(j, "betas")) {
    const Json& b = j["betas"];
    if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number())
      fail(ErrorCode::invalid_field, "optimizer.betas must be two numbers [beta1, beta2]");
    c.beta1 = b[0].get<double>();
    c.beta2 = b[1].get<double>();
    if (!(c.beta1 >= 0.0 && c.beta1 < 1.0) || !(c.beta2 >= 0.0 && c.beta2 < 1.0))
      fail(ErrorCode::invalid_field, "optimizer.betas must each be in [0, 1)");
  }
  c.eps = number_field(j, "eps", "optimizer.", c.eps);
  if (!(c.eps > 0.0)) fail(ErrorCode::invalid_field, "optimizer.eps must be > 0");
  c.weight_decay = number_field(j, "weight_decay", "optimizer.", c.weight_decay);
  if (!(c.weight_decay >= 0.0)) fail(ErrorCode::invalid_field, "optimizer.weight_decay must be >= 0");
  return c;
}

constexpr size_t kMaxSteps = 10000;
constexpr long kMaxStepTokens = 1L << 22;  // tokens summed over all batches of one request

Json train_steps_op(const Json& req) {
  const Model model = model_from_json(require(req, "model"));
  std::vector<double> params = params_from_json(model, require(req, "params"));
  const Json& bj = require(req, "batches");
  if (!bj.is_array() || bj.empty()) fail(ErrorCode::invalid_field, "batches must be a non-empty array of batch objects");
  if (bj.size() > kMaxSteps)
    fail(ErrorCode::too_large, "at most " + std::to_string(kMaxSteps) + " batches per request, got " + std::to_string(bj.size()));
  const AdamConfig adam = adam_from_json(req.value("optimizer", Json()));
  std::optional<double> clip;
  if (has(req, "clip")) {
    clip = number_field(req, "clip", "", 0.0);
    if (!(*clip > 0.0)) fail(ErrorCode::invalid_field, "clip must be null or a max_norm > 0");
  }
  std::vector<Batch> batches;
  long tokens = 0;
  const std::set<std::string>& fields = model.kind == ModelKind::decoder ? kDecoderBatchFields : kSeq2SeqBatchFields;
  for (size_t i = 0; i < bj.size(); ++i) {
    const std::string where = "batches[" + std::to_string(i) + "].";
    if (!bj[i].is_object()) fail(ErrorCode::invalid_field, "batches[" + std::to_string(i) + "] must be an object");
    reject_unknown(bj[i], fields, "batches[" + std::to_string(i) + "]");
    batches.push_back(batch_from_json(model, bj[i], where));
    const Batch& b = batches.back();
    tokens += model.kind == ModelKind::decoder ? long(b.decoder.batch) * b.decoder.t
                                               : long(b.seq2seq.batch) * (b.seq2seq.src_len + b.seq2seq.tgt_len);
    if (tokens > kMaxStepTokens)
      fail(ErrorCode::too_large, "the batches hold more than " + std::to_string(kMaxStepTokens) + " tokens in all");
  }
  AdamState state;
  std::vector<double> grads;
  Json losses = Json::array();
  for (size_t i = 0; i < batches.size(); ++i) {
    const double loss = train_step(model, params, state, adam, clip, batches[i], grads);
    const std::string where = "training diverged at step " + std::to_string(i + 1) + ": ";
    require_finite_loss(loss, where);
    require_finite(params, model, where + "the parameter");
    losses.push_back(loss);
  }
  return ::attn::obj({{"losses", losses}, {"params", params_to_json(model, params)}});
}

Json init_params_op(const Json& req) {
  const Model model = model_from_json(require(req, "model"));
  std::uint64_t seed = 17;
  if (has(req, "seed")) {
    const Json& s = req["seed"];
    if (!s.is_number_integer() || (s.is_number_integer() && !s.is_number_unsigned() && s.get<long long>() < 0))
      fail(ErrorCode::invalid_field, "seed must be an integer >= 0");
    seed = s.get<std::uint64_t>();
  }
  return ::attn::obj({{"params", params_to_json(model, init_params(model.layout, seed))}});
}

}  // namespace

}  // namespace attn::learn

namespace attn {

const std::vector<OpSpec>& learn_ops() {
  static const std::vector<OpSpec> ops = {
      {"attention_backward",
       {"query", "key", "value", "grad_output", "mask", "scale", "empty_rows", "kernel", "dropout", "tile"},
       [](const Fields& f) { return learn::attention_backward_op(f.json()); }},
      // The batch fields follow model.kind: the op checks its fields once it has read the model.
      {"model_gradients",
       {"model", "params", "tokens", "targets", "source", "source_lengths", "target_in", "target_out"},
       [](const Fields& f) { return learn::model_gradients_op(f.json()); }, true},
      {"train_steps", {"model", "params", "batches", "optimizer", "clip"},
       [](const Fields& f) { return learn::train_steps_op(f.json()); }},
      {"init_params", {"model", "seed"}, [](const Fields& f) { return learn::init_params_op(f.json()); }},
  };
  return ops;
}

}  // namespace attn

namespace attn::learn {

const char* learn_op_names() {
  static const std::string names = op_names(learn_ops());
  return names.c_str();
}

std::optional<Json> run_learn_op(const std::string& op, const Json& req) { return run_op(learn_ops(), op, req); }

Model model_from_json(const Json& j) {
  if (!j.is_object()) fail(ErrorCode::invalid_field, "model must be an object with a \"kind\" (\"decoder\" or \"seq2seq\")");
  const Json& kind = require(j, "kind", "model.");
  DecoderConfig dec;
  Seq2SeqConfig s2s;
  if (kind == "decoder") {
    reject_unknown(j, {"kind", "vocab", "context", "d_model", "heads", "layers", "mlp", "positions", "layer_norm", "bias",
                       "activation", "layer_norm_eps", "tied_head", "scale_attn_weights", "scale_attn_by_inverse_layer_idx"},
                   "model");
    dec.vocab = int_field(j, "vocab", "model.");
    dec.context = int_field(j, "context", "model.");
    dec.d_model = int_field(j, "d_model", "model.");
    dec.heads = int_field(j, "heads", "model.");
    dec.layers = int_field(j, "layers", "model.");
    dec.mlp = int_field(j, "mlp", "model.", 0);
    if (has(j, "positions")) {
      const Json& p = j["positions"];
      if (p == "learned") dec.positions = DecoderPositions::learned;
      else if (p == "sinusoidal") dec.positions = DecoderPositions::sinusoidal;
      else if (p == "rope") dec.positions = DecoderPositions::rope;
      else if (p == "none") dec.positions = DecoderPositions::none;
      else fail(ErrorCode::invalid_field, "model.positions must be \"learned\", \"sinusoidal\", \"rope\" or \"none\", got " + p.dump());
    }
    if (has(j, "layer_norm")) {
      if (!j["layer_norm"].is_boolean()) fail(ErrorCode::invalid_field, "model.layer_norm must be true or false");
      dec.layer_norm = j["layer_norm"].get<bool>();
    }
    // GPT-2's options (decoder.hpp), each optional with the lab's default.
    const auto flag = [&](const char* name, bool& out) {
      if (!has(j, name)) return;
      if (!j[name].is_boolean()) fail(ErrorCode::invalid_field, std::string("model.") + name + " must be true or false");
      out = j[name].get<bool>();
    };
    flag("bias", dec.bias);
    flag("tied_head", dec.tied_head);
    flag("scale_attn_weights", dec.scale_attn_weights);
    flag("scale_attn_by_inverse_layer_idx", dec.scale_attn_by_inverse_layer_idx);
    if (has(j, "activation")) {
      if (!j["activation"].is_string())
        fail(ErrorCode::invalid_field, "model.activation must be \"relu\", \"gelu\" or \"gelu_new\"");
      dec.activation = activation_of(j["activation"].get<std::string>(), "model.activation");
    }
    if (has(j, "layer_norm_eps")) {
      if (!j["layer_norm_eps"].is_number())
        fail(ErrorCode::invalid_field, "model.layer_norm_eps must be a number in (0, 1]");
      dec.layer_norm_eps = j["layer_norm_eps"].get<double>();
    }
    return make_model(ModelKind::decoder, dec, s2s);
  }
  if (kind == "seq2seq") {
    reject_unknown(j, {"kind", "src_vocab", "tgt_vocab", "embed", "hidden", "attention", "attn_dim", "encoder"}, "model");
    s2s.src_vocab = int_field(j, "src_vocab", "model.");
    s2s.tgt_vocab = int_field(j, "tgt_vocab", "model.");
    s2s.embed = int_field(j, "embed", "model.");
    s2s.hidden = int_field(j, "hidden", "model.");
    const Json& a = require(j, "attention", "model.");
    if (a == "additive") {
      s2s.attention = true;
      s2s.attn_dim = int_field(j, "attn_dim", "model.");
    } else if (a == "none") {
      s2s.attention = false;
      if (has(j, "attn_dim"))
        fail(ErrorCode::invalid_field, "model.attn_dim is only for \"attention\": \"additive\" (the fixed summary has no attention layer)");
      s2s.attn_dim = 0;
    } else {
      fail(ErrorCode::invalid_field, "model.attention must be \"additive\" or \"none\", got " + a.dump());
    }
    if (has(j, "encoder")) {
      const Json& e = j["encoder"];
      if (e == "bidirectional") s2s.bidirectional = true;
      else if (e != "forward")
        fail(ErrorCode::invalid_field, "model.encoder must be \"forward\" or \"bidirectional\", got " + e.dump());
    }
    return make_model(ModelKind::seq2seq, dec, s2s);
  }
  fail(ErrorCode::invalid_field, "model.kind must be \"decoder\" or \"seq2seq\", got " + kind.dump());
}

std::vector<double> params_from_json(const Model& model, const Json& j, const std::string& field) {
  if (!j.is_object()) fail(ErrorCode::invalid_field, field + " must be an object of named tensors");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (model.layout.find(it.key()) < 0) {
      std::string names;
      for (const ParamInfo& p : model.layout.params()) names += (names.empty() ? "" : ", ") + p.name;
      fail(ErrorCode::invalid_field, "unknown parameter \"" + it.key() + "\" in " + field + "; this model has: " + names);
    }
  std::vector<double> out(model.layout.total());
  for (const ParamInfo& p : model.layout.params()) {
    const std::string name = field + "[\"" + p.name + "\"]";
    if (!j.contains(p.name) || j[p.name].is_null()) fail(ErrorCode::missing_field, "missing parameter \"" + p.name + "\" in " + field);
    const Json& t = j[p.name];
    const std::string want = p.is_vector ? std::to_string(p.cols) : std::to_string(p.rows) + "x" + std::to_string(p.cols);
    double* dst = out.data() + p.offset;
    auto num = [&](const Json& v, const std::string& where) {
      if (!v.is_number()) fail(ErrorCode::invalid_field, where + " is " + v.dump() + ", not a number");
      const double x = v.get<double>();
      if (!std::isfinite(x)) fail(ErrorCode::non_finite, where + " is not finite");
      return x;
    };
    if (p.is_vector) {
      if (!t.is_array() || static_cast<Index>(t.size()) != p.cols || (!t.empty() && t[0].is_array()))
        fail(ErrorCode::shape_mismatch, name + " must be a flat array of " + want + " numbers");
      for (Index i = 0; i < p.cols; ++i) dst[i] = num(t[static_cast<size_t>(i)], name + "[" + std::to_string(i) + "]");
    } else {
      if (!t.is_array() || static_cast<Index>(t.size()) != p.rows)
        fail(ErrorCode::shape_mismatch, name + " must be " + want + " (out x in, as torch stores it)");
      for (Index r = 0; r < p.rows; ++r) {
        const Json& row = t[static_cast<size_t>(r)];
        if (!row.is_array() || static_cast<Index>(row.size()) != p.cols)
          fail(ErrorCode::shape_mismatch, name + " must be " + want + " (out x in, as torch stores it); row " +
                                              std::to_string(r) + " differs");
        for (Index c = 0; c < p.cols; ++c)
          dst[r * p.cols + c] = num(row[static_cast<size_t>(c)], name + "[" + std::to_string(r) + "][" + std::to_string(c) + "]");
      }
    }
  }
  return out;
}

Json params_to_json(const Model& model, const std::vector<double>& values) {
  Json out = Json::object();
  for (const ParamInfo& p : model.layout.params()) {
    const double* x = values.data() + p.offset;
    if (p.is_vector) {
      out[p.name] = vec_json(x, p.size());
    } else {
      Json rows = Json::array();
      for (Index r = 0; r < p.rows; ++r) rows.push_back(vec_json(x + r * p.cols, static_cast<size_t>(p.cols)));
      out[p.name] = rows;
    }
  }
  return out;
}

Batch batch_from_json(const Model& model, const Json& j, const std::string& where) {
  Batch b;
  if (model.kind == ModelKind::decoder) {
    DecoderBatch& d = b.decoder;
    int tr = 0, tc = 0;
    d.tokens = int_rows(require(j, "tokens", where), where + "tokens", d.batch, d.t);
    d.targets = int_rows(require(j, "targets", where), where + "targets", tr, tc);
    if (tr != d.batch || tc != d.t)
      fail(ErrorCode::shape_mismatch, where + "targets is " + std::to_string(tr) + "x" + std::to_string(tc) +
                                          " but tokens is " + std::to_string(d.batch) + "x" + std::to_string(d.t));
  } else {
    Seq2SeqBatch& s = b.seq2seq;
    int r1 = 0, c1 = 0, r2 = 0, c2 = 0;
    s.source = int_rows(require(j, "source", where), where + "source", s.batch, s.src_len);
    s.source_lengths = int_list(require(j, "source_lengths", where), where + "source_lengths");
    s.target_in = int_rows(require(j, "target_in", where), where + "target_in", r1, c1);
    s.target_out = int_rows(require(j, "target_out", where), where + "target_out", r2, c2);
    if (r1 != s.batch || r2 != s.batch || c1 != c2)
      fail(ErrorCode::shape_mismatch, where + "target_in (" + std::to_string(r1) + "x" + std::to_string(c1) +
                                          ") and target_out (" + std::to_string(r2) + "x" + std::to_string(c2) +
                                          ") must have the same shape, with one row per source (" +
                                          std::to_string(s.batch) + ")");
    s.tgt_len = c1;
  }
  try {
    validate_batch(model, b);
  } catch (const Error& e) {
    if (where.empty()) throw;
    throw Error(e.code(), where + " " + e.what());
  }
  return b;
}

}  // namespace attn::learn
