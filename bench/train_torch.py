#!/usr/bin/python3
"""PyTorch's side of the training benchmark (scripts/bench.sh --training).

Reads the dumps of `train_bench --dump DIR` (DIR/decoder.json, DIR/seq2seq.json,
DIR/seq2seq-bidirectional.json: a train_steps
request -- model, initial params keyed by state_dict name, the fixed batches, optimizer, clip --
plus the schedule and the C++ losses of the first steps), builds the same model from plain torch
modules, loads the parameters, and times the same Adam steps in float64 on one thread, eager:

    /usr/bin/python3 bench/train_torch.py --dump DIR [--model decoder|seq2seq|seq2seq-bidirectional|all]
                                      [--out FILE]

The models are written batched, as a PyTorch user would write them:
- decoder: nn.Embedding + learned positions, nn.MultiheadAttention(d, h, bias=False,
  batch_first=True) with a causal attn_mask (x = x + attn(x)), nn.Linear(d, V, bias=False);
  optional nn.Sequential(Linear, ReLU, Linear) and pre-norm nn.LayerNorm, as the C++ model has.
- seq2seq: nn.GRU(E, H, batch_first=True) over the padded source batch, s0 = the state at each
  row's last valid token; additive attention v.tanh(W_s s + W_h h_j + b) over the source with
  the padding masked (-inf), W_h h_j + b computed once per batch; nn.GRUCell(E + H, H) fed
  [tgt_embed(y_{t-1}); c_t] for the target steps (the only Python loop: the recurrence);
  out = nn.Linear(2H, Vt) over [s_t; c_t] of all steps at once. seq2seq-bidirectional: nn.GRU
  (bidirectional=True) over pack_padded_sequence, annotations [fwd; bwd] (2H), s0 = the backward
  state at position 0, decoder nn.GRUCell(E + 2H, H), out over [s_t; c_t] (3H).
- loss: F.cross_entropy(ignore_index=-100), mean over the counted targets.
Step i: zero_grad, loss on batches[i mod K], backward, clip_grad_norm_(clip), Adam.step.
The first step's loss must equal the C++ one (cpp_losses[0]) to 1e-9: proof that this is the
same model, parameters and data. Output: "BENCH {json}" per model, "BENCH_DONE".
"""

import argparse
import json
import math
import os
import sys
import time

# One thread for BLAS too: torch.set_num_threads does not reach OpenBLAS's own pthreads (Debian's
# torch calls whatever libblas.so.3 is installed; with libopenblas0-pthread it would use every core).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch
from torch import nn
import torch.nn.functional as F

# The parameter-holding modules are the fixture generator's, so that their state_dict names are
# the ones the C++ dump uses by construction (importing it sets float64 as the default dtype,
# as main() does).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "learn"))
from generate_learn_fixtures import Additive, Block  # noqa: E402

LOSS_TOL = 1e-9


def sinusoidal(t, d):
    pos = torch.arange(t, dtype=torch.float64)[:, None]
    two_i = torch.arange(d) - torch.arange(d) % 2
    ang = pos / (10000.0 ** (two_i.to(torch.float64) / d))[None, :]
    return torch.where(torch.arange(d)[None, :] % 2 == 0, torch.sin(ang), torch.cos(ang))


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, V = cfg["d_model"], cfg["vocab"]
        self.positions = cfg.get("positions", "learned")
        if self.positions == "rope":
            raise SystemExit("train_torch.py: RoPE is not in nn.MultiheadAttention (the benchmark uses learned positions)")
        self.ln = cfg.get("layer_norm", False)
        self.mlp = cfg.get("mlp", 0)
        self.embed = nn.Embedding(V, d)
        if self.positions == "learned":
            self.pos = nn.Embedding(cfg["context"], d)
        self.register_buffer("pe", sinusoidal(cfg["context"], d), persistent=False)
        self.layers = nn.ModuleList(Block(d, cfg["heads"], self.mlp, self.ln) for _ in range(cfg["layers"]))
        if self.ln:
            self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.unembed = nn.Linear(d, V, bias=False)
        self.masks = {}

    def causal(self, t):
        if t not in self.masks:  # True = may not attend (torch's convention)
            self.masks[t] = torch.ones(t, t, dtype=torch.bool).triu(1)
        return self.masks[t]

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.embed(tokens)
        if self.positions == "learned":
            x = x + self.pos.weight[:t]
        elif self.positions == "sinusoidal":
            x = x + self.pe[:t]
        mask = self.causal(t)
        for blk in self.layers:
            a_in = blk.ln1(x) if self.ln else x
            x = x + blk.attn(a_in, a_in, a_in, attn_mask=mask, need_weights=False)[0]
            if self.mlp > 0:
                x = x + blk.mlp(blk.ln2(x) if self.ln else x)
        if self.ln:
            x = self.ln_f(x)
        return self.unembed(x)

    def loss(self, b):
        logits = self(b["tokens"])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b["targets"].reshape(-1), ignore_index=-100)


