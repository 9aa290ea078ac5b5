#!/usr/bin/python3
"""Generate the GPT-2-family fixtures in tests/reference/gpt2/ with PyTorch (float64).

Each fixture is a small GPT-2-family module written here with the ecosystem's exact names and
semantics, saved as safetensors the way its owners' files look, and a case file in the format of
tests/cases/ (run by tests/run_cases.mjs from this folder, natively and in wasm):

- GPT2 below is transformers' modeling_gpt2.py (v4): Conv1D weights [in, out] (y = x·W + b),
  c_attn's columns q | k | v, gelu_new (or "gelu", exact erf), LayerNorm eps from the config,
  scale_attn_weights and scale_attn_by_inverse_layer_idx as GPT2Attention._attn applies them, the
  causal mask buffer attn.bias [1, 1, P, P] and attn.masked_bias, the head tied to wte (its
  state_dict lists lm_head.weight too; save_pretrained drops the tied copy). Names with the
  "transformer." prefix (GPT2LMHeadModel) or without it (the original upload).
- NanoGPT below is karpathy/nanoGPT's model.py: nn.Linear [out, in], LayerNorm with an optional
  bias, exact GELU, the head tied to wte, the mask buffer attn.bias.

Logits and weights are torch's float64 forward on the weights as stored (F16/BF16/F32 widened),
which is what the core reads: 1e-10 on the float64 path, 2e-4 on the float32 path (each model case
is written for both). Generation cases: torch's greedy argmax of
the full forward at each step. Error cases: hostile files and configs with the core's codes.
CI does not need torch: the files are committed. Regenerate:

    apt-get install -y python3-torch python3-numpy     # Debian 12: torch 1.13
    /usr/bin/python3 tests/reference/generate_gpt2_fixtures.py
"""

import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from safetensors_io import save_safetensors

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gpt2")
GENERATOR = "tests/reference/generate_gpt2_fixtures.py"
TORCH = torch.__version__
TOL = 1e-10      # the float64 path ("precision": "float64")
TOL_F32 = 2e-4   # the float32 path, GPT-2-family files' default


# ---------------------------------------------------------------- transformers' GPT-2
class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.2)
        self.bias = nn.Parameter(torch.randn(nf) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight).view(x.size()[:-1] + (self.nf,))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACT = {"gelu_new": gelu_new, "gelu": F.gelu, "relu": F.relu}


def gpt_forward(model, idx):
    """Both families' forward (the `forward` of GPT2 and NanoGPT): token plus position embeddings,
    the blocks, the final LayerNorm and the head; returns (logits, [attention weights per layer])."""
    t = model.transformer
    x = t.wte(idx) + t.wpe(torch.arange(idx.size(1)))
    maps = []
    for b in t.h:
        x, w = b(x)
        maps.append(w)
    return model.lm_head(t.ln_f(x)), maps


class GPT2Attention(nn.Module):
    def __init__(self, cfg, layer_idx, mask_dtype):
        super().__init__()
        P, C = cfg["n_positions"], cfg["n_embd"]
        mask = torch.tril(torch.ones((P, P), dtype=torch.bool)).view(1, 1, P, P)
        self.register_buffer("bias", mask if mask_dtype == "BOOL" else mask.to(torch.float64))
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.n_head, self.C, self.layer_idx = cfg["n_head"], C, layer_idx
        self.scale = cfg.get("scale_attn_weights", True)
        self.inverse = cfg.get("scale_attn_by_inverse_layer_idx", False)
        self.c_attn = Conv1D(3 * C, C)
        self.c_proj = Conv1D(C, C)

    def split(self, t):
        B, T, _ = t.shape
        return t.view(B, T, self.n_head, self.C // self.n_head).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.C, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        if self.scale:
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        if self.inverse:
            w = w / float(self.layer_idx + 1)
        T = q.size(-2)
        causal = self.bias[:, :, :T, :T].to(torch.bool)
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
        w = F.softmax(w, dim=-1)
        o = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return self.c_proj(o.view(o.size(0), o.size(1), self.C)), w


class GPT2MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        inner = cfg.get("n_inner") or 4 * C
        self.c_fc = Conv1D(inner, C)
        self.c_proj = Conv1D(C, inner)
        self.act = ACT[cfg.get("activation_function", "gelu_new")]

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(nn.Module):
    def __init__(self, cfg, i, mask_dtype):
        super().__init__()
        C, eps = cfg["n_embd"], cfg.get("layer_norm_epsilon", 1e-5)
        self.ln_1 = nn.LayerNorm(C, eps=eps)
        self.attn = GPT2Attention(cfg, i, mask_dtype)
        self.ln_2 = nn.LayerNorm(C, eps=eps)
        self.mlp = GPT2MLP(cfg)

    def forward(self, x):
        a, w = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), w


