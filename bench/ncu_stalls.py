#!/usr/bin/env python3
"""Where a kernel's warps stall, from an ncu source page exported as CSV.

Export on the GPU machine (one profiled launch, `--set full`):
    ncu -i REPORT.ncu-rep --page source --csv --print-source sass | gzip > sass.csv.gz
Then, anywhere:
    bench/ncu_stalls.py sass.csv.gz top [--count 15]        the instructions with the most stall samples,
                                                            with their three largest stall reasons
    bench/ncu_stalls.py sass.csv.gz regions [--window 32]   samples per window of instructions, with the
                                                            notable opcodes in each (HGMMA, barriers, MUFU,
                                                            TMA, ...), to map samples onto prologue, loop
                                                            and epilogue
    bench/ncu_stalls.py sass.csv.gz range FIRST LAST        the instructions of one range, by samples
    bench/ncu_stalls.py sass.csv.gz counts [--count 8]      samples grouped by how often an instruction
                                                            ran: in a persistent kernel the per-step loop,
                                                            the per-tile code and the per-CTA code each run
                                                            a count of their own, so this splits a kernel's
                                                            time into them (with the instructions per run
                                                            of each group and its largest stall reasons)
Instruction indices are positions in the kernel's SASS (address / 16), as `regions` prints them.

ncu's "barrier" reason on a warpgroup-collective instruction (HGMMA, WARPGROUP.ARRIVE, WARPGROUP.DEPBAR) is
the warpgroup's four warps waiting for each other or for a wgmma group, not a named or CTA barrier; it is
reported as "warpgroup_sync" (read as the next named barrier's wait, it once sent a change after a handover
that cost nothing: docs/PERF.md, backward session 20).
"""
import argparse
import csv
import gzip
from dataclasses import dataclass

SAMPLES = "Warp Stall Sampling (All Samples)"
NOTABLE = ("HGMMA", "HMMA", "SYNCS", "BAR", "UTMALDG", "UTMASTG", "UBLKCP", "MUFU", "STG", "LDG", "RED", "ATOM",
           "STS", "LDS", "LDSM", "STSM", "LDL", "STL", "EXIT", "WARPGROUP", "USETMAXREG", "DEPBAR")
WARPGROUP_COLLECTIVE = ("HGMMA", "WARPGROUP")


@dataclass
class Instruction:
    index: int  # position in the kernel's SASS
    source: str
    samples: int
    executed: int
    stalls: dict  # stall reason -> samples


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f))
    # ncu prints a title line before the header.
    header_at = next(i for i, row in enumerate(rows) if "Address" in row and "Source" in row)
    header, data = rows[header_at], rows[header_at + 1:]
    col = {name: i for i, name in enumerate(header)}
    stall_cols = [(name, i) for name, i in col.items() if name.startswith("stall_") and "(Not Issued)" not in name]
    out, base = [], None
    for row in data:
        try:
            address = int(row[col["Address"]], 16)
        except (ValueError, IndexError):
            continue
        base = address if base is None else base
        stalls = {name[len("stall_"):]: int(row[i]) for name, i in stall_cols if row[i] not in ("", "0")}
        if opcode(row[col["Source"]]) in WARPGROUP_COLLECTIVE and "barrier" in stalls:
            stalls["warpgroup_sync"] = stalls.pop("barrier")
        out.append(Instruction((address - base) // 16, row[col["Source"]].strip(), int(row[col[SAMPLES]] or 0),
                               int(row[col["Instructions Executed"]] or 0), stalls))
    return out


def opcode(source):
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def describe(inst, total):
    # Some reasons have no stall_* column in the export (e.g. the samples of a wgmma waiting to issue).
    stalls = dict(inst.stalls)
    unnamed = inst.samples - sum(stalls.values())
    if unnamed > 0:
        stalls["(no column)"] = unnamed
    reasons = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
    reasons = ", ".join(f"{name} {100 * n / max(inst.samples, 1):.0f}%" for name, n in reasons)
    return f"{inst.index:6d} {100 * inst.samples / total:5.2f}%  exec {inst.executed:9d}  {inst.source[:70]:70s}  {reasons}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="ncu --page source --csv --print-source sass output (.gz or plain)")
    sub = parser.add_subparsers(dest="command", required=True)
    top = sub.add_parser("top")
    top.add_argument("--count", type=int, default=15)
    regions = sub.add_parser("regions")
    regions.add_argument("--window", type=int, default=32)
    regions.add_argument("--min-percent", type=float, default=0.5, help="hide windows with fewer samples")
    counts = sub.add_parser("counts")
    counts.add_argument("--count", type=int, default=8, help="groups shown, most samples first")
    span = sub.add_parser("range")
    span.add_argument("first", type=int)
    span.add_argument("last", type=int)
    args = parser.parse_args()

    insts = read(args.csv)
    total = max(sum(i.samples for i in insts), 1)
    print(f"{total} samples over {len(insts)} instructions")
    if args.command == "top":
        for inst in sorted(sorted(insts, key=lambda i: -i.samples)[:args.count], key=lambda i: i.index):
            print(describe(inst, total))
    elif args.command == "regions":
        for start in range(0, len(insts), args.window):
            chunk = insts[start:start + args.window]
            samples = sum(i.samples for i in chunk)
            if 100 * samples / total < args.min_percent:
                continue
            kinds = sorted({opcode(i.source) for i in chunk} & set(NOTABLE))
            executed = max(i.executed for i in chunk)
            print(f"{chunk[0].index:6d} {100 * samples / total:5.1f}%  exec <= {executed:9d}  {' '.join(kinds)}")
    elif args.command == "counts":
        groups = {}
        for inst in insts:
            groups.setdefault(inst.executed, []).append(inst)
        ranked = sorted(groups.items(), key=lambda kv: -sum(i.samples for i in kv[1]))[:args.count]
        for executed, members in ranked:
            samples = sum(i.samples for i in members)
            stalls = {}
            for inst in members:
                for name, n in inst.stalls.items():
                    stalls[name] = stalls.get(name, 0) + n
            reasons = ", ".join(f"{name} {100 * n / max(samples, 1):.0f}%"
                                for name, n in sorted(stalls.items(), key=lambda kv: -kv[1])[:3])
            print(f"exec {executed:9d}  {100 * samples / total:5.1f}% of samples  {len(members):5d} instructions"
                  f"  {reasons}")
    else:
        chosen = [i for i in insts if args.first <= i.index <= args.last]
        print(f"range {args.first}-{args.last}: {100 * sum(i.samples for i in chosen) / total:.1f}% of samples")
        for inst in sorted(chosen, key=lambda i: -i.samples)[:40]:
            print(describe(inst, total))


if __name__ == "__main__":
    main()
