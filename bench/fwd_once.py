"""Runs one forward (or, with --op bwd, forward and backward) shape of bench/peers.py's paper grid a few times
with one implementation, for a profiler to attach to (the CLI's `flashattn bench` covers flashattn alone;
this also runs the peers' kernels on the same shape):

    ncu --section LaunchStats --section Occupancy -k regex:'fmha|sdpa|flash' \
        python3 bench/fwd_once.py --impl cudnn --seqlen 512 --head-dim 128 [--causal] [--op bwd]

B * S = --tokens and H * D = --hidden as in the paper grid (B 32, H 16 at S 512, D 128), bf16, Sq = Sk = S.
Prints the kernel the implementation reports.
"""
import argparse

import torch

from peers import make_impl  # bench/ is this script's directory, first on sys.path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impl", choices=["flashattn", "cudnn", "fa2"], default="flashattn")
    parser.add_argument("--op", choices=["fwd", "bwd"], default="fwd", help="bwd: each run also backpropagates")
    parser.add_argument("--seqlen", type=int, default=512)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--tokens", type=int, default=16384, help="B * S")
    parser.add_argument("--hidden", type=int, default=2048, help="H * D")
    parser.add_argument("--heads-kv", type=int, help="K/V heads (GQA; default: as many as query heads)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    torch.manual_seed(0)
    batch, heads = max(1, args.tokens // args.seqlen), args.hidden // args.head_dim
    heads_kv = args.heads_kv or heads
    q, k, v = (torch.randn(batch, args.seqlen, h, args.head_dim, dtype=torch.bfloat16, device="cuda")
               for h in (heads, heads_kv, heads_kv))
    if args.op == "bwd":
        q, k, v = (x.requires_grad_() for x in (q, k, v))
    run, kernel = make_impl(args.impl, q, k, v, args.causal, "auto")
    for _ in range(args.runs):
        out = run()
        if args.op == "bwd":
            out.backward(torch.randn_like(out))
    torch.cuda.synchronize()
    print(f"B {batch} S {args.seqlen} H {heads} Hkv {heads_kv} D {args.head_dim} causal {args.causal}: {kernel()}")


if __name__ == "__main__":
    main()
