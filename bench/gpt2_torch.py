#!/usr/bin/python3
"""torch's side of bench/gpt2_bench.cpp: GPT-2 small's 64-token forward in float32, one thread.

    /usr/bin/python3 bench/gpt2_torch.py MODEL.safetensors [--tokens 64] [--runs 5]

Reads the same safetensors file (transformers' layout, F32) with struct and numpy, runs
transformers' GPT-2 forward written with torch.nn.functional (Conv1D as addmm, gelu_new, the
causal mask, the head tied to wte) on the same tokens as gpt2_bench ((i·7919 + 13) mod vocab),
eager, torch.set_num_threads(1), and prints the median time and GFLOP/s with the same FLOP count,
beside torch's measured sgemm rate: Debian's torch calls whatever libblas.so.3 is installed, and
only an OpenBLAS one (apt-get install libopenblas0-pthread) makes it a fair peer; the reference
BLAS does ~2 GFLOP/s. Needs python3-torch and python3-numpy (installed by hand; CI does not run it).
"""

import argparse
import json
import math
import os
import struct
import time

# One thread for BLAS too: torch.set_num_threads does not reach OpenBLAS's own pthreads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn.functional as F


def load(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name, e in header.items():
            if name == "__metadata__" or e["dtype"] != "F32":
                continue
            b, end = e["data_offsets"]
            f.seek(base + b)
            a = np.frombuffer(f.read(end - b), dtype="<f4").reshape(e["shape"])
            out[name.removeprefix("transformer.")] = torch.from_numpy(a.copy())
    return out


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def forward(W, idx, n_head):
    T = idx.numel()
    C = W["wte.weight"].shape[1]
    L = 1 + max(int(k.split(".")[1]) for k in W if k.startswith("h."))
    x = W["wte.weight"][idx] + W["wpe.weight"][:T]
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    maps = []
    for l in range(L):
        p = f"h.{l}."
        h = F.layer_norm(x, (C,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], 1e-5)
        q, k, v = torch.addmm(W[p + "attn.c_attn.bias"], h, W[p + "attn.c_attn.weight"]).split(C, dim=1)
        q, k, v = (t.view(T, n_head, C // n_head).transpose(0, 1) for t in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(C // n_head)
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        maps.append(att)
        y = (att @ v).transpose(0, 1).reshape(T, C)
        x = x + torch.addmm(W[p + "attn.c_proj.bias"], y, W[p + "attn.c_proj.weight"])
        h = F.layer_norm(x, (C,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], 1e-5)
        x = x + torch.addmm(W[p + "mlp.c_proj.bias"], gelu_new(torch.addmm(W[p + "mlp.c_fc.bias"], h, W[p + "mlp.c_fc.weight"])),
                            W[p + "mlp.c_proj.weight"])
    x = F.layer_norm(x, (C,), W["ln_f.weight"], W["ln_f.bias"], 1e-5)
    return x @ W["wte.weight"].t(), maps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--heads", type=int, default=12)
    a = ap.parse_args()
    torch.set_num_threads(1)
    W = load(a.model)
    V, C = W["wte.weight"].shape
    L = 1 + max(int(k.split(".")[1]) for k in W if k.startswith("h."))
    M = W["h.0.mlp.c_fc.weight"].shape[1]
    T = a.tokens
    idx = torch.tensor([(i * 7919 + 13) % V for i in range(T)])
    flops = 2.0 * T * (3 * C * C + C * C + 2 * C * M) * L + 2.0 * T * C * V + 4.0 * (T * (T + 1) / 2) * C * L
    with torch.no_grad():
        forward(W, idx, a.heads)
        times = []
        for _ in range(a.runs):
            t = time.perf_counter()
            forward(W, idx, a.heads)
            times.append(time.perf_counter() - t)
        times.sort()
        med = times[len(times) // 2]
        m = torch.randn(1024, 1024)
        m @ m
        t = time.perf_counter()
        for _ in range(5):
            m @ m
        gemm = 5 * 2 * 1024 ** 3 / (time.perf_counter() - t) / 1e9
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "tokens": T,
                      "forward_s": med, "gflops": flops / med / 1e9, "sgemm_1024_gflops": gemm}))


if __name__ == "__main__":
    main()
