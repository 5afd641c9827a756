#!/usr/bin/env bash
# Session 44, call 5 (any GPU, ~90 s with its build): which graph faults. Calls 2 and 4 (session 43's call 8
# probe) hit "an illegal memory access" at a flushed sample of our decode graph's replay, after graphs of our
# dense and paged decode, cuDNN's and PyTorch's FA2 (SDPA), a GEMM and a softmax were captured in one process
# (call 2 first read our B 1 L 32k replays as 11 us, a fifth of the grid's time; call 4 checked each call eagerly
# first and faulted at the first replay). Each scenario below runs in a process of its own: it captures the
# listed calls in graphs the way peers.timed_call does, replays each 20 times behind peers.py's flush, then
# compares each graph's last output with an eager call's, bitwise. A scenario that faults names the culprit by
# what it adds to the one before it.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 100
cat >"$L/scenario.py" <<'PY'
import statistics
import sys

import torch
import peers

peers._HOST_LEAD_CYCLES = int(2000 * 1980)
batch, length, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
torch.manual_seed(batch)
q = torch.randn(batch, 1, 32, 128, dtype=torch.bfloat16, device="cuda")
k, v = (torch.randn(batch, length, 8, 128, dtype=torch.bfloat16, device="cuda") for _ in range(2))
a = torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
graphs = {}
for name in names:
    if name == "gemm":
        run = lambda: a @ a
    elif name == "softmax":
        run = lambda: torch.softmax(a, dim=-1)
    else:
        k_in, v_in, _ = peers.kv_for(name, q, k, v, False, "auto")
        run, _ = peers.make_decode_impl(name, q, k_in, v_in, 16 if name.endswith("16") else None)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(stream):
        run()
        with torch.cuda.graph(graph, stream=stream):
            out = run()
    torch.cuda.synchronize()
    graphs[name] = (graph, out, run)
    print(f"  captured {name}", flush=True)
for name, (graph, out, run) in graphs.items():
    times = sorted(peers.flushed_sample_ms(graph.replay) * 1e3 for _ in range(20))
    same = torch.equal(out, run())
    print(f"  {name:<18} median {statistics.median(times):7.1f} us  p10 {times[2]:7.1f}  replay == eager: {same}",
          flush=True)
PY
for b_l in "1 32768" "4 8192"; do
  for names in flashattn flashattn,flashattn_paged16 flashattn,cudnn flashattn,fa2 flashattn,gemm,softmax \
    flashattn,flashattn_paged16,cudnn,fa2,gemm,softmax; do
    echo "B L $b_l: $names"
    # shellcheck disable=SC2086  # batch and length are two words
    PYTHONPATH=build-gpu/python:bench timeout 40 python3 "$L/scenario.py" $b_l "$names" 2>&1 |
      grep -E "^  |Error|error" | head -8
  done
done
echo "done at $((SECONDS - device_t0)) s"
