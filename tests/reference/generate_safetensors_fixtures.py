#!/usr/bin/python3
"""Generate the model-file fixtures in tests/reference/safetensors/ with PyTorch (float64).

Each fixture is a small torch module whose state_dict names are exactly the core's (the
Decoder and Seq2Seq modules of tests/learn/generate_learn_fixtures.py, which mirror
core/learn/decoder.hpp and seq2seq.hpp), saved as safetensors by safetensors_io.py (the
`safetensors` package is not in Debian), plus a JSON file: a model_logits request without its
"model" path, and torch's logits and attention weights (decoder) or alignment (seq2seq). The
Catch2 test (test_safetensors_fixtures.cpp) loads each file through the op and compares to
1e-10. F32 files: torch computes in float64 on the weights rounded to float32, which is what the
core reads from them. CI does not need torch: the files are committed. Regenerate:

    apt-get install -y python3-torch python3-numpy     # Debian 12: torch 1.13.0a0
    /usr/bin/python3 tests/reference/generate_safetensors_fixtures.py [--attn build/native/core/attn]

With the attn tool (default build/native/core/attn; skipped with a notice when it is absent) the
script also exports the shipped checkpoints (`attn export`), loads each export into torch with
load_state_dict(strict=True) and prints the largest |torch logit - core logit| on a batch.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "learn"))
from generate_learn_fixtures import Decoder, Seq2Seq, rope  # noqa: E402  (the same modules)
from safetensors_io import save_safetensors  # noqa: E402

torch.set_default_dtype(torch.float64)
DT = torch.float64
GENERATOR = "tests/reference/generate_safetensors_fixtures.py"
OUT = os.path.join(HERE, "safetensors")
TOL = 1e-10
CHECK = 1e-12
NP_DTYPES = {"F64": "<f8", "F32": "<f4"}


def save_tensors(tensors, path, metadata=None, dtype="F64"):
    """{name: tensor} saved in order as one dtype ("F64" or "F32") by safetensors_io."""
    save_safetensors([(name, t, dtype) for name, t in tensors.items()], path, metadata)


def load_safetensors(path):
    """{name: float64 tensor}, metadata."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    buf = data[8 + n:]
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        a = np.frombuffer(buf[b:end], dtype=NP_DTYPES[e["dtype"]]).astype("<f8")
        out[name] = torch.from_numpy(a.copy()).reshape(e["shape"])
    return out, meta


def L(t):
    return t.detach().to(DT).tolist()


