#!/usr/bin/env python3
"""Times flashattn and its peers on the same tensors, in one process, on one GPU.

Peers: PyTorch SDPA with the FLASH backend (FlashAttention-2, reported as ``fa2``), CUDNN (``cudnn``),
EFFICIENT (``efficient``), and FlexAttention (``flex``, compiled; opt-in with --impls since compiling
each shape costs tens of seconds). Every implementation's output is checked against a float32 reference
with the calibrated rule of DESIGN.md §3 before it is timed. Times are CUDA-event medians of >= 20
samples after warm-up, with the L2 flushed between samples; points under 50 us are timed by CUDA-graph
replay. The chip's ceilings (8192^3 bf16 matmul, 2 GiB device copy) are measured in the same run.

Default grid (the FlashAttention papers'): B*S = 16384 tokens, hidden 2048 (H = 2048 / D),
D in {64, 128, 256}, causal and full, S in {512 ... 16384}, bf16, layout (B, S, H, D).
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ROOT = pathlib.Path(__file__).resolve().parent.parent
SDPA_BACKENDS = {"fa2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                 "efficient": SDPBackend.EFFICIENT_ATTENTION}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--op", choices=["fwd", "bwd"], default="fwd")
    p.add_argument("--impls", default="flashattn,fa2,cudnn,efficient",
                   help="comma list of flashattn, fa2, cudnn, efficient, flex")
    p.add_argument("--path", choices=["auto", "hopper", "portable"], default="auto",
                   help="flashattn's CUDA kernel family")
    p.add_argument("--dtype", choices=list(DTYPES), default="bf16")
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    p.add_argument("--masks", default="full,causal")
    p.add_argument("--tokens", type=int, default=16384, help="B * S")
    p.add_argument("--hidden", type=int, default=2048, help="H * D")
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--json", type=pathlib.Path, help="write the results here")
    return p.parse_args()


def commit():
    if os.environ.get("FLASHATTN_COMMIT"):
        return os.environ["FLASHATTN_COMMIT"]
    marker = ROOT / ".commit"
    if marker.exists():
        return marker.read_text().strip()
    try:
        return subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def nvidia_smi(query):
    try:
        out = subprocess.check_output(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                                      text=True)
        return out.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return None


def environment():
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    return {"gpu": torch.cuda.get_device_name(), "driver": nvidia_smi("driver_version"),
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "torch": torch.__version__,
            "triton": triton_version, "commit": commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "sm_clock_mhz": None, "argv": sys.argv}


_L2_FLUSH = None


def flush_l2():
    global _L2_FLUSH
    if _L2_FLUSH is None:
        _L2_FLUSH = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    _L2_FLUSH.zero_()


def time_ms(fn, samples):
    """Median, p10, p90 of `samples` CUDA-event timings (graph replay when a call is under 50 us)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    call = fn
    if start.elapsed_time(end) < 0.05:
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            fn()
            with torch.cuda.graph(graph, stream=stream):
                fn()
        torch.cuda.synchronize()
        call = graph.replay
    times = []
    for _ in range(samples):
        flush_l2()
        start.record()
        call()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return statistics.median(times), times[len(times) // 10], times[(len(times) * 9) // 10]


def ceilings():
    a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    ms, _, _ = time_ms(lambda: torch.matmul(a, b), 20)
    src = torch.randn(2 ** 30 // 4, dtype=torch.float32, device="cuda")  # 1 GiB read + 1 GiB written
    dst = torch.empty_like(src)
    copy_ms, _, _ = time_ms(lambda: dst.copy_(src), 20)
    return {"bf16_matmul_tflops": 2 * 8192 ** 3 / ms / 1e9, "copy_gbps": 2 * src.numel() * 4 / copy_ms / 1e6}


def attention(q, k, v, causal, matmul_dtype):
    """Naive attention over (B, S, H, D) tensors, bottom-right causal, in query chunks so the scores
    never exceed ~1 GiB. matmul_dtype float32 gives the reference (inputs upcast); the input dtype gives
    the tolerance rule's base (matmuls in that dtype with fp32 accumulation, softmax in fp32, P rounded)."""
    batch, seqlen_q, heads, dim = q.shape
    seqlen_k, heads_kv = k.shape[1], k.shape[2]
    group = heads // heads_kv
    qt = q.transpose(1, 2).to(matmul_dtype)
    kt = k.transpose(1, 2).to(matmul_dtype).repeat_interleave(group, dim=1)
    vt = v.transpose(1, 2).to(matmul_dtype).repeat_interleave(group, dim=1)
    out = torch.empty(batch, heads, seqlen_q, v.shape[-1], dtype=torch.float32, device=q.device)
    chunk = max(1, (2 ** 28) // max(1, batch * heads * seqlen_k))
    scale = 1.0 / math.sqrt(dim)
    for start in range(0, seqlen_q, chunk):
        stop = min(seqlen_q, start + chunk)
        scores = torch.matmul(qt[:, :, start:stop], kt.transpose(-1, -2)).float() * scale
        if causal:
            rows = torch.arange(start, stop, device=q.device)[:, None] + (seqlen_k - seqlen_q)
            cols = torch.arange(seqlen_k, device=q.device)[None, :]
            scores.masked_fill_(cols > rows, float("-inf"))
        probs = torch.softmax(scores, dim=-1).nan_to_num_(0.0)
        out[:, :, start:stop] = torch.matmul(probs.to(matmul_dtype), vt).float()
    return out.transpose(1, 2)


def verify(out, ref, base):
    """DESIGN.md §3: max and mean |out - ref| within 2x the base's error plus twice fp32 noise."""
    err = (out.float() - ref).abs()
    base_err = (base.float() - ref).abs()
    atol = 2 * 2.0 ** -23 * ref.abs().max().item()
    max_err, mean_err = err.max().item(), err.mean().item()
    ok = (max_err <= 2 * base_err.max().item() + atol and mean_err <= 2 * base_err.mean().item() + atol
          and not torch.isnan(out).any().item())
    return ok, max_err


def make_impl(name, q, k, v, causal, path):
    """A zero-argument callable computing out in (B, S, H, D), and a function naming the kernel that ran."""
    if name == "flashattn":
        import flashattn

        def run():
            return flashattn.flash_attn_func(q, k, v, causal=causal, path=path)
        return run, lambda: flashattn.last_run()["kernel"]
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    if name in SDPA_BACKENDS:
        backend = SDPA_BACKENDS[name]

        def run():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal).transpose(1, 2)
        return run, lambda: f"sdpa_{backend.name.lower()}"
    if name == "flex":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        compiled = torch.compile(flex_attention, dynamic=False)
        block_mask = None
        if causal:
            block_mask = create_block_mask(lambda b, h, i, j: i >= j, None, None, q.shape[1], k.shape[1])

        def run():
            return compiled(qt, kt, vt, block_mask=block_mask).transpose(1, 2)
        return run, lambda: "flex_attention"
    raise ValueError(f"unknown implementation {name}")


def bench_point(args, impls, dtype, batch, seqlen, heads, dim, causal):
    torch.manual_seed(seqlen * 1000 + dim + causal)
    q, k, v = (torch.randn(batch, seqlen, heads, dim, dtype=dtype, device="cuda") for _ in range(3))
    ref = attention(q, k, v, causal, torch.float32)
    base = attention(q, k, v, causal, dtype)
    flops = 4 * batch * heads * seqlen * seqlen * dim * (0.5 if causal else 1.0)
    if args.op == "bwd":
        flops *= 2.5
    rows = []
    for name in impls:
        row = {"op": args.op, "impl": name, "dtype": args.dtype, "B": batch, "H": heads, "Hk": heads, "Sq": seqlen,
               "Sk": seqlen, "D": dim, "Dv": dim, "causal": causal, "window": [-1, 0 if causal else -1]}
        try:
            run, kernel = make_impl(name, q, k, v, causal, args.path)
            out = run()
            torch.cuda.synchronize()
            row["kernel"] = kernel()
            row["verified"], row["max_abs_err"] = verify(out, ref, base)
            del out
            if args.op == "bwd":
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
                run, _ = make_impl(name, qg, kg, vg, causal, args.path)
                out = run()
                grad = torch.randn_like(out)
                fn = lambda: torch.autograd.grad(out, (qg, kg, vg), grad, retain_graph=True)  # noqa: E731
            else:
                fn = run
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            fn()
            torch.cuda.synchronize()
            row["peak_mem_bytes"] = torch.cuda.max_memory_allocated() - before
            row["ms_median"], row["ms_p10"], row["ms_p90"] = time_ms(fn, args.samples)
            row["tflops"] = flops / row["ms_median"] / 1e9
            row["gbps"] = None
        except Exception as error:  # a failing peer is reported, not dropped
            row.update({"kernel": None, "verified": False, "error": f"{type(error).__name__}: {error}"[:400],
                        "ms_median": None, "tflops": None})
        rows.append(row)
    return rows


def main():
    args = parse_args()
    impls = args.impls.split(",")
    dtype = DTYPES[args.dtype]
    result = {"env": environment(), "ceilings": ceilings(), "rows": []}
    points = [(d, s, m) for d in map(int, args.head_dims.split(",")) for m in args.masks.split(",")
              for s in map(int, args.seqlens.split(","))]
    for index, (dim, seqlen, mask) in enumerate(points):
        batch, heads = max(1, args.tokens // seqlen), args.hidden // dim
        rows = bench_point(args, impls, dtype, batch, seqlen, heads, dim, mask == "causal")
        result["rows"].extend(rows)
        cells = "  ".join(f"{r['impl']} {r['tflops']:.0f}" if r.get("tflops") else f"{r['impl']} FAIL"
                          for r in rows)
        print(f"[{index + 1}/{len(points)}] D{dim} {mask:6} S{seqlen:5} B{batch} H{heads}: {cells} TFLOP/s",
              flush=True)
    result["env"]["sm_clock_mhz"] = nvidia_smi("clocks.sm")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    summarize(result, impls)


def summarize(result, impls):
    print(f"\nceilings: {result['ceilings']['bf16_matmul_tflops']:.0f} TFLOP/s bf16 matmul, "
          f"{result['ceilings']['copy_gbps']:.0f} GB/s copy")
    print("D    mask    S      " + "".join(f"{name:>11}" for name in impls) + "   flashattn/fa2  verified")
    keyed = {}
    for row in result["rows"]:
        keyed.setdefault((row["D"], row["causal"], row["Sq"]), {})[row["impl"]] = row
    for (dim, causal, seqlen), by_impl in keyed.items():
        cells = "".join(f"{by_impl[n]['tflops']:>11.0f}" if by_impl.get(n, {}).get("tflops") else f"{'–':>11}"
                        for n in impls)
        ours, fa2 = by_impl.get("flashattn", {}).get("tflops"), by_impl.get("fa2", {}).get("tflops")
        ratio = f"{ours / fa2:>14.2f}" if ours and fa2 else f"{'–':>14}"
        verified = all(r.get("verified") for r in by_impl.values())
        print(f"{dim:<5}{'causal' if causal else 'full':8}{seqlen:<7}{cells}{ratio}  {verified}")


if __name__ == "__main__":
    main()
