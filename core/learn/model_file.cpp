#include "learn/model_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "attn/error.hpp"
#include "learn/gpt2_file.hpp"  // is_gpt2_family: a GPT-2 file is named in the refusal

namespace attn::learn {
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, "model file: " + msg); }

/// A dimension as the validators take it; larger ones are clamped so that they report the range.
int dim_int(std::uint64_t v) { return static_cast<int>(std::min<std::uint64_t>(v, std::uint64_t{1} << 30)); }

class Header {
 public:
  explicit Header(const Safetensors& file) : file_(file) {}

  const SafeTensor* find(const std::string& name) const {
    for (const SafeTensor& t : file_.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  /// Dimension `axis` of the 2-D tensor `name` (missing_field when absent, shape_mismatch otherwise).
  int dim(const std::string& name, int axis, const char* meaning) const {
    const SafeTensor* t = find(name);
    if (!t) fail(ErrorCode::missing_field, "the file has no tensor \"" + name + "\" (it gives " + meaning + ")");
    if (t->shape.size() != 2)
      fail(ErrorCode::shape_mismatch, "tensor \"" + name + "\" has shape " + shape_text(t->shape) + "; it must be 2-D");
    return dim_int(t->shape[static_cast<size_t>(axis)]);
  }
  /// The option, else the metadata key, else nullopt.
  std::optional<std::string> text(const char* key, const std::optional<std::string>& option) const {
    if (option) return option;
    const auto it = file_.metadata.find(key);
    if (it == file_.metadata.end()) return std::nullopt;
    return it->second;
  }
  std::optional<int> integer(const char* key, const std::optional<int>& option) const {
    if (option) return option;
    const auto it = file_.metadata.find(key);
    if (it == file_.metadata.end()) return std::nullopt;
    const std::string& s = it->second;
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
      fail(ErrorCode::invalid_field, std::string("__metadata__ ") + key + " must be a decimal integer, got \"" + s + "\"");
    return std::stoi(s);
  }
  /// 1 + the highest N of the names "layers.N.…" (0 when there are none).
  int layers() const {
    int n = 0;
    for (const SafeTensor& t : file_.tensors) {
      if (t.name.compare(0, 7, "layers.") != 0) continue;
      size_t i = 7, digits = 0;
      long v = 0;
      while (i < t.name.size() && std::isdigit(static_cast<unsigned char>(t.name[i])) && digits < 6)
        v = v * 10 + (t.name[i++] - '0'), ++digits;
      if (digits > 0 && i < t.name.size() && t.name[i] == '.') n = std::max<int>(n, static_cast<int>(v) + 1);
    }
    return n;
  }

 private:
  const Safetensors& file_;
};

DecoderPositions positions_of(const std::string& s) {
  for (DecoderPositions p : {DecoderPositions::learned, DecoderPositions::sinusoidal, DecoderPositions::rope,
                             DecoderPositions::none})
    if (s == decoder_positions_name(p)) return p;
  fail(ErrorCode::invalid_field, "positions must be \"learned\", \"sinusoidal\", \"rope\" or \"none\", got \"" + s + "\"");
}

Model decoder_of(const Header& h, const ModelFileOptions& opt) {
  DecoderConfig c;
  c.vocab = h.dim("embed.weight", 0, "vocab");
  c.d_model = h.dim("embed.weight", 1, "d_model");
  const std::optional<int> heads = h.integer("heads", opt.heads);
  if (!heads)
    fail(ErrorCode::missing_field, "heads: the shapes do not give the number of heads; put \"heads\" in the file's "
                                   "__metadata__ or the request");
  c.heads = *heads;
  c.layers = h.layers();
  c.mlp = c.layers > 0 && h.find("layers.0.mlp.0.weight") ? h.dim("layers.0.mlp.0.weight", 0, "mlp") : 0;
  c.layer_norm = h.find("ln_f.weight") != nullptr;
  const bool has_pos = h.find("pos.weight") != nullptr;
  if (const std::optional<std::string> p = h.text("positions", opt.positions)) c.positions = positions_of(*p);
  else if (has_pos) c.positions = DecoderPositions::learned;
  else
    fail(ErrorCode::missing_field, "positions: the file has no pos.weight; put \"positions\" (\"sinusoidal\", "
                                   "\"rope\" or \"none\") in the file's __metadata__ or the request");
  if (const std::optional<int> t = h.integer("context", opt.context)) c.context = *t;
  else c.context = has_pos ? h.dim("pos.weight", 0, "context") : 1024;
  // GPT-2's options: biases and a tied head show in the names; the rest is metadata
  // (model_safetensors writes it whenever it differs from the lab's default).
  c.bias = h.find("layers.0.attn.in_proj_bias") != nullptr;
  c.tied_head = h.find("unembed.weight") == nullptr;
  if (const std::optional<std::string> a = h.text("activation", std::nullopt))
    c.activation = activation_of(*a, "__metadata__ activation");
  if (const std::optional<std::string> e = h.text("layer_norm_eps", std::nullopt)) {
    char* end = nullptr;
    c.layer_norm_eps = std::strtod(e->c_str(), &end);
    if (e->empty() || end != e->c_str() + e->size())
      fail(ErrorCode::invalid_field, "__metadata__ layer_norm_eps must be a number, got \"" + *e + "\"");
  }
  for (auto [key, flag] : {std::pair<const char*, bool*>{"scale_attn_weights", &c.scale_attn_weights},
                           std::pair<const char*, bool*>{"scale_attn_by_inverse_layer_idx", &c.scale_attn_by_inverse_layer_idx}})
    if (const std::optional<std::string> v = h.text(key, std::nullopt)) {
      if (*v != "true" && *v != "false")
        fail(ErrorCode::invalid_field, std::string("__metadata__ ") + key + " must be \"true\" or \"false\", got \"" + *v + "\"");
      *flag = *v == "true";
    }
  return make_model(ModelKind::decoder, c, {}, kMaxFileParams);
}

Model seq2seq_of(const Header& h, const ModelFileOptions& opt) {
  Seq2SeqConfig c;
  c.src_vocab = h.dim("src_embed.weight", 0, "src_vocab");
  c.embed = h.dim("src_embed.weight", 1, "embed");
  c.tgt_vocab = h.dim("tgt_embed.weight", 0, "tgt_vocab");
  c.hidden = h.dim("encoder.weight_hh_l0", 1, "hidden");
  const std::optional<std::string> a = h.text("attention", opt.attention);
  if (a && *a != "additive" && *a != "none")
    fail(ErrorCode::invalid_field, "attention must be \"additive\" or \"none\", got \"" + *a + "\"");
  c.attention = a ? *a == "additive" : h.find("attn.w_s.weight") != nullptr;
  c.attn_dim = c.attention ? h.dim("attn.w_s.weight", 0, "attn_dim") : 0;
  const std::optional<std::string> enc = h.text("encoder", opt.encoder);
  if (enc && *enc != "forward" && *enc != "bidirectional")
    fail(ErrorCode::invalid_field, "encoder must be \"forward\" or \"bidirectional\", got \"" + *enc + "\"");
  c.bidirectional = enc ? *enc == "bidirectional" : h.find("encoder.weight_hh_l0_reverse") != nullptr;
  return make_model(ModelKind::seq2seq, {}, c, kMaxFileParams);
}

}  // namespace

std::vector<std::uint64_t> torch_shape(const ParamInfo& p) {
  if (p.is_vector) return {static_cast<std::uint64_t>(p.cols)};
  return {static_cast<std::uint64_t>(p.rows), static_cast<std::uint64_t>(p.cols)};
}

ModelFile load_model_file(const std::uint8_t* data, std::size_t size, const ModelFileOptions& opt) {
  ModelFile out;
  out.file = read_safetensors_header(data, size, true);
  if (is_gpt2_family(out.file))
    fail(ErrorCode::invalid_field, "this is a GPT-2-family file (wte.weight, h.N.…): this reader takes the lab's own "
                                   "names; GPT-2-family files are read by the model ops (attn model_info, model_logits)");
  for (const SafeTensor& t : out.file.tensors)
    if (!safe_dtype_is_float(t.dtype))
      fail(ErrorCode::invalid_field, "tensor \"" + t.name + "\" has dtype \"" + safe_dtype_name(t.dtype) +
                                         "\"; the core reads F64, F32, F16, BF16");
  if (opt.config)
    fail(ErrorCode::invalid_field, "config: a config.json is for GPT-2-family files (wte.weight, h.N.…); this file "
                                   "has the lab's names, whose configuration is in the shapes and __metadata__");
  const Header h(out.file);
  std::string kind;
  if (const std::optional<std::string> k = h.text("kind", opt.kind)) kind = *k;
  else if (h.find("embed.weight")) kind = "decoder";
  else if (h.find("src_embed.weight")) kind = "seq2seq";
  else
    fail(ErrorCode::missing_field, "the file has neither embed.weight (a decoder) nor src_embed.weight (a seq2seq "
                                   "model), and no \"kind\"");
  if (kind == "decoder") out.model = decoder_of(h, opt);
  else if (kind == "seq2seq") out.model = seq2seq_of(h, opt);
  else fail(ErrorCode::invalid_field, "kind must be \"decoder\" or \"seq2seq\", got \"" + kind + "\"");

  const ParamLayout& layout = out.model.layout;
  for (const ParamInfo& p : layout.params()) {
    const SafeTensor* t = h.find(p.name);
    if (!t)
      fail(ErrorCode::missing_field, "the file has no tensor \"" + p.name + "\" (" + shape_text(torch_shape(p)) +
                                         "), which this model needs");
    if (t->shape != torch_shape(p))
      fail(ErrorCode::shape_mismatch, "tensor \"" + p.name + "\" has shape " + shape_text(t->shape) +
                                          "; this model expects " + shape_text(torch_shape(p)));
  }
  for (const SafeTensor& t : out.file.tensors)
    if (layout.find(t.name) < 0) {
      std::string names;
      for (const ParamInfo& p : layout.params()) names += (names.empty() ? "" : ", ") + p.name;
      fail(ErrorCode::invalid_field, "unexpected tensor \"" + t.name + "\"; this model expects exactly: " + names);
    }
  out.params.assign(layout.total(), 0.0);
  for (const ParamInfo& p : layout.params()) {
    const std::vector<double> v = read_tensor_values(data, size, out.file, *h.find(p.name));
    std::copy(v.begin(), v.end(), out.params.begin() + static_cast<std::ptrdiff_t>(p.offset));
  }
  return out;
}

Safetensors model_safetensors(const Model& model, const std::vector<double>& params,
                              std::map<std::string, std::string> metadata) {
  if (params.size() != model.layout.total())
    throw Error(ErrorCode::shape_mismatch, "the model has " + std::to_string(model.layout.total()) +
                                               " parameters, got " + std::to_string(params.size()));
  Safetensors out;
  out.metadata = std::move(metadata);
  if (model.kind == ModelKind::decoder) {  // the options the names cannot show, when not the lab's default
    const DecoderConfig& c = model.decoder;
    const DecoderConfig lab;
    // What the loader cannot read from the shapes, unless the caller said it already.
    out.metadata.emplace("heads", std::to_string(c.heads));
    if (c.positions != DecoderPositions::learned) out.metadata.emplace("positions", decoder_positions_name(c.positions));
    if (c.activation != lab.activation) out.metadata["activation"] = activation_name(c.activation);
    if (c.layer_norm_eps != lab.layer_norm_eps) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", c.layer_norm_eps);
      out.metadata["layer_norm_eps"] = buf;
    }
    if (c.scale_attn_weights != lab.scale_attn_weights) out.metadata["scale_attn_weights"] = "false";
    if (c.scale_attn_by_inverse_layer_idx != lab.scale_attn_by_inverse_layer_idx)
      out.metadata["scale_attn_by_inverse_layer_idx"] = "true";
  }
  for (const ParamInfo& p : model.layout.params()) {
    SafeTensor t;
    t.name = p.name;
    t.shape = torch_shape(p);
    const auto first = params.begin() + static_cast<std::ptrdiff_t>(p.offset);
    t.values.assign(first, first + static_cast<std::ptrdiff_t>(p.size()));
    out.tensors.push_back(std::move(t));
  }
  return out;
}

}  // namespace attn::learn
