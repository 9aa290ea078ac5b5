#include "learn/gpt2_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/error.hpp"

namespace attn::learn {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, "model file: " + msg); }

/// What config.json says (each key optional: absent keys take GPT2Config's defaults or the shapes).
struct Gpt2Json {
  std::map<std::string, long> ints;  // n_embd, n_head, n_layer, n_positions, vocab_size, n_inner
  std::optional<std::string> activation;
  double eps = 1e-5;
  bool scale = true, inverse_layer = false, tie = true;
};

Gpt2Json parse_config(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Error(ErrorCode::invalid_json, std::string("config.json is not JSON: ") + e.what());
  }
  if (!j.is_object()) fail(ErrorCode::invalid_field, "config.json must be one JSON object");
  Gpt2Json c;
  for (const char* key : {"n_embd", "n_head", "n_layer", "n_positions", "vocab_size", "n_inner"}) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;  // n_inner: null means 4·n_embd
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > (1LL << 30))
      fail(ErrorCode::invalid_field, std::string("config.json: ") + key + " must be an integer >= 0, got " + it->dump());
    c.ints[key] = static_cast<long>(it->get<long long>());
  }
  if (const auto it = j.find("activation_function"); it != j.end()) {
    if (!it->is_string()) fail(ErrorCode::invalid_field, "config.json: activation_function must be a string, got " + it->dump());
    c.activation = it->get<std::string>();
  }
  if (const auto it = j.find("layer_norm_epsilon"); it != j.end()) {
    if (!it->is_number()) fail(ErrorCode::invalid_field, "config.json: layer_norm_epsilon must be a number, got " + it->dump());
    c.eps = it->get<double>();
  }
  const auto flag = [&](const char* key, bool& out) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    if (!it->is_boolean()) fail(ErrorCode::invalid_field, std::string("config.json: ") + key + " must be true or false, got " + it->dump());
    out = it->get<bool>();
  };
  flag("scale_attn_weights", c.scale);
  flag("scale_attn_by_inverse_layer_idx", c.inverse_layer);
  flag("tie_word_embeddings", c.tie);
  return c;
}

class Names {
 public:
  explicit Names(const Safetensors& f) : f_(f) {
    for (const SafeTensor& t : f.tensors)
      if (t.name.compare(0, 12, "transformer.") == 0) prefix_ = "transformer.";
  }
  const std::string& prefix() const { return prefix_; }
  const SafeTensor* find(const std::string& name) const {
    for (const SafeTensor& t : f_.tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  const SafeTensor* body(const std::string& rest) const { return find(prefix_ + rest); }
  /// 1 + the highest N of "<prefix>h.N.…".
  int layers() const {
    const std::string h = prefix_ + "h.";
    long n = 0;
    for (const SafeTensor& t : f_.tensors) {
      if (t.name.compare(0, h.size(), h) != 0) continue;
      size_t i = h.size(), digits = 0;
      long v = 0;
      while (i < t.name.size() && std::isdigit(static_cast<unsigned char>(t.name[i])) && digits < 6)
        v = v * 10 + (t.name[i++] - '0'), ++digits;
      if (digits > 0 && i < t.name.size() && t.name[i] == '.') n = std::max(n, v + 1);
    }
    return static_cast<int>(std::min(n, 1L << 20));
  }

 private:
  const Safetensors& f_;
  std::string prefix_;
};


/// A dimension as the validators take it (large ones clamped, so that they report the range).
int as_int(std::uint64_t v) { return static_cast<int>(std::min<std::uint64_t>(v, std::uint64_t{1} << 30)); }

void check_config(const Gpt2Json& cj, const char* key, long from_shapes, const std::string& which) {
  const auto it = cj.ints.find(key);
  if (it != cj.ints.end() && it->second != from_shapes)
    fail(ErrorCode::shape_mismatch, std::string("config.json says ") + key + " = " + std::to_string(it->second) + "; " +
                                        which + " gives " + std::to_string(from_shapes));
}

/// One file tensor feeding one lab parameter (transposed when the file stores [in, out]).
struct Source {
  std::string file_name, lab_name;
  std::vector<std::uint64_t> shape;  ///< as the file must store it
  bool transpose = false;
};

constexpr std::size_t kChunk = std::size_t{4} << 20;  // bytes read at a time

/// True when tensors a and b hold the same bytes (the tied pair stored twice), read in chunks.
bool same_bytes(const ByteRange& read, std::uint64_t data_start, const SafeTensor& a, const SafeTensor& b) {
  if (a.end - a.begin != b.end - b.begin) return false;
  std::vector<std::uint8_t> x, y;
  for (std::uint64_t at = 0; at < a.end - a.begin; at += kChunk) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, a.end - a.begin - at));
    x.resize(n);
    y.resize(n);
    read(data_start + a.begin + at, n, x.data());
    read(data_start + b.begin + at, n, y.data());
    if (x != y) return false;
  }
  return true;
}

