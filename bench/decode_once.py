"""Runs one decode shape of bench/peers.py's decode grid a few times, for a profiler to attach to.

    ncu --clock-control none --set full -k regex:decode --launch-skip 2 -c 2 \
        python3 bench/decode_once.py --batch 64 --length 32768 [--page-size 16]

With --impl cudnn the same shape runs through PyTorch SDPA's cuDNN backend on the dense cache (as
bench/peers.py times it), so that a profiler sees the peer's kernel on the same inputs.

One new query token over a full cache: Hq = 32, Hkv = 8, D = 128, bf16 (the issue's decode grid); the cache
is dense (B, L, Hkv, D) or, with --page-size, those rows in shuffled pages. Prints what ran (last_run).
"""
import argparse

import torch

import flashattn


def decode_call(batch, length, page_size, num_splits, device="cuda", impl="flashattn"):
    """A zero-argument call of one decode step of the issue's grid: one new query token over a full cache of
    `length` keys (Hq 32, Hkv 8, D 128, bf16 on CUDA), dense or in shuffled pages of `page_size` (0: dense).
    `impl` "cudnn": PyTorch SDPA's cuDNN backend over the dense cache instead."""
    torch.manual_seed(0)
    heads, heads_kv, dim = 32, 8, 128
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    q = torch.randn(batch, 1, heads, dim, dtype=dtype, device=device)
    k, v = (torch.randn(batch, length, heads_kv, dim, dtype=dtype, device=device) for _ in range(2))
    if impl == "cudnn":
        from peers import kv_for, make_impl  # bench/ is this script's directory, first on sys.path

        k, v, _ = kv_for(impl, q, k, v, False, "auto")
        return make_impl(impl, q, k, v, False, "auto")[0]
    table = None
    if page_size:
        pages = length // page_size
        order = torch.randperm(batch * pages, device=device)
        table = order.view(batch, pages).to(torch.int32)
        k_pages, v_pages = (torch.empty_like(x).view((batch * pages, page_size) + x.shape[2:]) for x in (k, v))
        k_pages[order] = k.reshape(k_pages.shape)
        v_pages[order] = v.reshape(v_pages.shape)
        k, v = k_pages, v_pages
    seqlens = torch.full((batch,), length, dtype=torch.int32, device=device)

    def call():
        flashattn.flash_attn_with_kvcache(q, k, v, cache_seqlens=seqlens, block_table=table, num_splits=num_splits)
    return call


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--impl", choices=["flashattn", "cudnn"], default="flashattn")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--num-splits", type=int, default=0,
                        help="flash_attn_with_kvcache's num_splits (0: the library's heuristic)")
    parser.add_argument("--time", type=int, default=0,
                        help="also time this many calls: back to back, each after an L2 flush, replayed from a CUDA graph, "
                             "and with bench/peers.py's timing (us/call)")
    args = parser.parse_args()
    if args.impl == "cudnn" and (args.page_size or args.num_splits):
        parser.error("--page-size and --num-splits apply to flashattn only (cuDNN reads the dense cache)")

    call = decode_call(args.batch, args.length, args.page_size, args.num_splits, impl=args.impl)

    for _ in range(args.runs):
        call()
    torch.cuda.synchronize()
    if args.impl == "flashattn":
        print(flashattn.last_run())
    if args.time:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.time):
            call()
        end.record()
        torch.cuda.synchronize()
        print(f"back to back: {start.elapsed_time(end) * 1e3 / args.time:.1f} us/call")
        scratch = torch.empty(2 ** 29, dtype=torch.uint8, device="cuda")  # 512 MiB, well past the L2
        times = []
        for _ in range(args.time):
            scratch.zero_()
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        times.sort()
        print(f"after an L2 flush: {times[len(times) // 2]:.1f} us/call (median of {args.time})")
        from peers import graph_back_to_back_us, time_ms  # bench/ is this script's directory, first on sys.path

        # The same call replayed from a CUDA graph, as bench/peers.py times it.
        print(f"graph replay, back to back: {graph_back_to_back_us(call, args.time):.1f} us/call")
        # bench/peers.py's own timing of this call (an L2 flush, then a graph replay, per sample): the
        # session-5 grid measured B 64 L 32k 14% slower there than the three timings above.
        median, p10, p90 = time_ms(call, args.time, graph=True)
        print(f"peers.time_ms: {median * 1e3:.1f} us/call (p10 {p10 * 1e3:.1f}, p90 {p90 * 1e3:.1f})")


if __name__ == "__main__":
    main()
