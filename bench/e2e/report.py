"""The end-to-end report (issue 8): runs the serving, training and quality workloads on one GPU and writes one
JSON; renders that JSON into a Markdown page with plots, anywhere (the GPU machine has no matplotlib).

    python bench/e2e/report.py run --json bench/results/e2e-<yyyymmdd>.json [--config serving|tiny] [--quick]
    python bench/e2e/report.py render bench/results/e2e-<yyyymmdd>.json [--docs docs]

`run` calls serve.py, train.py (with --longest) and quality.py as subprocesses, each with its own --json,
and merges their rows into the report's schema: per serving row `ttft` and `tpot` ({p50, p90, p99, mean},
seconds), `latency`, `tokens_per_s` (output tokens), `prefill_tokens_per_s`, `peak_mem_bytes`,
`concurrency`, `kernel` (the profiler's attention kernels per phase), `fallback` (flashattn's fallbacks in
the cell, which must be 0), `failures`; per training row `tokens_per_s`, `mfu`, `peak_mem_bytes`; per
quality row `greedy_agreement`. A workload that fails is recorded with its error, not dropped.

A full run takes longer than one call on a lent GPU machine may: `--workloads` and `--serve-args` /
`--train-args` / `--quality-args` run a part (every implementation of a few cells, so each comparison stays
within one run), `--time-limit` keeps a part inside a call (no serving or training cell starts after it; the
cells left are recorded as failures, the finished ones kept), and

    python bench/e2e/report.py merge --json bench/results/e2e-<yyyymmdd>.json part1.json part2.json ...

joins the parts: every row keeps the index of its part, the parts' environments are listed, and the
headlines compare flashattn only with peers of the same part.

`render` writes docs/e2e-<yyyymmdd>.md and its PNGs (latency per concurrency, tokens/s and memory against
sequence length) and prints the three headline numbers (prefill speedup at 32k, decode throughput at
concurrency 32, training tokens/s at 4k), each against the best peer measured in the same run.
"""

import argparse
import contextlib
import datetime
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PEERS = ("cudnn", "fa2", "math")
BOUNDARY = {
    "serving": "Requests arrive together and are prefilled in arrival order in micro-batches of at most "
               "--prefill-tokens tokens, then decoded as one batch. TTFT: CUDA events from the first prefill's "
               "start to the request's own first token (its micro-batch's argmax); TPOT: mean of the events "
               "between consecutive decode steps; latency: the whole prefill plus every step. Tokenizer, "
               "sampling beyond argmax and host-side request handling are outside. The first repeat of every cell "
               "warms up (module load, allocator, autotuning) and is not timed.",
    "training": "Host wall time of forward + backward + AdamW step with a device synchronisation on each side; "
                "median over the steps after one untimed warm-up step.",
    "quality": "Logits of whole prompts against the math path in float32 on the same weights; greedy tokens over "
               "the decoding steps against the math path in the same dtype; loss curves from the same initial "
               "weights on the same synthetic corpus.",
}


