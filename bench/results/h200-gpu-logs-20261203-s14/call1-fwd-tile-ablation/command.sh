#!/usr/bin/env bash
# Session 14 call 1 (fresh machine, tree at the commit in FLASHATTN_COMMIT): the D 128 forward's key tile,
# measured by scripts/ablation (one build per variant, flashattn alone per run): the shipped 128 x 128 (2 Q,
# 2 K + 3 V stages) against 176 keys (1 Q, 2 + 2), 144 keys (1 Q, 2 K + 3 V) and 144 keys (2 Q, 2 + 2); a
# second round timed in reverse order, and cuDNN once. Then ncu of the portable (sm80) forward and of
# FlashAttention-2 at D 128, full, S 512 (issue 3's last cells).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
V="none block_n_176 block_n_144 block_n_144_q2"
ABLATION_HEAD_DIM=128 ABLATION_BUILD_ROOT=/tmp/abl timeout 330 scripts/ablation $L/abl $V > $L/ablation.log 2>&1
echo "ablation rc=$? at $((SECONDS - t0)) s"; grep -h "spill\|stack frame" $L/abl/build_*.log | sort | uniq -c | head
for v in $(echo $V | tr ' ' '\n' | tac); do
  PYTHONPATH=/tmp/abl/$v/python timeout 60 python3 bench/peers.py --impls flashattn --head-dims 128 \
    --json $L/abl/round2_$v.json > $L/abl/round2_$v.log 2>&1; echo "round2 $v rc=$? at $((SECONDS - t0)) s"
done
PYTHONPATH=/tmp/abl/none/python timeout 60 python3 bench/peers.py --impls cudnn --head-dims 128 \
  --json $L/abl/cudnn.json > $L/abl/cudnn.log 2>&1
python3 bench/ab_compare.py --a $L/abl/ablation_block_n_176.json $L/abl/round2_block_n_176.json \
  --b $L/abl/ablation_none.json $L/abl/round2_none.json --peer cudnn --peer-runs $L/abl/cudnn.json | tee $L/ab_176.txt
for v in block_n_144 block_n_144_q2; do
  python3 bench/ab_compare.py --a $L/abl/ablation_$v.json $L/abl/round2_$v.json \
    --b $L/abl/ablation_none.json $L/abl/round2_none.json | tee $L/ab_$v.txt
done
echo "ratios at $((SECONDS - t0)) s"
if ((SECONDS - t0 < 470)); then
  C="--head-dims 128 --seqlens 512 --masks full --samples 5"
  PYTHONPATH=/tmp/abl/none/python timeout 45 ncu --clock-control none --set full -k regex:fwd_sm80 --launch-skip 3 -c 1 \
    -o $OUT/sm80_512 python3 bench/peers.py --impls flashattn --path portable $C > $L/ncu_sm80.log 2>&1
  echo "ncu sm80 rc=$? at $((SECONDS - t0)) s"
  PYTHONPATH=/tmp/abl/none/python timeout 45 ncu --clock-control none --set full -k regex:flash_fwd --launch-skip 3 -c 1 \
    -o $OUT/fa2_512 python3 bench/peers.py --impls fa2 $C > $L/ncu_fa2.log 2>&1
  echo "ncu fa2 rc=$? at $((SECONDS - t0)) s"
fi
