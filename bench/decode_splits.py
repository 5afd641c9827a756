"""The decode call's latency against its split count, in one process: the data the split heuristic
(core::choose_kvcache_splits) is fitted to. For each (batch, cache length) of the grid and each split count
(0 = the library's choice), bench/peers.py's timing of one decode step (an L2 flush, then a CUDA-graph
replay, per sample) and the same graph replayed back to back; what ran (splits, CTAs, cluster size) from
last_run(). Hq 32, Hkv 8, D 128, bf16, one new token over a full cache (bench/decode_once.py's call).

    python3 bench/decode_splits.py --json out.json [--batches 1,4,16] [--lengths 1024,8192,32768]
                                   [--splits 0,1,2,4,8,16,32] [--page-size 0] [--samples 50]

--dry-run makes each call once on the CPU backend and times nothing (a check of the script itself).
"""
import argparse
import json
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from decode_once import decode_call  # noqa: E402

import flashattn  # noqa: E402


def ints(text):
    return [int(x) for x in text.split(",") if x]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", default="1,4,16")
    parser.add_argument("--lengths", default="1024,8192,32768")
    parser.add_argument("--splits", default="0,1,2,4,8,16,32")
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    device = "cpu" if args.dry_run else "cuda"
    if not args.dry_run:
        from peers import environment, graph_back_to_back_us, time_ms  # bench/: this script's directory
    rows = []
    for batch in ints(args.batches):
        for length in ints(args.lengths):
            for splits in ints(args.splits):
                call = decode_call(batch, length, args.page_size, splits, device)
                call()
                ran = flashattn.last_run()
                row = {"op": "decode", "impl": "flashattn", "B": batch, "Sk": length, "H": 32, "Hk": 8, "D": 128,
                       "page_size": args.page_size, "num_splits_requested": splits, "num_splits": ran["num_splits"],
                       "num_ctas": ran["num_ctas"], "cluster_size": ran["cluster_size"], "kernel": ran["kernel"]}
                if not args.dry_run:
                    median, p10, p90 = time_ms(call, args.samples, graph=True)
                    kv_bytes = 2 * batch * length * 8 * 128 * 2
                    row.update({"us_median": median * 1e3, "us_p10": p10 * 1e3, "us_p90": p90 * 1e3,
                                "us_graph_back_to_back": graph_back_to_back_us(call, args.samples),
                                "gbps": kv_bytes / median / 1e6})
                rows.append(row)
                timing = (f"{row['us_median']:8.1f} us (graph b2b {row['us_graph_back_to_back']:.1f})"
                          if "us_median" in row else "(not timed)")
                print(f"B {batch:3d} L {length:6d} splits {splits:3d} -> {row['num_splits']:3d} "
                      f"cluster {row['cluster_size']}  {timing}", flush=True)
    if args.json:
        env = {} if args.dry_run else environment()
        args.json.write_text(json.dumps({"env": env, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