def environment():
    """GPU, driver, CUDA, cuDNN, PyTorch and commit of this run."""
    import torch

    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
           "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
           "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True, check=True).stdout.split()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        env["driver"] = None
    # As bench/peers.py: FLASHATTN_COMMIT first, since the GPU machine's copy of the tree may carry a .git that
    # is not the commit it holds (session 9: HEAD read 98e471d on a tree of f8e2183).
    commit_file = ROOT / ".commit"
    if os.environ.get("FLASHATTN_COMMIT"):
        env["commit"] = os.environ["FLASHATTN_COMMIT"]
    elif commit_file.exists():
        env["commit"] = commit_file.read_text().strip()
    else:
        try:
            env["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                           text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            env["commit"] = None
    return env


def run_workload(script, arguments, scratch, deadline=None):
    """Runs one workload script, its progress going straight to this process's output; its JSON (the cells it
    finished, should it fail later), or {"error": ...} when it wrote none. serve.py and train.py start no cell
    after `deadline` (cells.py)."""
    out = scratch / f"{script}.json"
    command = [sys.executable, str(HERE / f"{script}.py"), "--json", str(out), *arguments]
    if deadline is not None and script in ("serve", "train"):
        command += ["--deadline", f"{deadline:.0f}"]
    print("+", " ".join(command), flush=True)
    process = subprocess.run(command, text=True, stderr=subprocess.PIPE)
    error = f"{script}.py exited {process.returncode}: {process.stderr[-1500:]}" if process.returncode else None
    if not out.exists():
        return {"error": error or f"{script}.py wrote no JSON"}
    return json.loads(out.read_text()) | ({"error": error} if error else {})


def serving_rows(raw):
    rows = []
    for row in raw.get("rows", []):
        rows.append({
            "attention": row["attention"], "prompt_tokens": row["prompt_tokens"],
            "new_tokens": row["new_tokens"], "concurrency": row["concurrency"],
            "ttft": row.get("ttft_s"), "tpot": row.get("tpot_s"), "latency": row.get("latency_s"),
            "tokens_per_s": row.get("output_tokens_per_s"), "prefill_tokens_per_s": row.get("prefill_tokens_per_s"),
            "peak_mem_bytes": row.get("peak_memory_bytes"), "kv_cache_bytes": row.get("kv_cache_bytes"),
            "kernel": row.get("kernels", {}), "fallback": row.get("fallbacks", 0), "failures": row["failures"]})
    return rows


def training_rows(raw):
    return [{"attention": row["attention"], "seqlen": row["seqlen"], "batch": row["batch"],
             "step_s": row.get("step_s"), "tokens_per_s": row.get("tokens_per_s"), "mfu": row.get("mfu"),
             "peak_mem_bytes": row.get("peak_memory_bytes"), "failures": row["failures"]}
            for row in raw.get("rows", [])]


def quality_rows(raw):
    return [{"attention": row["attention"], "logits_vs_math_fp32": row.get("logits_vs_math_fp32"),
             "greedy_agreement": row.get("greedy_vs_math"), "loss": row.get("loss"),
             "loss_max_abs_difference_vs_math": row.get("loss_max_abs_difference_vs_math"),
             "error": row.get("error")}
            for row in raw.get("rows", [])]


WORKLOADS = ("serving", "training", "quality")


def run(args):
    tiny = ["--config", "tiny"] if args.config == "tiny" or args.quick else []
    serve_args = tiny + (["--prompts", "64,256", "--concurrency", "1,4", "--new-tokens", "8", "--repeats", "2"]
                         if args.quick else [])
    train_args = tiny + (["--seqlens", "64,256", "--tokens", "512", "--steps", "2"] if args.quick
                         else [] if args.no_longest else ["--longest"])
    quality_args = tiny + (["--prompt-tokens", "64", "--steps", "8", "--train-steps", "3"] if args.quick else [])
    if args.attention:
        for arguments in (serve_args, train_args, quality_args):
            arguments += ["--attention", args.attention]
    # Given later on the command line, the extra arguments override the defaults above.
    serve_args += shlex.split(args.serve_args)
    train_args += shlex.split(args.train_args)
    quality_args += shlex.split(args.quality_args)
    wanted = set(args.workloads.split(","))
    if not wanted <= set(WORKLOADS):
        raise SystemExit(f"--workloads: choose from {', '.join(WORKLOADS)}")
    skipped = {"error": None, "skipped": True}
    with contextlib.ExitStack() as stack:
        scratch = args.scratch or pathlib.Path(stack.enter_context(tempfile.TemporaryDirectory()))
        scratch.mkdir(parents=True, exist_ok=True)
        deadline = time.time() + args.time_limit if args.time_limit else None
        serve = run_workload("serve", serve_args, scratch, deadline) if "serving" in wanted else skipped
        train = run_workload("train", train_args, scratch, deadline) if "training" in wanted else skipped
        quality = run_workload("quality", quality_args, scratch) if "quality" in wanted else skipped
    report = {
        "env": environment() | {"dtype": serve.get("env", {}).get("dtype", "bf16")},
        "serving": {"config": serve.get("config"), "parameters": serve.get("parameters"),
                    "rows": serving_rows(serve), "error": serve.get("error"), "arguments": serve_args},
        "training": {"config": train.get("config"), "parameters": train.get("parameters"),
                     "rows": training_rows(train), "longest": train.get("longest", {}), "error": train.get("error"),
                     "arguments": train_args},
        "quality": {"rows": quality_rows(quality), "math_loss": quality.get("math_loss"),
                    "math_logits_vs_fp32": quality.get("math_logits_vs_fp32"),
                    "error": quality.get("error"), "arguments": quality_args},
        "measurement_boundary": BOUNDARY,
        "note": "random weights and synthetic tokens at the stated shapes: speed does not depend on their values",
    }
    for name, raw in zip(WORKLOADS, (serve, train, quality)):
        report[name]["ran"] = not raw.get("skipped", False)
    write(report, args.json)


def write(report, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1))
    print(f"wrote {path}")


