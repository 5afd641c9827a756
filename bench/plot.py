#!/usr/bin/env python3
"""Turns a bench/peers.py results JSON into the charts kernel users look for first.

Prefill (fwd/bwd): TFLOP/s per sequence length, one bar per implementation, one panel per head dim and
mask. Decode: GB/s per cache length. The PNG is written next to the JSON (same name, .png).
"""

import argparse
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["flashattn", "fa2", "cudnn", "efficient", "flex"]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("json", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, help="PNG path (default: beside the JSON)")
    args = parser.parse_args()
    result = json.loads(args.json.read_text())
    rows = [r for r in result["rows"] if r.get("tflops") or r.get("gbps")]
    decode = any(r["op"] == "decode" for r in rows)
    metric, unit = ("gbps", "GB/s") if decode else ("tflops", "TFLOP/s")
    panels = sorted({(r["D"], r["causal"]) for r in rows})
    impls = [i for i in ORDER if any(r["impl"] == i for r in rows)]
    columns = min(2, len(panels))
    rows_of_panels = (len(panels) + columns - 1) // columns
    figure, axes = plt.subplots(rows_of_panels, columns, figsize=(5.5 * columns, 3.4 * rows_of_panels),
                                squeeze=False)
    for axis, (dim, causal) in zip(axes.flat, panels):
        lengths = sorted({r["Sk"] if decode else r["Sq"] for r in rows if r["D"] == dim and r["causal"] == causal})
        width = 0.8 / max(1, len(impls))
        for index, impl in enumerate(impls):
            values = []
            for length in lengths:
                match = [r for r in rows if r["impl"] == impl and r["D"] == dim and r["causal"] == causal
                         and (r["Sk"] if decode else r["Sq"]) == length]
                values.append(match[0][metric] if match else 0)
            axis.bar([x + index * width for x in range(len(lengths))], values, width, label=impl)
        axis.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(lengths))])
        axis.set_xticklabels([f"{n // 1024}k" if n >= 1024 else str(n) for n in lengths])
        axis.set_title(f"D {dim}, {'causal' if causal else 'full'}")
        axis.set_xlabel("cache length" if decode else "sequence length")
        axis.set_ylabel(unit)
        axis.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    for axis in list(axes.flat)[len(panels):]:
        axis.set_visible(False)
    env = result["env"]
    op = rows[0]["op"] if rows else "?"
    argv = env.get("argv", [])
    path = argv[argv.index("--path") + 1] if "--path" in argv[:-1] else "auto"
    lead = result.get("host_lead_us") or 0
    timing = f", {lead / 1000:g} ms host lead" if lead else ""
    figure.suptitle(f"{op} {rows[0]['dtype'] if rows else ''}, flashattn path {path}, on {env.get('gpu')} — torch {env.get('torch')}, "
                    f"cuDNN {env.get('cudnn')}, commit {str(env.get('commit'))[:10]}{timing}", fontsize=9)
    figure.tight_layout()
    out = args.out or args.json.with_suffix(".png")
    figure.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
