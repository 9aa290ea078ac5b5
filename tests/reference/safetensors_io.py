"""The safetensors layout with struct and json (the `safetensors` package is not in Debian), for
the fixture generators of this folder: u64 header length (little endian), the JSON header padded
with spaces to a multiple of 8 bytes, then each tensor's raw little-endian data in order."""

import json
import struct

import numpy as np
import torch


def tensor_bytes(t, dtype):
    """`t`'s values as `dtype` ("F64", "F32", "F16", "BF16" or "BOOL") stores them."""
    t = t.detach()
    if dtype == "F64":
        return t.to(torch.float64).numpy().astype("<f8").tobytes()
    if dtype == "F32":
        return t.to(torch.float32).numpy().astype("<f4").tobytes()
    if dtype == "F16":
        return t.to(torch.float16).numpy().astype("<f2").tobytes()
    if dtype == "BF16":
        return t.to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tobytes()
    if dtype == "BOOL":
        return t.to(torch.bool).numpy().astype(np.uint8).tobytes()
    raise ValueError(dtype)


def save_safetensors(entries, path, metadata=None):
    """entries: [(name, tensor, dtype)] written in order as a safetensors file at `path`, with
    `metadata` (a dict of strings) as its __metadata__."""
    header, blobs, at = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t, dtype in entries:
        b = tensor_bytes(t, dtype)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