/// Tensor t's elements into dst (its shape's element count), whole rows at a time; `transpose`:
/// the file holds [in, out] (Conv1D) and dst takes [out, in].
template <class S>
void read_tensor_rows(const ByteRange& read, std::uint64_t data_start, const SafeTensor& t, bool transpose, S* dst) {
  const std::size_t width = safe_dtype_size(t.dtype);
  const std::uint64_t cols = t.shape.size() == 2 ? t.shape[1] : t.elements();
  const std::uint64_t rows = cols ? t.elements() / cols : 0;
  const std::uint64_t rows_per = std::max<std::uint64_t>(1, kChunk / std::max<std::uint64_t>(1, cols * width));
  std::vector<std::uint8_t> bytes;
  std::vector<S> vals;
  for (std::uint64_t r0 = 0; r0 < rows; r0 += rows_per) {
    const std::uint64_t nr = std::min(rows_per, rows - r0);
    bytes.resize(static_cast<std::size_t>(nr * cols * width));
    read(data_start + t.begin + r0 * cols * width, bytes.size(), bytes.data());
    if (!transpose) {
      decode_elements(bytes.data(), t.dtype, static_cast<std::size_t>(nr * cols), dst + r0 * cols, t.name, r0 * cols);
      continue;
    }
    vals.resize(static_cast<std::size_t>(nr * cols));
    decode_elements(bytes.data(), t.dtype, vals.size(), vals.data(), t.name, r0 * cols);
    for (std::uint64_t i = 0; i < nr; ++i)
      for (std::uint64_t o = 0; o < cols; ++o) dst[o * rows + r0 + i] = vals[static_cast<std::size_t>(i * cols + o)];
  }
}

ByteRange memory_range(const std::uint8_t* data, std::size_t size) {
  return [data, size](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
    if (offset > size || length > size - offset)
      throw Error(ErrorCode::invalid_field, "bytes [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                                                ") are not in the " + std::to_string(size) + "-byte file");
    std::memcpy(dst, data + offset, length);
  };
}

}  // namespace

bool is_gpt2_family(const Safetensors& f) {
  const Names n(f);
  const bool embed = n.body("wte.weight") || n.find("lm_head.weight");
  const bool blocks = n.body("wpe.weight") || n.body("h.0.attn.c_attn.weight") || n.body("h.0.ln_1.weight");
  return embed && blocks;
}

Safetensors read_safetensors_header_range(std::uint64_t file_size, const ByteRange& read) {
  std::uint8_t len[8] = {0};
  if (file_size < 8)
    throw Error(ErrorCode::invalid_field, "the file has " + std::to_string(file_size) + " bytes, shorter than the 8-byte header length");
  read(0, 8, len);
  std::uint64_t n = 0;
  for (int b = 7; b >= 0; --b) n = (n << 8) | len[b];
  // The header reader refuses a length past its limit or the file; read only what it may check.
  const std::uint64_t want = std::min<std::uint64_t>({n, kMaxSafetensorsHeader, file_size - 8});
  std::vector<std::uint8_t> head(static_cast<size_t>(8 + want));
  read(0, head.size(), head.data());
  return read_safetensors_header_of(head.data(), head.size(), file_size, true);
}

