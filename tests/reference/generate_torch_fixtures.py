#!/usr/bin/python3
"""Generate the reference fixtures in tests/reference/fixtures/ with PyTorch (float64).

An implementation nobody here wrote computes every expected number; the core must
reproduce them to 1e-12 (tests/reference/test_reference.cpp). CI does not need torch:
the generated JSON files are committed. Regenerate after changing this script:

    apt-get install -y python3-torch python3-numpy     # Debian 12: torch 1.13.0a0
    /usr/bin/python3 tests/reference/generate_torch_fixtures.py

Each file is one case in the format of tests/cases/ (name, about, case, tolerance,
expect) plus a header: "generator" (this script) and "torch" (the version that computed it).

Conventions converted here (see core/attn/masks.hpp and heads.hpp):
- nn.MultiheadAttention masks are *blocked* masks (True = may not attend); ours are
  *allowed* masks, so allowed = NOT attn_mask and key_valid = NOT key_padding_mask.
- nn.Linear / in_proj weights are out x in and compute x @ W.T; ours are in x out:
  w_q = in_proj_weight[:E].T, w_k = in_proj_weight[E:2E].T, w_v = in_proj_weight[2E:].T
  (or q/k/v_proj_weight.T with kdim/vdim), w_o = out_proj.weight.T.
- MHA scales by 1/sqrt(head_dim), our default for multi_head; no projection biases
  (bias=False, add_bias_kv=False), no dropout (eval mode).
- MHA's "concat" (the heads side by side before out_proj) is read by running the same
  module a second time with out_proj.weight = identity.
"""

import json
import math
import os
import sys

import torch

torch.set_default_dtype(torch.float64)
TORCH = torch.__version__
GENERATOR = "tests/reference/generate_torch_fixtures.py"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
TOL = 1e-12
DT = torch.float64

cases = []


def rows(t):
    """Tensor -> nested lists of Python floats (json writes repr, which round-trips)."""
    return t.detach().to(DT).tolist()


def bools(t):
    return [[bool(b) for b in r] for r in t.tolist()]


def add(name, about, case, expect):
    assert name not in {c["name"] for c in cases}, name
    for key, val in expect.items():
        flat = torch.tensor(val).flatten()
        assert torch.isfinite(flat).all(), f"{name}: torch gave a non-finite {key}"
    cases.append({"name": name, "about": about, "generator": GENERATOR, "torch": TORCH,
                  "case": case, "tolerance": TOL, "expect": expect})


def randn(*shape, scale=1.0):
    return torch.randn(*shape, dtype=DT) * scale


# ---------------------------------------------------------------------------
# Plain scaled dot-product attention, written out in torch operations.