class Seq2Seq(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        E, H = cfg["embed"], cfg["hidden"]
        self.additive = cfg["attention"] == "additive"
        self.bidirectional = cfg.get("encoder", "forward") == "bidirectional"
        C = 2 * H if self.bidirectional else H                        # annotation width
        self.src_embed = nn.Embedding(cfg["src_vocab"], E)
        self.tgt_embed = nn.Embedding(cfg["tgt_vocab"], E)
        self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=self.bidirectional)
        self.decoder = nn.GRUCell(E + C, H)
        if self.additive:
            self.attn = Additive(H, cfg["attn_dim"], C)
        self.out = nn.Linear(H + C, cfg["tgt_vocab"])

    def forward(self, source, lengths, target_in):
        b, S = source.shape
        if self.bidirectional:
            # packed, so that the reverse direction starts at each row's last valid token
            packed = nn.utils.rnn.pack_padded_sequence(self.src_embed(source), lengths, batch_first=True,
                                                       enforce_sorted=False)
            out, h_n = self.encoder(packed)
            hs, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=S)  # b, S, 2H
            s0, summary = h_n[1], torch.cat((h_n[0], h_n[1]), dim=-1)  # start from the backward state at 0
        else:
            hs, _ = self.encoder(self.src_embed(source))             # b, S, H; padding after each row's end
            s0 = hs[torch.arange(b), lengths - 1]                     # state at the last valid token
            summary = s0
        pad = torch.arange(S)[None, :] >= lengths[:, None]            # b, S: True on padding
        if self.additive:
            whh = self.attn.w_h(hs)                                   # b, S, A (once per batch)
        emb = self.tgt_embed(target_in)                               # b, U, E
        s, feats = s0, []
        for t in range(target_in.shape[1]):
            if self.additive:
                e = self.attn.v(torch.tanh(self.attn.w_s(s)[:, None, :] + whh)).squeeze(-1)
                a = torch.softmax(e.masked_fill(pad, float("-inf")), dim=-1)
                c = torch.bmm(a[:, None, :], hs).squeeze(1)           # b, H
            else:
                c = summary
            s = self.decoder(torch.cat((emb[:, t], c), dim=-1), s)
            feats.append(torch.cat((s, c), dim=-1))
        return self.out(torch.stack(feats, dim=1))                    # b, U, Vt

    def loss(self, b):
        logits = self(b["source"], b["source_lengths"], b["target_in"])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b["target_out"].reshape(-1), ignore_index=-100)


def load_batches(kind, batches):
    out = []
    for b in batches:
        if kind == "decoder":
            out.append({"tokens": torch.tensor(b["tokens"]), "targets": torch.tensor(b["targets"])})
        else:
            out.append({k: torch.tensor(b[k]) for k in ("source", "source_lengths", "target_in", "target_out")})
    return out


