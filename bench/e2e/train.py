"""Training workload: a GPT-2-medium-sized decoder (24 layers, hidden 1024, 16 heads) trained on synthetic
tokens, per attention implementation (bench/e2e/README.md).

    python bench/e2e/train.py --json out.json [--attention flashattn,cudnn,fa2,math] [--seqlens 1024,4096,16384]
                              [--tokens 16384] [--steps 10] [--longest]

Per cell: forward + backward + AdamW step time (median over --steps after a warm-up step), tokens/s, model
FLOPs utilisation (6 * parameters * tokens plus the attention's 12 * layers * heads * head_dim * S^2 / 2 per
sequence (causal), over --peak-tflops), peak device memory, failures (OOM counted, never dropped). With
--longest: the longest sequence (batch 1, doubling from the largest --seqlens) each implementation trains at.
"""

import argparse
import dataclasses
import json
import pathlib
import statistics
import sys
import time

import torch
from torch.nn import functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cells import SKIPPED, out_of_time, write_report  # noqa: E402
from model import TINY, TRAINING, Transformer, make_attention  # noqa: E402


def step_seconds(model, optimizer, attention, tokens, device):
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    logits = model(tokens[:, :-1], attention)
    loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def model_flops(config, batch, seqlen):
    dense = 6 * config.parameters() * batch * seqlen
    attention = 12 * config.layers * config.heads * config.head_dim * seqlen * seqlen / 2 * batch  # causal
    return dense + attention


def run_cell(config, name, seqlen, batch, args, device, dtype):
    row = {"attention": name, "seqlen": seqlen, "batch": batch, "failures": []}
    try:
        torch.manual_seed(0)
        model = Transformer(config).to(device=device, dtype=dtype)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        attention = make_attention(name)
        tokens = torch.randint(0, config.vocab, (batch, seqlen + 1), device=device)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        step_seconds(model, optimizer, attention, tokens, device)  # warm-up
        times = [step_seconds(model, optimizer, attention, tokens, device) for _ in range(args.steps)]
        seconds = statistics.median(times)
        row.update({"step_s": seconds, "tokens_per_s": batch * seqlen / seconds,
                    "mfu": model_flops(config, batch, seqlen) / seconds / (args.peak_tflops * 1e12)})
        if device.type == "cuda":
            row["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
    except Exception as error:  # OOM and errors are results
        row["failures"].append(f"{type(error).__name__}: {error}"[:300])
    finally:
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--attention", default="flashattn,cudnn,fa2,math")
    p.add_argument("--seqlens", default="1024,4096,16384")
    p.add_argument("--tokens", type=int, default=16384, help="tokens per step (batch = tokens / seqlen, >= 1)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--peak-tflops", type=float, default=989.0, help="bf16 dense peak of the GPU (H100/H200 SXM)")
    p.add_argument("--longest", action="store_true")
    p.add_argument("--config", choices=["training", "tiny"], default="training")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--deadline", type=float, help="seconds since the epoch after which no cell starts (cells.py)")
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args()
    device = torch.device(args.device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    config = TRAINING if args.config == "training" else TINY
    seqlens = list(map(int, args.seqlens.split(",")))
    rows, longest = [], {}
    report = {"env": {"torch": torch.__version__, "device": torch.cuda.get_device_name() if device.type == "cuda"
                      else "cpu"},
              "config": dataclasses.asdict(config), "parameters": config.parameters(), "rows": rows,
              "longest": longest, "note": "synthetic tokens and random initial weights; speed only"}
    for seqlen in seqlens:
        for name in args.attention.split(","):
            batch = max(1, args.tokens // seqlen)
            if out_of_time(args.deadline):
                row = {"attention": name, "seqlen": seqlen, "batch": batch, "failures": [SKIPPED]}
            else:
                row = run_cell(config, name, seqlen, batch, args, device, dtype)
            rows.append(row)
            print(json.dumps({k: row[k] for k in row if k != "failures"} | {"failed": bool(row["failures"])}),
                  flush=True)
            write_report(args.json, report)
    if args.longest:
        for name in args.attention.split(","):
            seqlen, best, stopped = max(seqlens), None, False
            while seqlen <= 1 << 20:
                if out_of_time(args.deadline):
                    stopped = True  # the search ends unfinished: its first failure is unknown
                    break
                row = run_cell(config, name, seqlen, 1, argparse.Namespace(**{**vars(args), "steps": 1}), device,
                               dtype)
                if row["failures"]:
                    break
                best, seqlen = seqlen, seqlen * 2
            longest[name] = {"longest_trained": best, "first_failure_at": None if stopped else seqlen}
            if stopped:
                longest[name]["failures"] = [SKIPPED]
            print(name, longest[name], flush=True)
            write_report(args.json, report)
    write_report(args.json, report)

if __name__ == "__main__":
    main()
