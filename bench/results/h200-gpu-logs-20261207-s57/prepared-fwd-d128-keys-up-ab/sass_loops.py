#!/usr/bin/env python3
"""Instruction counts of the sm90 forward kernels in two nvdisasm listings (`nvdisasm -c X.cubin`), and of
every loop (a backward branch) holding HGMMA instructions, per kernel regime: how session 57 compared
0beb352's D 128 TU with main's. Usage: sass_loops.py MAIN.sass CHANGE.sass"""
import re
import sys


def kernels(path):
    text = open(path).read()
    for body in re.split(r"\n\s*\.text\.", text)[1:]:
        regime = re.search(r"FwdTileRegimeE(\d)", body.split(":")[0])
        if regime:
            yield int(regime.group(1)), body


def loops(body):
    address_of, pending = {}, None
    for line in body.splitlines():
        line = line.strip()
        label = re.match(r"(\.L_x_\d+):", line)
        if label:
            pending = label.group(1)
            continue
        at = re.match(r"/\*([0-9a-f]{4,})\*/", line)
        if at and pending:
            address_of[pending], pending = int(at.group(1), 16), None
    instructions = [(int(a, 16), t) for a, t in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", body)]
    for address, text in instructions:
        target = re.search(r"BRA\s+(?:`\()?(\.L_x_\d+)", text)
        if target and address_of.get(target.group(1), address) < address:
            inside = [t for a, t in instructions if address_of[target.group(1)] <= a <= address]
            hgmma = sum("HGMMA" in t for t in inside)
            if hgmma:
                yield len(inside), hgmma


for path in sys.argv[1:3]:
    for regime, body in kernels(path):
        count = len(re.findall(r"/\*[0-9a-f]{4,}\*/\s+[A-Z@]", body))
        first = next(loops(body), None)
        print(f"{path} regime {regime}: {count} instructions, first HGMMA loop {first}")
