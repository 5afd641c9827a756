"""Serving workload ("assistant over a long manual"): requests of a long prompt plus a short question arriving
together, prefilled in arrival order in micro-batches of at most --prefill-tokens tokens, then decoded greedily
as one batch, per attention implementation, on one GPU (bench/e2e/README.md).

    python bench/e2e/serve.py --json out.json [--attention flashattn,cudnn,fa2,math] [--prompts 2048,8192,32768]
                              [--concurrency 1,8,32] [--new-tokens 256] [--repeats 3] [--prefill-tokens 65536]
                              [--config serving|tiny]

Per request: time to first token (until its own micro-batch's first token), time per output token, total
latency (the whole prefill plus every decode step), with p50/p90/p99 over requests and repeats; per cell:
output tokens/s, prefill tokens/s, peak device memory, KV-cache bytes, failures (errors and out-of-memory are
recorded, never dropped), and the kernels the profiler saw in each phase (one request). flashattn keeps its KV
cache in pages of 16 tokens; the peers use a dense cache. Whole-batch prefill (session 9's first run) put 32
requests of 32k tokens through the MLP at once and ran out of memory for every implementation.
"""

import argparse
import dataclasses
import json
import pathlib
import statistics
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cells import SKIPPED, out_of_time, write_report  # noqa: E402
from model import SERVING, TINY, KVCache, Transformer, make_attention  # noqa: E402

QUESTION_TOKENS = 32
PAGE_SIZE = 16


