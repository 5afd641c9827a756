#!/usr/bin/env bash
# Session 50, call 6 (the session's last ~190 s of device time): the split tail candidate (32d2228, the working
# tree) at D 128 only: its GPU test against the oracle (PartialRoundsOfEqualTilesCutTilesBetweenCtas, and the
# sweep's reruns), then call 1's tail-bound pair (D 128 B 4 H 16 S 4k against S 4224: 1.031 on main) and
# S 1k / 2k full on the change. Logs packed after every step. Run directly (not through wrap.sh); carry
# ["third_party/cutlass", ".commit"].
set -uo pipefail
source scripts/device-call-lib.sh
pack() { (cd "$OUT" && tar czf logs.tgz logs); }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90" FLASHATTN_GPU_STEPS=build \
  device_build "$L/build" 120
pack
timeout 40 build-gpu/tests/flashattn_tests_gpu \
  --gtest_filter='CudaForwardSm90.PartialRoundsOfEqualTilesCutTilesBetweenCtas' >"$L/test.log" 2>&1
echo "test rc=$? at $((SECONDS - device_t0)) s"; tail -3 "$L/test.log"
pack
for shape in "s4k 4 4096" "s4224 4 4224" "s2k 8 2048" "s1k 16 1024"; do
  read -r name batch seqlen <<< "$shape"
  timeout 20 build-gpu/flashattn bench --backend cuda --op fwd --batch "$batch" --heads 16 --seqlen-q "$seqlen" \
    --head-dim 128 --samples 20 --warmup 5 --quiet --json "$L/$name.json" > "$L/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - device_t0)) s: $(device_cli_tflops "$L/$name.json")"
  pack
done
