#!/usr/bin/env python3
"""Times flashattn and its peers on the same tensors, in one process, on one GPU.

Peers: PyTorch SDPA with the FLASH backend (FlashAttention-2, reported as ``fa2``), CUDNN (``cudnn``),
EFFICIENT (``efficient``), and FlexAttention (``flex``, compiled; opt-in with --impls since compiling
each shape costs tens of seconds). Every implementation's output is checked against a float32 reference
with the calibrated rule of DESIGN.md §3 before it is timed; above Sq = 8192 the O(Sq * Sk) reference is
computed for sampled query rows only (the first 128, 128 in the middle and the last 256, which under a
causal mask see every key) and only those rows are compared. Times are CUDA-event medians of >= 20
samples after warm-up, with the L2 flushed between samples and then a 2 ms sleep kernel before the start
event (--host-lead-us), so that what is timed is the GPU's work on the call, not the host's time to enqueue
it nor the flush's write-back; points under 50 us are timed by CUDA-graph replay. The implementations of a
point are set up and verified first, then timed in interleaved rounds, each round starting with the next
implementation (time_interleaved_ms), so that none always runs first after the reference; each row's
"clocks" gives the SM clock range, peak power and power-capped share sampled while its point's rounds ran
(bench/clock_log.py: long runs here hold the SM clock under the power cap). The chip's
ceilings (8192^3 bf16 matmul, 2 GiB device copy) and the harness's floor for a short call (a 4-byte kernel
replayed from a graph after the L2 flush) are measured in the same run.

Grids (--grid), all in --dtype (bf16 by default), layout (B, S, H, D), Sq = Sk = S:
  paper     the FlashAttention papers': B*S = 16384 tokens, hidden 2048 (H = 2048 / D), D in {64, 128, 256},
            causal and full, S in {512 ... 16384}; --tokens, --hidden, --head-dims, --masks, --seqlens set it.
            A --head-dims entry D:Dv gives v and out a head dim of their own (e.g. 192:128, multi-head latent
            attention's prefill), with H = hidden / Dv.
--op bwd times dq, dk, dv by autograd and, up to S = 4096, checks them against the float32 reference's
gradients with the same rule ("grads_verified"); "flashattn_det" is flashattn with deterministic=True (dQ
added in key-block order), for the cost of bitwise-reproducible gradients in the same run.
  gqa-long  long-context grouped-query attention: Hq = 32 query heads sharing Hkv = 8 K/V heads, D = 128,
            causal, (B, S) in (8, 4096), (1, 8192), (1, 16384) ... (1, 131072); --seqlens narrows it.
  gqa-short few query rows over many keys (chunked prefill, speculative decoding), where the query heads of
            a K/V head share tiles (GQA packing): Hq = 32, Hkv = 8, D = 128, B = 8, no mask, Sq in {1, 16, 64,
            200} x Sk in {1024, 8192}; --seqlens narrows Sk. (No causal mask: the SDPA peers align theirs at the
            top left, DESIGN.md's at the bottom right, which differ when Sq < Sk.)
  decode    (--op decode) one new query token over a KV cache: Hq = 32, Hkv = 8, D = 128 (--decode-head-dim:
            e.g. 64, the e2e serving model's), B in {1, 4, 16, 64}
            x cache length L in {1024, 8192, 32768, 131072} (B * L <= 64 * 32768); flashattn runs a dense
            cache ("flashattn") and a paged one with 16-token pages ("flashattn_paged16"), the SDPA peers
            the dense (B, Hkv, L, D) K/V with enable_gqa. Timed by CUDA-graph replay (kernel time); the
            rows report GB/s of K and V read (2 * B * L * Hkv * D * element size over the time) and, beside
            the flushed step's time, the same graph replayed back to back ("us_graph_back_to_back"): for a
            cache well past the L2 the two agree within a few percent, so a flushed time well above it there
            is the measurement's state, not the kernel (docs/PERF.md, decode session 37).
FLOPs count the query heads, 2*B*Hq*S*S*(D + Dv) (halved when causal; 4*B*Hq*S*S*D when Dv = D): grouping
K/V heads does not change them.
The SDPA and flex peers get grouped K/V with enable_gqa=True; a peer that rejects it is timed on K/V
repeated to the query heads beforehand, and its row says "kv_expanded": true.
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
import warnings
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from clock_log import ClockLog

ROOT = pathlib.Path(__file__).resolve().parent.parent
SDPA_BACKENDS = {"fa2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                 "efficient": SDPBackend.EFFICIENT_ATTENTION}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
PAPER_SEQLENS = "512,1024,2048,4096,8192,16384"
GQA_LONG_POINTS = ((8, 4096), (1, 8192), (1, 16384), (1, 32768), (1, 65536), (1, 131072))  # (B, S)
GQA_LONG_HEADS, GQA_LONG_HEADS_KV, GQA_LONG_DIM = 32, 8, 128
# Longest Sq whose every query row is checked: beyond it the float32 reference, O(Sq * Sk) work that would
# outlast the timed runs, covers the rows of sampled_rows() only.
FULL_VERIFY_MAX_SEQLEN = 8192
REFERENCE_CHUNK_SCORES = 2 ** 28  # float32 scores the reference holds at once: 1 GiB


class Point(NamedTuple):
    """One problem of a grid: q is (batch, query_len, heads, dim), k is (batch, seqlen, heads_kv, dim), v is
    (batch, seqlen, heads_kv, value_dim)."""
    batch: int
    seqlen: int
    heads: int
    heads_kv: int
    dim: int
    causal: bool
    dim_v: int = 0  # 0: the same as dim
    seqlen_q: int = 0  # 0: the same as seqlen

    @property
    def value_dim(self):
        return self.dim_v or self.dim

    @property
    def query_len(self):
        return self.seqlen_q or self.seqlen

    @property
    def dims_label(self):
        return f"{self.dim}" if self.value_dim == self.dim else f"{self.dim}/{self.value_dim}"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--op", choices=["fwd", "bwd", "decode"], default="fwd")
    p.add_argument("--impls", default="flashattn,fa2,cudnn,efficient",
                   help="comma list of flashattn, flashattn_det (deterministic=True), fa2, cudnn, efficient, flex")
    p.add_argument("--path", choices=["auto", "hopper", "portable"], default="auto",
                   help="flashattn's CUDA kernel family")
    p.add_argument("--dtype", choices=list(DTYPES), default="bf16")
    p.add_argument("--grid", choices=list(GRIDS), default="paper", help="the problems to run (see above)")
    p.add_argument("--head-dims", default="64,128,256", help="paper grid; D:Dv for a value head dim of its own")
    p.add_argument("--seqlens", help=f"paper grid (default {PAPER_SEQLENS}); narrows gqa-long to these S")
    p.add_argument("--masks", default="full,causal", help="paper grid")
    p.add_argument("--decode-head-dim", type=int, default=GQA_LONG_DIM, help="decode grid")
    p.add_argument("--tokens", type=int, default=16384, help="B * S, paper grid")
    p.add_argument("--hidden", type=int, default=2048, help="H * D, paper grid")
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--l2-flush", choices=L2_FLUSH_MODES, default="zero",
                   help="how the L2 is flushed before each sample (flush_l2)")
    p.add_argument("--host-lead-us", type=float, default=2000.0,
                   help="keep the GPU busy this long (a sleep kernel) after the L2 flush and before each timed "
                        "call, so that the host's time to enqueue the call is not timed (0: it is, as in "
                        "every result before 2026-12-03's session 14)")
    p.add_argument("--json", type=pathlib.Path, help="write the results here")
    return p.parse_args()


def ints(csv):
    return [int(item) for item in csv.split(",")]


def head_dims(csv):
    """(D, Dv) of each entry of --head-dims: "128" is (128, 128), "192:128" is (192, 128)."""
    pairs = []
    for item in csv.split(","):
        dim, _, dim_v = item.partition(":")
        pairs.append((int(dim), int(dim_v or dim)))
    return pairs


def paper_grid(args):
    """B * S = --tokens, H * Dv = --hidden, K/V heads = query heads."""
    return [Point(max(1, args.tokens // seqlen), seqlen, args.hidden // dim_v, args.hidden // dim_v, dim,
                  mask == "causal", 0 if dim_v == dim else dim_v)
            for dim, dim_v in head_dims(args.head_dims) for mask in args.masks.split(",")
            for seqlen in ints(args.seqlens or PAPER_SEQLENS)]


def gqa_long_grid(args):
    """GQA_LONG_POINTS, causal, keeping only the S listed in --seqlens when it is given."""
    wanted = set(ints(args.seqlens)) if args.seqlens else None
    return [Point(batch, seqlen, GQA_LONG_HEADS, GQA_LONG_HEADS_KV, GQA_LONG_DIM, True)
            for batch, seqlen in GQA_LONG_POINTS if wanted is None or seqlen in wanted]


GQA_SHORT_BATCH, GQA_SHORT_QUERIES, GQA_SHORT_KEYS = 8, (1, 16, 64, 200), (1024, 8192)


def gqa_short_grid(args):
    """GQA 32/8, D = 128, B = 8, no mask: Sq in GQA_SHORT_QUERIES x Sk in GQA_SHORT_KEYS (--seqlens: Sk)."""
    wanted = set(ints(args.seqlens)) if args.seqlens else None
    return [Point(GQA_SHORT_BATCH, keys, GQA_LONG_HEADS, GQA_LONG_HEADS_KV, GQA_LONG_DIM, False, seqlen_q=queries)
            for keys in GQA_SHORT_KEYS for queries in GQA_SHORT_QUERIES if wanted is None or keys in wanted]


DECODE_BATCHES, DECODE_LENGTHS = (1, 4, 16, 64), (1024, 8192, 32768, 131072)
DECODE_PAGE_SIZE = 16


def decode_grid(args):
    """One query token per sequence over a cache of L tokens (Point.seqlen = L), GQA 32/8, D = 128."""
    wanted = set(ints(args.seqlens)) if args.seqlens else None
    return [Point(batch, length, GQA_LONG_HEADS, GQA_LONG_HEADS_KV, args.decode_head_dim, False)
            for batch in DECODE_BATCHES for length in DECODE_LENGTHS
            if batch * length <= 64 * 32768 and (wanted is None or length in wanted)]


GRIDS = {"paper": paper_grid, "gqa-long": gqa_long_grid, "gqa-short": gqa_short_grid, "decode": decode_grid}


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


_CLOCK_LOG = None  # the run's ClockLog (main): each point's timed rounds get its clock summary
_L2_FLUSH = None
L2_FLUSH_MODES = ("zero", "read")
_L2_FLUSH_MODE = "zero"
_HOST_LEAD_CYCLES = 0


def flush_l2():
    """Evicts the timed call's inputs from L2 by passing 256 MiB through it (H100/H200 L2: 50/60 MB). "zero"
    writes the buffer, which leaves L2 full of dirty lines that the timed call's reads then evict and write
    back; "read" reads it (a sum), leaving clean lines. --l2-flush chooses; "zero" is what every result
    before 2026-12-03 used."""
    global _L2_FLUSH
    if _L2_FLUSH is None:
        _L2_FLUSH = torch.zeros(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    if _L2_FLUSH_MODE == "zero":
        _L2_FLUSH.zero_()
    else:
        _L2_FLUSH.sum()


def timed_call(fn, graph=False):
    """Warms `fn` up and returns what the samples time: `fn` itself, or the replay of a CUDA graph of it when
    one call takes under 50 us (or always with `graph`)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    if not graph and start.elapsed_time(end) >= 0.05:
        return fn
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()
        with torch.cuda.graph(graph, stream=stream):
            fn()
    torch.cuda.synchronize()
    return graph.replay


