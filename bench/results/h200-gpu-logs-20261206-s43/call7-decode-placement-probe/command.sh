#!/usr/bin/env bash
# Session 43, call 7 (any GPU; the budget's last ~350 s): what FA2's presence changes for our dense split decode
# cells (calls 4 and 6: -5 to -6.5% at B 1 L 32k and B 4 L 8k, cuDNN and our paged rows within 1%). Two
# leads, each timed with peers.py's flushed graph replay (2 ms host lead, 30 samples): (1) the placement of the
# dense K / V: both carved out of one buffer at chosen offsets (0, 512 B, 4 KiB, 64 KiB, 1 MiB, and V 1 MiB +
# 512 B after K), the offset of K within its 2 MiB page printed; (2) FA2 having run: the same call timed
# before and after FA2 (PyTorch SDPA flash) ran and was captured in a graph on the same tensors, as peers.py
# does, with no interleaving.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit: the device time left less the start).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="kvcache_sm80" device_build "$L/build" 150
PYTHONPATH=build-gpu/python:bench timeout 120 python3 - >"$L/probe.log" 2>&1 <<'PY'
import torch
import flashattn
import peers

peers._HOST_LEAD_CYCLES = int(2000 * 1980)
MIB = 1 << 20


def carve(buf, offset, shape):
    count = 1
    for n in shape:
        count *= n
    return buf[offset:offset + 2 * count].view(torch.bfloat16).view(shape)


def us(fn):
    return peers.time_ms(fn, 30, graph=True)[0] * 1e3


for batch, length in ((1, 32768), (4, 8192)):
    shape = (batch, length, 8, 128)
    nbytes = 2 * batch * length * 8 * 128
    q = torch.randn(batch, 1, 32, 128, dtype=torch.bfloat16, device="cuda")
    seqlens = torch.full((batch,), length, dtype=torch.int32, device="cuda")
    buf = torch.empty(2 * nbytes + 8 * MIB, dtype=torch.uint8, device="cuda")
    for k_off, v_gap in ((0, 0), (512, 0), (4096, 0), (65536, 0), (MIB, 0), (0, MIB + 512)):
        k = carve(buf, k_off, shape)
        v = carve(buf, k_off + nbytes + v_gap, shape)
        k.normal_()
        v.normal_()
        run = lambda: flashattn.flash_attn_with_kvcache(q, k, v, cache_seqlens=seqlens)
        print(f"B {batch} L {length} k offset {k_off} (k mod 2 MiB {k.data_ptr() % (2 * MIB)}), v gap {v_gap}: "
              f"{us(run):.1f} us, splits {flashattn.last_run()['num_splits']}", flush=True)
    k = torch.randn(shape, dtype=torch.bfloat16, device="cuda")
    v = torch.randn(shape, dtype=torch.bfloat16, device="cuda")
    run = lambda: flashattn.flash_attn_with_kvcache(q, k, v, cache_seqlens=seqlens)
    before = us(run)
    fa2, _ = peers.make_decode_impl("fa2", q, k, v)
    fa2_us = us(fa2)
    after = us(run)
    print(f"B {batch} L {length} fresh tensors: before FA2 {before:.1f} us, FA2 {fa2_us:.1f} us, after FA2 "
          f"{after:.1f} us", flush=True)
    del buf, k, v
PY
echo "probe rc=$? at $((SECONDS - device_t0)) s"
cat "$L/probe.log"
echo "done at $((SECONDS - device_t0)) s"
