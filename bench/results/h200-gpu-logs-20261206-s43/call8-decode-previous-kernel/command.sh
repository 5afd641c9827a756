#!/usr/bin/env bash
# Session 43, call 8 (prepared; refused for the budget, so the next session's, any GPU, ~130 s with its build):
# does the FA2 slow mode (calls 6-7: +3.5-4 us in our dense split decode cells only when FA2's replays are
# interleaved with ours) come from the kernel that ran last before our call's flush and sleep? Each sample: one
# replay of X, then peers.py's flushed sample of our call (256 MiB flush, 2 ms sleep, the graph replay timed),
# 30 samples, X in {nothing, FA2, cuDNN, our other cache layout, a 4096^2 bf16 GEMM, a softmax}, for dense and
# paged 16 at B 1 L 32k and B 4 L 8k. If X = FA2 alone brings the +4 us back, it is a state FA2's last kernel
# leaves on the SMs (a lead: the L1 / shared-memory carveout, which our 2-CTA-per-SM grid needs at its largest,
# where the unaffected cells run one CTA per SM); the GEMM and the softmax say whether a model step's own
# kernels do the same.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 100
PYTHONPATH=build-gpu/python:bench timeout 60 python3 - >"$L/probe.log" 2>&1 <<'PY'
import statistics

import torch
import peers

peers._HOST_LEAD_CYCLES = int(2000 * 1980)
for batch, length in ((1, 32768), (4, 8192)):
    q = torch.randn(batch, 1, 32, 128, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(batch, length, 8, 128, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    calls = {}
    for name in ("flashattn", "flashattn_paged16", "cudnn", "fa2"):
        run, _ = peers.make_decode_impl(name, q, k, v, 16 if name.endswith("16") else None)
        calls[name] = peers.timed_call(run, graph=True)
    # What a model step runs between attention calls: a cuBLAS GEMM (large shared memory) and a softmax.
    a = torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
    calls["gemm"] = peers.timed_call(lambda: a @ a, graph=True)
    calls["softmax"] = peers.timed_call(lambda: torch.softmax(a, dim=-1), graph=True)
    for ours in ("flashattn", "flashattn_paged16"):
        other = "flashattn_paged16" if ours == "flashattn" else "flashattn"
        for before in (None, "fa2", "cudnn", other, "gemm", "softmax"):
            times = []
            for _ in range(30):
                if before:
                    calls[before]()
                times.append(peers.flushed_sample_ms(calls[ours]) * 1e3)
            times.sort()
            print(f"B {batch} L {length} {ours:<18} after {str(before):<18} p10 {times[3]:6.1f}  median "
                  f"{statistics.median(times):6.1f}  p90 {times[27]:6.1f} us", flush=True)
PY
echo "probe rc=$? at $((SECONDS - device_t0)) s"
cat "$L/probe.log"
echo "done at $((SECONDS - device_t0)) s"
