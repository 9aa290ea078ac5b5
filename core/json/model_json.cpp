#include "json/model_json.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "json/case_files.hpp"
#include "json/learn_json.hpp"
#include "json/ops.hpp"
#include "learn/checkpoint.hpp"
#include "learn/gpt2_file.hpp"
#include "learn/model_file.hpp"
#include "learn/json_obj.hpp"

namespace attn {
namespace {

using Json = nlohmann::json;

/// model_logits answers at most this many logits, and as many attention weights (2^23).
constexpr size_t kMaxAnswerNumbers = size_t{1} << 23;

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

/// A model file opened for an op: the loader's options, the file (read by parts) and whether it
/// is computed in float32 (a GPT-2-family file, unless "precision":"float64") or float64.
struct Opened {
  learn::ModelFileOptions opt;
  NamedFile file;
  bool gpt2 = false, f32 = false;
};

Opened open_model(const Fields& f) {
  const Json& path = f.required("model");
  if (!path.is_string()) fail(ErrorCode::invalid_field, "model must be the path of a .safetensors file");
  Opened o;
  learn::ModelFileOptions& opt = o.opt;
  if (f.has("kind")) opt.kind = f.text("kind", "");
  if (f.has("positions")) opt.positions = f.text("positions", "");
  if (f.has("attention")) opt.attention = f.text("attention", "");
  if (f.has("encoder")) opt.encoder = f.text("encoder", "");
  if (f.has("heads")) opt.heads = static_cast<int>(f.integer("heads", 0, 1, 64));
  if (f.has("context")) opt.context = static_cast<int>(f.integer("context", 0, 1, 1024));
  if (f.has("config")) {
    const Json& config = f.required("config");
    if (!config.is_string()) fail(ErrorCode::invalid_field, "config must be the path of a config.json file");
    opt.config = read_named_file(config.get<std::string>(), "config");
  }
  o.file = open_named_file(path.get<std::string>(), "model");
  o.gpt2 = learn::is_gpt2_family_range(o.file.size, o.file.read);  // the header's names decide the family
  const std::string precision = f.has("precision") ? f.text("precision", "") : (o.gpt2 ? "float32" : "float64");
  if (precision != "float32" && precision != "float64")
    fail(ErrorCode::invalid_field, "precision must be \"float32\" or \"float64\", got \"" + precision + "\"");
  if (precision == "float32" && !o.gpt2)
    fail(ErrorCode::invalid_field, "precision \"float32\" is for GPT-2-family files; the lab's own models compute in float64");
  o.f32 = precision == "float32";
  return o;
}

/// A model in float64: a lab file read whole (its limits keep it small), a GPT-2-family file by parts.
learn::ModelFile load_f64(const Opened& o) {
  if (o.gpt2) return learn::read_gpt2_family<double>(o.file.size, o.file.read, o.opt);
  if (o.file.size > (std::uint64_t{64} << 20))
    fail(ErrorCode::too_large, "model: a file under the lab's names has at most 4,194,304 parameters (32 MiB of "
                               "float64); this one has " + std::to_string(o.file.size) + " bytes");
  std::string bytes(static_cast<size_t>(o.file.size), '\0');
  o.file.read(0, bytes.size(), reinterpret_cast<std::uint8_t*>(bytes.data()));
  return learn::load_model_file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), o.opt);
}

learn::ModelFileF32 load_f32(const Opened& o) { return learn::read_gpt2_family<float>(o.file.size, o.file.read, o.opt); }

template <class S>
Json info_json(const learn::ModelFileT<S>& m) {
  Json tensors = Json::array();
  if (m.layout == "lab") {
    for (const learn::ParamInfo& p : m.model.layout.params())
      for (const learn::SafeTensor& t : m.file.tensors)
        if (t.name == p.name) tensors.push_back(::attn::obj({{"name", t.name}, {"dtype", learn::safe_dtype_name(t.dtype)}, {"shape", t.shape}}));
  } else {  // a GPT-2-family file: its own tensors, buffers included, in data order
    for (const learn::SafeTensor& t : m.file.tensors)
      tensors.push_back(::attn::obj({{"name", t.name}, {"dtype", learn::safe_dtype_name(t.dtype)}, {"shape", t.shape}}));
  }
  return ::attn::obj({{"kind", m.model.kind == learn::ModelKind::decoder ? "decoder" : "seq2seq"},
              {"layout", m.layout},
              {"precision", std::is_same_v<S, float> ? "float32" : "float64"},
              {"config", model_config_json(m.model)},
              {"tensors", tensors},
              {"params", m.model.layout.total()},
              {"params_fnv1a", learn::params_fnv1a(m.params)},
              {"metadata", m.file.metadata}});
}