class GPT2(nn.Module):
    """GPT2LMHeadModel: transformer.{wte, wpe, h, ln_f} and lm_head (tied to wte unless untied)."""

    def __init__(self, cfg, mask_dtype="F32", tied=True):
        super().__init__()
        C = cfg["n_embd"]
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(cfg["vocab_size"], C)
        self.transformer.wpe = nn.Embedding(cfg["n_positions"], C)
        self.transformer.h = nn.ModuleList([GPT2Block(cfg, i, mask_dtype) for i in range(cfg["n_layer"])])
        self.transformer.ln_f = nn.LayerNorm(C, eps=cfg.get("layer_norm_epsilon", 1e-5))
        self.lm_head = nn.Linear(C, cfg["vocab_size"], bias=False)
        if tied:
            self.lm_head.weight = self.transformer.wte.weight
        with torch.no_grad():  # LayerNorms away from 1 and 0, so that a swapped weight and bias shows
            for m in self.modules():
                if isinstance(m, nn.LayerNorm):
                    m.weight.add_(torch.randn_like(m.weight) * 0.2)
                    m.bias.add_(torch.randn_like(m.bias) * 0.1)

    forward = gpt_forward


# ---------------------------------------------------------------- nanoGPT
class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim) + torch.randn(ndim) * 0.2)
        self.bias = nn.Parameter(torch.randn(ndim) * 0.1) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class NanoAttention(nn.Module):
    def __init__(self, C, H, P, bias):
        super().__init__()
        self.c_attn = nn.Linear(C, 3 * C, bias=bias)
        self.c_proj = nn.Linear(C, C, bias=bias)
        self.n_head, self.C = H, C
        self.register_buffer("bias", torch.tril(torch.ones(P, P)).view(1, 1, P, P))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), att


class NanoMLP(nn.Module):
    def __init__(self, C, bias):
        super().__init__()
        self.c_fc = nn.Linear(C, 4 * C, bias=bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * C, C, bias=bias)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class NanoBlock(nn.Module):
    def __init__(self, C, H, P, bias):
        super().__init__()
        self.ln_1 = LayerNorm(C, bias)
        self.attn = NanoAttention(C, H, P, bias)
        self.ln_2 = LayerNorm(C, bias)
        self.mlp = NanoMLP(C, bias)

    def forward(self, x):
        a, w = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), w


