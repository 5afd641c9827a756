"""Predicts what the order of the backward's CTAs costs under a causal mask (docs/PERF.md, backward session
12): list scheduling of the grid's CTAs onto 132 SMs, one CTA per SM, each taken in grid order by the first
SM to free up, a CTA's time proportional to its steps (query heads of its kv head x query blocks that see its
key block). Prints the makespan over the ideal (total steps / SMs) with key blocks fastest in the grid (the
order before) and slowest (longest first). A model: it leaves out a CTA's fixed cost and the L2. Measured
(session 13) it held where the tail dominates, at few waves (GQA B 1, S 8k, 3.9 waves: predicted +23%,
measured +14.6%), and failed from 8 waves up, where longest first lost up to 31% (its CTAs running at once
span every head, so a head's Q and dO no longer stay in L2): hence bwd_ctas_longest_first's 4-wave bound.

    python3 bench/bwd_schedule_sim.py"""
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
    """Steps of each CTA in grid order (square causal problem, BLOCK_M x BLOCK_N tiles)."""
    query_blocks = seqlen // block_m
    keys = [(b, h, n) for b in range(batch) for h in range(heads_kv) for n in range(seqlen // block_n)]
    keys.sort(key=(lambda k: (k[2], k[0], k[1])) if key_blocks_slowest else (lambda k: k))
    return [group * (query_blocks - n * block_n // block_m) for _, _, n in keys]


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
    main()