def percentiles(values):
    ordered = sorted(values)

    def at(fraction):
        return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]

    return {"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "mean": statistics.fmean(ordered)}


class Clock:
    """Wall time of device work: CUDA events on a GPU, the host clock (after the work) on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def now(self):
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            return event
        return time.perf_counter()

    def seconds(self, start, end):
        if self.cuda:
            end.synchronize()
            return start.elapsed_time(end) / 1e3
        return end - start


def generate(model, attention, prompt, new_tokens, clock, prefill_tokens):
    """Greedy decoding of `new_tokens` after `prompt` (batch, length), the requests all arriving at once: they
    are prefilled in arrival order, in micro-batches of at most `prefill_tokens` tokens (one request at
    least), then decoded together. Returns the tokens, each request's time to its first token, the whole
    prefill's seconds, the seconds of each decode step, and the cache."""
    batch, length = prompt.shape
    cache = KVCache(model.config, batch, length + new_tokens, next(model.parameters()).dtype, prompt.device,
                    PAGE_SIZE if attention.paged else None)
    per_micro_batch = max(1, prefill_tokens // length)
    start = clock.now()
    first, first_at = [], []
    for lo in range(0, batch, per_micro_batch):
        hi = min(batch, lo + per_micro_batch)
        logits = model(prompt[lo:hi], attention, cache.rows(lo, hi), prefill=True, last_only=True)
        first.append(logits[:, -1].argmax(-1, keepdim=True))
        first_at += [clock.now()] * (hi - lo)
    token = torch.cat(first)
    prefilled = clock.now()
    tokens, steps = [token], []
    previous = prefilled
    for _ in range(new_tokens - 1):
        token = model(token, attention, cache)[:, -1].argmax(-1, keepdim=True)
        tokens.append(token)
        now = clock.now()
        steps.append((previous, now))
        previous = now
    return (torch.cat(tokens, dim=1), [clock.seconds(start, at) for at in first_at], clock.seconds(start, prefilled),
            [clock.seconds(a, b) for a, b in steps], cache)


def kernels_of(model, attention, prompt, device):
    """Kernel names the profiler records in a prefill and in one decode step (the proof of what ran)."""
    if device.type != "cuda":
        return {}
    from torch.profiler import ProfilerActivity, profile

    names = {}
    cache = KVCache(model.config, prompt.shape[0], prompt.shape[1] + 1, next(model.parameters()).dtype, device,
                    PAGE_SIZE if attention.paged else None)
    for phase in ("prefill", "decode"):
        with profile(activities=[ProfilerActivity.CUDA]) as trace:
            if phase == "prefill":
                token = model(prompt, attention, cache, prefill=True)[:, -1].argmax(-1, keepdim=True)
            else:
                model(token, attention, cache)
            torch.cuda.synchronize()
        names[phase] = sorted({e.name for e in trace.events() if e.device_type.name == "CUDA"
                               and ("attn" in e.name.lower() or "fmha" in e.name.lower()
                                    or "flash" in e.name.lower() or "sdpa" in e.name.lower()
                                    or "cudnn" in e.name.lower())})
    return names


def run_cell(model, name, prompt_tokens, concurrency, args, device):
    attention = make_attention(name)
    clock = Clock(device)
    row = {"attention": name, "prompt_tokens": prompt_tokens, "concurrency": concurrency,
           "new_tokens": args.new_tokens, "failures": []}
    ttft, tpot, total, prefill_s = [], [], [], []
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    generator = torch.Generator(device="cpu").manual_seed(prompt_tokens + concurrency)
    fallbacks_before = _fallbacks(name)
    started = time.perf_counter()
    produced = 0
    for repeat in range(args.repeats + 1):  # the first run warms up (module load, allocator) and is not timed
        prompt = torch.randint(0, model.config.vocab, (concurrency, prompt_tokens + QUESTION_TOKENS),
                               generator=generator).to(device)
        try:
            _, first_token, prefill, steps, cache = generate(model, attention, prompt, args.new_tokens, clock,
                                                             args.prefill_tokens)
        except Exception as error:  # an error or OOM is a result
            row["failures"].append(f"{type(error).__name__}: {error}"[:300])
            if device.type == "cuda":
                torch.cuda.empty_cache()
            continue
        if repeat == 0:
            started = time.perf_counter()
            continue
        row["kv_cache_bytes"] = cache.bytes()
        produced += concurrency * args.new_tokens
        per_token = statistics.fmean(steps) if steps else 0.0
        prefill_s.append(prefill)
        ttft += first_token  # each request's own; decoding starts once every request is prefilled
        for _ in range(concurrency):  # the requests share the decode steps
            tpot.append(per_token)
            total.append(prefill + sum(steps))
    elapsed = time.perf_counter() - started
    if ttft:
        row.update({"ttft_s": percentiles(ttft), "tpot_s": percentiles(tpot), "latency_s": percentiles(total),
                    "prefill_tokens_per_s": concurrency * (prompt_tokens + QUESTION_TOKENS) / statistics.median(prefill_s),
                    "output_tokens_per_s": produced / elapsed})
    if device.type == "cuda":
        row["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
        if not row["failures"]:
            prompt = torch.randint(0, model.config.vocab, (1, prompt_tokens + QUESTION_TOKENS),
                                   generator=generator).to(device)
            row["kernels"] = kernels_of(model, attention, prompt, device)  # one request: the proof of what ran
    row["fallbacks"] = _fallbacks(name) - fallbacks_before
    return row


def _fallbacks(name):
    if name != "flashattn":
        return 0
    import flashattn

    return flashattn.fallback_count()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--attention", default="flashattn,cudnn,fa2,math")
    p.add_argument("--prompts", default="2048,8192,32768")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument("--new-tokens", type=int, default=256)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--prefill-tokens", type=int, default=65536,
                   help="most tokens one prefill micro-batch takes (at least one request)")
    p.add_argument("--config", choices=["serving", "tiny"], default="serving")
    p.add_argument("--dtype", choices=["bf16", "fp16", "fp32"], default="bf16")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--deadline", type=float, help="seconds since the epoch after which no cell starts (cells.py)")
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args()
    device = torch.device(args.device)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    config = SERVING if args.config == "serving" else TINY
    torch.manual_seed(0)
    model = Transformer(config).to(device=device, dtype=dtype).eval()
    rows = []
    report = {"env": {"torch": torch.__version__, "device": torch.cuda.get_device_name() if device.type == "cuda"
                      else "cpu", "dtype": args.dtype},
              "config": dataclasses.asdict(config), "parameters": config.parameters(), "rows": rows,
              "note": "random weights at the stated shapes: speed does not depend on their values"}
    with torch.inference_mode():
        for prompt_tokens in map(int, args.prompts.split(",")):
            for concurrency in map(int, args.concurrency.split(",")):
                for name in args.attention.split(","):
                    if out_of_time(args.deadline):
                        row = {"attention": name, "prompt_tokens": prompt_tokens, "new_tokens": args.new_tokens,
                               "concurrency": concurrency, "failures": [SKIPPED]}
                    else:
                        row = run_cell(model, name, prompt_tokens, concurrency, args, device)
                    rows.append(row)
                    summary = (f"ttft p50 {row['ttft_s']['p50'] * 1e3:9.2f} ms  tpot p50 "
                               f"{row['tpot_s']['p50'] * 1e3:7.3f} ms  {row['output_tokens_per_s']:9.1f} tok/s"
                               if "ttft_s" in row else f"FAILED {row['failures'][:1]}")
                    print(f"{name:10s} prompt {prompt_tokens:6d} x {concurrency:3d}  {summary}", flush=True)
                    write_report(args.json, report)
    write_report(args.json, report)

if __name__ == "__main__":
    main()