Json info_op(const Fields& f) {
  const Opened o = open_model(f);
  return o.f32 ? info_json(load_f32(o)) : info_json(load_f64(o));
}

/// rows×cols numbers from x as nested arrays (float widened exactly).
template <class S>
Json rows_json(const S* x, size_t rows, size_t cols) {
  Json out = Json::array();
  for (size_t r = 0; r < rows; ++r) out.push_back(std::vector<double>(x + r * cols, x + (r + 1) * cols));
  return out;
}

template <class S>
Json decoder_logits(const learn::ModelFileT<S>& m, const Fields& f) {
  f.check_known({"op", "model", "config", "precision", "kind", "heads", "positions", "context", "attention", "encoder",
                 "tokens", "last_only"});
  // The forward computes a loss too: the tokens stand in as targets (every one counted, none read back).
  const Json& tokens = f.required("tokens");
  const learn::Batch b = learn::batch_from_json(m.model, ::attn::obj({{"tokens", tokens}, {"targets", tokens}}));
  const learn::DecoderConfig& c = m.model.decoder;
  const size_t B = static_cast<size_t>(b.decoder.batch), T = static_cast<size_t>(b.decoder.t);
  const size_t V = static_cast<size_t>(c.vocab), H = static_cast<size_t>(c.heads);
  const bool last_only = f.has("last_only") && f.boolean("last_only", false);
  const size_t rows = last_only ? 1 : T;
  // The answer's size, not the forward's: a JSON of more numbers is not something to print.
  if (B * rows * V > kMaxAnswerNumbers || static_cast<size_t>(c.layers) * B * H * T * T > kMaxAnswerNumbers)
    fail(ErrorCode::too_large, "the answer would hold " + std::to_string(B * rows * V) + " logits and " +
                                   std::to_string(static_cast<size_t>(c.layers) * B * H * T * T) +
                                   " attention weights; model_logits answers at most " + std::to_string(kMaxAnswerNumbers) +
                                   " of each (fewer tokens, or last_only)");
  learn::DecoderActivationsT<S> acts;
  learn::decoder_forward(c, m.model.layout, m.params.data(), b.decoder, acts);
  Json logits = Json::array(), weights = Json::array();
  for (size_t i = 0; i < B; ++i) logits.push_back(rows_json(acts.logits.data() + (i * T + (T - rows)) * V, rows, V));
  for (const auto& l : acts.layers) {
    Json layer = Json::array();
    for (size_t i = 0; i < B; ++i) {
      Json heads = Json::array();
      for (size_t h = 0; h < H; ++h) heads.push_back(rows_json(l.weights.data() + (i * H + h) * T * T, T, T));
      layer.push_back(heads);
    }
    weights.push_back(layer);
  }
  return ::attn::obj({{"logits", logits}, {"weights", weights}});
}

Json seq2seq_logits(const learn::ModelFile& m, const Fields& f) {
  f.check_known({"op", "model", "config", "precision", "kind", "heads", "positions", "context", "attention", "encoder",
                 "source", "target_in"});
  const Json& src = f.required("source");
  if (!src.is_array() || src.empty() || src.size() > 512)
    fail(ErrorCode::invalid_field, "source must be a list of 1 to 512 token lists");
  // Sources of different lengths are padded with 0 to the longest; the encoder never reads padding.
  size_t longest = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    if (!src[i].is_array() || src[i].empty() || src[i].size() > 512)
      fail(ErrorCode::invalid_field, "source[" + std::to_string(i) + "] must be a list of 1 to 512 tokens");
    longest = std::max(longest, src[i].size());
  }
  Json padded = Json::array(), lengths = Json::array();
  for (const Json& row : src) {
    Json r = row;
    while (r.size() < longest) r.push_back(0);
    padded.push_back(r);
    lengths.push_back(row.size());
  }
  const Json& target_in = f.required("target_in");
  const learn::Batch b = learn::batch_from_json(
      m.model, ::attn::obj({{"source", padded}, {"source_lengths", lengths}, {"target_in", target_in}, {"target_out", target_in}}));
  const learn::Seq2SeqBatch& s = b.seq2seq;
  learn::Seq2SeqActivations acts;
  learn::seq2seq_forward(m.model.seq2seq, m.model.layout, m.params.data(), s, acts);
  const size_t B = static_cast<size_t>(s.batch), U = static_cast<size_t>(s.tgt_len), S = static_cast<size_t>(s.src_len);
  const size_t V = static_cast<size_t>(m.model.seq2seq.tgt_vocab);
  Json logits = Json::array();
  for (size_t i = 0; i < B; ++i) logits.push_back(rows_json(acts.logits.data() + i * U * V, U, V));
  Json out{{"logits", logits}};
  if (m.model.seq2seq.attention) {
    Json alignment = Json::array();
    for (size_t i = 0; i < B; ++i) {
      const size_t len = static_cast<size_t>(s.source_lengths[i]);
      Json rows = Json::array();
      for (size_t t = 0; t < U; ++t) rows.push_back(std::vector<double>(acts.weights[t].begin() + i * S, acts.weights[t].begin() + i * S + len));
      alignment.push_back(rows);
    }
    out["alignment"] = alignment;
  }
  return out;
}

