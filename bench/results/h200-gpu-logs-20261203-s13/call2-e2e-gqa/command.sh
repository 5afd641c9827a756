#!/usr/bin/env bash
# Session 13 call 2 (call 1's warm machine: its build-gpu, D 64/128/256 bf16 with the torch binding at 2c4cf94,
# and the base 90b94d4 built by scripts/ab under /tmp): the e2e serving part with 32k prompts at concurrency 1
# (flashattn, cuDNN, FA2), replacing session 9's row; then the long-context GQA backward grid up to S 32k as an
# interleaved A/B of the causal longest-first CTA order (2c4cf94) against 90b94d4, cuDNN in a run of its own.
set -uo pipefail
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 FLASHATTN_COMMIT=2c4cf94
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
source bench/results/h200-gpu-logs-20261203-s12/e2e_build.sh
timeout 200 python3 bench/e2e/report.py run --workloads serving --time-limit 150 \
  --serve-args "--prompts 32768 --concurrency 1 --repeats 2 --attention flashattn,cudnn,fa2" \
  --scratch $L/scratch-serving-32k-c1 --json $OUT/e2e-part-serving-32k-c1.json > $L/e2e_serving_32k_c1.log 2>&1
echo "serving 32k c1 rc=$? at $((SECONDS - t0)) s"; tail -6 $L/e2e_serving_32k_c1.log
base_py=$(ls -d /tmp/tmp.*/base/build/python | head -1); echo "base: $base_py"
G="--op bwd --grid gqa-long --seqlens 4096,8192,16384,32768"
a=() b=()
for run in 1 2; do
  timeout 100 python3 bench/peers.py --impls flashattn --json $L/gqa_change_$run.json $G > $L/gqa_change_$run.log 2>&1 && a+=($L/gqa_change_$run.json)
  PYTHONPATH=$base_py FLASHATTN_COMMIT=90b94d4 timeout 100 python3 bench/peers.py --impls flashattn \
    --json $L/gqa_base_$run.json $G > $L/gqa_base_$run.log 2>&1 && b+=($L/gqa_base_$run.json)
  echo "gqa run $run at $((SECONDS - t0)) s"
done
timeout 100 python3 bench/peers.py --impls cudnn --json $L/gqa_cudnn.json $G > $L/gqa_cudnn.log 2>&1
python3 bench/ab_compare.py --a "${a[@]}" --b "${b[@]}" --peer cudnn --peer-runs $L/gqa_cudnn.json | tee $L/gqa_ab.txt
echo "done at $((SECONDS - t0)) s"
