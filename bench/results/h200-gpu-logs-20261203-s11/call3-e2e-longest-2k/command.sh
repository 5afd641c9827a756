#!/usr/bin/env bash
# Session 11 call 3 (420 s of device time left after a machine was taken back mid-call and two refused starts): main
# (FLASHATTN_COMMIT), the torch binding with D 64 bf16 kernels for 90a (the e2e models' head dim), then two
# e2e report parts, each ended cleanly by --time-limit: training's longest-sequence search from 8k (every
# attention), and with the time left the serving workload at 2k prompts, concurrency 1/8/32.
set -uo pipefail
export FLASHATTN_COMMIT=b4d1265
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
(cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHATTN_CUDA=ON -DFLASHATTN_CUDA_ARCHS=90a \
  -DFLASHATTN_HEAD_DIMS=64 -DFLASHATTN_DTYPES=bf16 -DFLASHATTN_TORCH=ON -DFLASHATTN_BUILD_TESTS=OFF \
  -DFLASHATTN_BUILD_TOOLS=OFF -DFLASHATTN_CUTLASS_DIR=$PWD/third_party/cutlass/include &&
  cmake --build build-gpu -j "$(nproc)" --target flashattn_torch) > $L/build.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; tail -2 $L/build.log
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
timeout 210 python3 bench/e2e/report.py run --workloads training --train-args "--seqlens 8192" --time-limit 165 \
  --json $OUT/e2e-part-training-longest.json > $L/e2e_training_longest.log 2>&1
echo "e2e training rc=$? at $((SECONDS - t0)) s"; grep -E "longest|seqlen" $L/e2e_training_longest.log | cut -c1-250 | tail -12
left=$((380 - (SECONDS - t0)))
if ((left > 90)); then
  timeout $((left - 10)) python3 bench/e2e/report.py run --workloads serving --time-limit $((left - 60)) \
    --serve-args "--prompts 2048 --concurrency 1,8,32 --repeats 2 --attention flashattn,cudnn,fa2,math" \
    --json $OUT/e2e-part-serving-2k.json > $L/e2e_serving_2k.log 2>&1
  echo "e2e 2k rc=$? at $((SECONDS - t0)) s"; grep -E "tokens_per_s" $L/e2e_serving_2k.log | cut -c1-250 | tail -12
fi
