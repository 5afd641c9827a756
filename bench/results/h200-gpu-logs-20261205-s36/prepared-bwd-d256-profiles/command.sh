#!/usr/bin/env bash
# Prepared in session 36 (not yet run): where D 256's backward still loses to 86e7306. Call 3 bisected the 2.2%
# D 256 lost since session 26 to the persistent kernel (04b4a84: 0.978 against 54ce1cd, its parent 86e7306
# 1.006); call 4 kept the one-tile body with K / V first (1.008 against main: full 512 / 1k +2%, the rest
# +0-1%), so main is still ~1.5-2% behind 86e7306 at every length. ptxas: 86e7306's consumers spill nothing,
# main's spill the Work fields around make_work and ~9 loop-invariant values a step (seqlen_q and the lse /
# D row base, which only feed the next step's statistics loads, off the critical path), so the spills may
# not be the cost. This call measures instead of guessing: the same scripts/ab A/B (main against 86e7306, D
# 256, S 512 and 16k only, one run a side, which reproduces the gap on this machine), then ncu --set full of
# the backward main kernel of each build at full S 512 (B 32, H 8) through bench/fwd_once.py, with
# per-SASS-instruction samples for bench/ncu_stalls.py, and details (duration, IPC, stall reasons).
# Prepare on main: rm -rf .ab && mkdir .ab && git archive 86e7306 -o .ab/base.tar -- . ':!bench/results' &&
#   gzip .ab/base.tar; git rev-parse HEAD > .commit
# Carry [".ab", "third_party/cutlass", ".commit"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 420).
set -uo pipefail
L=$OUT/logs; mkdir -p "$L"; t0=$SECONDS
FLASHATTN_COMMIT=$(cat .commit); export FLASHATTN_COMMIT
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="256" AB_FAMILIES="fwd_sm90;bwd_sm90" AB_CHANGE_STEPS=build AB_RUNS=1 \
  AB_PEERS_ARGS="--op bwd --head-dims 256 --seqlens 512,16384" timeout 240 scripts/ab "$L/ab" .ab/base.tar 2>&1 |
  tee "$L/ab.log" | grep -E "^(ab:|[0-9]|rows|D |geometric)"
echo "ab rc=${PIPESTATUS[0]} at $((SECONDS - t0)) s"
base_tree=$(awk '$1 == "base" {print $2}' "$L/ab/trees.txt")
profile() {  # name, python path
  timeout 70 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o "$L/ncu_$1" \
    env PYTHONPATH="$2" python3 bench/fwd_once.py --op bwd --impl flashattn --seqlen 512 --head-dim 256 --runs 2 \
    > "$L/ncu_$1.log" 2>&1
  echo "ncu $1 rc=$? at $((SECONDS - t0)) s"
  ncu -i "$L/ncu_$1.ncu-rep" --page details > "$L/ncu_$1_details.txt" 2>&1
  ncu -i "$L/ncu_$1.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$L/ncu_$1_sass.csv.gz"
  rm -f "$L/ncu_$1.ncu-rep"
}
profile main build-gpu/python
profile base "$base_tree/build/python"
grep -E "Duration|Registers Per|Executed Ipc A|Local Memory|L1/TEX Hit|Compute \(SM\) Throughput" \
  "$L"/ncu_*_details.txt | head -40
rm -f "$L/ab/change/build.log"
echo "done at $((SECONDS - t0)) s"
