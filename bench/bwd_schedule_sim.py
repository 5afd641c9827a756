"""Predicts what the order of the backward's CTAs costs under a causal mask (docs/PERF.md, backward session
12): list scheduling of the grid's CTAs onto 132 SMs, one CTA per SM, each taken in grid order by the first
SM to free up, a CTA's time proportional to its steps (query heads of its kv head x query blocks that see its
key block). Prints the makespan over the ideal (total steps / SMs) with key blocks fastest in the grid (the
order before) and slowest (longest first). A model: it leaves out a CTA's fixed cost and the L2. Measured
(session 13) it held where the tail dominates, at few waves (GQA B 1, S 8k, 3.9 waves: predicted +23%,
measured +14.6%), and failed from 8 waves up, where longest first lost up to 31% (its CTAs running at once
span every head, so a head's Q and dO no longer stay in L2): hence bwd_ctas_longest_first's 4-wave bound.

    python3 bench/bwd_schedule_sim.py
    python3 bench/bwd_schedule_sim.py --persistent

--persistent compares, in the grid order the kernel uses (key blocks slowest up to 4 waves), three ways for
one persistent CTA per SM to share the tiles: in order as each CTA frees up (what a tile counter gives, and
the hardware's order for a CTA per tile), in order but each next tile taken as the CTA starts its current one
or 4 steps before its end, a fixed share (every sms-th tile), and the forward scheduler's
snake (rounds alternately reversed), as the largest CTA total over the mean (docs/PERF.md, backward session
27).

--sections compares, taken in order, the tile orders of core::bwd_heads_per_section: before session 29 (one
global longest-first order up to 4 waves, else key blocks fastest) and with sections of (batch, kv head)
pairs whose Q, dO and fp32 dQ rows fit 32 MiB of L2 beyond 4 waves (docs/PERF.md, backward session 29).

--tail prints, without a mask (every tile equally long), the grid's time over its ideal as it is and with
the last (tiles mod SMs) tiles' query walks split in P parts (a candidate not yet built, docs/PERF.md,
backward session 29)."""
import argparse
import heapq


def makespan(ctas, sms):
    free = [0] * sms
    end = 0
    for steps in ctas:
        start = heapq.heappop(free)
        end = max(end, start + steps)
        heapq.heappush(free, start + steps)
    return end


def causal_grid(batch, heads_kv, group, seqlen, key_blocks_slowest, block_m=64, block_n=128):
    """Steps of each CTA in grid order (square causal problem, BLOCK_M x BLOCK_N tiles): key blocks slowest
    is one section of every (batch, kv head) pair, key blocks fastest sections of one pair."""
    section_heads = batch * heads_kv if key_blocks_slowest else 1
    return sectioned_grid(batch, heads_kv, group, seqlen, section_heads, block_m, block_n)


def taken_early(ctas, sms, lead=None):
    """Makespan in order when each CTA takes its next tile while `lead` steps of its current one remain (at
    the current one's start if it has fewer, and always when lead is None): the persistent candidate's
    producer took the next index as it started loading the current tile, then once its loads were issued, a
    ring's depth of steps before its end (docs/PERF.md, backward session 28)."""
    tiles = iter(ctas)
    takes = []  # (when the CTA takes its next tile, CTA, when its current tile ends)
    for c in range(sms):
        steps = next(tiles, None)
        if steps is not None:
            takes.append((0 if lead is None else max(0, steps - lead), c, steps))
    heapq.heapify(takes)
    end = 0
    while takes:
        _, c, current_end = heapq.heappop(takes)
        end = max(end, current_end)
        steps = next(tiles, None)
        if steps is not None:
            next_end = current_end + steps
            heapq.heappush(takes, (current_end if lead is None else max(current_end, next_end - lead), c, next_end))
    return end


def fixed_share(ctas, sms):
    return max(sum(ctas[c::sms]) for c in range(sms))


def snake(ctas, sms):
    totals = [0] * sms
    for i, steps in enumerate(ctas):
        rnd, position = divmod(i, sms)
        totals[position if rnd % 2 == 0 else sms - 1 - position] += steps
    return max(totals)


