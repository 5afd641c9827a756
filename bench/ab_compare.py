#!/usr/bin/env python3
"""Compares flashattn rows of bench/peers.py JSON files from an A/B measurement: runs of a change (A) and of
a base (B) interleaved in one machine session. Prints per cell the TFLOP/s (or GB/s) of every run, the
ratio of the means A / B, a peer from runs of its own in the same session (the A and B runs time flashattn
alone, so that neither side runs next to a peer the other does not have), and the geometric mean of the
ratios.

Usage: ab_compare.py --a A1.json [A2.json ...] --b B1.json [B2.json ...] [--peer cudnn --peer-runs P.json ...]
The runs may also be `flashattn bench --json` reports of the CLI (two builds' CLIs, e.g. carried in from
scripts/build-for-device): their cuda rows are flashattn's, in TFLOP/s, a row whose check failed untimed.
With --b-impl the B runs are another implementation's (e.g. flashattn against fa2, each timed in processes of
its own, interleaved). --impl compares other rows of flashattn's: the decode grid's paged cache
("flashattn_paged16").
"""
import argparse
import json
import math


def cells(path, impl):
    data = json.load(open(path))
    if "results" in data:  # the CLI's report
        return {(r["head_dim"], r["causal"], r["batch"], r["seqlen_q"], r["seqlen_k"]):
                r["gflops"] / 1000 if r["verify"]["passed"] and r["gflops"] else None
                for r in data["results"] if r["backend"] == "cuda" and impl == "flashattn"}
    rows = data["rows"]
    value = "gbps" if rows and rows[0].get("op") == "decode" else "tflops"
    return {(r["D"], r["causal"], r["B"], r["Sq"], r["Sk"]): r[value] for r in rows if r["impl"] == impl}


def device(path):
    """The GPU a run's JSON names (peers.py's env.gpu, the CLI's env.cuda_device.name), or None."""
    env = json.load(open(path)).get("env", {})
    return env.get("gpu") or (env.get("cuda_device") or {}).get("name")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", nargs="+", required=True, help="runs of the change")
    parser.add_argument("--b", nargs="+", required=True, help="runs of the base")
    parser.add_argument("--impl", default="flashattn", help="the rows of the A runs (and of B without --b-impl)")
    parser.add_argument("--b-impl", help="the implementation the B runs time (default: --impl)")
    parser.add_argument("--peer", default="cudnn", help="a peer shown beside the runs")
    parser.add_argument("--peer-runs", nargs="*", default=[], help="runs timing the peer")
    args = parser.parse_args()
    a = [cells(path, args.impl) for path in args.a]
    b = [cells(path, args.b_impl or args.impl) for path in args.b]
    print(f"rows: {args.impl}" + (f" against {args.b_impl}" if args.b_impl else ""))
    # A ratio is a property of one machine: name it, and say so when the sides' runs name different GPUs.
    sides = {side: {device(path) for path in paths} - {None} for side, paths in (("A", args.a), ("B", args.b))}
    if sides["A"] and sides["A"] == sides["B"] and len(sides["A"]) == 1:
        print(f"device: {next(iter(sides['A']))}")
    elif sides["A"] or sides["B"]:
        print(f"WARNING: the runs name different GPUs (A: {', '.join(sorted(sides['A'])) or '?'}; "
              f"B: {', '.join(sorted(sides['B'])) or '?'}): these ratios compare machines, not code")
    peer = [cells(path, args.peer) for path in args.peer_runs]
    keys = [k for k in a[0] if all(k in run for run in a + b)]
    print("D   causal  B   Sq     Sk    | A runs           | B runs           | A/B    | " + args.peer)
    ratios, failed = [], 0
    for key in keys:
        # A cell that failed in any run (no time: an error, a failed check, a missing binding) has no ratio.
        timed = all(run[key] is not None for run in a + b)
        ratio = (sum(run[key] for run in a) / len(a)) / (sum(run[key] for run in b) / len(b)) if timed else None
        if timed:
            ratios.append(ratio)
        else:
            failed += 1
        d, causal, batch, sq, sk = key
        peers = " ".join(show(run[key]) for run in peer if key in run)
        print(f"{d:<4}{'causal' if causal else 'full':7} {batch:<3} {sq:<6} {sk:<6}| "
              + f"{' '.join(show(run[key]) for run in a):16} | {' '.join(show(run[key]) for run in b):16} | "
              + f"{f'{ratio:.3f}' if timed else 'FAIL ':5}  | {peers}")
    if ratios:
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"geometric mean A/B {geomean:.3f} over {len(ratios)} cells (min {min(ratios):.3f}, max {max(ratios):.3f})")
    if failed:
        print(f"{failed} of {len(keys)} cells failed in a run: no ratio")
    return 0 if ratios else 1


def show(value):
    return "FAIL" if value is None else f"{value:.0f}"


if __name__ == "__main__":
    raise SystemExit(main())
