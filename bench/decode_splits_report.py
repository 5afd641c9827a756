#!/usr/bin/env python3
"""Reads split sweeps of bench/decode_splits.py and prints, per (page size, B, L), the library's own choice
(the row with split 0 requested), the fastest split count measured, and the choice's regret (its time over
the fastest's), with the geometric mean regret over the cells: how far the split heuristic
(core::choose_kvcache_splits) is from the best count the sweep tried. With several files (e.g. the sweeps of
a base build and of a candidate in one call) each cell is printed once per file, and --vs compares the
fastest time of each cell across the first two files.

Usage: decode_splits_report.py SWEEP.json [SWEEP2.json ...] [--vs]
"""
import argparse
import json
import math


def label(row):
    """A split count as it ran: 16c16 is 16 splits combined in clusters of 16, 32 through the combine kernel."""
    cluster = row.get("cluster_size") or 0
    return f"{row['num_splits']}c{cluster}" if cluster > 1 else str(row["num_splits"])


def cells(path):
    """{(page size, B, L): {"auto": row or None, "best": row}} of one sweep's timed rows."""
    rows = [r for r in json.load(open(path))["rows"] if r.get("us_median")]
    out = {}
    for r in rows:
        cell = out.setdefault((r.get("page_size", 0), r["B"], r["Sk"]), {"auto": None, "best": None})
        if r["num_splits_requested"] == 0:
            cell["auto"] = r
        if cell["best"] is None or r["us_median"] < cell["best"]["us_median"]:
            cell["best"] = r
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="+", help="bench/decode_splits.py JSON files")
    parser.add_argument("--vs", action="store_true", help="fastest time per cell, first file over the second")
    args = parser.parse_args()
    sweeps = [cells(path) for path in args.sweeps]
    for path, sweep in zip(args.sweeps, sweeps):
        print(f"{path}\npage  B    L       | auto           | fastest        | regret")
        regrets = []
        for (page, batch, length), cell in sorted(sweep.items()):
            best = cell["best"]
            fastest = f"{label(best):>6} {best['us_median']:7.1f}"
            auto = cell["auto"]
            if auto is None:
                print(f"{page:<5} {batch:<4} {length:<7} | {'-':>14} | {fastest} | -")
                continue
            regret = auto["us_median"] / best["us_median"]
            regrets.append(regret)
            print(f"{page:<5} {batch:<4} {length:<7} | {label(auto):>6} {auto['us_median']:7.1f} | {fastest} | "
                  f"{regret:.3f}")
        if regrets:
            mean = math.exp(sum(math.log(r) for r in regrets) / len(regrets))
            print(f"geometric mean regret {mean:.3f} over {len(regrets)} cells (max {max(regrets):.3f})")
        print()
    if args.vs:
        if len(sweeps) < 2:
            parser.error("--vs needs two sweeps")
        first, second = sweeps[:2]
        print(f"fastest per cell: {args.sweeps[0]} over {args.sweeps[1]} (below 1: the first is faster)")
        ratios = []
        for key in sorted(k for k in first if k in second):
            a, b = first[key]["best"], second[key]["best"]
            ratios.append(a["us_median"] / b["us_median"])
            print(f"page {key[0]:<4} B {key[1]:<4} L {key[2]:<7} {label(a):>6} {a['us_median']:7.1f} / "
                  f"{label(b):>6} {b['us_median']:7.1f} = {ratios[-1]:.3f}")
        if ratios:
            print(f"geometric mean {math.exp(sum(math.log(r) for r in ratios) / len(ratios)):.3f} "
                  f"over {len(ratios)} cells")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
