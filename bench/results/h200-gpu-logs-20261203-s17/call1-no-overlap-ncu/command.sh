#!/usr/bin/env bash
# Session 17 call 1 (fresh machine, nothing prebuilt):
#  - the no_overlap ablation (each key step's S, softmax and P·V in sequence, as cuDNN's consumers run them)
#    against none at S 512-2048, D 64 / 128 / 256, both masks; two runs a side, the second in reverse order;
#  - ncu --set full of cuDNN's forward at D 256 full S 4096 (its tile is 64x128x256 per its name: how does
#    it reach 758 TFLOP/s where our 128x80 reaches 694?) and ours beside it, and of cuDNN's D 64 at S 512.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
export ABLATION_HEAD_DIM=64,128,256 FLASHATTN_PEERS_ARGS="--seqlens 512,1024,2048"
ABLATION_STEPS=build timeout 420 scripts/ablation $L/abl none no_overlap > $L/ablation_build.log 2>&1 &
abl=$!
ncu_fwd() {  # name impl seqlen head_dim [--causal]
  local n=$1 impl=$2 s=$3 d=$4 c=${5:-} k='fmha|sdpa|flash|fprop|attn'
  [[ $impl == flashattn ]] && k=fwd_sm90
  timeout 150 ncu --clock-control none --set full -k regex:"$k" --launch-skip 1 -c 1 -o $L/ncu_$n \
    python3 bench/fwd_once.py --impl $impl --seqlen $s --head-dim $d $c > $L/ncu_$n.log 2>&1
  echo "ncu $n rc=$? at $((SECONDS - t0)) s"
  ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1
  ncu -i $L/ncu_$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_${n}_sass.csv.gz
  grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Dynamic Shared|DRAM Throughput|Executed Instructions  " $L/ncu_${n}_details.txt | head -8
  rm -f $L/ncu_$n.ncu-rep
}
ncu_fwd cudnn_d256_full_s4096 cudnn 4096 256
ncu_fwd cudnn_d64_full_s512 cudnn 512 64
wait $abl; echo "ablation builds rc=$? at $((SECONDS - t0)) s"; grep -h "spill" $L/abl/build_*.log | sort | uniq -c | head
ABLATION_STEPS=time timeout 150 scripts/ablation $L/abl none no_overlap > $L/ablation.log 2>&1
echo "ablation timing rc=$? at $((SECONDS - t0)) s"
for v in no_overlap none; do
  PYTHONPATH=build-ablation/$v/python timeout 75 python3 bench/peers.py --impls flashattn --head-dims 64,128,256 \
    --seqlens 512,1024,2048 --json $L/abl/ablation_${v}_2.json > $L/abl/ablation_${v}_2.log 2>&1
  echo "== $v run 2 at $((SECONDS - t0)) s"
done
python3 bench/ab_compare.py --a $L/abl/ablation_no_overlap*.json --b $L/abl/ablation_none*.json | tee $L/abl/ab.txt
PYTHONPATH=build-ablation/none/python ncu_fwd ours_d256_full_s4096 flashattn 4096 256
echo "done at $((SECONDS - t0)) s"
