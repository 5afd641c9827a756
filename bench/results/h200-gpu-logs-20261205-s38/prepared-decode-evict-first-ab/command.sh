#!/usr/bin/env bash
# Prepared in session 38 (not yet run; any GPU with 132 SMs, an H200 for issue 6's numbers): the decode
# kernel's K / V copies with an evict-first L2 policy where each cache row is read by one CTA (3bcc614). Why: the
# split cells lose more to cuDNN in peers.py's flushed step than back to back (H100, session 38: dense B 1
# L 32k 68.2 against 62.1 us flushed, 54.7 against 52.1 back to back; B 4 L 8k 67.0 / 62.2 against 52.6 /
# 51.7). The flush (256 MiB zeroed) leaves L2 full of dirty lines, which a normal-priority stream of cache
# lines evicts and writes back to HBM during the timed call; evict-first cache lines replace each other
# instead. The same holds for a server's own data in L2. Predicted: flushed step -2 to -5% in the split cells
# and the small-cache cells, back to back about unchanged; a loss would mean evict-first lines leave before
# their copy completes (not expected: cp.async reads each line once).
# This call: scripts/ab, the decode grid (dense and paged 16), two runs a side, change = main + 3bcc614, base =
# main; the change's KVCacheCuda.* tests first (gate), then decode_splits of the split cells for both sides.
# Keep if the dense and paged geometric means are >= 1.01 with no cell below 0.98 and the tests pass.
# Prepare on main: git cherry-pick 3bcc614; rm -rf .ab && mkdir .ab;
#   git archive HEAD~1 -o .ab/base.tar -- . ':!bench/results'; gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name --format=csv,noheader
FLASHATTN_HEAD_DIMS="128" AB_FAMILIES="fwd_sm90;kvcache_sm80" AB_TESTS='KVCacheCuda.*' AB_TESTS_TIMEOUT=120 \
  AB_PEERS_ARGS="--op decode" device_ab "$L/ab" 300
cat "$L/ab/ab.txt"
grep -q "PASSED" "$L/ab/tests.log" || { echo "the change's tests did not pass: nothing more"; exit 0; }
base=$(awk '$1 == "base" {print $2}' "$L/ab/trees.txt")
for side in change base; do
  path=build-gpu/python; [[ $side == base ]] && path=$base/build/python
  ((SECONDS - device_t0 > 380)) && break
  PYTHONPATH=$path timeout 40 python3 bench/decode_splits.py --batches 1,4 --lengths 8192,32768 --splits 0 \
    --samples 30 --json "$L/splits_$side.json" > "$L/splits_$side.log" 2>&1
  echo "splits $side rc=$? at $((SECONDS - device_t0)) s"; tail -4 "$L/splits_$side.log"
done
echo "done at $((SECONDS - device_t0)) s"
