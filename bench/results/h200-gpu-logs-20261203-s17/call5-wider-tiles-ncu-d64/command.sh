#!/usr/bin/env bash
# Session 17 call 5 (fresh machine): the wider_short_tiles ablation (D 128's 144-key and D 256's 80-key tiles
# at every key-loop length; the regime thresholds were set with V in 1 KB copies) against none on the D 128 /
# 256 grid, two runs a side in alternating order; ncu --set full of our D 64 forward at S 512 (full and
# causal: the grid's worst cells, 0.73-0.81x cuDNN) and D 128 full S 512, with the none build.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
export ABLATION_HEAD_DIM=64,128,256
ABLATION_STEPS=build timeout 300 scripts/ablation $L/abl none wider_short_tiles > $L/ablation_build.log 2>&1
echo "ablation builds rc=$? at $((SECONDS - t0)) s"; grep -h -A2 "fwd_sm90" $L/abl/build_*.log | grep -E "spill" | sort | uniq -c
for r in 1 2; do
  for v in wider_short_tiles none; do
    PYTHONPATH=build-ablation/$v/python timeout 60 python3 bench/peers.py --impls flashattn --head-dims 128,256 \
      --json $L/abl/${v}_$r.json > $L/abl/${v}_$r.log 2>&1
    echo "== $v run $r rc=$? at $((SECONDS - t0)) s"
  done
done
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/abl/*.json
python3 bench/ab_compare.py --a $L/abl/wider_short_tiles_*.json --b $L/abl/none_*.json | tee $L/abl/ab.txt
export PYTHONPATH=build-ablation/none/python
for cfg in "64 full" "64 causal" "128 full"; do
  set -- $cfg; c=""; [[ $2 == causal ]] && c=--causal; n=ours_d$1_$2_s512
  timeout 90 ncu --clock-control none --set full -k regex:fwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_$n \
    python3 bench/fwd_once.py --impl flashattn --seqlen 512 --head-dim $1 $c > $L/ncu_$n.log 2>&1
  echo "ncu $n rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1
  ncu -i $L/ncu_$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${n}_sass.csv.gz
  grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Dynamic Shared|DRAM Throughput|L2 Hit Rate  |Executed Instructions  " $L/ncu_${n}_details.txt | head -8
  rm -f $L/ncu_$n.ncu-rep
done
echo "done at $((SECONDS - t0)) s"
