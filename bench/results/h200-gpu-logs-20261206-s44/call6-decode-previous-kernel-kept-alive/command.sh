#!/usr/bin/env bash
# Session 44, call 6 (any GPU, ~80 s with its build): call 4 with each decode closure kept alive. Call 5 found
# every graph's replay equal to its eager call when the closures stay referenced; calls 2 and 4 kept only
# peers.timed_call's graph.replay, so the closure's tensors the graph reads (our cache_seqlens, the paged copies
# and block table) were freed and their memory reused: 11 us replays on garbage lengths, then the fault. The
# question stays call 2's: does one replay of X (nothing, FA2, cuDNN, our other cache layout, a GEMM, a softmax)
# just before our flushed sample bring back the FA2 slow mode (+3.5-4 us median in our dense split cells)?
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 100
PYTHONPATH=build-gpu/python:bench timeout 90 python3 - >"$L/probe.log" 2>&1 <<'PY'
import statistics

import torch
import flashattn
import peers

peers._HOST_LEAD_CYCLES = int(2000 * 1980)
for batch, length in ((1, 32768), (4, 8192)):
    torch.manual_seed(batch)
    q = torch.randn(batch, 1, 32, 128, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(batch, length, 8, 128, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    ref = peers.attention(q, k, v, False, torch.float32)
    base = peers.attention(q, k, v, False, torch.bfloat16)
    calls, keep = {}, []
    for name in ("flashattn", "flashattn_paged16", "cudnn", "fa2"):
        k_in, v_in, expanded = peers.kv_for(name, q, k, v, False, "auto")
        run, kernel = peers.make_decode_impl(name, q, k_in, v_in, 16 if name.endswith("16") else None)
        out = run()
        torch.cuda.synchronize()
        print(f"B {batch} L {length} {name}: {kernel()}, expanded {expanded}, check {peers.verify(out, ref, base)}",
              flush=True)
        calls[name] = peers.timed_call(run, graph=True)
        keep.append(run)  # the graph holds none of the closure's tensors (cache_seqlens, pages): they must outlive it
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
    del calls
    torch.cuda.synchronize()
PY
echo "probe rc=$? at $((SECONDS - device_t0)) s"
cat "$L/probe.log"
echo "done at $((SECONDS - device_t0)) s"
