#!/usr/bin/env bash
# Session 16 call 1 (fresh machine; build-bin/ = scripts/build-for-device "64;128;256" "bf16;fp16" of main,
# built on the CPU machine):
#  - the sm90 tile-choice tests of D 64 and D 256 (their shared helper, refactored in session 15, unrun);
#  - the ablation k_stages_1_v_stages_3 (the D 128 144-key and D 256 80-key tiles with 1 K + 3 V stages)
#    against none, D 128 and 256, S 4k-16k, two runs a side (scripts/ablation's, then one more reversed);
#  - ncu launch statistics of cuDNN's forward at S 512 (what tile, grid and occupancy it runs where we
#    lose most), and ncu --set full of the decode call B 1 L 1k, ours and cuDNN's.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat build-bin/COMMIT)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
export ABLATION_HEAD_DIM=128,256 FLASHATTN_PEERS_ARGS="--seqlens 4096,8192,16384"
ABLATION_STEPS=build timeout 330 scripts/ablation $L/abl none k_stages_1_v_stages_3 > $L/ablation_build.log 2>&1 &
abl=$!
T=build-bin/flashattn_tests_gpu; echo "build-bin: $FLASHATTN_COMMIT"
FLASHATTN_GPU_TIER=full timeout 60 $T --gtest_filter='CudaForwardSm90.HeadDim64*:CudaForwardSm90.HeadDim256*' > $L/tests.log 2>&1
echo "tests rc=$? at $((SECONDS - t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|Failure|^\[       OK" $L/tests.log | head -20
# cuDNN's forward at S 512: --set full at D 128 (full and causal, beside ours), launch statistics at D 64 / 256.
for cfg in "128 full full" "128 causal full" "64 full launch" "256 full launch"; do
  set -- $cfg; c=""; [[ $2 == causal ]] && c=--causal; n=d$1_$2_s512
  sections="--set full"; [[ $3 == launch ]] && sections="--section LaunchStats --section Occupancy --section SpeedOfLight"
  timeout 60 ncu --clock-control none $sections -k regex:'fmha|sdpa|flash|fprop|attn' --launch-skip 1 -c 1 -o $L/ncu_cudnn_fwd_$n \
    python3 bench/fwd_once.py --impl cudnn --seqlen 512 --head-dim $1 $c > $L/ncu_cudnn_fwd_$n.log 2>&1
  echo "ncu cudnn fwd $n rc=$? at $((SECONDS - t0)) s"
  reps=$L/ncu_cudnn_fwd_$n
  if [[ $3 == full ]]; then
    timeout 60 ncu --clock-control none --set full -k regex:fwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_ours_fwd_$n \
      build-bin/flashattn bench --backend cuda --op fwd --batch 32 --heads 16 --seqlen-q 512 --head-dim 128 \
      $([[ $2 == causal ]] && echo --causal) --samples 2 --warmup 1 --quiet > $L/ncu_ours_fwd_$n.log 2>&1
    echo "ncu ours fwd $n rc=$? at $((SECONDS - t0)) s"; reps="$reps $L/ncu_ours_fwd_$n"
  fi
  for r in $reps; do
    ncu -i $r.ncu-rep --page details > ${r}_details.txt 2>&1
    [[ $3 == full ]] && ncu -i $r.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > ${r}_sass.csv.gz
    echo "-- $r"; grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Registers Per|Dynamic Shared|Waves Per SM|DRAM Throughput|L2 Hit Rate  |Theoretical Occ" ${r}_details.txt | head -16
    rm -f $r.ncu-rep
  done
done
wait $abl; echo "ablation builds rc=$? at $((SECONDS - t0)) s"; grep -h "registers\|spill" $L/abl/build_*.log | grep -c . 
ABLATION_STEPS=time timeout 120 scripts/ablation $L/abl none k_stages_1_v_stages_3 > $L/ablation.log 2>&1
echo "ablation timing rc=$? at $((SECONDS - t0)) s"; cat $L/ablation.log | head -60
for v in k_stages_1_v_stages_3 none; do
  PYTHONPATH=build-ablation/$v/python timeout 60 python3 bench/peers.py --impls flashattn --head-dims 128,256 \
    --seqlens 4096,8192,16384 --json $L/abl/ablation_${v}_2.json > $L/abl/ablation_${v}_2.log 2>&1
  echo "== $v run 2 at $((SECONDS - t0)) s"; sed -n '/^D /,$p' $L/abl/ablation_${v}_2.log
done
python3 bench/ab_compare.py --a $L/abl/ablation_k_stages_1_v_stages_3*.json --b $L/abl/ablation_none*.json | tee $L/abl/ab.txt
export PYTHONPATH=build-ablation/none/python
timeout 90 ncu --clock-control none --set full -k regex:decode --launch-skip 2 -c 1 -o $L/ncu_decode_ours \
  python3 bench/decode_once.py --batch 1 --length 1024 > $L/ncu_decode_ours.log 2>&1
echo "ncu decode ours rc=$? at $((SECONDS - t0)) s"
timeout 120 ncu --clock-control none --set full --launch-skip 4 -c 4 -o $L/ncu_decode_cudnn \
  python3 bench/decode_once.py --impl cudnn --batch 1 --length 1024 > $L/ncu_decode_cudnn.log 2>&1
echo "ncu decode cudnn rc=$? at $((SECONDS - t0)) s"
for r in ours cudnn; do
  ncu -i $L/ncu_decode_$r.ncu-rep --page details > $L/ncu_decode_${r}_details.txt 2>&1
  ncu -i $L/ncu_decode_$r.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_decode_${r}_sass.csv.gz
  grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Registers Per|Dynamic Shared|DRAM Throughput|Executed Instructions  " $L/ncu_decode_${r}_details.txt | head -30
  rm -f $L/ncu_decode_$r.ncu-rep
done
echo "done at $((SECONDS - t0)) s"