def sdpa(q, k, v, blocked=None, scale=None, empty_zero=False):
    """softmax(scale * q k^T, masked) v with a *blocked* mask (True = may not attend).

    Rows with every key blocked: torch's softmax gives NaN; with empty_zero they become zero
    weights and a zero output (the PyTorch >= 2.5 / FlashAttention convention)."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q @ k.transpose(-2, -1)) * scale
    if blocked is not None:
        s = s.masked_fill(blocked, float("-inf"))
    w = torch.softmax(s, dim=-1)
    if blocked is not None:
        empty = blocked.all(dim=-1, keepdim=True)
        assert empty_zero or not empty.any(), "a row with no allowed key needs empty_zero"
        w = torch.where(empty, torch.zeros_like(w), w)
    return w @ v, w


def causal_blocked(tq, tk, kind):
    """Blocked mask of a causal kind: top_left = torch.tril (is_causal); bottom_right = tril
    shifted by Tk - Tq (FlashAttention >= 2.1)."""
    offset = tk - tq if kind == "bottom_right" else 0
    return ~torch.ones(tq, tk, dtype=torch.bool).tril(diagonal=offset)


def window_blocked(tq, tk, w):
    i = torch.arange(tq).unsqueeze(1)
    j = torch.arange(tk).unsqueeze(0)
    return (i - j).abs() > w


def padding_blocked(tq, key_valid):
    return ~torch.tensor(key_valid).unsqueeze(0).expand(tq, -1)


def random_allowed(tq, tk, p=0.6, keep_rows=True):
    """Random allowed matrix; with keep_rows every query keeps at least one key."""
    a = torch.rand(tq, tk) < p
    if keep_rows:
        for i in range(tq):
            if not a[i].any():
                a[i, torch.randint(tk, (1,)).item()] = True
    return a


def seeded_qkv(seed, tq, tk, dk, dv):
    """torch.manual_seed(seed), then Q (tq x dk), K (tk x dk) and V (tk x dv) drawn in that order."""
    torch.manual_seed(seed)
    return randn(tq, dk), randn(tk, dk), randn(tk, dv)


def attention_case(name, about, q, k, v, mask=None, blocked=None, scale=None, empty_zero=False):
    out, w = sdpa(q, k, v, blocked, scale, empty_zero)
    case = {"op": "attention", "query": rows(q), "key": rows(k), "value": rows(v)}
    if mask:
        case["mask"] = mask
    if scale is not None:
        case["scale"] = scale
    if empty_zero:
        case["empty_rows"] = "zero"
    add(name, about, case, {"output": rows(out), "weights": rows(w)})


def plain_cases():
    # Unmasked shapes: (seed, Tq, Tk, d_k, d_v, name, about).
    for seed, tq, tk, dk, dv, name, about in [
            (101, 4, 4, 3, 3, "sdpa-square-4x4", "Plain attention, Tq = Tk = 4, d_k = d_v = 3, no mask."),
            (102, 3, 6, 4, 4, "sdpa-cross-3x6", "Cross-attention shapes Tq = 3, Tk = 6, no mask."),
            (103, 5, 7, 2, 2, "sdpa-cross-5x7-dk2", "Tq = 5, Tk = 7, d_k = 2: more queries than features."),
            (104, 4, 5, 3, 6, "sdpa-dv-ne-dk", "d_k = 3, d_v = 6 (the output has d_v columns), Tq = 4, Tk = 5."),
            (105, 3, 3, 7, 2, "sdpa-dv-lt-dk", "d_k = 7, d_v = 2, default scale 1/sqrt(7).")]:
        attention_case(name, about, *seeded_qkv(seed, tq, tk, dk, dv))

    q, k, v = seeded_qkv(106, 5, 5, 4, 3)
    attention_case("sdpa-causal-square", "causal = true, Tq = Tk = 5: torch.tril allowed mask; "
                   "row 0 puts weight 1 on key 0.", q, k, v, {"causal": True}, causal_blocked(5, 5, "top_left"))

    q, k, v = seeded_qkv(107, 3, 5, 4, 2)
    attention_case("sdpa-causal-top-left-3x5", "causal top_left (PyTorch is_causal) with Tq = 3 < Tk = 5: "
                   "query i sees keys 0..i.", q, k, v, {"causal": "top_left"}, causal_blocked(3, 5, "top_left"))
    attention_case("sdpa-causal-bottom-right-3x5", "causal bottom_right (FlashAttention >= 2.1) with Tq = 3 < "
                   "Tk = 5, same inputs as the top_left case: query i sees keys 0..i+2.", q, k, v,
                   {"causal": "bottom_right"}, causal_blocked(3, 5, "bottom_right"))

    q, k, v = seeded_qkv(108, 5, 3, 3, 4)
    attention_case("sdpa-causal-top-left-5x3", "causal top_left with Tq = 5 > Tk = 3: queries 3 and 4 see "
                   "every key.", q, k, v, {"causal": "top_left"}, causal_blocked(5, 3, "top_left"))
    attention_case("sdpa-causal-bottom-right-5x3-zero", "causal bottom_right with Tq = 5 > Tk = 3: queries 0 "
                   "and 1 have no allowed key; empty_rows = zero gives them zero weights and output.", q, k, v,
                   {"causal": "bottom_right"}, causal_blocked(5, 3, "bottom_right"), empty_zero=True)

    q, k, v = seeded_qkv(109, 4, 4, 3, 3)
    allowed = torch.tensor([[True, False, True, False], [False, False, False, False],
                            [True, True, True, True], [False, False, False, False]])
    attention_case("sdpa-empty-rows-zero", "Explicit allowed mask with rows 1 and 3 all false, empty_rows = "
                   "zero: those rows are zero, the others a softmax over their allowed keys.", q, k, v,
                   {"allowed": bools(allowed)}, ~allowed, empty_zero=True)

    q, k, v = seeded_qkv(110, 4, 6, 5, 3)
    attention_case("sdpa-empty-rows-zero-no-empty-row", "empty_rows = zero with a causal top_left mask that "
                   "leaves no row empty: identical to the default policy.", q, k, v,
                   {"causal": "top_left"}, causal_blocked(4, 6, "top_left"), empty_zero=True)

    q, k, v = seeded_qkv(111, 3, 4, 4, 2)
    attention_case("sdpa-scale-0.25", "Custom scale 0.25 instead of 1/sqrt(4) = 0.5.", q, k, v, scale=0.25)
    attention_case("sdpa-scale-3", "Custom scale 3 (sharper weights), same inputs as the 0.25 case.", q, k, v,
                   scale=3.0)
    attention_case("sdpa-scale-1-causal", "Scale 1 with causal = false explicitly and a key-valid mask.",
                   q, k, v, {"causal": False, "key_valid": [True, False, True, True]},
                   padding_blocked(3, [True, False, True, True]), scale=1.0)

    q, k, v = seeded_qkv(112, 6, 6, 3, 3)
    for w in (0, 1, 2):
        attention_case(f"sdpa-window-{w}", f"Local window |i - j| <= {w}, Tq = Tk = 6"
                       + (" (each query sees only its own key: output = value)" if w == 0 else "") + ".",
                       q, k, v, {"window": w}, window_blocked(6, 6, w))
    attention_case("sdpa-window-2-causal", "Window 2 AND causal: query i sees keys i-2..i (a sliding "
                   "causal window).", q, k, v, {"causal": True, "window": 2},
                   window_blocked(6, 6, 2) | causal_blocked(6, 6, "top_left"))

    q, k, v = seeded_qkv(113, 3, 7, 4, 5)
    attention_case("sdpa-window-1-cross-3x7", "Window 1 with Tq = 3, Tk = 7: query i sees keys i-1..i+1.",
                   q, k, v, {"window": 1}, window_blocked(3, 7, 1))

    q, k, v = seeded_qkv(114, 5, 6, 4, 3)
    valid = [True, True, False, True, False, True]
    attention_case("sdpa-key-valid", "Key padding: keys 2 and 4 invalid get exactly zero weight.", q, k, v,
                   {"key_valid": valid}, padding_blocked(5, valid))

    q, k, v = seeded_qkv(115, 6, 6, 3, 4)
    valid = [True, True, True, True, False, False]
    allowed = random_allowed(6, 6, 0.7)
    blocked = causal_blocked(6, 6, "top_left") | padding_blocked(6, valid) | ~allowed | window_blocked(6, 6, 3)
    for i in range(6):  # keep every row non-empty: key 0 is always valid, causal and in the window
        if blocked[i].all():
            allowed[i, 0] = True
    blocked = causal_blocked(6, 6, "top_left") | padding_blocked(6, valid) | ~allowed | window_blocked(6, 6, 3)
    attention_case("sdpa-all-mask-parts", "causal AND key_valid AND explicit allowed AND window 3 combined.",
                   q, k, v, {"causal": True, "key_valid": valid, "allowed": bools(allowed), "window": 3}, blocked)

    q, k, v = seeded_qkv(116, 4, 7, 5, 2)
    allowed = random_allowed(4, 7, 0.5)
    attention_case("sdpa-explicit-allowed-4x7", "Explicit random allowed matrix, Tq = 4, Tk = 7.", q, k, v,
                   {"allowed": bools(allowed)}, ~allowed)

    torch.manual_seed(117)
    q, k, v = randn(3, 4, scale=12.0), randn(5, 4, scale=12.0), randn(5, 3)
    attention_case("sdpa-large-logits", "Inputs scaled by 12: scores of order 100, the softmax must subtract "
                   "the row max to avoid overflow; some weights underflow towards 0.", q, k, v)

    q, k, v = seeded_qkv(118, 3, 4, 2, 2)
    k[3] = torch.tensor([1e300, -1e300])
    v[3] = torch.tensor([1e300, 1e300])
    attention_case("sdpa-masked-huge-key", "Key 3 and its value hold 1e300 but key 3 is padding: it must "
                   "change nothing (masked keys are excluded, never multiplied by zero).", q, k, v,
                   {"key_valid": [True, True, True, False]}, padding_blocked(3, [True, True, True, False]))

    q, k, v = seeded_qkv(119, 1, 1, 3, 4)
    attention_case("sdpa-single-key", "Tq = Tk = 1: the weight is 1 and the output is the value.", q, k, v)

    q, k, v = seeded_qkv(120, 1, 8, 6, 6)
    attention_case("sdpa-one-query-decode", "One query over 8 cached keys (decoding), causal bottom_right: "
                   "the last query sees every key.", q, k, v, {"causal": "bottom_right"},
                   causal_blocked(1, 8, "bottom_right"))


# ---------------------------------------------------------------------------
# Single-head self_attention with nn.Linear-layout weights.

def self_attention_cases():
    for seed, (t, d_model, d_k, d_v, causal) in enumerate(
            [(5, 6, 4, 4, False), (6, 8, 3, 5, True), (4, 3, 5, 2, False)], start=201):
        torch.manual_seed(seed)
        x = randn(t, d_model)
        lq = torch.nn.Linear(d_model, d_k, bias=False, dtype=DT)
        lk = torch.nn.Linear(d_model, d_k, bias=False, dtype=DT)
        lv = torch.nn.Linear(d_model, d_v, bias=False, dtype=DT)
        with torch.no_grad():
            q, k, v = lq(x), lk(x), lv(x)
            out, w = sdpa(q, k, v, causal_blocked(t, t, "top_left") if causal else None)
        case = {"op": "self_attention", "x": rows(x), "w_q": rows(lq.weight.T), "w_k": rows(lk.weight.T),
                "w_v": rows(lv.weight.T)}
        if causal:
            case["mask"] = {"causal": True}
        add(f"self-attention-t{t}-d{d_model}-dk{d_k}-dv{d_v}" + ("-causal" if causal else ""),
            f"One head: nn.Linear(bias=False) projections (torch's default init, seed {seed}), weights "
            f"passed as weight.T; T = {t}, d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
            + (", causal" if causal else "") + ".",
            case, {"query": rows(q), "key": rows(k), "value": rows(v), "output": rows(out), "weights": rows(w)})


# ---------------------------------------------------------------------------
# torch.nn.MultiheadAttention.

def mha_case(name, about, heads, e, tq, tk, kdim=None, cross=False, attn_blocked=None,
             key_padding=None, mask=None, seed=0):
    """Run nn.MultiheadAttention (batch_first, no biases) on seeded inputs and weights.

    attn_blocked: Tq x Tk bool (True = blocked), key_padding: list of Tk bools (True = padding);
    `mask` is the same mask in our allowed-mask JSON form."""
    torch.manual_seed(seed)
    kd = kdim if kdim is not None else e
    mha = torch.nn.MultiheadAttention(e, heads, bias=False, add_bias_kv=False, kdim=kdim, vdim=kdim,
                                      batch_first=True, dtype=DT)
    mha.eval()
    with torch.no_grad():  # weights given: seeded N(0, 1/fan_in) rather than xavier
        if mha._qkv_same_embed_dim:
            mha.in_proj_weight.copy_(randn(3 * e, e, scale=1 / math.sqrt(e)))
        else:
            mha.q_proj_weight.copy_(randn(e, e, scale=1 / math.sqrt(e)))
            mha.k_proj_weight.copy_(randn(e, kd, scale=1 / math.sqrt(kd)))
            mha.v_proj_weight.copy_(randn(e, kd, scale=1 / math.sqrt(kd)))
        mha.out_proj.weight.copy_(randn(e, e, scale=1 / math.sqrt(e)))
    xq = randn(tq, e)
    xkv = randn(tk, kd) if (cross or kdim is not None) else xq
    assert mha.in_proj_bias is None and mha.out_proj.bias is None and mha.bias_k is None

    kpm = torch.tensor([key_padding]) if key_padding is not None else None

    def run():
        with torch.no_grad():
            return mha(xq.unsqueeze(0), xkv.unsqueeze(0), xkv.unsqueeze(0), key_padding_mask=kpm,
                       need_weights=True, attn_mask=attn_blocked, average_attn_weights=False)

    out, w = run()
    with torch.no_grad():
        w_o = mha.out_proj.weight.T.clone()
        mha.out_proj.weight.copy_(torch.eye(e))
    concat, w2 = run()
    assert torch.equal(w, w2)

    if mha._qkv_same_embed_dim:
        wq, wk, wv = mha.in_proj_weight[:e], mha.in_proj_weight[e:2 * e], mha.in_proj_weight[2 * e:]
    else:
        wq, wk, wv = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
    case = {"op": "multi_head", "heads": heads}
    if xkv is xq:
        case["x"] = rows(xq)
    else:
        case["x_query"], case["x_key_value"] = rows(xq), rows(xkv)
    case.update({"w_q": rows(wq.T), "w_k": rows(wk.T), "w_v": rows(wv.T), "w_o": rows(w_o)})
    if mask:
        case["mask"] = mask
    add(name, about + f" nn.MultiheadAttention(embed_dim={e}, num_heads={heads}, bias=False"
        + (f", kdim=vdim={kdim}" if kdim is not None else "") + ", batch_first=True), need_weights=True, "
        "average_attn_weights=False; head_dim = " + str(e // heads) + f"; seed {seed}.",
        case, {"output": rows(out[0]), "concat": rows(concat[0]), "weights": rows(w[0])})


def mha_cases():
    seed = 300
    for h in (1, 2, 4):
        seed += 10
        mha_case(f"mha-h{h}-self", "Self-attention, T = 5, no mask.", h, 8, 5, 5, seed=seed)
        mha_case(f"mha-h{h}-self-causal", "Self-attention with attn_mask = triu(ones, 1) (blocked) "
                 "= our causal true.", h, 8, 6, 6, attn_blocked=causal_blocked(6, 6, "top_left"),
                 mask={"causal": True}, seed=seed + 1)
        pad = [False, False, False, True, False, True]
        mha_case(f"mha-h{h}-self-key-padding", "Self-attention with key_padding_mask (True = padding) "
                 "on keys 3 and 5 = our key_valid = NOT.", h, 8, 6, 6, key_padding=pad,
                 mask={"key_valid": [not p for p in pad]}, seed=seed + 2)
        mha_case(f"mha-h{h}-cross-3x6", "Cross-attention, Tq = 3 queries over Tk = 6 keys/values of the "
                 "same width.", h, 8, 3, 6, cross=True, seed=seed + 3)
        mha_case(f"mha-h{h}-cross-kdim5-4x7", "Cross-attention with x_key_value of width 5 != embed_dim 8 "
                 "(kdim/vdim; q/k/v_proj_weight), Tq = 4, Tk = 7.", h, 8, 4, 7, kdim=5, seed=seed + 4)
        torch.manual_seed(seed + 5)
        allowed = random_allowed(5, 7, 0.5)
        pad = [False, True, False, False, False, False, True]
        blocked_rows = ~allowed | torch.tensor(pad).unsqueeze(0)
        for i in range(5):  # torch gives NaN rows when everything is blocked: keep one key per row
            if blocked_rows[i].all():
                allowed[i, 0] = True
        mha_case(f"mha-h{h}-cross-explicit-and-padding", "Cross-attention, Tq = 5, Tk = 7, an explicit "
                 "bool attn_mask (True = blocked) = our allowed = NOT, combined with key padding on keys 1 "
                 "and 6.", h, 8, 5, 7, cross=True, attn_blocked=~allowed, key_padding=pad,
                 mask={"allowed": bools(allowed), "key_valid": [not p for p in pad]}, seed=seed + 6)
    mha_case("mha-h4-e12-cross-bottom-right", "Cross-attention, Tq = 3, Tk = 5, attn_mask = triu(ones, "
             "diagonal = Tk - Tq + 1) = our causal bottom_right.", 4, 12, 3, 5, cross=True,
             attn_blocked=causal_blocked(3, 5, "bottom_right"), mask={"causal": "bottom_right"}, seed=351)
    mha_case("mha-h2-e6-cross-top-left-kdim4", "Cross-attention, Tq = 4, Tk = 6, kdim = vdim = 4, "
             "attn_mask = triu(ones, 1) (torch's is_causal alignment) = our causal top_left.", 2, 6, 4, 6, kdim=4,
             attn_blocked=causal_blocked(4, 6, "top_left"), mask={"causal": "top_left"}, seed=352)
    mha_case("mha-h4-e16-self-window", "Self-attention, T = 7, attn_mask = |i - j| > 1 (blocked) = our "
             "window 1.", 4, 16, 7, 7, attn_blocked=window_blocked(7, 7, 1), mask={"window": 1}, seed=353)
    mha_case("mha-h1-e3-single-query", "One query over 4 keys, embed_dim 3, one head.", 1, 3, 1, 4,
             cross=True, seed=354)


def mha_torch_ops_cases():
    """Multi-head attention written out in torch ops for what nn.MultiheadAttention cannot express:
    d_v != d_k per head, no output projection (output = concat), a custom scale."""
    for seed, (h, d_model, dk, dv, tq, tk, scale, with_o) in enumerate(
            [(2, 6, 3, 5, 4, 4, None, False), (3, 5, 2, 4, 3, 6, 0.7, True), (4, 8, 3, 1, 5, 5, None, True)],
            start=401):
        torch.manual_seed(seed)
        xq = randn(tq, d_model)
        xkv = xq if tq == tk else randn(tk, d_model)
        wq, wk = randn(d_model, h * dk, scale=0.6), randn(d_model, h * dk, scale=0.6)
        wv = randn(d_model, h * dv, scale=0.6)
        wo = randn(h * dv, d_model, scale=0.5) if with_o else None
        q, k, v = xq @ wq, xkv @ wk, xkv @ wv
        causal = tq == tk
        blocked = causal_blocked(tq, tk, "top_left") if causal else None
        outs, ws = [], []
        for i in range(h):
            o, w = sdpa(q[:, i * dk:(i + 1) * dk], k[:, i * dk:(i + 1) * dk], v[:, i * dv:(i + 1) * dv],
                        blocked, scale)
            outs.append(o)
            ws.append(w)
        concat = torch.cat(outs, dim=1)
        out = concat @ wo if with_o else concat
        case = {"op": "multi_head", "heads": h}
        if xkv is xq:
            case["x"] = rows(xq)
        else:
            case["x_query"], case["x_key_value"] = rows(xq), rows(xkv)
        case.update({"w_q": rows(wq), "w_k": rows(wk), "w_v": rows(wv)})
        if with_o:
            case["w_o"] = rows(wo)
        if causal:
            case["mask"] = {"causal": True}
        if scale is not None:
            case["scale"] = scale
        add(f"mh-ops-h{h}-dk{dk}-dv{dv}" + ("-causal" if causal else f"-cross-{tq}x{tk}"),
            f"Multi-head in torch ops: {h} heads, head i uses columns i*d_k..(i+1)*d_k-1 of X W_q; d_k = {dk}, "
            f"d_v = {dv}" + (", causal" if causal else f", Tq = {tq}, Tk = {tk}")
            + (f", scale {scale}" if scale is not None else ", default scale 1/sqrt(d_k) of the head")
            + ("" if with_o else ", no w_o (output = concat)") + f"; seed {seed}.",
            case, {"output": rows(out), "concat": rows(concat), "weights": [rows(w) for w in ws]})


# ---------------------------------------------------------------------------
# The lesson's own numbers, recomputed by torch.

def lesson_cases():
    # le chat noir: constructed alignment A (rows le/chat/noir over the/black/cat), values
    # the=(1,0), black=(0,1), cat=(2,0). Scores are log(A) so softmax returns A (scale 1).
    a = torch.tensor([[0.8, 0.1, 0.1], [0.1, 0.1, 0.8], [0.1, 0.8, 0.1]])
    q = torch.eye(3)
    k = torch.log(a).T.contiguous()
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]])
    attention_case("lesson-chat-context", "The lesson's alignment le/chat/noir -> the/black/cat: query = "
                   "identity, key = log(A)^T, scale 1, values (1,0),(0,1),(2,0). The chat row's context is "
                   "0.1*(1,0) + 0.1*(0,1) + 0.8*(2,0) = (1.7, 0.1).", q, k, v, scale=1.0)
    out, _ = sdpa(q, k, v, scale=1.0)
    assert abs(out[1, 0].item() - 1.7) < 1e-12 and abs(out[1, 1].item() - 0.1) < 1e-12

    q = torch.tensor([[1.0]])
    k = torch.log(torch.tensor([[0.99], [0.01]]))
    v = torch.tensor([[0.0, 0.0], [10.0, 20.0]])
    attention_case("lesson-attribution-counterexample", "The lesson's attribution counterexample: weight 0.99 "
                   "on the zero value and 0.01 on (10, 20) gives the output (0.1, 0.2): the heavily weighted "
                   "key contributes nothing. Scores are log-weights, scale 1.", q, k, v, scale=1.0)
    out, _ = sdpa(q, k, v, scale=1.0)
    assert abs(out[0, 0].item() - 0.1) < 1e-12 and abs(out[0, 1].item() - 0.2) < 1e-12

    torch.manual_seed(17)
    x = randn(6, 8)
    q, k, v = x @ randn(8, 8, scale=0.35), x @ randn(8, 8, scale=0.35), x @ randn(8, 8, scale=0.35)
    _, w = sdpa(q, k, v, causal_blocked(6, 6, "top_left"))
    assert w[0, 0].item() == 1.0 and (w.triu(1) == 0).all()
    attention_case("lesson-causal-first-row", "The lesson's causal check on 6 tokens: the upper triangle "
                   "of the weights is exactly 0 and row 0 puts weight 1 on key 0 (the first token can only "
                   "see itself).", q, k, v, {"causal": True}, causal_blocked(6, 6, "top_left"))


def main():
    plain_cases()
    self_attention_cases()
    mha_cases()
    mha_torch_ops_cases()
    lesson_cases()
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".json"):
            os.remove(os.path.join(OUT, old))
    for c in cases:
        with open(os.path.join(OUT, c["name"] + ".json"), "w") as f:
            json.dump(c, f, allow_nan=False)
            f.write("\n")
    print(f"wrote {len(cases)} fixtures to {os.path.relpath(OUT)} (torch {TORCH})", file=sys.stderr)


if __name__ == "__main__":
    main()