bool is_gpt2_family_range(std::uint64_t file_size, const ByteRange& read) {
  try {
    return is_gpt2_family(read_safetensors_header_range(file_size, read));
  } catch (const Error&) {
    return false;
  }
}

template <class S>
ModelFileT<S> read_gpt2_family(std::uint64_t file_size, const ByteRange& read, const ModelFileOptions& opt) {
  ModelFileT<S> out;
  out.file = read_safetensors_header_range(file_size, read);
  const Names n(out.file);
  const std::string& pre = n.prefix();
  const std::optional<Gpt2Json> cj = opt.config ? std::optional<Gpt2Json>(parse_config(*opt.config)) : std::nullopt;

  const SafeTensor* wte = n.body("wte.weight");
  const SafeTensor* lm = n.find("lm_head.weight");
  const SafeTensor* emb = wte ? wte : lm;
  if (!emb) fail(ErrorCode::missing_field, "the file has neither \"" + pre + "wte.weight\" nor \"lm_head.weight\" (GPT-2's token embedding)");
  if (emb->shape.size() != 2)
    fail(ErrorCode::shape_mismatch, "tensor \"" + emb->name + "\" has shape " + shape_text(emb->shape) + "; it must be [vocab, n_embd]");
  const std::uint64_t V = emb->shape[0], C = emb->shape[1];
  const SafeTensor* wpe = n.body("wpe.weight");
  if (!wpe) fail(ErrorCode::missing_field, "the file has no tensor \"" + pre + "wpe.weight\" (GPT-2's learned positions)");
  if (wpe->shape.size() != 2 || wpe->shape[1] != C)
    fail(ErrorCode::shape_mismatch, "tensor \"" + wpe->name + "\" has shape " + shape_text(wpe->shape) +
                                        "; it must be [n_positions, " + std::to_string(C) + "]");
  const std::uint64_t P = wpe->shape[0];
  const int L = n.layers();

  // transformers' Conv1D stores c_attn [C, 3C]; nanoGPT's nn.Linear [3C, C].
  bool conv1d = true;
  if (L > 0) {
    const SafeTensor* ca = n.body("h.0.attn.c_attn.weight");
    if (!ca) fail(ErrorCode::missing_field, "the file has no tensor \"" + pre + "h.0.attn.c_attn.weight\"");
    const std::vector<std::uint64_t> hf{C, 3 * C}, nano{3 * C, C};
    if (ca->shape == hf) conv1d = true;
    else if (ca->shape == nano) conv1d = false;
    else
      fail(ErrorCode::shape_mismatch, "tensor \"" + ca->name + "\" has shape " + shape_text(ca->shape) + "; with n_embd = " +
                                          std::to_string(C) + " it must be " + shape_text(hf) + " (transformers' Conv1D) or " +
                                          shape_text(nano) + " (nanoGPT's nn.Linear)");
  } else {
    conv1d = opt.config.has_value() || wte != nullptr;
  }
  out.layout = conv1d ? "transformers" : "nanogpt";

  DecoderConfig c;
  c.vocab = as_int(V);
  c.d_model = as_int(C);
  c.context = as_int(P);
  c.layers = L;
  c.positions = DecoderPositions::learned;
  c.layer_norm = true;
  c.activation = conv1d ? Activation::gelu_new : Activation::gelu;
  if (cj) {
    check_config(*cj, "n_embd", static_cast<long>(C), emb->name + " " + shape_text(emb->shape));
    check_config(*cj, "vocab_size", static_cast<long>(V), emb->name + " " + shape_text(emb->shape));
    check_config(*cj, "n_positions", static_cast<long>(P), wpe->name + " " + shape_text(wpe->shape));
    check_config(*cj, "n_layer", L, "the file's blocks h.0.." + std::to_string(L - 1));
    if (cj->activation) c.activation = activation_of(*cj->activation, "config.json: activation_function");
    c.layer_norm_eps = cj->eps;
    c.scale_attn_weights = cj->scale;
    c.scale_attn_by_inverse_layer_idx = cj->inverse_layer;
  }

  // Heads: config.json, else the request, else __metadata__, else GPT-2's head width of 64.
  std::optional<long> heads;
  if (cj && cj->ints.count("n_head")) {
    heads = cj->ints.at("n_head");
    if (opt.heads && *opt.heads != *heads)
      fail(ErrorCode::invalid_field, "heads = " + std::to_string(*opt.heads) + " contradicts config.json's n_head = " +
                                         std::to_string(*heads));
  } else if (opt.heads) {
    heads = *opt.heads;
  } else if (const auto it = out.file.metadata.find("heads"); it != out.file.metadata.end()) {
    const std::string& s = it->second;
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](unsigned char ch) { return std::isdigit(ch); }))
      fail(ErrorCode::invalid_field, "__metadata__ heads must be a decimal integer, got \"" + s + "\"");
    heads = std::stol(s);
  } else if (C % 64 == 0 && C > 0) {
    heads = static_cast<long>(C / 64);
  } else {
    fail(ErrorCode::missing_field, "heads: n_embd = " + std::to_string(C) + " is not a multiple of GPT-2's head width 64; "
                                   "give n_head in config.json, \"heads\" in the request or the file's __metadata__");
  }
  if (*heads < 1 || *heads > kGpt2FamilyLimits.heads)
    fail(ErrorCode::invalid_field, "n_head = " + std::to_string(*heads) + " must be between 1 and " +
                                       std::to_string(kGpt2FamilyLimits.heads));
  if (C % static_cast<std::uint64_t>(*heads) != 0)
    fail(ErrorCode::invalid_field, "n_head = " + std::to_string(*heads) + " does not divide n_embd = " + std::to_string(C));
  c.heads = static_cast<int>(*heads);

  // The MLP's width from c_fc ([C, m] in Conv1D, [m, C] in nn.Linear); n_inner must agree.
  std::uint64_t m = 4 * C;
  if (L > 0) {
    const SafeTensor* fc = n.body("h.0.mlp.c_fc.weight");
    if (!fc) fail(ErrorCode::missing_field, "the file has no tensor \"" + pre + "h.0.mlp.c_fc.weight\"");
    if (fc->shape.size() != 2 || fc->shape[conv1d ? 0 : 1] != C)
      fail(ErrorCode::shape_mismatch, "tensor \"" + fc->name + "\" has shape " + shape_text(fc->shape) + "; it must be " +
                                          (conv1d ? "[n_embd, n_inner]" : "[n_inner, n_embd]") + " with n_embd = " + std::to_string(C));
    m = fc->shape[conv1d ? 1 : 0];
    if (cj) check_config(*cj, "n_inner", static_cast<long>(m), fc->name + " " + shape_text(fc->shape));
  }
  c.mlp = as_int(m);

  // Biases: all or none (nanoGPT's bias=False drops every one, LayerNorms' too).
  const bool bias = L > 0 ? n.body("h.0.attn.c_attn.bias") != nullptr : n.body("ln_f.bias") != nullptr;
  c.bias = bias;

  // The head: lm_head.weight when present (and not wte's values bit for bit), else tied to wte.
  bool tied = lm == nullptr || wte == nullptr;
  if (lm && lm->shape != emb->shape)
    fail(ErrorCode::shape_mismatch, "tensor \"lm_head.weight\" has shape " + shape_text(lm->shape) + "; it must be " +
                                        shape_text(emb->shape) + " like " + emb->name);
  if (lm && wte && lm->dtype == wte->dtype && same_bytes(read, out.file.data_start, *lm, *wte)) tied = true;
  if (!lm && cj && !cj->tie)
    fail(ErrorCode::missing_field, "config.json says tie_word_embeddings = false, and the file has no lm_head.weight");
  c.tied_head = tied;

  out.model = make_model(ModelKind::decoder, c, {}, std::size_t{1} << 29, kGpt2FamilyLimits);
  const ParamLayout& layout = out.model.layout;

  // Where each lab parameter comes from.
  std::vector<Source> src;
  const auto lin = [&](const std::string& file, const std::string& lab, std::uint64_t in, std::uint64_t outs) {
    src.push_back({pre + file, lab, conv1d ? std::vector<std::uint64_t>{in, outs} : std::vector<std::uint64_t>{outs, in}, conv1d});
  };
  const auto vec = [&](const std::string& file, const std::string& lab, std::uint64_t len) {
    src.push_back({pre + file, lab, {len}, false});
  };
  src.push_back({emb->name, "embed.weight", {V, C}, false});
  src.push_back({wpe->name, "pos.weight", {P, C}, false});
  for (int l = 0; l < L; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    const auto lab = [&](const char* rest) { return decoder_param_name(l, rest); };
    vec(h + "ln_1.weight", lab("ln1.weight"), C);
    if (bias) vec(h + "ln_1.bias", lab("ln1.bias"), C);
    lin(h + "attn.c_attn.weight", lab("attn.in_proj_weight"), C, 3 * C);
    if (bias) vec(h + "attn.c_attn.bias", lab("attn.in_proj_bias"), 3 * C);
    lin(h + "attn.c_proj.weight", lab("attn.out_proj.weight"), C, C);
    if (bias) vec(h + "attn.c_proj.bias", lab("attn.out_proj.bias"), C);
    vec(h + "ln_2.weight", lab("ln2.weight"), C);
    if (bias) vec(h + "ln_2.bias", lab("ln2.bias"), C);
    lin(h + "mlp.c_fc.weight", lab("mlp.0.weight"), C, m);
    if (bias) vec(h + "mlp.c_fc.bias", lab("mlp.0.bias"), m);
    lin(h + "mlp.c_proj.weight", lab("mlp.2.weight"), m, C);
    if (bias) vec(h + "mlp.c_proj.bias", lab("mlp.2.bias"), C);
  }
  vec("ln_f.weight", "ln_f.weight", C);
  if (bias) vec("ln_f.bias", "ln_f.bias", C);
  if (!tied) src.push_back({"lm_head.weight", "unembed.weight", {V, C}, false});

  std::set<std::string> used;
  for (const Source& s : src) used.insert(s.file_name);
  if (tied && lm && wte) used.insert(lm->name);  // the tied pair's second name, same values
  // Every other tensor must be a causal-mask buffer of the right shape.
  for (const SafeTensor& t : out.file.tensors) {
    if (used.count(t.name)) continue;
    const std::string h = pre + "h.";
    bool buffer = false;
    if (t.name.compare(0, h.size(), h) == 0) {
      const size_t dot = t.name.find('.', h.size());
      const std::string rest = dot == std::string::npos ? "" : t.name.substr(dot + 1);
      const std::string layer = t.name.substr(h.size(), dot == std::string::npos ? 0 : dot - h.size());
      const bool in_range = !layer.empty() && layer.size() < 7 &&
                            std::all_of(layer.begin(), layer.end(), [](unsigned char ch) { return std::isdigit(ch); }) &&
                            std::stol(layer) < L;
      if (in_range && rest == "attn.bias") {
        const std::vector<std::uint64_t> want{1, 1, P, P};
        if (t.shape != want)
          fail(ErrorCode::shape_mismatch, "buffer \"" + t.name + "\" (the causal mask) has shape " + shape_text(t.shape) +
                                              "; it must be " + shape_text(want));
        buffer = true;
      } else if (in_range && rest == "attn.masked_bias") {
        if (t.elements() != 1)
          fail(ErrorCode::shape_mismatch, "buffer \"" + t.name + "\" has shape " + shape_text(t.shape) + "; it must be a scalar");
        buffer = true;
      }
    }
    if (!buffer)
      fail(ErrorCode::invalid_field, "unexpected tensor \"" + t.name + "\" in a GPT-2-family file (" + out.layout +
                                         " layout, " + (bias ? "with" : "without") + " biases, " + std::to_string(L) +
                                         " blocks)");
  }

  out.params.assign(layout.total(), S(0));  // absent LayerNorm and MLP biases stay 0
  for (const Source& s : src) {
    const SafeTensor* t = n.find(s.file_name);
    if (!t) fail(ErrorCode::missing_field, "the file has no tensor \"" + s.file_name + "\" " + shape_text(s.shape));
    if (t->shape != s.shape)
      fail(ErrorCode::shape_mismatch, "tensor \"" + s.file_name + "\" has shape " + shape_text(t->shape) + "; it must be " +
                                          shape_text(s.shape));
    S* dst = out.params.data() + layout.at(static_cast<size_t>(layout.find(s.lab_name))).offset;
    read_tensor_rows(read, out.file.data_start, *t, s.transpose, dst);
  }
  return out;
}

