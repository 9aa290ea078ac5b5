#!/usr/bin/python3
"""Generate the training fixtures in tests/learn/fixtures/ with PyTorch (float64).

The training ops (attention_backward, model_gradients, train_steps) are checked against
numbers that torch autograd and torch.optim.Adam computed; the core must reproduce them to
1e-10. CI does not need torch: the generated JSON files are committed. Regenerate after
changing this script:

    apt-get install -y python3-torch python3-numpy     # Debian 12: torch 1.13.0a0
    /usr/bin/python3 tests/learn/generate_learn_fixtures.py

Each file is one case in the format of tests/cases/ (name, about, case, tolerance, expect)
plus a header: "generator" (this script) and "torch" (the version that computed it).
Every expected number is computed *from the JSON case itself* (the same function reads the
two independent hand-made cases tests/cases/grad-attention-handed.json and
grad-decoder-handed.json and must reproduce them; the script stops if it does not).

Conventions (what the C++ side implements):
- float64 throughout. Named tensors (params, grads) are JSON objects keyed by torch
  state_dict name; weights are out x in as torch stores them (y = x W^T + b); a 2-D tensor
  is a list of rows, a 1-D tensor a flat list.
- attention_backward: scores = scale * Q K^T (default 1/sqrt(d_k)); masks are *allowed*
  masks (true = may attend; the opposite of torch's). Masked keys are left out of the
  softmax; with empty_rows "zero" a row without an allowed key has zero weights, zero output
  and zero gradient (masked exp with a safe row maximum and a safe denominator: no NaN).
  grad_* are the gradients of sum(output * grad_output).
- Loss: nn.CrossEntropyLoss(ignore_index=-100), the mean over every counted target of the
  batch (logits flattened over batch and time).
- decoder: nn.Embedding, learned nn.Embedding positions / sinusoidal / RoPE / none,
  nn.MultiheadAttention(d, h, bias=False, batch_first=True) with a causal mask, optional
  nn.Sequential(Linear, ReLU, Linear), optional pre-norm nn.LayerNorm (eps 1e-5) with a final
  ln_f, unembedding nn.Linear(d, V, bias=False). RoPE needs a hand-written attention from
  in_proj_weight; that code is checked against nn.MultiheadAttention (RoPE off) here.
- seq2seq: nn.GRU encoder (h0 = 0), nn.GRUCell decoder fed cat[tgt_embed, context],
  additive (Bahdanau) attention over the valid source positions, out = Linear(cat[s_t, c_t]).
  Source padding is checked never to matter (other padding ids, and each sentence alone
  without padding, give the same loss and gradients).
- train_steps: per step zero grads, loss (recorded before the update), backward,
  clip_grad_norm_(all params, clip) if clip is a number (torch: coefficient
  clip / (total_norm + 1e-6), applied only when below 1), torch.optim.Adam step (torch 1.13:
  coupled L2 decay grad += wd * param; denom = sqrt(v) / sqrt(1 - b2^t) + eps;
  param -= lr / (1 - b1^t) * m / denom). A hand-written Adam is checked against torch's here.
"""

import copy
import json
import math
import os
import sys

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
DT = torch.float64
TORCH = torch.__version__
GENERATOR = "tests/learn/generate_learn_fixtures.py"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
HANDED_DIR = os.path.normpath(os.path.join(HERE, "..", "cases"))
HANDED = ["grad-attention-handed.json", "grad-decoder-handed.json"]
TOL = 1e-10
CHECK = 1e-12     # internal cross-checks (two float64 computations of the same thing)

cases = []


def T(x):
    return torch.tensor(x, dtype=DT)


def L(t):
    """Tensor -> (nested) lists of Python floats; json writes repr, which round-trips."""
    return t.detach().to(DT).tolist()