def flushed_sample_ms(call):
    """One CUDA-event timing of `call` after an L2 flush and the host lead."""
    flush_l2()
    # The events time the GPU from `start` on: when the host takes longer to enqueue the call than the flush
    # takes to run, the GPU idles inside the timed span. A sleep enqueued before `start` gives the host that
    # lead (--host-lead-us).
    if _HOST_LEAD_CYCLES:
        torch.cuda._sleep(_HOST_LEAD_CYCLES)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def median_p10_p90(times):
    times = sorted(times)
    return statistics.median(times), times[len(times) // 10], times[(len(times) * 9) // 10]


def time_ms(fn, samples, graph=False):
    """Median, p10, p90 of `samples` flushed timings of `fn` (timed_call decides on graph replay)."""
    call = timed_call(fn, graph)
    return median_p10_p90([flushed_sample_ms(call) for _ in range(samples)])


def time_interleaved_ms(calls, samples):
    """time_ms for the implementations of one point together: round k times every call of `calls` (from
    timed_call) once, starting with call k mod n, so that each implementation takes each place in a round
    equally often and none is always the first timed after the point's reference. (Timed one after another,
    the first implementation of a decode point read 6-9% slow at B 64 L 1k, whichever it was: docs/PERF.md,
    decode session 38.) Returns, per call, (median, p10, p90) or the exception it raised; a call that raises
    leaves the rounds."""
    times = [[] for _ in calls]
    failed = {}
    for k in range(samples):
        for j in range(len(calls)):
            i = (k + j) % len(calls)
            if i in failed:
                continue
            try:
                times[i].append(flushed_sample_ms(calls[i]))
            except Exception as error:  # reported in that implementation's row
                failed[i] = error
    return [failed[i] if i in failed else median_p10_p90(times[i]) for i in range(len(calls))]


def failed_row(row, error):
    """`row` marked as failed by `error` (a failing implementation is reported, not dropped)."""
    row.update({"kernel": None, "verified": False, "error": f"{type(error).__name__}: {error}"[:400],
                "ms_median": None, "gbps": None, "tflops": None})
    return row


def time_rows(timed, samples, graph=False):
    """Times the prepared (row, fn) pairs of one point in interleaved rounds (time_interleaved_ms) and returns
    each row with ms_median / ms_p10 / ms_p90, or marked failed, and with "clocks": the SM clock, power and
    power-cap share sampled while the rounds ran (clock_log.py; shared by the point's implementations, which
    the rounds interleave). A fn whose warm-up raises fails alone."""
    start = ClockLog.now()
    calls = []
    for row, fn in timed:
        try:
            calls.append(timed_call(fn, graph))
        except Exception as error:
            failed_row(row, error)
            calls.append(None)
    live = [i for i, call in enumerate(calls) if call is not None]
    for i, result in zip(live, time_interleaved_ms([calls[i] for i in live], samples)):
        row = timed[i][0]
        if isinstance(result, Exception):
            failed_row(row, result)
        else:
            row["ms_median"], row["ms_p10"], row["ms_p90"] = result
    clocks = _CLOCK_LOG.window(start, ClockLog.now()) if _CLOCK_LOG else None
    for row, _ in timed:
        row["clocks"] = clocks
    return [row for row, _ in timed]


def graph_back_to_back_us(call, count):
    """Microseconds per call of `count` replays of a CUDA graph of `call`, back to back: no flush and no host
    lead between them, so the GPU's state (L2, clocks) is the previous replay's. Decode rows report it beside
    time_ms's flushed step, so that a flushed timing far above it for a cache past the L2 shows in the row."""
    graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(stream):
        call()
        with torch.cuda.graph(graph, stream=stream):
            call()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        graph.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / count


def ceilings():
    a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    ms, _, _ = time_ms(lambda: torch.matmul(a, b), 20)
    src = torch.randn(2 ** 30 // 4, dtype=torch.float32, device="cuda")  # 1 GiB read + 1 GiB written
    dst = torch.empty_like(src)
    copy_ms, _, _ = time_ms(lambda: dst.copy_(src), 20)
    # The harness's floor for a short call: one 4-byte kernel replayed from a graph after the L2 flush, timed
    # as every decode cell is (what no decode kernel can beat in these rows).
    tiny = torch.zeros(1, dtype=torch.float32, device="cuda")
    floor_ms, _, _ = time_ms(lambda: tiny.add_(1), 50, graph=True)
    return {"bf16_matmul_tflops": 2 * 8192 ** 3 / ms / 1e9, "copy_gbps": 2 * src.numel() * 4 / copy_ms / 1e6,
            "graph_call_floor_us": floor_ms * 1e3}


def sampled_rows(seqlen_q):
    """The query-row ranges [start, stop) verified: None (all rows) up to FULL_VERIFY_MAX_SEQLEN, beyond it
    the first 128 rows, 128 in the middle and the last 256 (under a causal mask those see every key)."""
    if seqlen_q <= FULL_VERIFY_MAX_SEQLEN:
        return None
    middle = seqlen_q // 2 - 64
    return [(0, 128), (middle, middle + 128), (seqlen_q - 256, seqlen_q)]


def rows_label(rows):
    return "all" if rows is None else "sampled: " + " ".join(f"[{start},{stop})" for start, stop in rows)


def take_rows(x, rows):
    """The query rows `rows` of a (B, S, H, D) tensor, concatenated in order."""
    return x if rows is None else torch.cat([x[:, start:stop] for start, stop in rows], dim=1)


def attention(q, k, v, causal, matmul_dtype, rows=None):
    """Naive attention over (B, S, H, D) tensors, bottom-right causal, for the query rows in `rows` (a list
    of [start, stop) ranges; all rows when None), returned as take_rows() of the full output would be.
    matmul_dtype float32 gives the reference (inputs upcast); the input dtype gives the tolerance rule's
    base (matmuls in that dtype with fp32 accumulation, softmax in fp32, P rounded). Query chunks keep the
    scores within REFERENCE_CHUNK_SCORES."""
    batch, seqlen_q, heads = q.shape[:3]
    seqlen_k = k.shape[1]
    kt = k.transpose(1, 2).to(matmul_dtype, memory_format=torch.contiguous_format)  # (B, Hkv, Sk, D)
    vt = v.transpose(1, 2).to(matmul_dtype, memory_format=torch.contiguous_format)  # (B, Hkv, Sk, Dv)
    chunk = max(1, REFERENCE_CHUNK_SCORES // (batch * heads * seqlen_k))
    return torch.cat([attention_rows(q, kt, vt, start, min(end, start + chunk), causal)
                      for begin, end in rows or [(0, seqlen_q)] for start in range(begin, end, chunk)], dim=1)


def attention_rows(q, kt, vt, start, stop, causal):
    """Output rows [start, stop) of attention(), float32 (B, stop - start, H, Dv). The `group` query heads
    that share K/V head h // group are stacked along the rows, so one matmul serves them and K/V are never
    repeated; row i sits at key column i + Sk - Sq for the causal mask (bottom-right alignment)."""
    batch, seqlen_q, heads, dim = q.shape
    heads_kv, seqlen_k = kt.shape[1], kt.shape[2]
    group, count = heads // heads_kv, stop - start
    qg = (q[:, start:stop].to(kt.dtype).view(batch, count, heads_kv, group, dim).permute(0, 2, 3, 1, 4)
          .reshape(batch, heads_kv, group * count, dim))
    scores = torch.matmul(qg, kt.transpose(-1, -2)).float() * (1.0 / math.sqrt(dim))
    scores = scores.view(batch, heads_kv, group, count, seqlen_k)
    if causal:
        rows = torch.arange(start, stop, device=q.device)[:, None] + (seqlen_k - seqlen_q)
        cols = torch.arange(seqlen_k, device=q.device)[None, :]
        scores = scores.masked_fill(cols > rows, float("-inf"))  # out of place: differentiable
    probs = torch.softmax(scores, dim=-1).nan_to_num(0.0).view(batch, heads_kv, group * count, seqlen_k)
    out = torch.matmul(probs.to(kt.dtype), vt).float()  # (B, Hkv, group * count, Dv)
    return out.view(batch, heads_kv, group, count, -1).permute(0, 3, 1, 2, 4).reshape(batch, count, heads, -1)


def verify(out, ref, base):
    """DESIGN.md §3: max and mean |out - ref| within 2x the base's error plus twice fp32 noise."""
    err = (out.float() - ref).abs()
    base_err = (base.float() - ref).abs()
    atol = 2 * 2.0 ** -23 * ref.abs().max().item()
    max_err, mean_err = err.max().item(), err.mean().item()
    ok = (max_err <= 2 * base_err.max().item() + atol and mean_err <= 2 * base_err.mean().item() + atol
          and not torch.isnan(out).any().item())
    return ok, max_err


# Longest S whose gradients are checked: the float32 reference backward holds B * H * S^2 scores.
GRAD_VERIFY_MAX_SEQLEN = 4096


def reference_grads(q, k, v, causal, grad, matmul_dtype):
    """dq, dk, dv of attention() (all rows) for the output gradient `grad`, by autograd."""
    leaves = [x.detach().requires_grad_() for x in (q, k, v)]
    out = attention(*leaves, causal, matmul_dtype)
    return torch.autograd.grad(out, leaves, grad.float())


def backward_call(out, inputs, grad):
    """A zero-argument callable computing the gradients of `out` with respect to `inputs` for `grad`, its
    graph kept for the next call. Its own function, so that it holds these tensors: a lambda in
    bench_point's loop would see the loop's last implementation's when time_rows calls it after the loop."""
    return lambda: torch.autograd.grad(out, inputs, grad, retain_graph=True)


def verify_grads(grads, q, k, v, causal, grad):
    """verify() of each of dq, dk, dv against the float32 reference, with the base in q's dtype."""
    refs = reference_grads(q, k, v, causal, grad, torch.float32)
    bases = reference_grads(q, k, v, causal, grad, q.dtype)
    results = [verify(mine, ref, base) for mine, ref, base in zip(grads, refs, bases)]
    return all(ok for ok, _ in results), max(err for _, err in results)


def make_impl(name, q, k, v, causal, path):
    """A zero-argument callable computing out in (B, S, H, D), and a function naming the kernel that ran."""
    if name in ("flashattn", "flashattn_det"):
        import flashattn
        deterministic = name == "flashattn_det"

        def run():
            return flashattn.flash_attn_func(q, k, v, causal=causal, deterministic=deterministic, path=path)
        return run, lambda: flashattn.last_run()["kernel"]
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    gqa = k.shape[2] != q.shape[2]
    if name in SDPA_BACKENDS:
        backend = SDPA_BACKENDS[name]

        def run():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, enable_gqa=gqa).transpose(1, 2)
        return run, lambda: f"sdpa_{backend.name.lower()}"
    if name == "flex":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        compiled = torch.compile(flex_attention, dynamic=False)
        block_mask = None
        if causal:  # compiled, so the mask is not evaluated densely: at S = 131072 that needs 128 GiB
            block_mask = create_block_mask(lambda b, h, i, j: i >= j, None, None, q.shape[1], k.shape[1],
                                           _compile=True)

        def run():
            return compiled(qt, kt, vt, block_mask=block_mask, enable_gqa=gqa).transpose(1, 2)
        return run, lambda: "flex_attention"
    raise ValueError(f"unknown implementation {name}")


def kv_for(name, q, k, v, causal, path):
    """The K/V that `name` is timed on and whether they are expanded: a peer that rejects grouped K/V heads
    (RuntimeError, e.g. "No available kernel") gets them repeated to the query heads, here, before timing."""
    group = q.shape[2] // k.shape[2]
    if group == 1 or name.startswith("flashattn"):
        return k, v, False
    run, _ = make_impl(name, q, k, v, causal, path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SDPA warns each reason it refuses; the row records the outcome
            run()
        return k, v, False
    except torch.OutOfMemoryError:
        raise
    except RuntimeError:
        return k.repeat_interleave(group, dim=2), v.repeat_interleave(group, dim=2), True


def bench_point(args, impls, dtype, point):
    batch, seqlen, heads, heads_kv, dim, causal = point[:6]
    dim_v, seqlen_q = point.value_dim, point.query_len
    torch.manual_seed(seqlen * 1000 + dim + causal + (seqlen_q if seqlen_q != seqlen else 0) * 7)
    q = torch.randn(batch, seqlen_q, heads, dim, dtype=dtype, device="cuda")
    k = torch.randn(batch, seqlen, heads_kv, dim, dtype=dtype, device="cuda")
    v = torch.randn(batch, seqlen, heads_kv, dim_v, dtype=dtype, device="cuda")
    checked = sampled_rows(seqlen_q)
    ref = attention(q, k, v, causal, torch.float32, checked)
    base = attention(q, k, v, causal, dtype, checked)
    flops = 2 * batch * heads * seqlen_q * seqlen * (dim + dim_v) * (0.5 if causal else 1.0)
    if args.op == "bwd":
        flops *= 2.5
    rows, timed = [], []  # every implementation's row; (row, fn) of those that ran and verified
    for name in impls:
        row = {"op": args.op, "impl": name, "dtype": args.dtype, "B": batch, "H": heads, "Hk": heads_kv, "Sq": seqlen_q,
               "Sk": seqlen, "D": dim, "Dv": dim_v, "causal": causal, "window": [-1, 0 if causal else -1],
               "kv_expanded": False, "verified_rows": rows_label(checked)}
        try:
            k_in, v_in, row["kv_expanded"] = kv_for(name, q, k, v, causal, args.path)
            run, kernel = make_impl(name, q, k_in, v_in, causal, args.path)
            out = run()
            torch.cuda.synchronize()
            row["kernel"] = kernel()
            if name.startswith("flashattn"):
                import flashattn
                ran = flashattn.last_run()
                # What the call that produced `out` launched, as RunInfo says: its tile, its grid (CTAs, cluster
                # size, decode splits), GQA packing (heads per tile) and the forward's split tail (tiles two
                # CTAs shared).
                for key in ("block_m", "block_n", "num_ctas", "cluster_size", "num_splits", "packed_heads",
                            "cut_tiles"):
                    row[key] = ran.get(key)
            row["verified"], row["max_abs_err"] = verify(take_rows(out, checked), ref, base)
            del out
            if args.op == "bwd":
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k_in, v_in))
                run, _ = make_impl(name, qg, kg, vg, causal, args.path)
                out = run()
                grad = torch.randn_like(out)
                fn = backward_call(out, (qg, kg, vg), grad)
                if seqlen <= GRAD_VERIFY_MAX_SEQLEN and not row["kv_expanded"]:
                    row["grads_verified"], row["grads_max_abs_err"] = verify_grads(fn(), q, k_in, v_in, causal, grad)
                else:
                    row["grads_verified"] = None  # above GRAD_VERIFY_MAX_SEQLEN: checked by the test suites
            else:
                fn = run
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            fn()
            torch.cuda.synchronize()
            if args.op == "bwd":
                row["kernel"] = kernel()  # the backward's kernel, recorded by the run just made
            row["peak_mem_bytes"] = torch.cuda.max_memory_allocated() - before
            timed.append((row, fn))
        except Exception as error:
            failed_row(row, error)
        rows.append(row)
    for row in time_rows(timed, args.samples):
        if row.get("ms_median"):
            row["tflops"], row["gbps"] = flops / row["ms_median"] / 1e9, None
    return rows


def make_decode_impl(name, q, k, v, page_size=None):
    """A zero-argument callable computing out (B, 1, Hq, D) for one query token over the whole cache (dense
    (B, L, Hkv, D) k and v, or those rows in shuffled pages of `page_size` tokens for flashattn), and a
    function naming the kernel that ran."""
    if name.startswith("flashattn"):
        import flashattn

        batch, length = k.shape[:2]
        seqlens = torch.full((batch,), length, dtype=torch.int32, device=q.device)
        table, k_cache, v_cache = None, k, v
        if page_size:
            pages = length // page_size
            order = torch.randperm(batch * pages, device=q.device)
            table = order.view(batch, pages).to(torch.int32)
            k_cache, v_cache = (torch.empty((batch * pages, page_size) + x.shape[2:], dtype=x.dtype, device=x.device)
                                for x in (k, v))
            k_cache[order] = k.reshape((batch * pages, page_size) + k.shape[2:])
            v_cache[order] = v.reshape((batch * pages, page_size) + v.shape[2:])

        def run():
            return flashattn.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens, block_table=table)
        return run, lambda: flashattn.last_run()["kernel"]
    return make_impl(name, q, k, v, False, "auto")