def attention_weights(x, in_w, out_w, heads, use_rope):
    """Causal multi-head self-attention from in_proj_weight: output and weights B x h x T x T."""
    b, t, d = x.shape
    dk = d // heads
    q, k, v = (x @ in_w[i * d:(i + 1) * d].T for i in range(3))
    q, k, v = (z.reshape(b, t, heads, dk).transpose(1, 2) for z in (q, k, v))
    if use_rope:
        q, k = rope(q), rope(k)
    s = q @ k.transpose(-2, -1) / dk ** 0.5
    w = torch.softmax(s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")), dim=-1)
    return (w @ v).transpose(1, 2).reshape(b, t, d) @ out_w.T, w


def decoder_run(model, tokens):
    """Decoder.forward, keeping each layer's weights; checked against the module itself."""
    cfg = model.cfg
    t = tokens.shape[1]
    x = model.embed(tokens)
    if cfg["positions"] == "learned":
        x = x + model.pos.weight[:t]
    elif cfg["positions"] == "sinusoidal":
        x = x + model.pe[:t]
    weights = []
    blocked = torch.ones(t, t, dtype=torch.bool).triu(1)
    for blk in model.layers:
        a_in = blk.ln1(x) if cfg["layer_norm"] else x
        a, w = attention_weights(a_in, blk.attn.in_proj_weight, blk.attn.out_proj.weight, cfg["heads"],
                                 cfg["positions"] == "rope")
        if cfg["positions"] != "rope":  # torch's own attention agrees
            _, w2 = blk.attn(a_in, a_in, a_in, attn_mask=blocked, need_weights=True, average_attn_weights=False)
            assert (w - w2).abs().max() < CHECK
        weights.append(w)
        x = x + a
        if cfg["mlp"] > 0:
            x = x + blk.mlp(blk.ln2(x) if cfg["layer_norm"] else x)
    logits = model.unembed(model.ln_f(x) if cfg["layer_norm"] else x)
    assert (logits - model(tokens)).abs().max() < CHECK
    return logits, weights


def seq2seq_run(model, sources, target_in):
    """Seq2Seq.forward on sources of their own lengths, keeping the alignment; checked against it."""
    b = len(sources)
    lengths = torch.tensor([len(s) for s in sources])
    S = int(lengths.max())
    src = torch.tensor([s + [0] * (S - len(s)) for s in sources])
    hs, s0, summary = model.encode(src, lengths)
    valid = torch.arange(S)[None, :] < lengths[:, None]
    s, logits, align = s0, [], []
    for t in range(target_in.shape[1]):
        if model.cfg["attention"] == "additive":
            e = model.attn.v(torch.tanh(model.attn.w_s(s)[:, None, :] + model.attn.w_h(hs))).squeeze(-1)
            a = torch.softmax(e.masked_fill(~valid, float("-inf")), dim=-1)
            c = (a[:, :, None] * hs).sum(dim=1)
            align.append(a)
        else:
            c = summary
        s = model.decoder(torch.cat((model.tgt_embed(target_in[:, t]), c), dim=-1), s)
        logits.append(model.out(torch.cat((s, c), dim=-1)))
    logits = torch.stack(logits, dim=1)
    assert (logits - model(src, lengths, target_in)).abs().max() < CHECK
    alignment = None
    if align:
        a = torch.stack(align, dim=1)                                    # b, U, S
        alignment = [L(a[i, :, :int(lengths[i])]) for i in range(b)]   # each its own length
    return logits, alignment


def perturb_norms(model, gen):
    """LayerNorm starts at weight 1, bias 0: move them so that a mixed-up tensor would show."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if ".ln" in name or name.startswith("ln_f"):
                p.add_(0.3 * torch.randn(p.shape, generator=gen))


def round_to(model, dtype):
    if dtype == "F32":
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(p.to(torch.float32).to(DT))


fixtures = []


def decoder_fixture(name, about, cfg, dtype, meta_keys, request_extra=None, seed=0):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 100)
    model = Decoder(dict(cfg, kind="decoder"))
    perturb_norms(model, gen)
    round_to(model, dtype)
    meta = {"kind": "decoder", "heads": str(cfg["heads"]), "positions": cfg["positions"], "context": str(cfg["context"])}
    meta = {k: v for k, v in meta.items() if k in meta_keys}
    tokens = torch.randint(0, cfg["vocab"], (2, cfg["context"] - 1), generator=gen)
    logits, weights = decoder_run(model, tokens)
    case = dict({"op": "model_logits", "tokens": tokens.tolist()}, **(request_extra or {}))
    fixtures.append((name, about, dtype, model.state_dict(), meta, case,
                     {"logits": L(logits), "weights": [L(w) for w in weights]}))


def seq2seq_fixture(name, about, cfg, dtype, seed=0):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 100)
    model = Seq2Seq(dict(cfg, kind="seq2seq"))
    round_to(model, dtype)
    sources = [torch.randint(0, cfg["src_vocab"], (n,), generator=gen).tolist() for n in (4, 2)]
    target_in = torch.randint(0, cfg["tgt_vocab"], (2, 3), generator=gen)
    logits, alignment = seq2seq_run(model, sources, target_in)
    expect = {"logits": L(logits)}
    if alignment is not None:
        expect["alignment"] = alignment
    case = {"op": "model_logits", "source": sources, "target_in": target_in.tolist()}
    fixtures.append((name, about, dtype, model.state_dict(), {"kind": "seq2seq"}, case, expect))


def dec_cfg(positions, mlp, ln):
    return {"vocab": 7, "context": 6, "d_model": 4, "heads": 2, "layers": 2, "mlp": mlp,
            "positions": positions, "layer_norm": ln}


def make_fixtures():
    decoder_fixture("decoder-learned-f64", "learned positions, attention only; heads from the metadata",
                    dec_cfg("learned", 0, False), "F64", {"kind", "heads"}, seed=1)
    decoder_fixture("decoder-sinusoidal-mlp-f64", "sinusoidal positions with an MLP; heads and positions from "
                    "the request (the file has no metadata)", dec_cfg("sinusoidal", 5, False), "F64", set(),
                    {"heads": 2, "positions": "sinusoidal"}, seed=2)
    decoder_fixture("decoder-rope-mlp-ln-f64", "RoPE, MLP, pre-norm layer norm", dec_cfg("rope", 5, True), "F64",
                    {"heads", "positions", "context"}, seed=3)
    decoder_fixture("decoder-none-ln-f32", "no positions, layer norm without MLP, F32 weights",
                    dec_cfg("none", 0, True), "F32", {"heads", "positions"}, seed=4)
    decoder_fixture("decoder-learned-mlp-ln-f32", "learned positions, MLP, layer norm, F32 weights",
                    dec_cfg("learned", 5, True), "F32", {"heads"}, seed=5)
    s2s = {"src_vocab": 6, "tgt_vocab": 5, "embed": 3, "hidden": 4}
    seq2seq_fixture("seq2seq-additive-f64", "GRU encoder-decoder, Bahdanau additive attention",
                    dict(s2s, attention="additive", attn_dim=2), "F64", seed=6)
    seq2seq_fixture("seq2seq-none-f64", "GRU encoder-decoder, fixed summary", dict(s2s, attention="none"), "F64", seed=7)
    seq2seq_fixture("seq2seq-additive-f32", "additive attention, F32 weights",
                    dict(s2s, attention="additive", attn_dim=2), "F32", seed=8)
    seq2seq_fixture("seq2seq-additive-bidirectional-f64", "Bahdanau's encoder: nn.GRU(bidirectional=True), "
                    "annotations [forward; backward], the decoder starting from the backward state at "
                    "position 0; the encoder is read from the _reverse tensors' names",
                    dict(s2s, attention="additive", attn_dim=2, encoder="bidirectional"), "F64", seed=9)
    seq2seq_fixture("seq2seq-none-bidirectional-f32", "fixed summary [forward last; backward first] of a "
                    "bidirectional encoder, F32 weights", dict(s2s, attention="none", encoder="bidirectional"),
                    "F32", seed=10)


def write_fixtures():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith((".json", ".safetensors")):
            os.remove(os.path.join(OUT, old))
    total = 0
    for name, about, dtype, sd, meta, case, expect in fixtures:
        st = os.path.join(OUT, name + ".safetensors")
        save_tensors(sd, st, meta, dtype)
        back, _ = load_safetensors(st)  # the writer round-trips
        assert set(back) == set(sd) and all(torch.equal(back[k], sd[k]) for k in sd)
        doc = {"generator": GENERATOR, "torch": torch.__version__, "name": name, "about": about,
               "file": name + ".safetensors", "tolerance": TOL, "case": case, "expect": expect}
        path = os.path.join(OUT, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f, allow_nan=False)
            f.write("\n")
        total += os.path.getsize(path) + os.path.getsize(st)
    print(f"wrote {len(fixtures)} fixtures, {total} bytes, to {os.path.relpath(OUT)} (torch {torch.__version__})",
          file=sys.stderr)


def maxdiff(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        return max((maxdiff(x, y) for x, y in zip(a, b)), default=0.0)
    return abs(a - b)


def attn_run(attn, case):
    out = subprocess.run([attn, "run", "-"], input=json.dumps(case), capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


def check_exports(attn):
    """attn export of each shipped checkpoint -> torch load_state_dict(strict=True) -> same logits."""
    if not os.path.exists(attn):
        print(f"skipped the export check: no attn tool at {attn}", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for ckpt, which in (("learned_heads.ckpt", None), ("translate.ckpt", "none"), ("translate.ckpt", "additive")):
            path = os.path.join(tmp, f"{ckpt}-{which}.safetensors")
            cmd = [attn, "export", os.path.join(ROOT, "checkpoints", ckpt), path] + (["--model", which] if which else [])
            subprocess.run(cmd, check=True, capture_output=True)
            sd, meta = load_safetensors(path)
            cfg = attn_run(attn, {"op": "model_info", "model": path})["config"]
            model = Decoder(cfg) if cfg["kind"] == "decoder" else Seq2Seq(cfg)
            model.load_state_dict(sd, strict=True)
            if cfg["kind"] == "decoder":
                tokens = [[1, 2, 3, 4, 5, 1, 2, 3, 4, 5], [7, 0, 9, 11, 7, 0, 9, 11, 3, 3]]
                logits, _ = decoder_run(model, torch.tensor(tokens))
                core = attn_run(attn, {"op": "model_logits", "model": path, "tokens": tokens})
            else:
                sources, target_in = [[3, 4, 5, 6, 2], [7, 8]], [[1, 5, 6], [1, 9, 3]]
                logits, _ = seq2seq_run(model, sources, torch.tensor(target_in))
                core = attn_run(attn, {"op": "model_logits", "model": path, "source": sources, "target_in": target_in})
            d = maxdiff(L(logits), core["logits"])
            print(f"export {ckpt} {which or ''}: load_state_dict(strict=True) ok, kind {meta['kind']}, "
                  f"max |torch - core| logit = {d!r}", file=sys.stderr)
            assert d < TOL, d


def main():
    attn = os.path.join(ROOT, "build", "native", "core", "attn")
    if len(sys.argv) == 3 and sys.argv[1] == "--attn":
        attn = sys.argv[2]
    make_fixtures()
    write_fixtures()
    check_exports(attn)


if __name__ == "__main__":
    main()
