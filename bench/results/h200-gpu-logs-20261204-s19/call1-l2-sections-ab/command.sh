#!/usr/bin/env bash
# Session 19 call 1 (fresh machine): A/B of 064ab80 (longest-first order in L2-sized sections of kv heads)
# against aca5b2d: the long-context GQA grid and the causal paper cells that take the longest-first order
# (S 2k-16k; 2k takes pairs at D 64/128, a control), D 64/128/256, with the change's CudaForwardSm90 tests
# (full tier) while the base builds; then ncu's DRAM bytes and L2 hit rate of both at GQA 32/8, S 64k.
set -uo pipefail
export FLASHATTN_COMMIT=064ab80
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build AB_TESTS='CudaForwardSm90.*' \
  AB_PEERS_ARGS="--grid gqa-long; --masks causal --seqlens 2048,4096,8192,16384" \
  timeout 470 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt; grep -E "PASSED|FAILED|tests," $L/ab/tests.log | head
base_py=$(ls -d /tmp/tmp.*/base/build/python | head -1)
for side in change base; do
  py=build-gpu/python; [[ $side == base ]] && py=$base_py
  PYTHONPATH=$py timeout 40 ncu --clock-control none -k regex:fwd_sm90 --launch-skip 1 -c 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
    python3 bench/fwd_once.py --seqlen 65536 --tokens 65536 --hidden 4096 --heads-kv 8 --causal --runs 2 \
    > $L/ncu_gqa64k_$side.log 2>&1
  echo "ncu $side rc=$? at $((SECONDS - t0)) s"; grep -E "duration|dram__bytes|hit_rate" $L/ncu_gqa64k_$side.log
done
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