def bench_decode_point(args, impls, dtype, point):
    batch, length, heads, heads_kv, dim = point[:5]
    torch.manual_seed(length + batch)
    q = torch.randn(batch, 1, heads, dim, dtype=dtype, device="cuda")
    k, v = (torch.randn(batch, length, heads_kv, dim, dtype=dtype, device="cuda") for _ in range(2))
    ref = attention(q, k, v, False, torch.float32)
    base = attention(q, k, v, False, dtype)
    kv_bytes = 2 * batch * length * heads_kv * dim * q.element_size()
    rows, timed = [], []
    names = [n for name in impls for n in ((name, f"{name}_paged{DECODE_PAGE_SIZE}") if name == "flashattn" else (name,))]
    for name in names:
        row = {"op": "decode", "impl": name, "dtype": args.dtype, "B": batch, "H": heads, "Hk": heads_kv, "Sq": 1,
               "Sk": length, "D": dim, "Dv": dim, "causal": False, "window": [-1, -1], "kv_expanded": False,
               "verified_rows": "all", "kv_bytes": kv_bytes}
        try:
            paged = DECODE_PAGE_SIZE if name.endswith(f"_paged{DECODE_PAGE_SIZE}") else None
            k_in, v_in, row["kv_expanded"] = (k, v, False) if name.startswith("flashattn") else kv_for(
                name, q, k, v, False, args.path)
            run, kernel = make_decode_impl(name, q, k_in, v_in, paged)
            out = run()
            torch.cuda.synchronize()
            row["kernel"] = kernel()
            if name.startswith("flashattn"):
                import flashattn

                row["num_splits"] = flashattn.last_run()["num_splits"]  # the split heuristic's choice
            row["verified"], row["max_abs_err"] = verify(out, ref, base)
            del out
            timed.append((row, run))
        except Exception as error:
            failed_row(row, error)
        rows.append(row)
    for row, run in zip(time_rows(timed, args.samples, graph=True), (run for _, run in timed)):
        if row.get("ms_median"):
            row["us_median"] = row["ms_median"] * 1e3
            row["us_graph_back_to_back"] = graph_back_to_back_us(run, args.samples)
            row["gbps"], row["tflops"] = kv_bytes / row["ms_median"] / 1e6, None
    return rows