template <class S>
Json generate_json(const learn::ModelFileT<S>& m, const Fields& f) {
  if (m.model.kind != learn::ModelKind::decoder)
    fail(ErrorCode::invalid_field, "generate runs a decoder; this file is a seq2seq model");
  const std::vector<int> prompt = f.token_ids("tokens");
  const int steps = static_cast<int>(f.required_integer("steps", 0, 4096));
  const double temperature = f.has("temperature") ? f.number("temperature", 0.0) : 0.0;
  const std::uint64_t seed = f.has("seed") ? static_cast<std::uint64_t>(f.integer("seed", 0, 0, (1LL << 53))) : 0;
  const std::vector<int> out =
      learn::decoder_generate(m.model.decoder, m.model.layout, m.params, prompt, steps, temperature, seed);
  return ::attn::obj({{"tokens", out}});
}

Json generate_op(const Fields& f) {
  const Opened o = open_model(f);
  return o.f32 ? generate_json(load_f32(o), f) : generate_json(load_f64(o), f);
}

Json logits_op(const Fields& f) {
  const Opened o = open_model(f);
  if (o.f32) return decoder_logits(load_f32(o), f);
  const learn::ModelFile m = load_f64(o);
  return m.model.kind == learn::ModelKind::decoder ? decoder_logits(m, f) : seq2seq_logits(m, f);
}

}  // namespace

Json model_config_json(const learn::Model& m) {
  if (m.kind == learn::ModelKind::decoder) {
    const learn::DecoderConfig& c = m.decoder;
    return ::attn::obj({{"kind", "decoder"}, {"vocab", c.vocab},   {"context", c.context},
                {"d_model", c.d_model}, {"heads", c.heads}, {"layers", c.layers},
                {"mlp", c.mlp}, {"positions", learn::decoder_positions_name(c.positions)}, {"layer_norm", c.layer_norm},
                {"bias", c.bias}, {"activation", learn::activation_name(c.activation)},
                {"layer_norm_eps", c.layer_norm_eps}, {"tied_head", c.tied_head},
                {"scale_attn_weights", c.scale_attn_weights},
                {"scale_attn_by_inverse_layer_idx", c.scale_attn_by_inverse_layer_idx}});
  }
  const learn::Seq2SeqConfig& c = m.seq2seq;
  Json j{{"kind", "seq2seq"}, {"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab},
         {"embed", c.embed},  {"hidden", c.hidden},       {"attention", c.attention ? "additive" : "none"}};
  if (c.attention) j["attn_dim"] = c.attn_dim;
  j["encoder"] = c.bidirectional ? "bidirectional" : "forward";
  return j;
}

const std::vector<OpSpec>& model_file_ops() {
  static const std::vector<OpSpec> ops = {
      {"model_info", {"model", "config", "precision", "kind", "heads", "positions", "context", "attention", "encoder"}, info_op},
      // The batch fields follow the file's kind: the op checks its fields once it has read the model.
      {"model_logits",
       {"model", "config", "precision", "kind", "heads", "positions", "context", "attention", "encoder", "tokens", "last_only",
        "source", "target_in"},
       logits_op, true},
      {"generate", {"model", "config", "precision", "heads", "tokens", "steps", "temperature", "seed"}, generate_op},
  };
  return ops;
}

}  // namespace attn
