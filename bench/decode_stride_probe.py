"""Is a dense-cache decode read at >= 2 GiB slowed by the sequences' power-of-two stride (docs/PERF.md,
decode session 11, the open question)? cuDNN (PyTorch SDPA) decoding one token over a dense (B, L, 8, 128)
bf16 cache, against the same call over the first L rows of a cache allocated with L + 64 rows per sequence
(a stride that is not a power of two). L2 flushed by reading 256 MiB before each sample; median of 20.
Pure PyTorch: no build needed.

    python3 bench/decode_stride_probe.py OUT.json"""
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def median_ms(fn, samples=20):
    flush = torch.empty(2**28, dtype=torch.uint8, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    times = []
    for _ in range(samples):
        flush.max()
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


rows = []
for batch, length in ((64, 32768), (16, 131072), (64, 8192)):
    for pad in (0, 64):
        torch.manual_seed(0)
        q = torch.randn(batch, 32, 1, 128, dtype=torch.bfloat16, device="cuda")
        k = torch.randn(batch, length + pad, 8, 128, dtype=torch.bfloat16, device="cuda")[:, :length]
        v = torch.randn(batch, length + pad, 8, 128, dtype=torch.bfloat16, device="cuda")[:, :length]
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ms = median_ms(lambda: F.scaled_dot_product_attention(q, k.transpose(1, 2), v.transpose(1, 2),
                                                                  enable_gqa=True))
        row = {"B": batch, "L": length, "pad_rows": pad, "us": ms * 1e3,
               "gbps": 2 * batch * length * 8 * 128 * 2 / (ms * 1e-3) / 1e9}
        rows.append(row)
        print(json.dumps(row), flush=True)
        del q, k, v
        torch.cuda.empty_cache()
json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows},
          open(sys.argv[1], "w"), indent=1)