template ModelFileT<double> read_gpt2_family<double>(std::uint64_t, const ByteRange&, const ModelFileOptions&);
template ModelFileT<float> read_gpt2_family<float>(std::uint64_t, const ByteRange&, const ModelFileOptions&);

ModelFile load_any_model_file(const std::uint8_t* data, std::size_t size, const ModelFileOptions& opt) {
  if (is_gpt2_family_file(data, size, size)) return read_gpt2_family<double>(size, memory_range(data, size), opt);
  return load_model_file(data, size, opt);
}

bool is_gpt2_family_file(const std::uint8_t* prefix, std::size_t prefix_size, std::uint64_t file_size) {
  try {
    return is_gpt2_family(read_safetensors_header_of(prefix, prefix_size, file_size, true));
  } catch (const Error&) {
    return false;
  }
}

Safetensors transformers_tensors(const Model& model, const std::vector<double>& params, bool lm_head) {
  if (model.kind != ModelKind::decoder) throw Error(ErrorCode::invalid_field, "export --layout transformers: a seq2seq model is not a GPT-2");
  const DecoderConfig& c = model.decoder;
  const auto refuse = [](const std::string& why) {
    throw Error(ErrorCode::invalid_field, "export --layout transformers: GPT-2 " + why);
  };
  if (c.positions != DecoderPositions::learned)
    refuse(std::string("has learned positions (wpe); this decoder's are ") + decoder_positions_name(c.positions));
  if (!c.layer_norm) refuse("is pre-norm with LayerNorm (ln_1, ln_2, ln_f); this decoder has none");
  if (c.mlp <= 0) refuse("has an MLP in every block (mlp.c_fc, mlp.c_proj); this decoder has none");
  if (params.size() != model.layout.total())
    throw Error(ErrorCode::shape_mismatch, "the model has " + std::to_string(model.layout.total()) + " parameters, got " +
                                               std::to_string(params.size()));
  const ParamLayout& lay = model.layout;
  const double* P = params.data();
  const auto u = [](std::uint64_t v) { return v; };
  const std::uint64_t V = u(c.vocab), C = u(c.d_model), M = u(c.mlp), T = u(c.context);
  Safetensors f;
  const auto add = [&](const std::string& name, std::vector<std::uint64_t> shape, std::vector<double> values) {
    SafeTensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.values = std::move(values);
    f.tensors.push_back(std::move(t));
  };
  const auto copy = [&](const std::string& lab, size_t n) {
    const double* p = tensor_in(lay, P, lab);
    return std::vector<double>(p, p + n);
  };
  // lab [out, in] → Conv1D [in, out]
  const auto conv = [&](const std::string& lab, std::uint64_t in, std::uint64_t outs) {
    const double* p = tensor_in(lay, P, lab);
    std::vector<double> v(static_cast<size_t>(in * outs));
    for (size_t o = 0; o < outs; ++o)
      for (size_t i = 0; i < in; ++i) v[i * outs + o] = p[o * in + i];
    return v;
  };
  const auto bias_or_zero = [&](const std::string& lab, size_t n) {
    return lay.find(lab) >= 0 ? copy(lab, n) : std::vector<double>(n, 0.0);
  };
  add("transformer.wte.weight", {V, C}, copy("embed.weight", V * C));
  add("transformer.wpe.weight", {T, C}, copy("pos.weight", T * C));
  for (int l = 0; l < c.layers; ++l) {
    const std::string h = "transformer.h." + std::to_string(l) + ".";
    const auto lab = [&](const char* rest) { return decoder_param_name(l, rest); };
    add(h + "ln_1.weight", {C}, copy(lab("ln1.weight"), C));
    add(h + "ln_1.bias", {C}, copy(lab("ln1.bias"), C));
    add(h + "attn.c_attn.weight", {C, 3 * C}, conv(lab("attn.in_proj_weight"), C, 3 * C));
    add(h + "attn.c_attn.bias", {3 * C}, bias_or_zero(lab("attn.in_proj_bias"), 3 * C));
    add(h + "attn.c_proj.weight", {C, C}, conv(lab("attn.out_proj.weight"), C, C));
    add(h + "attn.c_proj.bias", {C}, bias_or_zero(lab("attn.out_proj.bias"), C));
    add(h + "ln_2.weight", {C}, copy(lab("ln2.weight"), C));
    add(h + "ln_2.bias", {C}, copy(lab("ln2.bias"), C));
    add(h + "mlp.c_fc.weight", {C, M}, conv(lab("mlp.0.weight"), C, M));
    add(h + "mlp.c_fc.bias", {M}, copy(lab("mlp.0.bias"), M));
    add(h + "mlp.c_proj.weight", {M, C}, conv(lab("mlp.2.weight"), M, C));
    add(h + "mlp.c_proj.bias", {C}, copy(lab("mlp.2.bias"), C));
  }
  add("transformer.ln_f.weight", {C}, copy("ln_f.weight", C));
  add("transformer.ln_f.bias", {C}, copy("ln_f.bias", C));
  if (lm_head || !c.tied_head) add("lm_head.weight", {V, C}, copy(c.tied_head ? "embed.weight" : "unembed.weight", V * C));
  f.metadata["format"] = "pt";
  return f;
}

std::string transformers_config(const DecoderConfig& c) {
  Json cfg = {{"model_type", "gpt2"},
              {"architectures", {"GPT2LMHeadModel"}},
              {"n_embd", c.d_model},
              {"n_head", c.heads},
              {"n_layer", c.layers},
              {"n_positions", c.context},
              {"n_ctx", c.context},
              {"vocab_size", c.vocab},
              {"n_inner", c.mlp},
              {"activation_function", activation_name(c.activation)},
              {"layer_norm_epsilon", c.layer_norm_eps},
              {"scale_attn_weights", c.scale_attn_weights},
              {"scale_attn_by_inverse_layer_idx", c.scale_attn_by_inverse_layer_idx},
              {"tie_word_embeddings", c.tied_head}};
  return cfg.dump(2) + "\n";
}

TransformersExport transformers_export(const Model& model, const std::vector<double>& params) {
  TransformersExport out;
  out.safetensors = write_safetensors(transformers_tensors(model, params, true), SafeDtype::F32);
  out.config = transformers_config(model.decoder);
  return out;
}

}  // namespace attn::learn
