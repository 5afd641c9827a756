#!/usr/bin/env bash
# Session 38, call 3 (H200 only: issue 6's numbers): the decode grid with peers.py's interleaved rounds
# (time_interleaved_ms: a point's implementations timed in turns, each round starting with the next one),
# twice, in the usual order and reversed: with the rounds, the two should agree within the noise and the
# cell that read slow for whichever implementation came first (B 64 L 1k: cuDNN 111.6 against 105.0 us
# on call 2's H100, flashattn 82.7 against 76.4 on session 37's H200) should not. Then the SM clock, power
# and throttle reasons sampled every 50 ms while the CLI runs the D 128 S 16k backward and forward (full,
# bf16, 30 samples each; build-bin from scripts/build-for-device "64;128" bf16 at 693735a, the same kernels):
# call 2's ncu read 1.69-1.73 GHz under the backward on the H100, so the backward may be power-bound.
# Prepare: git rev-parse HEAD > .commit; carry ["third_party/cutlass", ".commit", "build-bin"]; run through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
device_only H200 || exit 0
L=$OUT/logs; mkdir -p "$L"
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
FLASHATTN_HEAD_DIMS="128" FLASHATTN_DTYPES="bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;kvcache_sm80" \
  device_build "$L/build" 200
device_peers "$L" decode_usual 60 --op decode --impls flashattn,fa2,cudnn
device_peers "$L" decode_reversed 60 --op decode --impls cudnn,fa2,flashattn
for n in decode_usual decode_reversed; do sed -n '/^B /,$p' "$L/$n.log"; done
sample_power() {  # name, then the CLI arguments
  local name=$1; shift
  nvidia-smi --query-gpu=timestamp,power.draw,power.limit,clocks.sm,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 50 > "$L/power_$name.csv" &
  local sampler=$!
  sleep 0.5
  timeout 60 build-bin/flashattn bench --backend cuda "$@" --batch 1 --heads 16 --seqlen-q 16384 --head-dim 128 \
    --samples 30 --warmup 5 > "$L/time_$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - device_t0)) s"
  sleep 0.3; kill "$sampler"; wait "$sampler" 2>/dev/null
  tail -3 "$L/time_$name.log" | head -1
  python3 - "$L/power_$name.csv" <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))[1:]
busy = [r for r in rows if len(r) > 5 and float(r[1].split()[0]) > 300]
if busy:
    watts = sorted(float(r[1].split()[0]) for r in busy)
    mhz = sorted(float(r[3].split()[0]) for r in busy)
    reasons = collections.Counter(r[5].strip() for r in busy)
    print(f"  {len(busy)} samples above 300 W: power median {watts[len(watts) // 2]:.0f} W (max {watts[-1]:.0f}, "
          f"limit {busy[0][2].strip()}), SM clock median {mhz[len(mhz) // 2]:.0f} MHz (min {mhz[0]:.0f}), "
          f"throttle reasons {dict(reasons)}")
PY
}
sample_power bwd --op bwd
sample_power fwd --op fwd
echo "done at $((SECONDS - device_t0)) s"