def merge(args):
    """One report of several parts: rows tagged with their part, sections of the parts that ran joined."""
    parts = [json.loads(path.read_text()) for path in args.parts]
    report = {"env": parts[0]["env"], "measurement_boundary": parts[0]["measurement_boundary"],
              "note": parts[0]["note"], "parts": [], "caveats": list(args.caveat)}
    for name in WORKLOADS:
        report[name] = {"config": None, "parameters": None, "rows": [], "error": None, "arguments": [], "ran": False}
    report["training"]["longest"] = {}
    report["quality"]["math_loss"] = None
    report["quality"]["math_logits_vs_fp32"] = None
    for index, part in enumerate(parts):
        report["parts"].append({"env": part["env"], "file": str(args.parts[index]),
                                **{f"{name}_arguments": part[name].get("arguments") for name in WORKLOADS
                                   if part[name].get("ran", True)}})
        for name in WORKLOADS:
            section, merged = part[name], report[name]
            if not section.get("ran", True):
                continue
            merged["ran"] = True
            merged["rows"] += [row | {"part": index} for row in section["rows"]]
            merged["arguments"].append(section.get("arguments"))
            if section.get("error"):
                merged["error"] = "; ".join(filter(None, (merged["error"], f"part {index}: {section['error']}")))
            for key in ("config", "parameters"):
                if merged.get(key) is None:
                    merged[key] = section.get(key)
        report["training"]["longest"] |= part["training"].get("longest", {})
        report["quality"]["math_loss"] = report["quality"]["math_loss"] or part["quality"].get("math_loss")
        report["quality"]["math_logits_vs_fp32"] = (report["quality"]["math_logits_vs_fp32"]
                                                    or part["quality"].get("math_logits_vs_fp32"))
    write(report, args.json)


def best_peer(rows, key, higher_is_better, **match):
    """The row of the best peer (not flashattn) for `key` among rows matching `match` (a merged report's
    `part` among them, so that a comparison stays within one run), or None."""
    candidates = [r for r in rows if r["attention"] in PEERS and r.get(key) is not None
                  and all(r.get(k) == v for k, v in match.items())]
    if not candidates:
        return None
    return (max if higher_is_better else min)(candidates, key=lambda r: r[key])


def newest_with_peer(mine_rows, peer_of):
    """The (flashattn row, peer row) of the newest part that measured a peer beside flashattn: parts are
    merged oldest first, and a re-measured cell supersedes the older run (e.g. one with a known bias)."""
    pairs = [(r, peer_of(r)) for r in mine_rows]
    return next(((r, peer) for r, peer in reversed(pairs) if peer), (None, None))


