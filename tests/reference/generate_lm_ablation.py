"""Torch's per-head ablation of tests/reference/gpt2/hf-generate-model.safetensors, the figures the
language-model Worker's `ablation` op must give (tests/app/language_model_test.cpp).

The model is generate_gpt2_fixtures.py's GPT2 (transformers' modeling_gpt2.py) with the file's
weights, in float64. For each head alone: its output (softmax(q k^T / sqrt(d_k)) v, before c_proj)
set to zero (zero ablation) or to its mean over the prompt's positions (mean ablation); the loss is
the cross-entropy of each token after the first, averaged; Δloss = ablated − clean. Regenerate:

    apt-get install -y python3-torch python3-numpy     # Debian 12: torch 1.13
    /usr/bin/python3 tests/reference/generate_lm_ablation.py
"""

import json
import os
import struct

import torch
import torch.nn.functional as F

import generate_gpt2_fixtures as g

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "gpt2", "hf-generate-model.safetensors")
TOKENS = [3, 14, 15, 9, 26, 5, 35, 8]


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", name
        a, b = t["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).reshape(t["shape"]).to(torch.float64)
    return out


ABLATE = None  # (layer, head, "zero" | "mean", means) while one head is ablated
OUTPUTS = {}   # layer -> the clean heads' outputs [1, T, H, d_k]


def attention_forward(self, x):
    q, k, v = self.c_attn(x).split(self.C, dim=2)
    q, k, v = self.split(q), self.split(k), self.split(v)
    w = torch.matmul(q, k.transpose(-1, -2)) / (v.size(-1) ** 0.5)
    T = q.size(-2)
    w = w.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool)), float("-inf"))
    w = F.softmax(w, dim=-1)
    o = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()  # [B, T, H, d_k]
    OUTPUTS[self.layer_idx] = o.detach().clone()
    if ABLATE is not None and ABLATE[0] == self.layer_idx:
        layer, head, mode, means = ABLATE
        o[:, :, head, :] = 0.0 if mode == "zero" else means[layer][head]
    return self.c_proj(o.view(o.size(0), o.size(1), self.C)), w


def loss(model):
    logits, _ = model(torch.tensor([TOKENS]))
    return F.cross_entropy(logits[0, :-1], torch.tensor(TOKENS[1:])).item()


def main():
    global ABLATE
    torch.set_default_dtype(torch.float64)
    cfg = g.hf_cfg()
    g.GPT2Attention.forward = attention_forward
    model = g.GPT2(cfg).double()
    state = read_safetensors(MODEL)
    state = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in state.items()}
    missing = model.transformer.load_state_dict(state, strict=False)
    assert not [m for m in missing.missing_keys if not m.endswith(("attn.bias", "attn.masked_bias"))], missing
    model.lm_head.weight = model.transformer.wte.weight
    with torch.no_grad():
        clean = loss(model)
        means = {l: OUTPUTS[l][0].mean(dim=0) for l in OUTPUTS}  # [H, d_k]: over the prompt's positions
        heads = []
        for l in range(cfg["n_layer"]):
            for h in range(cfg["n_head"]):
                row = {"layer": l, "head": h}
                for mode in ("zero", "mean"):
                    ABLATE = (l, h, mode, means)
                    row[mode] = loss(model) - clean
                    ABLATE = None
                heads.append(row)
    out = {"torch": torch.__version__, "generator": "tests/reference/generate_lm_ablation.py",
           "about": "per-head zero and mean ablation on hf-generate-model, float64", "model": "gpt2/hf-generate-model.safetensors",
           "tokens": TOKENS, "clean_loss": clean, "heads": heads}
    with open(os.path.join(HERE, "lm_ablation_torch.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