class NanoGPT(nn.Module):
    def __init__(self, V, C, H, L, P, bias):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(V, C), wpe=nn.Embedding(P, C),
            h=nn.ModuleList([NanoBlock(C, H, P, bias) for _ in range(L)]), ln_f=LayerNorm(C, bias)))
        self.lm_head = nn.Linear(C, V, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # nanoGPT's weight tying
        with torch.no_grad():
            for n, p in self.named_parameters():
                if p.dim() == 2 and "wte" not in n and "wpe" not in n:
                    p.normal_(0.0, 0.2)

    forward = gpt_forward


# ---------------------------------------------------------------- files
def stored(t, dtype):
    """The values a reader gets back from `dtype`, as float64."""
    t = t.detach()
    if dtype == "BF16":
        return t.to(torch.bfloat16).to(torch.float64)
    return {"F64": t.to(torch.float64), "F32": t.to(torch.float32).to(torch.float64),
            "F16": t.to(torch.float16).to(torch.float64)}[dtype]


def L(t):
    return t.detach().to(torch.float64).tolist()


def write_case(name, about, case, expect=None, expect_error=None, tol=TOL):
    out = {"name": name, "torch": TORCH, "generator": GENERATOR, "about": about, "case": case}
    if expect is not None:
        out["expect"] = expect
        out["tolerance"] = tol
    else:
        out["expect_error"] = expect_error
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


def entries_of(model, dtype, prefix=True, buffers=True, keep_lm_head=False, mask_dtype="F32", drop=()):
    """The state_dict as its owners' files hold it: the tied lm_head dropped unless kept, buffers
    kept or dropped, the "transformer." prefix kept or stripped."""
    out = []
    tied = model.lm_head.weight is model.transformer.wte.weight
    for n, t in model.state_dict().items():
        if n.endswith(".attn.bias") or n.endswith(".attn.masked_bias"):
            if not buffers:
                continue
            dt = mask_dtype if n.endswith(".attn.bias") else "F32"
        else:
            dt = dtype
        if n == "lm_head.weight" and tied and not keep_lm_head:
            continue
        if n in drop:
            continue
        if not prefix and n.startswith("transformer."):
            n = n[len("transformer."):]
        out.append((n, t, dt))
    return out


def stored_model(model, dtype):
    """A copy of the model whose parameters are the values a reader gets from `dtype`."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(stored(p, dtype))
    return model


def fixture(name, about, model, cfg, dtype, tokens, config=True, **kw):
    save_safetensors(entries_of(model, dtype, **kw), os.path.join(OUT, name + ".safetensors"))
    case = {"op": "model_logits", "model": name + ".safetensors", "tokens": tokens}
    if config:
        with open(os.path.join(OUT, name + ".config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        case["config"] = name + ".config.json"
    stored_model(model, dtype)
    logits, maps = model(torch.tensor(tokens))
    # weights[layer][batch][head][query][key]
    both_precisions(name, about, case, {"logits": L(logits), "weights": [L(w) for w in maps]})
    return model


def both_precisions(name, about, case, expect):
    """The case in float32 (the default for GPT-2-family files) and, as NAME-f64, in float64."""
    write_case(name, about + " (float32)", case, expect, tol=TOL_F32)
    write_case(name + "-f64", about + " (float64)", dict(case, precision="float64"), expect)


def info(name, model, layout, config):
    """model_info on a fixture: the layout it was read under, the configuration, torch's parameter count
    (each tensor once: a tied head is wte)."""
    case = {"op": "model_info", "model": name + ".safetensors"}
    if os.path.exists(os.path.join(OUT, name + ".config.json")):
        case["config"] = name + ".config.json"
    n = sum(p.numel() for p in model.parameters())
    write_case(name + "-info", f"model_info: layout {layout}, the configuration's GPT-2 options, {n} parameters", case,
               {"layout": layout, "params": n, "config": config})


def hf_cfg(**kw):
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new",
           "layer_norm_epsilon": 1e-5, "n_ctx": 12, "n_positions": 12, "n_embd": 24, "n_head": 3, "n_layer": 2,
           "vocab_size": 61, "scale_attn_weights": True, "unknown_key_ignored": {"x": [1, 2]}}
    cfg.update(kw)
    return cfg


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    torch.manual_seed(2026)
    toks = [[3, 14, 15, 9, 26, 5, 35, 8], [60, 0, 1, 2, 59, 33, 7, 7]]

    cfg = hf_cfg()
    m = fixture("hf-prefix-f32-buffers", "GPT2LMHeadModel names, F32, float mask buffers, head tied to wte",
                GPT2(cfg), cfg, "F32", toks)
    info("hf-prefix-f32-buffers", m, "transformers", dict(
        vocab=61, context=12, d_model=24, heads=3, layers=2, mlp=96, positions="learned", layer_norm=True, bias=True,
        activation="gelu_new", layer_norm_eps=1e-5, tied_head=True, scale_attn_weights=True,
        scale_attn_by_inverse_layer_idx=False))
    cfg = hf_cfg(n_head=2)
    fixture("hf-noprefix-f16", "the original upload's names (no transformer. prefix), F16, no buffers",
            GPT2(cfg), cfg, "F16", toks, prefix=False, buffers=False)
    cfg = hf_cfg(scale_attn_by_inverse_layer_idx=True, activation_function="gelu", layer_norm_epsilon=1e-3,
                 tie_word_embeddings=False, n_layer=3)
    m = fixture("hf-bf16-inverse-layer-untied", "BF16, scale_attn_by_inverse_layer_idx, exact gelu, eps 1e-3, its own lm_head",
                GPT2(cfg, tied=False), cfg, "BF16", toks)
    info("hf-bf16-inverse-layer-untied", m, "transformers", dict(
        heads=3, layers=3, activation="gelu", layer_norm_eps=1e-3, tied_head=False, scale_attn_weights=True,
        scale_attn_by_inverse_layer_idx=True))
    cfg = hf_cfg(scale_attn_weights=False, n_positions=10, n_ctx=10, n_head=4, activation_function="relu")
    fixture("hf-bool-mask-unscaled", "BOOL causal-mask buffers, scale_attn_weights false, relu, one 10-token row",
            GPT2(cfg, mask_dtype="BOOL"), cfg, "F32", [toks[0] + [1, 2]], mask_dtype="BOOL")
    cfg = hf_cfg(n_embd=64, n_head=None, n_layer=1)
    del cfg["n_head"]
    hf64 = GPT2(dict(cfg, n_head=1))
    fixture("hf-tied-pair-no-config", "both names of the tied pair stored, no config.json: heads = n_embd / 64",
            hf64, cfg, "F32", toks, config=False, keep_lm_head=True)

    torch.manual_seed(7)
    toks = [[3, 14, 15, 9, 26, 5, 35, 8], [52, 0, 1, 2, 50, 33, 7, 7]]  # vocab 53
    nano = NanoGPT(V=53, C=32, H=4, L=2, P=16, bias=True)
    save_safetensors(entries_of(nano, "F32", keep_lm_head=True, drop=("transformer.wte.weight",)),
         os.path.join(OUT, "nanogpt-bias-lm-head-only.safetensors"), metadata={"heads": "4"})
    stored_model(nano, "F32")
    logits, maps = nano(torch.tensor(toks))
    both_precisions("nanogpt-bias-lm-head-only", "nanoGPT names, nn.Linear [out, in], biases, only lm_head.weight of the "
               "tied pair stored, heads from __metadata__, exact GELU",
               {"op": "model_logits", "model": "nanogpt-bias-lm-head-only.safetensors", "tokens": toks},
               {"logits": L(logits), "weights": [L(w) for w in maps]})
    nb = NanoGPT(V=53, C=32, H=2, L=2, P=16, bias=False)
    save_safetensors(entries_of(nb, "F32", keep_lm_head=True), os.path.join(OUT, "nanogpt-nobias.safetensors"))
    stored_model(nb, "F32")
    logits, maps = nb(torch.tensor(toks))
    both_precisions("nanogpt-nobias", "nanoGPT bias=False (no Linear nor LayerNorm biases), both names of the tied pair "
               "stored, heads from the request",
               {"op": "model_logits", "model": "nanogpt-nobias.safetensors", "heads": 2, "tokens": toks},
               {"logits": L(logits), "weights": [L(w) for w in maps]})

    # Greedy generation: torch's argmax of the full forward at every step (ties to the lowest id).
    torch.manual_seed(11)
    cfg = hf_cfg()
    toks = [[3, 14, 15, 9, 26, 5, 35, 8], [60, 0, 1, 2, 59, 33, 7, 7]]
    g = fixture("hf-generate-model", "the model generation reads", GPT2(cfg), cfg, "F32", [toks[0][:3]])
    seq = list(toks[0][:3])
    for _ in range(6):
        logits, _ = g(torch.tensor([seq]))
        seq.append(int(torch.argmax(logits[0, -1]).item()))
    write_case("hf-generate-greedy", "generate: greedy with the K/V cache equals torch's argmax of the full forward",
               {"op": "generate", "model": "hf-generate-model.safetensors", "config": "hf-generate-model.config.json",
                "tokens": seq[:3], "steps": 6}, {"tokens": seq[3:]})

    # Hostile configs and files: the core's codes.
    base = "hf-prefix-f32-buffers"
    bad = {
        "bad-config-not-json": ("{\"n_embd\": 24,", "invalid_json"),
        "bad-config-n-head": (json.dumps(hf_cfg(n_head=5)), "invalid_field"),
        "bad-config-contradicts": (json.dumps(hf_cfg(n_embd=32)), "shape_mismatch"),
        "bad-config-type": (json.dumps(hf_cfg(layer_norm_epsilon="1e-5")), "invalid_field"),
        "bad-config-activation": (json.dumps(hf_cfg(activation_function="swish")), "invalid_field"),
    }
    for name, (text, code) in bad.items():
        with open(os.path.join(OUT, name + ".config.json"), "w") as f:
            f.write(text)
        write_case(name, f"a config.json the core refuses with {code}",
                   {"op": "model_info", "model": base + ".safetensors", "config": name + ".config.json"},
                   expect_error=code)
    write_case("bad-too-many-tokens", "13 tokens with n_positions 12",
               {"op": "model_logits", "model": base + ".safetensors", "config": base + ".config.json",
                "tokens": [list(range(13))]}, expect_error="invalid_field")
    write_case("bad-token-past-vocab", "token 61 with vocab_size 61",
               {"op": "model_logits", "model": base + ".safetensors", "config": base + ".config.json",
                "tokens": [[1, 61]]}, expect_error="invalid_field")
    write_case("bad-generate-past-context", "a 3-token prompt and 10 steps with n_positions 12",
               {"op": "generate", "model": base + ".safetensors", "config": base + ".config.json",
                "tokens": [1, 2, 3], "steps": 10}, expect_error="invalid_field")
    torch.manual_seed(3)
    cfg = hf_cfg()
    m = GPT2(cfg)
    ent = entries_of(m, "F32")
    ent = [(n, torch.ones(1, 1, 12, 11) if n == "transformer.h.1.attn.bias" else t, dt) for n, t, dt in ent]
    save_safetensors(ent, os.path.join(OUT, "bad-mask-buffer-shape.safetensors"))
    write_case("bad-mask-buffer-shape", "h.1.attn.bias of shape [1, 1, 12, 11]",
               {"op": "model_info", "model": "bad-mask-buffer-shape.safetensors", "config": base + ".config.json"},
               expect_error="shape_mismatch")
    ent = entries_of(m, "F32", drop=("transformer.h.0.mlp.c_proj.weight",))
    save_safetensors(ent, os.path.join(OUT, "bad-missing-tensor.safetensors"))
    write_case("bad-missing-tensor", "a block without mlp.c_proj.weight",
               {"op": "model_info", "model": "bad-missing-tensor.safetensors", "config": base + ".config.json"},
               expect_error="missing_field")
    print(f"wrote {len(os.listdir(OUT))} files to {OUT} with torch {TORCH}")


if __name__ == "__main__":
    main()