def headlines(report):
    """The three headline numbers, each beside the best peer of the same run and its conditions."""
    serving, training = report["serving"]["rows"], report["training"]["rows"]
    lines = []
    longest_prompt = max((r["prompt_tokens"] for r in serving), default=None)
    mine, peer = newest_with_peer(
        [r for r in serving if r["attention"] == "flashattn" and r["prompt_tokens"] == longest_prompt
         and r["concurrency"] == 1 and r["ttft"]],
        lambda mine: min((r for r in serving if r["attention"] in PEERS and r["prompt_tokens"] == longest_prompt
                          and r["concurrency"] == 1 and r["ttft"] and r.get("part") == mine.get("part")),
                         key=lambda r: r["ttft"]["p50"], default=None))
    if peer:
        lines.append(f"prefill at {longest_prompt} prompt tokens, concurrency 1: TTFT p50 "
                     f"{mine['ttft']['p50'] * 1e3:.1f} ms vs {peer['attention']} {peer['ttft']['p50'] * 1e3:.1f} ms "
                     f"({peer['ttft']['p50'] / mine['ttft']['p50']:.2f}x)")
    top = max((r["concurrency"] for r in serving), default=None)
    for prompt in sorted({r["prompt_tokens"] for r in serving}):
        mine, peer = newest_with_peer(
            [r for r in serving if r["attention"] == "flashattn" and r["prompt_tokens"] == prompt
             and r["concurrency"] == top and r["tokens_per_s"]],
            lambda mine: best_peer(serving, "tokens_per_s", True, prompt_tokens=prompt, concurrency=top,
                                   part=mine.get("part")))
        if mine and peer:
            lines.append(f"decode throughput at concurrency {top}, prompt {prompt}: {mine['tokens_per_s']:.0f} "
                         f"output tokens/s vs {peer['attention']} {peer['tokens_per_s']:.0f} "
                         f"({mine['tokens_per_s'] / peer['tokens_per_s']:.2f}x)")
    seqlen = 4096 if any(r["seqlen"] == 4096 for r in training) else max((r["seqlen"] for r in training), default=None)
    mine, peer = newest_with_peer(
        [r for r in training if r["attention"] == "flashattn" and r["seqlen"] == seqlen and r["tokens_per_s"]],
        lambda mine: best_peer(training, "tokens_per_s", True, seqlen=seqlen, part=mine.get("part")))
    if peer:
        lines.append(f"training at S = {seqlen}: {mine['tokens_per_s']:.0f} tokens/s (MFU {mine['mfu']:.1%}) vs "
                     f"{peer['attention']} {peer['tokens_per_s']:.0f} ({mine['tokens_per_s'] / peer['tokens_per_s']:.2f}x)")
    return lines