def persistent(sms=132):
    for name, head_dim, heads_kv, group in (("D 64", 64, 32, 1), ("D 128", 128, 16, 1), ("D 256", 256, 8, 1),
                                            ("GQA 32/8", 128, 8, 4)):
        block_n = 128 if head_dim <= 128 else 64
        for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
            batch = 16384 // seqlen
            tiles = batch * heads_kv * (seqlen // block_n)
            ctas = causal_grid(batch, heads_kv, group, seqlen, tiles <= 4 * sms, 64, block_n)
            ideal = sum(ctas) / sms
            print(f"{name:9} S {seqlen:<6} {tiles:5} tiles: in order {makespan(ctas, sms) / ideal:.3f}, "
                  f"taken a tile ahead {taken_early(ctas, sms) / ideal:.3f}, "
                  f"4 steps ahead {taken_early(ctas, sms, 4) / ideal:.3f}, "
                  f"fixed share {fixed_share(ctas, sms) / ideal:.3f}, snake {snake(ctas, sms) / ideal:.3f}")


def sectioned_grid(batch, heads_kv, group, seqlen, section_heads, block_m=64, block_n=128):
    """Steps of each tile in core::BwdTileCoord's order: sections of `section_heads` pairs, key blocks
    slowest within a section."""
    n_blocks = seqlen // block_n
    tiles = []
    for tile in range(batch * heads_kv * n_blocks):
        n_block = tile % (section_heads * n_blocks) // section_heads
        tiles.append(group * (seqlen // block_m - n_block * block_n // block_m))
    return tiles


def heads_per_section(batch_heads, tiles, pair_bytes, sms, budget=32 << 20, max_waves=4):
    """core::bwd_heads_per_section under a causal mask: one order up to 4 waves, else the most pairs that
    divide batch_heads and fit the budget (sections of one before session 29: pass budget 0)."""
    if tiles <= max_waves * sms:
        return batch_heads
    fit = max(1, min(batch_heads, budget // pair_bytes))
    return next(h for h in range(fit, 0, -1) if batch_heads % h == 0)


def sections(sms=132):
    cells = [(f"D {d}", d, 16384 // seqlen, heads_kv, 1, seqlen)
             for d, heads_kv in ((64, 32), (128, 16), (256, 8)) for seqlen in (512, 1024, 2048, 4096, 8192, 16384)]
    cells += [("GQA 32/8", 128, batch, 8, 4, seqlen) for batch, seqlen in
              ((8, 4096), (1, 8192), (1, 16384), (1, 32768), (1, 65536), (1, 131072))]
    for name, head_dim, batch, heads_kv, group, seqlen in cells:
        block_n = 128 if head_dim <= 128 else 64
        n_tiles = batch * heads_kv * (seqlen // block_n)
        pair_bytes = group * seqlen * head_dim * (2 + 2 + 4)
        before = heads_per_section(batch * heads_kv, n_tiles, pair_bytes, sms, budget=0)
        after = heads_per_section(batch * heads_kv, n_tiles, pair_bytes, sms)
        old = makespan(sectioned_grid(batch, heads_kv, group, seqlen, before, 64, block_n), sms)
        new = makespan(sectioned_grid(batch, heads_kv, group, seqlen, after, 64, block_n), sms)
        ideal = sum(sectioned_grid(batch, heads_kv, group, seqlen, 1, 64, block_n)) / sms
        print(f"{name:9} B {batch:<3} S {seqlen:<7} {n_tiles:5} tiles: sections of {before:3} {old / ideal:.3f}, "
              f"of {after:3} {new / ideal:.3f}: predicted {old / new:.3f}")


def tail(sms=132):
    for name, block_n, heads in (("D 64", 128, 32), ("D 128", 128, 16), ("D 256", 64, 8)):
        for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
            tiles = 16384 // seqlen * heads * (seqlen // block_n)
            rest = tiles % sms
            whole = [1.0] * (tiles - rest)
            cells = [f"{name:6} S {seqlen:<6} {tiles:5} tiles: as is {makespan(whole + [1.0] * rest, sms) * sms / tiles:.3f}"]
            for parts in (2, 3, 4):
                split = makespan(whole + [1.0 / parts] * (rest * parts), sms) * sms / tiles
                cells.append(f"{parts} parts {split:.3f}")
            print(", ".join(cells))


def main(sms=132):
    cells = [("GQA 32/8", batch, 8, 4, seqlen) for batch, seqlen in
             ((8, 4096), (1, 8192), (1, 16384), (1, 32768), (1, 65536), (1, 131072))]
    cells += [("causal H 16", 16384 // seqlen, 16, 1, seqlen) for seqlen in (512, 1024, 2048, 4096, 8192, 16384)]
    for name, batch, heads_kv, group, seqlen in cells:
        before = causal_grid(batch, heads_kv, group, seqlen, False)
        after = causal_grid(batch, heads_kv, group, seqlen, True)
        ideal = sum(before) / sms
        print(f"{name:12} B {batch:<3} S {seqlen:<7} key blocks fastest {makespan(before, sms) / ideal:.3f} "
              f"of ideal, slowest {makespan(after, sms) / ideal:.3f}: predicted gain "
              f"{makespan(before, sms) / makespan(after, sms):.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument("--sections", action="store_true")
    parser.add_argument("--tail", action="store_true")
    args = parser.parse_args()
    if args.persistent:
        persistent()
    elif args.sections:
        sections()
    elif args.tail:
        tail()
    else:
        main()
