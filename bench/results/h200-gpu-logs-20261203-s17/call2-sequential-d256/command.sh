#!/usr/bin/env bash
# Session 17 call 2 (fresh machine): the sequential_d256 ablation variant (D 256 as cuDNN runs it: 128x128,
# one stage each of Q, K and V, each step's S, softmax and P·V in sequence with P in S's registers) against
# none on the D 256 grid, both masks, S 512-16k: two runs a side, the second in reverse order (the timing
# runs also check each output against the reference); ncu of the variant at D 256 full S 4096 (beside
# call 1's of ours and cuDNN's).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
export ABLATION_HEAD_DIM=256 FLASHATTN_PEERS_ARGS=""
ABLATION_STEPS=build timeout 300 scripts/ablation $L/abl none sequential_d256 > $L/ablation_build.log 2>&1
echo "ablation builds rc=$? at $((SECONDS - t0)) s"; grep -h -A2 "fwd_sm90" $L/abl/build_*.log | grep -E "spill|Used" | sort | uniq -c
ABLATION_STEPS=time timeout 120 scripts/ablation $L/abl none sequential_d256 > $L/ablation.log 2>&1
echo "ablation timing rc=$? at $((SECONDS - t0)) s"
for v in sequential_d256 none; do
  PYTHONPATH=build-ablation/$v/python timeout 60 python3 bench/peers.py --impls flashattn --head-dims 256 \
    --json $L/abl/ablation_${v}_2.json > $L/abl/ablation_${v}_2.log 2>&1
  echo "== $v run 2 rc=$? at $((SECONDS - t0)) s"
done
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/abl/ablation_*.json
python3 bench/ab_compare.py --a $L/abl/ablation_sequential_d256*.json --b $L/abl/ablation_none*.json | tee $L/abl/ab.txt
export PYTHONPATH=build-ablation/sequential_d256/python
n=seq_d256_full_s4096
timeout 120 ncu --clock-control none --set full -k regex:fwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_$n \
  python3 bench/fwd_once.py --impl flashattn --seqlen 4096 --head-dim 256 > $L/ncu_$n.log 2>&1
echo "ncu $n rc=$? at $((SECONDS - t0)) s"
ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1
ncu -i $L/ncu_$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${n}_sass.csv.gz
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Dynamic Shared|Compute \(SM\) Th|Executed Instructions  " $L/ncu_${n}_details.txt | head -8
rm -f $L/ncu_$n.ncu-rep
echo "done at $((SECONDS - t0)) s"