def plots(report, docs, stem):
    """The report's PNGs; their file names, or a reason when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "plots skipped: matplotlib is not installed where this was rendered"
    serving, training = report["serving"]["rows"], report["training"]["rows"]
    names = []
    concurrencies = sorted({r["concurrency"] for r in serving})
    if concurrencies:
        figure, axes = plt.subplots(1, len(concurrencies), figsize=(5 * len(concurrencies), 4), squeeze=False)
        for axis, concurrency in zip(axes[0], concurrencies):
            rows = [r for r in serving if r["concurrency"] == concurrency and r["latency"]]
            labels = [f"{r['attention']}\n{r['prompt_tokens']}" for r in rows]
            for i, r in enumerate(rows):
                axis.plot([i] * 3, [r["latency"][p] for p in ("p50", "p90", "p99")], "o-")
            axis.set_xticks(range(len(rows)), labels, fontsize=7, rotation=90)
            axis.set_title(f"request latency, concurrency {concurrency}")
            axis.set_ylabel("seconds (p50, p90, p99)")
        figure.tight_layout()
        names.append(f"{stem}-latency.png")
        figure.savefig(docs / names[-1], dpi=110)
        plt.close(figure)
    for key, label, file in (("tokens_per_s", "training tokens/s", "tokens"), ("peak_mem_bytes", "peak GiB", "memory")):
        if not training:
            break
        figure, axis = plt.subplots(figsize=(6, 4))
        for attention in sorted({r["attention"] for r in training}):
            rows = sorted((r for r in training if r["attention"] == attention and r.get(key)), key=lambda r: r["seqlen"])
            scale = 2 ** 30 if key == "peak_mem_bytes" else 1
            axis.plot([r["seqlen"] for r in rows], [r[key] / scale for r in rows], "o-", label=attention)
        axis.set_xscale("log", base=2)
        axis.set_xlabel("sequence length")
        axis.set_ylabel(label)
        axis.legend()
        figure.tight_layout()
        names.append(f"{stem}-{file}.png")
        figure.savefig(docs / names[-1], dpi=110)
        plt.close(figure)
    return names, None


def seconds_ms(stats, key="p50"):
    return f"{stats[key] * 1e3:.2f}" if stats else "–"


def failures(row):
    return f"{len(row['failures'])}{': ' + row['failures'][0] if row['failures'] else ''}"


def gib(value):
    return f"{value / 2 ** 30:.1f}" if value else "–"


def implementation(r):
    """The attention implementation of a row, with its part in a merged report."""
    return f"{r['attention']} (part {r['part']})" if "part" in r else r["attention"]


def serving_line(r):
    timing = (f"{seconds_ms(r['ttft'])} / {seconds_ms(r['ttft'], 'p90')} / {seconds_ms(r['ttft'], 'p99')} | "
              f"{seconds_ms(r['tpot'])} / {seconds_ms(r['tpot'], 'p99')} | {r['tokens_per_s']:.0f}"
              if r["tokens_per_s"] else "– | – | –")
    return (f"| {implementation(r)} | {r['prompt_tokens']} | {r['concurrency']} | {timing} | {gib(r['peak_mem_bytes'])} "
            f"| {r['fallback']} | {failures(r)} |")


def serving_section(serving):
    out = [f"Configuration {serving['config']} ({serving['parameters']} parameters), arguments "
           f"{serving['arguments']}." + (f" Workload error: {serving['error']}" if serving["error"] else ""), "",
           "| attention | prompt | conc. | TTFT p50 / p90 / p99 ms | TPOT p50 / p99 ms | out tok/s | peak GiB "
           "| fallbacks | failures |", "|---|---|---|---|---|---|---|---|---|"]
    out += [serving_line(r) for r in serving["rows"]]
    kernels = {(r["attention"], phase): names for r in serving["rows"] for phase, names in (r["kernel"] or {}).items()}
    if kernels:
        out += ["", "Attention kernels the profiler recorded (first cell of each implementation):", ""]
        out += [f"- {a}, {phase}: {', '.join(names[:4]) or '(none matched)'}" for (a, phase), names in kernels.items()]
    return out


def training_section(training):
    out = [f"Configuration {training['config']} ({training['parameters']} parameters), arguments "
           f"{training['arguments']}." + (f" Workload error: {training['error']}" if training["error"] else ""), "",
           "| attention | S | batch | tokens/s | MFU | peak GiB | failures |", "|---|---|---|---|---|---|---|"]
    for r in training["rows"]:
        speed = f"{r['tokens_per_s']:.0f} | {r['mfu']:.1%}" if r["tokens_per_s"] else "– | –"
        out.append(f"| {implementation(r)} | {r['seqlen']} | {r['batch']} | {speed} | {gib(r['peak_mem_bytes'])} | "
                   f"{failures(r)} |")
    for attention, longest in training["longest"].items():
        ended = ("search stopped by the part's time limit" if longest.get("failures")
                 else f"first failure at {longest['first_failure_at']}")
        out.append(f"\nLongest trained sequence, {attention}: {longest['longest_trained']} ({ended}).")
    return out


def quality_section(quality):
    out = [f"Workload error: {quality['error']}", ""] if quality["error"] else []
    out += ["| attention | logits vs math fp32 max / mean | greedy agreement (first difference) | loss max diff vs math |",
            "|---|---|---|---|"]
    baseline = quality.get("math_logits_vs_fp32")
    if baseline:  # what the dtype alone costs: an implementation's own error is its excess over this row
        out.append(f"| math, same dtype (baseline) | {baseline['max_abs']:.3g} / {baseline['mean_abs']:.3g} | – | – |")
    for r in quality["rows"]:
        logits, greedy = r["logits_vs_math_fp32"], r["greedy_agreement"]
        out.append(f"| {implementation(r)} | " + (f"{logits['max_abs']:.3g} / {logits['mean_abs']:.3g}" if logits else "–")
                   + " | " + (f"{greedy['fraction_equal']:.3f} ({greedy['first_difference']})" if greedy else "–")
                   + " | " + (f"{r['loss_max_abs_difference_vs_math']:.3g}" if r["loss"] else r["error"] or "–") + " |")
    return out


def render(args):
    report = json.loads(args.report.read_text())
    stem = args.report.stem
    args.docs.mkdir(parents=True, exist_ok=True)
    images, skipped = plots(report, args.docs, stem)
    env = report["env"]
    # A merged report's commits and dates are its parts' (listed below), not its first part's.
    parts = report.get("parts") or []
    commits = ", ".join(dict.fromkeys(str(part["env"].get("commit")) for part in parts))
    dates = sorted(str(part["env"].get("date"))[:10] for part in parts)
    when = (f"commits {commits}, dates {dates[0]} to {dates[-1]}" if parts
            else f"commit {env.get('commit')}, {env.get('date')}")
    out = [f"# End-to-end evaluation ({stem})", "",
           f"GPU {env.get('gpu')}, driver {env.get('driver')}, CUDA {env.get('cuda')}, cuDNN {env.get('cudnn')}, "
           f"PyTorch {env.get('torch')}, {env.get('dtype')}, {when}. {report['note']}.", ""]
    if report.get("parts"):
        out += [f"Measured in {len(report['parts'])} parts, each its own run; rows name their part, and every "
                "comparison stays within one part:", ""]
        out += [f"- part {i}: {part['env'].get('date')}, commit {part['env'].get('commit')}, "
                + ", ".join(f"{key[:-len('_arguments')]} {value}" for key, value in part.items()
                            if key.endswith("_arguments")) for i, part in enumerate(report["parts"])]
        out.append("")
    out += ["## Headlines", ""]
    out += [f"- {line}" for line in headlines(report)] or ["- (no flashattn row with a peer to compare)"]
    if report.get("caveats"):
        out += ["", "## Caveats (what these numbers do not yet show)", ""] + [f"- {c}" for c in report["caveats"]]
    out += ["", "## Measurement boundary", ""] + [f"- {k}: {v}" for k, v in report["measurement_boundary"].items()]
    for name, write_section in (("serving", serving_section), ("training", training_section),
                                ("quality", quality_section)):
        out += ["", f"## {name.capitalize()}", ""]
        out += write_section(report[name]) if report[name].get("ran", True) else ["Not run in this report."]
    out += [""] + [f"![{name}]({name})" for name in images] + ([skipped] if skipped else []) + [""]
    page = args.docs / f"{stem}.md"
    page.write_text("\n".join(out))
    print(f"wrote {page}")
    for line in headlines(report):
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run the workloads and write the report's JSON")
    run_parser.add_argument("--json", type=pathlib.Path, required=True)
    run_parser.add_argument("--config", choices=["serving", "tiny"], default="serving")
    run_parser.add_argument("--attention", help="comma list (default: each workload's own)")
    run_parser.add_argument("--quick", action="store_true", help="tiny shapes and few steps (a smoke test)")
    run_parser.add_argument("--no-longest", action="store_true",
                            help="skip training's longest-sequence search (a part of its own: it can outlast a call)")
    run_parser.add_argument("--time-limit", type=float,
                            help="seconds from the start after which serving and training start no new cell; the "
                                 "cells not started are recorded as failures naming the limit. Leave a cell's time "
                                 "(about a minute at 32k prompts) between it and any outer limit")
    run_parser.add_argument("--scratch", type=pathlib.Path,
                            help="folder for each workload script's own JSON, rewritten after every cell (default: "
                                 "a temporary folder); kept, it holds the finished cells should this run be killed")
    run_parser.add_argument("--workloads", default=",".join(WORKLOADS), help="comma list of " + ", ".join(WORKLOADS))
    for name in ("serve", "train", "quality"):
        run_parser.add_argument(f"--{name}-args", default="", help=f"extra arguments of {name}.py, e.g. "
                                "'--prompts 2048 --concurrency 1,8'")
    merge_parser = commands.add_parser("merge", help="join the JSON of several parts into one report")
    merge_parser.add_argument("--json", type=pathlib.Path, required=True)
    merge_parser.add_argument("parts", type=pathlib.Path, nargs="+")
    merge_parser.add_argument("--caveat", action="append", default=[],
                              help="a known limit of these runs, printed under the headlines (repeatable)")
    render_parser = commands.add_parser("render", help="write the Markdown page and plots of a report JSON")
    render_parser.add_argument("report", type=pathlib.Path)
    render_parser.add_argument("--docs", type=pathlib.Path, default=ROOT / "docs")
    args = parser.parse_args()
    {"run": run, "merge": merge, "render": render}[args.command](args)


if __name__ == "__main__":
    main()
