#!/usr/bin/env bash
# Session 21 call 2 (warm machine, call 1's build-gpu): call 1's ncu runs again with the right option name
# (--warp-sampling-interval 0: a sample every 32 cycles).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
export PYTHONPATH=build-gpu/python
for impl in flashattn cudnn; do
  regex=$([[ $impl == flashattn ]] && echo decode || echo 'sdpa|fmha|cudnn|flash|attn')
  timeout 90 ncu --clock-control none --set full --warp-sampling-interval 0 --import-source no -k regex:"$regex" \
    --launch-skip 2 -c 1 -o $L/ncu_$impl python3 bench/decode_once.py --impl $impl --runs 4 > $L/ncu_$impl.log 2>&1
  echo "ncu $impl rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$impl.ncu-rep --page details > $L/ncu_${impl}_details.txt 2>&1
  ncu -i $L/ncu_$impl.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${impl}_sass.csv.gz
done
rm -f $L/*.ncu-rep
echo "done at $((SECONDS - t0)) s"