def decode_cell(row):
    """"GB/s (us)" of a decode row, FAIL when it has no time."""
    return f"{row['gbps']:.0f} ({row['us_median']:.1f})" if row.get("gbps") else "FAIL"


def summarize_decode(result):
    print(f"\ncopy ceiling {result['ceilings']['copy_gbps']:.0f} GB/s, one tiny kernel's replay "
          f"{result['ceilings']['graph_call_floor_us']:.1f} us; decode, GB/s of K and V read (us):")
    keyed = {}
    for row in result["rows"]:
        keyed.setdefault((row["B"], row["Sk"]), {})[row["impl"]] = row
    names = list(next(iter(keyed.values())).keys()) if keyed else []
    print("B    L        " + "".join(f"{name:>24}" for name in names) + "  verified")
    for (batch, length), by_impl in keyed.items():
        cells = "".join(f"{decode_cell(by_impl.get(name, {})):>24}" for name in names)
        print(f"{batch:<5}{length:<9}{cells}  {all(r.get('verified') for r in by_impl.values())}")


def main():
    global _CLOCK_LOG
    _CLOCK_LOG = ClockLog()
    try:
        run(parse_args())
    finally:
        _CLOCK_LOG.close()


def clock_label(rows):
    """"SM a-b MHz" over the point's timed rounds (with the power-capped share when any), "" without samples."""
    clocks = next((row["clocks"] for row in rows if row.get("clocks")), None)
    if not clocks or not clocks["samples"]:
        return ""
    capped = f", {clocks['power_capped_share']:.0%} power-capped" if clocks["power_capped_share"] else ""
    return f"  [SM {clocks['sm_mhz_min']:.0f}-{clocks['sm_mhz_max']:.0f} MHz{capped}]"