def maxdiff(a, b):
    """Largest absolute difference between two JSON-like values of the same structure."""
    if isinstance(a, dict):
        assert set(a) == set(b), (sorted(a), sorted(b))
        return max((maxdiff(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), (len(a), len(b))
        return max((maxdiff(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, bool) or isinstance(b, bool):
        assert a == b
        return 0.0
    return abs(float(a) - float(b))


def all_finite(v):
    if isinstance(v, dict):
        return all(all_finite(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(all_finite(x) for x in v)
    return math.isfinite(float(v))


# ---------------------------------------------------------------------------
# attention_backward

def allowed_matrix(mask, tq, tk):
    allowed = torch.ones(tq, tk, dtype=torch.bool)
    if not mask:
        return allowed
    i = torch.arange(tq)[:, None]
    j = torch.arange(tk)[None, :]
    causal = mask.get("causal", False)
    if causal is True:
        assert tq == tk, "causal: true needs Tq = Tk"
        allowed &= j <= i
    elif causal == "top_left":
        allowed &= j <= i
    elif causal == "bottom_right":
        allowed &= j <= i + (tk - tq)
    else:
        assert causal is False, causal
    if "key_valid" in mask:
        allowed &= torch.tensor(mask["key_valid"], dtype=torch.bool)[None, :]
    if "allowed" in mask:
        allowed &= torch.tensor(mask["allowed"], dtype=torch.bool)
    if "window" in mask:
        allowed &= (i - j).abs() <= mask["window"]
    return allowed


def masked_softmax_attention(q, k, v, allowed, scale):
    """softmax over the allowed keys only; a row with no allowed key gives zeros (no NaN)."""
    s = (q @ k.transpose(-2, -1)) * scale
    empty = ~allowed.any(dim=-1, keepdim=True)
    rowmax = s.detach().masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    rowmax = torch.where(empty, torch.zeros_like(rowmax), rowmax)
    s_safe = torch.where(allowed, s, rowmax)        # masked entries: exp(0) = 1, then dropped
    e = torch.where(allowed, torch.exp(s_safe - rowmax), torch.zeros_like(s))
    den = e.sum(dim=-1, keepdim=True)
    den = torch.where(empty, torch.ones_like(den), den)
    w = e / den
    return w @ v, w


def attention_backward(case):
    q = T(case["query"]).requires_grad_()
    k = T(case["key"]).requires_grad_()
    v = T(case["value"]).requires_grad_()
    g = T(case["grad_output"])
    tq, tk = q.shape[0], k.shape[0]
    scale = case.get("scale", 1.0 / math.sqrt(q.shape[1]))
    allowed = allowed_matrix(case.get("mask"), tq, tk)
    empty = ~allowed.any(dim=1)
    if empty.any():
        assert case.get("empty_rows", "error") == "zero", "a row has no allowed key"
    out, w = masked_softmax_attention(q, k, v, allowed, scale)
    gq, gk, gv = torch.autograd.grad((out * g).sum(), (q, k, v))
    expect = {"output": L(out), "weights": L(w), "grad_query": L(gq),
              "grad_key": L(gk), "grad_value": L(gv)}

    # Cross-check: torch's own softmax with -inf on the non-empty rows; empty rows all zero.
    keep = ~empty
    q2 = q.detach()[keep].clone().requires_grad_()
    k2 = k.detach().clone().requires_grad_()
    v2 = v.detach().clone().requires_grad_()
    s2 = (q2 @ k2.T * scale).masked_fill(~allowed[keep], float("-inf"))
    w2 = torch.softmax(s2, dim=-1)
    o2 = w2 @ v2
    gq2, gk2, gv2 = torch.autograd.grad((o2 * g[keep]).sum(), (q2, k2, v2))
    assert (w[keep] - w2).abs().max() < CHECK and (out[keep] - o2).abs().max() < CHECK
    assert (gq[keep] - gq2).abs().max() < CHECK
    assert (gk - gk2).abs().max() < CHECK and (gv - gv2).abs().max() < CHECK
    assert (w[empty] == 0).all() and (out[empty] == 0).all() and (gq[empty] == 0).all()
    return expect


# ---------------------------------------------------------------------------
# Models

def sinusoidal(t, d):
    pe = torch.zeros(t, d, dtype=DT)
    pos = torch.arange(t, dtype=DT)[:, None]
    for c in range(d):
        two_i = c - (c % 2)
        ang = pos[:, 0] / (10000.0 ** (two_i / d))
        pe[:, c] = torch.sin(ang) if c % 2 == 0 else torch.cos(ang)
    return pe


def rope(x):
    """Rotate pairs (2i, 2i+1) of the last axis by m * 10000^(-2i/d_k), m = row index."""
    t, dk = x.shape[-2], x.shape[-1]
    assert dk % 2 == 0, "RoPE needs an even head dimension"
    i = torch.arange(dk // 2, dtype=DT)
    theta = 10000.0 ** (-2.0 * i / dk)
    ang = torch.arange(t, dtype=DT)[:, None] * theta[None, :]
    cos, sin = torch.cos(ang), torch.sin(ang)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    y0 = x0 * cos - x1 * sin
    y1 = x0 * sin + x1 * cos
    return torch.stack((y0, y1), dim=-1).flatten(-2)


def hand_mha(x, in_w, out_w, heads, use_rope):
    """Causal multi-head self-attention from in_proj_weight (q rows, k rows, v rows)."""
    b, t, d = x.shape
    dk = d // heads
    q = x @ in_w[:d].T
    k = x @ in_w[d:2 * d].T
    v = x @ in_w[2 * d:].T

    def split(z):
        return z.reshape(b, t, heads, dk).transpose(1, 2)        # b, h, t, dk
    q, k, v = split(q), split(k), split(v)
    if use_rope:
        q, k = rope(q), rope(k)
    s = q @ k.transpose(-2, -1) / math.sqrt(dk)
    blocked = torch.ones(t, t, dtype=torch.bool).triu(1)
    w = torch.softmax(s.masked_fill(blocked, float("-inf")), dim=-1)
    o = (w @ v).transpose(1, 2).reshape(b, t, d)
    return o @ out_w.T


class Block(nn.Module):
    def __init__(self, d, h, m, ln):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, h, bias=False, batch_first=True)
        if m > 0:
            self.mlp = nn.Sequential(nn.Linear(d, m), nn.ReLU(), nn.Linear(m, d))
        if ln:
            self.ln1 = nn.LayerNorm(d, eps=1e-5)
            if m > 0:      # layer_norm with mlp 0 would leave ln2 unused: not in any fixture
                self.ln2 = nn.LayerNorm(d, eps=1e-5)


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d, V = cfg["d_model"], cfg["vocab"]
        assert d % cfg["heads"] == 0
        self.embed = nn.Embedding(V, d)
        if cfg["positions"] == "learned":
            self.pos = nn.Embedding(cfg["context"], d)
        self.register_buffer("pe", sinusoidal(cfg["context"], d), persistent=False)
        self.layers = nn.ModuleList(Block(d, cfg["heads"], cfg["mlp"], cfg["layer_norm"])
                                    for _ in range(cfg["layers"]))
        if cfg["layer_norm"]:
            self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.unembed = nn.Linear(d, V, bias=False)

    def forward(self, tokens, impl="torch"):
        cfg = self.cfg
        b, t = tokens.shape
        assert t <= cfg["context"]
        x = self.embed(tokens)
        if cfg["positions"] == "learned":
            x = x + self.pos.weight[:t]
        elif cfg["positions"] == "sinusoidal":
            x = x + self.pe[:t]
        else:
            assert cfg["positions"] in ("rope", "none"), cfg["positions"]
        use_rope = cfg["positions"] == "rope"
        blocked = torch.ones(t, t, dtype=torch.bool).triu(1)       # torch: True = blocked
        for blk in self.layers:
            a_in = blk.ln1(x) if cfg["layer_norm"] else x
            if use_rope or impl == "hand":
                a = hand_mha(a_in, blk.attn.in_proj_weight, blk.attn.out_proj.weight,
                             cfg["heads"], use_rope)
            else:
                a = blk.attn(a_in, a_in, a_in, attn_mask=blocked, need_weights=False)[0]
            x = x + a
            if cfg["mlp"] > 0:
                x = x + blk.mlp(blk.ln2(x) if cfg["layer_norm"] else x)
        if cfg["layer_norm"]:
            x = self.ln_f(x)
        return self.unembed(x)


class Additive(nn.Module):
    def __init__(self, h, a, c=None):
        super().__init__()
        self.w_s = nn.Linear(h, a, bias=False)
        self.w_h = nn.Linear(c or h, a)
        self.v = nn.Linear(a, 1, bias=False)


class Seq2Seq(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        E, H = cfg["embed"], cfg["hidden"]
        self.bidirectional = cfg.get("encoder", "forward") == "bidirectional"
        C = 2 * H if self.bidirectional else H
        self.src_embed = nn.Embedding(cfg["src_vocab"], E)
        self.tgt_embed = nn.Embedding(cfg["tgt_vocab"], E)
        self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=self.bidirectional)
        self.decoder = nn.GRUCell(E + C, H)
        if cfg["attention"] == "additive":
            self.attn = Additive(H, cfg["attn_dim"], C)
        else:
            assert cfg["attention"] == "none" and "attn_dim" not in cfg
        self.out = nn.Linear(H + C, cfg["tgt_vocab"])

    def encode(self, source, lengths):
        """Annotations hs (b, S, C; zero at padding when bidirectional), s0 and the fixed summary."""
        b, S = source.shape
        x = self.src_embed(source)
        if self.bidirectional:
            # Packed: the reverse direction starts at each sentence's last valid token.
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, h_n = self.encoder(packed)                          # h_n: 2, b, H
            hs, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=S)  # b, S, 2H
            s0 = h_n[1]                                              # the backward state at position 0
            summary = torch.cat((h_n[0], h_n[1]), dim=-1)            # [fwd last valid; bwd first]
        else:
            hs, _ = self.encoder(x)                                  # b, S, H (h0 = 0)
            s0 = hs[torch.arange(b), lengths - 1]
            summary = s0
        return hs, s0, summary

    def forward(self, source, lengths, target_in):
        b, S = source.shape
        assert (lengths >= 1).all() and (lengths <= S).all()
        valid = torch.arange(S)[None, :] < lengths[:, None]
        hs, s0, summary = self.encode(source, lengths)
        s = s0
        logits = []
        for t in range(target_in.shape[1]):
            if self.cfg["attention"] == "additive":
                e = self.attn.v(torch.tanh(self.attn.w_s(s)[:, None, :] + self.attn.w_h(hs)))
                e = e.squeeze(-1).masked_fill(~valid, float("-inf"))
                a = torch.softmax(e, dim=-1)
                c = (a[:, :, None] * hs).sum(dim=1)
            else:
                c = summary
            s = self.decoder(torch.cat((self.tgt_embed(target_in[:, t]), c), dim=-1), s)
            logits.append(self.out(torch.cat((s, c), dim=-1)))
        return torch.stack(logits, dim=1)                            # b, U, Vt


def build(cfg, params=None):
    model = Decoder(cfg) if cfg["kind"] == "decoder" else Seq2Seq(cfg)
    if params is not None:
        sd = {k: T(v) for k, v in params.items()}
        model.load_state_dict(sd, strict=True)
    return model


def ce(logits, targets, reduction="mean"):
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                       ignore_index=-100, reduction=reduction)


def batch_loss(model, batch, impl="torch"):
    cfg = model.cfg
    if cfg["kind"] == "decoder":
        tokens = torch.tensor(batch["tokens"])
        targets = torch.tensor(batch["targets"])
        assert tokens.shape == targets.shape
        assert (targets != -100).any()
        return ce(model(tokens, impl), targets)
    source = torch.tensor(batch["source"])
    lengths = torch.tensor(batch["source_lengths"])
    tin = torch.tensor(batch["target_in"])
    tout = torch.tensor(batch["target_out"])
    assert tin.shape == tout.shape and (tout != -100).any()
    return ce(model(source, lengths, tin), tout)


def grads_of(model):
    return {n: L(p.grad) for n, p in model.named_parameters()}


def loss_and_grads(cfg, params, batch, impl="torch"):
    model = build(cfg, params)
    loss = batch_loss(model, batch, impl)
    loss.backward()
    return loss.item(), grads_of(model)


BATCH_FIELDS = {"decoder": ("tokens", "targets"),
                "seq2seq": ("source", "source_lengths", "target_in", "target_out")}


def model_gradients(case):
    cfg = case["model"]
    batch = {k: case[k] for k in BATCH_FIELDS[cfg["kind"]]}
    loss, grads = loss_and_grads(cfg, case["params"], batch)

    if cfg["kind"] == "decoder" and cfg["positions"] != "rope":
        # The hand-written attention (used for RoPE) against nn.MultiheadAttention.
        loss2, grads2 = loss_and_grads(cfg, case["params"], batch, impl="hand")
        assert abs(loss - loss2) < CHECK and maxdiff(grads, grads2) < CHECK, "hand MHA differs"
    if cfg["kind"] == "seq2seq":
        check_padding(cfg, case["params"], batch, loss, grads)
    return {"loss": loss, "grads": grads}


def check_padding(cfg, params, batch, loss, grads):
    """Source padding must not matter: other padding ids, and each sentence alone, agree."""
    S = len(batch["source"][0])
    other = copy.deepcopy(batch)
    for b, n in enumerate(other["source_lengths"]):
        for j in range(n, S):
            other["source"][b][j] = (other["source"][b][j] + 1 + j) % cfg["src_vocab"]
    assert other["source"] != batch["source"] or all(n == S for n in batch["source_lengths"])
    loss2, grads2 = loss_and_grads(cfg, params, other)
    assert abs(loss - loss2) < CHECK and maxdiff(grads, grads2) < CHECK, "padding matters"

    model = build(cfg, params)
    total = 0.0
    count = 0
    for b, n in enumerate(batch["source_lengths"]):
        src = torch.tensor([batch["source"][b][:n]])
        tout = torch.tensor([batch["target_out"][b]])
        total = total + ce(model(src, torch.tensor([n]), torch.tensor([batch["target_in"][b]])),
                           tout, reduction="sum")
        count += int((tout != -100).sum())
    alone = total / count
    alone.backward()
    assert abs(alone.item() - loss) < CHECK and maxdiff(grads, grads_of(model)) < CHECK


# ---------------------------------------------------------------------------
# train_steps

def adam_kwargs(opt):
    assert opt["name"] == "adam"
    kw = {}
    for key in ("lr", "eps", "weight_decay"):
        if key in opt:
            kw[key] = opt[key]
    if "betas" in opt:
        kw["betas"] = tuple(opt["betas"])
    return kw


def train_steps(case):
    cfg = case["model"]
    model = build(cfg, case["params"])
    params = list(model.parameters())
    opt = torch.optim.Adam(params, **adam_kwargs(case["optimizer"]))
    clip = case.get("clip")
    losses, norms = [], []
    for batch in case["batches"]:
        opt.zero_grad()
        loss = batch_loss(model, batch)
        losses.append(loss.item())
        loss.backward()
        if clip is not None:
            norms.append(float(nn.utils.clip_grad_norm_(params, clip)))
        opt.step()
    after = {n: L(p) for n, p in model.named_parameters()}

    hand_losses, hand_after = hand_train(case)
    assert maxdiff(losses, hand_losses) < CHECK and maxdiff(after, hand_after) < CHECK
    moved = maxdiff(after, case["params"])
    return {"losses": losses, "params": after}, norms, moved


def hand_train(case):
    """The same steps with Adam and clipping written out (torch 1.13 formulas)."""
    cfg = case["model"]
    opt = case["optimizer"]
    lr = opt.get("lr", 1e-3)
    b1, b2 = opt.get("betas", [0.9, 0.999])
    eps = opt.get("eps", 1e-8)
    wd = opt.get("weight_decay", 0.0)
    clip = case.get("clip")
    model = build(cfg, case["params"])
    ps = list(model.parameters())
    m = [torch.zeros_like(p) for p in ps]
    v = [torch.zeros_like(p) for p in ps]
    losses = []
    for step, batch in enumerate(case["batches"], start=1):
        for p in ps:
            p.grad = None
        loss = batch_loss(model, batch)
        losses.append(loss.item())
        loss.backward()
        gs = [p.grad.detach().clone() for p in ps]
        if clip is not None:
            total = math.sqrt(sum(float((g * g).sum()) for g in gs))
            coef = clip / (total + 1e-6)
            if coef < 1.0:
                gs = [g * coef for g in gs]
        with torch.no_grad():
            for i, p in enumerate(ps):
                g = gs[i] + wd * p
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                denom = v[i].sqrt() / math.sqrt(1 - b2 ** step) + eps
                p -= (lr / (1 - b1 ** step)) * m[i] / denom
    return losses, {n: L(p) for n, p in model.named_parameters()}


def compute(case):
    op = case["op"]
    if op == "attention_backward":
        return attention_backward(case)
    if op == "model_gradients":
        return model_gradients(case)
    if op == "train_steps":
        return train_steps(case)[0]
    raise ValueError(op)


# ---------------------------------------------------------------------------
# Case construction

def add(name, about, case, expect):
    assert name not in {c["name"] for c in cases}, name
    assert all_finite(expect), f"{name}: non-finite expected value"
    cases.append({"name": name, "about": about, "generator": GENERATOR, "torch": TORCH,
                  "case": case, "tolerance": TOL, "expect": expect})


def randn(*shape, scale=1.0):
    return torch.randn(*shape, dtype=DT) * scale


def attn_case(name, about, seed, tq, tk, dk, dv, **extra):
    torch.manual_seed(seed)
    case = {"op": "attention_backward",
            "query": L(randn(tq, dk)), "key": L(randn(tk, dk)), "value": L(randn(tk, dv)),
            "grad_output": L(randn(tq, dv))}
    case.update(extra)
    add(name, about, case, attention_backward(case))


def attention_cases():
    attn_case("attn-bwd-causal-4x4", "attention_backward, causal square mask (causal: true), "
              "d_k = d_v = 3; query 0 sees only key 0 so grad_query[0] is zero", 101,
              4, 4, 3, 3, mask={"causal": True})
    attn_case("attn-bwd-key-padding-3x5", "attention_backward, key padding (key_valid: keys 3 "
              "and 4 invalid) with Tq = 3, Tk = 5: weights, grad_key and grad_value of the "
              "padded keys are exactly zero", 102,
              3, 5, 4, 3, mask={"key_valid": [True, True, True, False, False]})
    attn_case("attn-bwd-bottom-right-3x5", "attention_backward, causal bottom_right with "
              "Tq = 3 < Tk = 5: query i sees keys j <= i + 2", 103,
              3, 5, 3, 2, mask={"causal": "bottom_right"})
    attn_case("attn-bwd-allowed-empty-row-zero", "attention_backward, explicit allowed "
              "matrix whose row 1 allows no key, empty_rows zero: that row has zero weights, "
              "output and grad_query, and contributes nothing to grad_key / grad_value", 104,
              3, 4, 3, 3, empty_rows="zero",
              mask={"allowed": [[True, False, True, True],
                                [False, False, False, False],
                                [False, True, True, False]]})
    attn_case("attn-bwd-custom-scale-0.37", "attention_backward, no mask, custom scale 0.37 "
              "(not 1/sqrt(d_k) = 0.5): grad_query and grad_key carry the scale", 105,
              3, 3, 4, 4, scale=0.37)
    attn_case("attn-bwd-dv5-dk2", "attention_backward, no mask, d_k = 2 and d_v = 5 with "
              "Tq = 2, Tk = 4", 106, 2, 4, 2, 5)
    attn_case("attn-bwd-top-left-window-padding-4x5", "attention_backward, mask parts ANDed: "
              "causal top_left (j <= i), window 1 (|i - j| <= 1), key_valid with key 1 "
              "invalid; Tq = 4, Tk = 5, d_k = 3, d_v = 2", 107,
              4, 5, 3, 2, mask={"causal": "top_left", "window": 1,
                                "key_valid": [True, False, True, True, True]})


def init_params(cfg, seed):
    """Random normal parameters ×0.5; LayerNorm gains near 1."""
    torch.manual_seed(seed)
    model = build(cfg)
    out = {}
    for name, p in model.state_dict().items():
        if name.endswith(".weight") and ".ln" in "." + name:       # LayerNorm gains
            out[name] = L(1.0 + randn(*p.shape, scale=0.2))
        else:
            out[name] = L(randn(*p.shape, scale=0.5))
    return out


def decoder_cfg(vocab, context, d, heads, layers, mlp, positions, ln):
    return {"kind": "decoder", "vocab": vocab, "context": context, "d_model": d, "heads": heads,
            "layers": layers, "mlp": mlp, "positions": positions, "layer_norm": ln}


def seq2seq_cfg(vs, vt, e, h, attention, a=None, encoder=None):
    cfg = {"kind": "seq2seq", "src_vocab": vs, "tgt_vocab": vt, "embed": e, "hidden": h,
           "attention": attention}
    if attention == "additive":
        cfg["attn_dim"] = a
    if encoder is not None:
        cfg["encoder"] = encoder
    return cfg


def ints(hi, *shape):
    return torch.randint(0, hi, shape).tolist()


def decoder_batch(cfg, b, t, ignore=()):
    tokens = ints(cfg["vocab"], b, t)
    targets = ints(cfg["vocab"], b, t)
    for (i, j) in ignore:
        targets[i][j] = -100
    return {"tokens": tokens, "targets": targets}


def seq2seq_batch(cfg, lengths, u, ignore=()):
    S = max(lengths)
    b = len(lengths)
    source = ints(cfg["src_vocab"], b, S)         # padding positions hold arbitrary valid ids
    tin = ints(cfg["tgt_vocab"], b, u)
    tout = ints(cfg["tgt_vocab"], b, u)
    for (i, j) in ignore:
        tout[i][j] = -100
    return {"source": source, "source_lengths": list(lengths), "target_in": tin,
            "target_out": tout}


def grad_case(name, about, cfg, seed, batch):
    params = init_params(cfg, seed)
    case = {"op": "model_gradients", "model": cfg, "params": params}
    case.update(batch)
    add(name, about, case, model_gradients(case))


def gradient_cases():
    cfg = decoder_cfg(6, 5, 4, 2, 1, 8, "learned", False)
    torch.manual_seed(201)
    grad_case("grad-decoder-learned-mlp", "model_gradients, 1-layer decoder, learned "
              "positions, 2 heads, MLP 8 (ReLU), no layer norm; B = 2, T' = context = 5, "
              "two targets -100", cfg, 1201, decoder_batch(cfg, 2, 5, [(0, 2), (1, 0)]))

    cfg = decoder_cfg(5, 6, 4, 1, 1, 0, "sinusoidal", False)
    torch.manual_seed(202)
    grad_case("grad-decoder-sinusoidal-short", "model_gradients, 1-layer decoder, sinusoidal "
              "positions (PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same)), 1 head, "
              "no MLP; T' = 4 < context 6", cfg, 1202, decoder_batch(cfg, 2, 4, [(1, 3)]))

    cfg = decoder_cfg(6, 5, 8, 2, 1, 6, "rope", False)
    torch.manual_seed(203)
    grad_case("grad-decoder-rope-mlp", "model_gradients, 1-layer decoder, RoPE on each "
              "head's q and k (d_k = 4, theta_i = 10000^(-2i/d_k)), 2 heads, MLP 6, no layer "
              "norm", cfg, 1203, decoder_batch(cfg, 2, 5, [(0, 4)]))

    cfg = decoder_cfg(5, 4, 4, 2, 1, 5, "none", False)
    torch.manual_seed(204)
    grad_case("grad-decoder-nopos-mlp", "model_gradients, 1-layer decoder without positions "
              "(only the causal mask orders tokens), 2 heads, MLP 5; B = 3", cfg, 1204,
              decoder_batch(cfg, 3, 4, [(2, 1), (2, 2)]))

    cfg = decoder_cfg(6, 6, 8, 2, 2, 8, "rope", True)
    torch.manual_seed(205)
    grad_case("grad-decoder-rope-ln-2layers", "model_gradients, 2-layer pre-norm decoder "
              "(ln1, ln2, ln_f; eps 1e-5), RoPE, 2 heads, MLP 8; T' = 5 < context 6",
              cfg, 1205, decoder_batch(cfg, 2, 5, [(0, 0), (1, 4)]))

    cfg = decoder_cfg(7, 6, 6, 3, 2, 4, "learned", True)
    torch.manual_seed(206)
    grad_case("grad-decoder-learned-ln-2layers-3heads", "model_gradients, 2-layer pre-norm "
              "decoder, learned positions, 3 heads of d_k = 2, MLP 4; T' = 4 < "
              "context 6: pos.weight rows 4 and 5 get zero gradient", cfg, 1206,
              decoder_batch(cfg, 2, 4, [(1, 1)]))

    cfg = decoder_cfg(5, 5, 4, 2, 2, 4, "sinusoidal", False)
    torch.manual_seed(207)
    grad_case("grad-decoder-sinusoidal-2layers", "model_gradients, 2-layer decoder (post-add, "
              "no layer norm), sinusoidal positions, 2 heads, MLP 4; B = 1", cfg, 1207,
              decoder_batch(cfg, 1, 5, [(0, 1)]))

    cfg = seq2seq_cfg(6, 5, 4, 3, "none")
    torch.manual_seed(208)
    grad_case("grad-seq2seq-noattn", "model_gradients, GRU encoder-decoder without attention "
              "(c_t = s0 = encoder state at the last valid source position); source lengths "
              "4 and 2 (padding ids arbitrary), U = 3, one target -100", cfg, 1208,
              seq2seq_batch(cfg, [4, 2], 3, [(1, 2)]))

    cfg = seq2seq_cfg(6, 5, 4, 3, "additive", 4)
    torch.manual_seed(209)
    grad_case("grad-seq2seq-additive", "model_gradients, GRU encoder-decoder with additive "
              "attention over the valid source positions (e = v.tanh(W_s s_{t-1} + W_h h_j "
              "+ b)); lengths 5 and 3, U = 4, two targets -100", cfg, 1209,
              seq2seq_batch(cfg, [5, 3], 4, [(0, 3), (1, 1)]))

    cfg = seq2seq_cfg(7, 6, 5, 6, "additive", 3)
    torch.manual_seed(210)
    batch = seq2seq_batch(cfg, [3, 5, 1], 3, [(2, 0), (0, 2)])
    grad_case("grad-seq2seq-additive-b3-len1", "model_gradients, additive seq2seq with B = 3, "
              "source lengths 3, 5, 1 (the length-1 row attends to one position only: weight 1), "
              "E = 5, H = 6, A = 3", cfg, 1210, batch)

    cfg = seq2seq_cfg(6, 5, 4, 3, "additive", 4, "bidirectional")
    torch.manual_seed(211)
    grad_case("grad-seq2seq-additive-bidirectional", "model_gradients, additive seq2seq with "
              "a bidirectional encoder (nn.GRU bidirectional=True over the packed valid tokens): "
              "annotations [fwd; bwd] of 2H, s0 = the backward state at position 0 (h_n[1]); "
              "lengths 5, 3 and 1, U = 4, two targets -100", cfg, 1211,
              seq2seq_batch(cfg, [5, 3, 1], 4, [(0, 3), (1, 1)]))

    cfg = seq2seq_cfg(6, 5, 4, 3, "none", encoder="bidirectional")
    torch.manual_seed(212)
    grad_case("grad-seq2seq-noattn-bidirectional", "model_gradients, seq2seq without attention "
              "and a bidirectional encoder: c_t = [h_n[0]; h_n[1]] (the forward state at the last "
              "valid token, the backward state at position 0) at every step, s0 = h_n[1]; "
              "lengths 4 and 2, U = 3, one target -100", cfg, 1212,
              seq2seq_batch(cfg, [4, 2], 3, [(1, 2)]))


def adam(lr, betas, eps, weight_decay):
    """A train_steps case's optimizer: Adam with every setting written."""
    return {"name": "adam", "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}


def train_case(name, about, cfg, seed, batches, optimizer, clip, expect_clip=False):
    params = init_params(cfg, seed)
    case = {"op": "train_steps", "model": cfg, "params": params, "batches": batches,
            "optimizer": optimizer, "clip": clip}
    expect, norms, moved = train_steps(case)
    if expect_clip:
        assert all(n > clip for n in norms), (name, norms)
    print(f"  {name}: losses {['%.6f' % x for x in expect['losses']]}, params moved up to "
          f"{moved:.3g}" + (f", grad norms before clip {['%.3g' % n for n in norms]}"
                            if norms else ""), file=sys.stderr)
    add(name, about, case, expect)


def training_cases():
    cfg = decoder_cfg(6, 5, 4, 2, 1, 6, "learned", False)
    torch.manual_seed(301)
    batches = [decoder_batch(cfg, 2, 5, [(0, 1)]), decoder_batch(cfg, 2, 5),
               decoder_batch(cfg, 2, 5, [(1, 4)])]
    train_case("train-decoder-adam-3", "train_steps, 3 Adam steps (lr 1e-2, betas 0.9/0.999, "
               "eps 1e-8, no weight decay, no clipping) of a 1-layer decoder with learned "
               "positions and MLP; losses are before each update", cfg, 1301, batches,
               adam(1e-2, [0.9, 0.999], 1e-8, 0.0), None)

    cfg = decoder_cfg(6, 6, 8, 2, 2, 8, "rope", True)
    torch.manual_seed(302)
    batches = [decoder_batch(cfg, 2, 6, [(0, 0)]), decoder_batch(cfg, 2, 4),
               decoder_batch(cfg, 2, 5, [(1, 2)])]
    train_case("train-decoder-rope-ln-adam-wd-clip", "train_steps, 3 Adam steps (lr 2e-2, "
               "betas 0.8/0.99, eps 1e-6, weight_decay 0.1: coupled L2, grad += wd * param) "
               "with clip 0.05 (clip_grad_norm_ over all params, coefficient "
               "clip / (norm + 1e-6)) of a 2-layer pre-norm RoPE decoder; the batches have "
               "T' = 6, 4, 5", cfg, 1302, batches,
               adam(2e-2, [0.8, 0.99], 1e-6, 0.1), 0.05, expect_clip=True)

    cfg = seq2seq_cfg(6, 5, 4, 3, "additive", 4)
    torch.manual_seed(303)
    batches = [seq2seq_batch(cfg, [4, 2], 3, [(1, 2)]), seq2seq_batch(cfg, [3, 4], 3),
               seq2seq_batch(cfg, [1, 4], 3, [(0, 0)])]
    train_case("train-seq2seq-additive-adam-clip", "train_steps, 3 Adam steps (lr 1e-2, "
               "betas 0.9/0.999, eps 1e-8, no weight decay) with clip 0.05, which clips every "
               "step, of the additive GRU seq2seq; source lengths vary", cfg, 1303, batches,
               adam(1e-2, [0.9, 0.999], 1e-8, 0.0), 0.05, expect_clip=True)

    cfg = seq2seq_cfg(5, 5, 3, 4, "none")
    torch.manual_seed(304)
    batches = [seq2seq_batch(cfg, [3, 2], 3, [(0, 1)]), seq2seq_batch(cfg, [2, 3], 3),
               seq2seq_batch(cfg, [3, 3], 3)]
    train_case("train-seq2seq-noattn-adam-wd", "train_steps, 3 Adam steps (lr 1e-2, betas "
               "0.9/0.98, eps 1e-8, weight_decay 0.05) of the GRU seq2seq without attention, "
               "no clipping", cfg, 1304, batches,
               adam(1e-2, [0.9, 0.98], 1e-8, 0.05), None)

    cfg = decoder_cfg(5, 4, 4, 2, 1, 0, "sinusoidal", False)
    torch.manual_seed(305)
    batches = [decoder_batch(cfg, 2, 4, [(0, 3)]), decoder_batch(cfg, 2, 4)]
    train_case("train-decoder-adam-defaults", "train_steps, 2 steps with optimizer "
               "{\"name\": \"adam\"} only: PyTorch defaults lr 1e-3, betas 0.9/0.999, eps "
               "1e-8, weight_decay 0; clip null; sinusoidal decoder without MLP", cfg, 1305,
               batches, {"name": "adam"}, None)

    cfg = seq2seq_cfg(6, 5, 3, 4, "additive", 3, "bidirectional")
    torch.manual_seed(306)
    batches = [seq2seq_batch(cfg, [3, 1], 3, [(0, 1)]), seq2seq_batch(cfg, [2, 4], 2),
               seq2seq_batch(cfg, [4, 4], 3)]
    train_case("train-seq2seq-bidirectional-adam-clip", "train_steps, 3 Adam steps (lr 2e-2, "
               "betas 0.9/0.999, eps 1e-8) with clip 0.5 of the additive GRU seq2seq with a "
               "bidirectional encoder", cfg, 1306, batches,
               adam(2e-2, [0.9, 0.999], 1e-8, 0.0), 0.5)


# ---------------------------------------------------------------------------

def self_check():
    """Reproduce the two independent hand-made cases in tests/cases/."""
    worst = 0.0
    for fname in HANDED:
        with open(os.path.join(HANDED_DIR, fname)) as f:
            handed = json.load(f)
        got = compute(handed["case"])
        diff = maxdiff(got, handed["expect"])
        worst = max(worst, diff)
        print(f"self-check {fname}: max abs difference {diff:.3g}", file=sys.stderr)
        assert diff <= handed["tolerance"], f"{fname}: {diff} > {handed['tolerance']}"
    # RoPE keeps norms and makes q_m . k_n depend on m - n only.
    torch.manual_seed(7)
    q, k = randn(1, 4), randn(1, 4)
    rq, rk = rope(q.expand(6, 4)), rope(k.expand(6, 4))
    dots = rq @ rk.T
    assert (dots[1:, 1:] - dots[:-1, :-1]).abs().max() < CHECK
    assert (rq.norm(dim=1) - q.norm()).abs().max() < CHECK
    return worst


def main():
    self_check()
    attention_cases()
    gradient_cases()
    training_cases()
    for c in cases:                          # every case reads back from its own JSON
        again = json.loads(json.dumps(c["case"]))
        assert maxdiff(compute(again), c["expect"]) == 0.0, c["name"]
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".json"):
            os.remove(os.path.join(OUT, old))
    total = 0
    for c in cases:
        path = os.path.join(OUT, c["name"] + ".json")
        with open(path, "w") as f:
            json.dump(c, f, allow_nan=False)
            f.write("\n")
        total += os.path.getsize(path)
    print(f"wrote {len(cases)} fixtures, {total} bytes, to {os.path.relpath(OUT)} "
          f"(torch {TORCH})", file=sys.stderr)


if __name__ == "__main__":
    main()
