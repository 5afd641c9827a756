#!/usr/bin/env bash
# Session 16 call 6 (fresh machine): the L2 prefetch of a CTA's next tile (the commit after c7cc19c) against
# c7cc19c, D 128 and 256 bf16, the forward at S 512 - 4k, full and causal, two interleaved runs a side, cuDNN
# after them (scripts/ab, 2 ms lead).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.gz
TMPDIR=/tmp FLASHATTN_HEAD_DIMS="128;256" AB_RUNS=2 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--head-dims 128,256 --seqlens 512,1024,2048,4096" timeout 400 scripts/ab $L/ab .ab/base.tar > $L/ab_summary.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt 2>/dev/null || tail -20 $L/ab_summary.log