def run(args):
    global _L2_FLUSH_MODE, _HOST_LEAD_CYCLES
    _L2_FLUSH_MODE = args.l2_flush
    # torch.cuda._sleep spins for a number of SM clock cycles: converted at the part's maximum clock, so the
    # lead is at least the asked time.
    if args.host_lead_us > 0:
        _HOST_LEAD_CYCLES = int(args.host_lead_us * float(nvidia_smi("clocks.max.sm") or 2000))
    if args.op == "decode":
        args.grid = "decode"
    impls = args.impls.split(",")
    if args.op == "decode" and "flashattn_det" in impls:
        sys.exit("peers: flashattn_det (a deterministic backward) has no decode rows")
    dtype = DTYPES[args.dtype]
    points = GRIDS[args.grid](args)
    if not points:
        sys.exit(f"peers: --seqlens {args.seqlens} selects no point of the {args.grid} grid")
    result = {"env": environment(), "l2_flush": args.l2_flush, "host_lead_us": args.host_lead_us,
              "ceilings": ceilings(), "rows": []}
    for index, point in enumerate(points):
        if args.op == "decode":
            rows = bench_decode_point(args, impls, dtype, point)
            result["rows"].extend(rows)
            cells = "  ".join(f"{r['impl']} {r['gbps']:.0f}" if r.get("gbps") else f"{r['impl']} FAIL" for r in rows)
            print(f"[{index + 1}/{len(points)}] decode B{point.batch} L{point.seqlen}: {cells} GB/s"
                  f"{clock_label(rows)}", flush=True)
            continue
        rows = bench_point(args, impls, dtype, point)
        result["rows"].extend(rows)
        cells = "  ".join(f"{r['impl']} {tflops_cell(r, 'FAIL')}" for r in rows)
        mask = "causal" if point.causal else "full"
        lengths = f"{point.seqlen}" if point.query_len == point.seqlen else f"{point.query_len}/{point.seqlen}"
        print(f"[{index + 1}/{len(points)}] D{point.dims_label} {mask:6} S{lengths:<6} "
              f"B{point.batch} H{point.heads}/{point.heads_kv}: {cells} TFLOP/s{clock_label(rows)}", flush=True)
    result["env"]["sm_clock_mhz"] = nvidia_smi("clocks.sm")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    if args.op == "decode":
        summarize_decode(result)
    else:
        summarize(result, impls)


