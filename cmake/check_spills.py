#!/usr/bin/env python3
"""Holds every built CUDA kernel's register spills to src/cuda/spill_budget.txt.

The kernel TUs' compiler launcher (cmake/time_compile.sh) keeps each TU's ptxas report in OBJECT.ptxas. This
reads every such report under a build tree, names each kernel (demangled with c++filt when it is there) and
its architecture, and compares its spill stores and loads with the budget's first matching line. A kernel
above its budget fails the check: a spill in a warp-specialised kernel's consumers costs a local-memory
round trip on the step's path (session 36 found D 256's backward at 252 / 308 bytes, up from 32 / 28,
seven sessions after the change that caused it). A kernel no line matches may not spill at all.

The budget holds for the nvcc it names ('nvcc MAJOR.MINOR' line): built with another, a kernel above its
budget is reported but does not fail the check, since ptxas's allocation moves between releases.

    cmake/check_spills.py BUILD_DIR BUDGET_FILE [NVCC_VERSION]
"""

import fnmatch
import pathlib
import re
import shutil
import subprocess
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPERTIES = re.compile(r"Function properties for (\S+)")
SPILLS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def parse_report(text):
    """(mangled name, arch, spill stores, spill loads) of each entry function in one ptxas report."""
    kernels, arch, entries, properties = [], None, {}, None
    for line in text.splitlines():
        if m := ENTRY.search(line):
            entries[m.group(1)] = m.group(2)
        elif m := PROPERTIES.search(line):
            properties = m.group(1)
        elif (m := SPILLS.search(line)) and properties is not None:
            arch = entries.get(properties)
            if arch is not None:  # device functions have properties too; only kernels are held
                kernels.append((properties, arch, int(m.group(2)), int(m.group(3))))
            properties = None
    return kernels


def demangle(names):
    tool = shutil.which("c++filt")
    if not tool or not names:
        return dict(zip(names, names))
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))


def budget_nvcc(text):
    """The MAJOR.MINOR of the budget's 'nvcc MAJOR.MINOR' line (None without one)."""
    m = re.search(r"^nvcc (\d+\.\d+)\s*$", text, re.MULTILINE)
    return m.group(1) if m else None


def parse_budget(text):
    """(pattern, stores, loads) lines: 'ARCH KERNEL-PATTERN STORES LOADS', '#' comments, the nvcc line."""
    budget = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("nvcc "):
            continue
        fields = line.rsplit(None, 2)
        if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
            raise ValueError(f"budget line {number}: expected 'ARCH KERNEL-PATTERN STORES LOADS', got {line!r}")
        budget.append((fields[0], int(fields[1]), int(fields[2])))
    return budget


def check(kernels, budget):
    """Rows (name, stores, loads, allowed stores, allowed loads, ok) for every kernel, in name order."""
    rows = []
    for name, stores, loads in sorted(kernels):
        allowed = next(((s, l) for pattern, s, l in budget if fnmatch.fnmatchcase(name, pattern)), (0, 0))
        rows.append((name, stores, loads, *allowed, stores <= allowed[0] and loads <= allowed[1]))
    return rows


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    build, budget_file = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    budget_text = budget_file.read_text()
    found = [k for report in sorted(build.rglob("*.ptxas")) for k in parse_report(report.read_text())]
    if not found:
        print(f"check_spills: no ptxas report under {build} (no CUDA kernel TU built)", file=sys.stderr)
        return 1
    names = demangle(sorted({k[0] for k in found}))
    kernels = {(f"{arch} {names[mangled]}", stores, loads) for mangled, arch, stores, loads in found}
    rows = check(kernels, parse_budget(budget_text))
    for name, stores, loads, max_stores, max_loads, ok in rows:
        print(f"{'ok  ' if ok else 'OVER'} {stores:4d} / {loads:4d} bytes (budget {max_stores} / {max_loads})  {name}")
    over = [r for r in rows if not r[5]]
    print(f"check_spills: {len(rows)} kernels, {len(over)} above their budget ({budget_file})")
    measured_with = budget_nvcc(budget_text)
    built_with = ".".join(argv[3].split(".")[:2]) if len(argv) == 4 else None
    if over and measured_with and built_with and built_with != measured_with:
        print(f"check_spills: not failing: the budget is nvcc {measured_with}'s, this build nvcc {built_with}'s; "
              "re-measure it with this nvcc")
        return 0
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