def run(path):
    with open(path) as f:
        doc = json.load(f)
    case, sched = doc["case"], doc["bench"]
    cfg = case["model"]
    model = Decoder(cfg) if cfg["kind"] == "decoder" else Seq2Seq(cfg)
    sd = model.state_dict()
    assert set(sd) == set(case["params"]), (sorted(sd), sorted(case["params"]))
    model.load_state_dict({k: torch.tensor(v, dtype=torch.float64) for k, v in case["params"].items()}, strict=True)
    model.train()
    batches = load_batches(cfg["kind"], case["batches"])
    o = case["optimizer"]
    opt = torch.optim.Adam(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"],
                           weight_decay=o["weight_decay"])
    clip = case["clip"]
    params = list(model.parameters())
    state = {"step": 0, "losses": [], "last": 0.0}
    n_check = len(doc["cpp_losses"])

    def step():
        opt.zero_grad()
        loss = model.loss(batches[state["step"] % len(batches)])
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        v = loss.item()
        if len(state["losses"]) < n_check:
            state["losses"].append(v)
        state["last"] = v
        state["step"] += 1

    # The C++ program's schedule: warm-up (steps and seconds), then rounds of N steps.
    t0 = time.perf_counter()
    min_step = math.inf
    while state["step"] < max(sched["warmup_steps"], n_check) or time.perf_counter() - t0 < sched["warmup_time"]:
        a = time.perf_counter()
        step()
        min_step = min(min_step, time.perf_counter() - a)
    warmup_steps, warmup_s = state["step"], time.perf_counter() - t0
    n = sched["steps"] or max(3, int(sched["round_time"] / max(min_step, 1e-6)))
    rates = []
    for _ in range(sched["rounds"]):
        a = time.perf_counter()
        for _ in range(n):
            step()
        rates.append(n / (time.perf_counter() - a))
    rates.sort()
    cpp = doc["cpp_losses"]
    diffs = [abs(a - b) for a, b in zip(state["losses"], cpp)]
    first_diff = diffs[0]
    return {
        "model": os.path.splitext(os.path.basename(path))[0], "config": cfg, "batch": len(case["batches"][0]["tokens" if cfg["kind"] == "decoder" else "source"]),
        "params": sum(p.numel() for p in params),
        "steps_per_s": rates[-1], "steps_per_s_median": rates[len(rates) // 2], "ms_per_step": 1000.0 / rates[-1],
        "rounds": len(rates), "steps_per_round": n, "warmup_steps": warmup_steps, "warmup_s": warmup_s,
        "losses": state["losses"], "last_loss": state["last"],
        "first_loss": state["losses"][0], "cpp_first_loss": cpp[0], "first_loss_diff": first_diff,
        "max_loss_diff_first_steps": max(diffs), "loss_check": "PASS" if first_diff <= LOSS_TOL else "FAIL",
        "loss_tol": LOSS_TOL,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", required=True, help="the folder train_bench --dump wrote")
    ap.add_argument("--model", default="all", choices=("all", "decoder", "seq2seq", "seq2seq-bidirectional"))
    ap.add_argument("--out", help="also write the BENCH lines here")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)
    env = {"program": "train_torch.py", "torch": torch.__version__, "threads": torch.get_num_threads(),
           "python": sys.version.split()[0], "dtype": "float64"}
    lines = ["BENCH_ENV " + json.dumps(env)]
    print(lines[-1], flush=True)
    ok = True
    for m in ("decoder", "seq2seq", "seq2seq-bidirectional"):
        if args.model not in ("all", m):
            continue
        if not os.path.exists(os.path.join(args.dump, m + ".json")) and args.model == "all":
            continue  # a dump from a train_bench without this model
        r = run(os.path.join(args.dump, m + ".json"))
        r["torch"] = torch.__version__
        lines.append("BENCH " + json.dumps(r))
        print(lines[-1], flush=True)
        print(f"train_torch: {m}: first-step loss torch {r['first_loss']:.17g} vs C++ {r['cpp_first_loss']:.17g}: "
              f"|diff| {r['first_loss_diff']:.3g} (max over the first {len(r['losses'])} steps "
              f"{r['max_loss_diff_first_steps']:.3g}) -> {r['loss_check']}; {r['steps_per_s']:.1f} steps/s",
              file=sys.stderr)
        ok = ok and r["loss_check"] == "PASS"
    lines.append("BENCH_DONE")
    print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