def tflops_cell(row, untimed):
    """A row's TFLOP/s, marked "*" when the peer ran on expanded K/V; `untimed` when it has no time."""
    if not row.get("tflops"):
        return untimed
    return f"{row['tflops']:.0f}{'*' if row['kv_expanded'] else ''}"


def summarize(result, impls):
    print(f"\nceilings: {result['ceilings']['bf16_matmul_tflops']:.0f} TFLOP/s bf16 matmul, "
          f"{result['ceilings']['copy_gbps']:.0f} GB/s copy")
    header = "D        mask    S         B   Hq/Hkv"
    print(header + "".join(f"{name:>11}" for name in impls) + "   flashattn/fa2  verified")
    keyed = {}
    for row in result["rows"]:
        dims = f"{row['D']}" if row.get("Dv", row["D"]) == row["D"] else f"{row['D']}/{row['Dv']}"
        lengths = f"{row['Sq']}" if row["Sq"] == row["Sk"] else f"{row['Sq']}/{row['Sk']}"
        keyed.setdefault((dims, row["causal"], lengths, row["B"], row["H"], row["Hk"]), {})[row["impl"]] = row
    for (dim, causal, seqlen, batch, heads, heads_kv), by_impl in keyed.items():
        cells = "".join(f"{tflops_cell(by_impl.get(n, {}), '–'):>11}" for n in impls)
        ours, fa2 = by_impl.get("flashattn", {}).get("tflops"), by_impl.get("fa2", {}).get("tflops")
        ratio = f"{ours / fa2:>14.2f}" if ours and fa2 else f"{'–':>14}"
        verified = all(r.get("verified") for r in by_impl.values())
        sampled = " (sampled rows)" if any(r["verified_rows"] != "all" for r in by_impl.values()) else ""
        print(f"{dim:<9}{'causal' if causal else 'full':8}{seqlen:<10}{batch:<4}{f'{heads}/{heads_kv}':<6}"
              f"{cells}{ratio}  {verified}{sampled}")
    if any(row["kv_expanded"] for row in result["rows"]):
        print("* K/V repeated to the query heads before timing: the peer rejected grouped K/V (enable_gqa)")


if __name__ == "__main__":
    main()
