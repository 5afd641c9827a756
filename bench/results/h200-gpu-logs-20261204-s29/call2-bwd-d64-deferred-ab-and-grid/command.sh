#!/usr/bin/env bash
# Prepared in session 29 as its call 2, which got no machine: not yet run.
# (1) A/B at D 64: the deferred dQ hand-over for D 64 alone (a0eddfe, the working tree) against main's
# persistent kernel without it, CudaBackwardSm90.* gating the timing. (2) With the
# change's build (D 64/128/256, bf16): the backward grid, flashattn, flashattn_det and cuDNN in one
# bench/peers.py run, and the long-context GQA grid, flashattn and cuDNN. (3) compute-sanitizer racecheck,
# synccheck and memcheck of the persistent kernel on quick-tier tests.
# Prepare on main, from the repository root:
#   rm -rf .ab && mkdir .ab && git archive HEAD -o .ab/base.tar -- . ':!bench/results' && gzip .ab/base.tar &&
#   git cherry-pick a0eddfe && git rev-parse HEAD > .ab/change_commit
# Carry [".ab", "third_party/cutlass"]; run through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 585).
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/*.tar.gz
FLASHATTN_HEAD_DIMS="64;128;256" AB_CHANGE_STEPS=build FLASHATTN_GPU_TIER=quick AB_IMPLS=flashattn \
  AB_TESTS='CudaBackwardSm90.*' AB_TESTS_TIMEOUT=150 AB_TESTS_GATE=1 AB_PEERS_ARGS="--op bwd --head-dims 64" \
  timeout 330 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; grep "^ab:" $L/ab.log; cat $L/ab/ab.txt
grep -hE "OK|PASSED|FAILED|tests," $L/ab/tests*.log | head -14
rm -rf $L/ab/change/build.log
grep -q "PASSED" $L/ab/tests.log || { echo "the change's tests did not pass: nothing more"; exit 0; }
peers() {  # log name, limit, peers.py arguments
  local name=$1 limit=$2; shift 2
  PYTHONPATH=build-gpu/python timeout $limit python3 bench/peers.py --json $L/$name.json "$@" > $L/$name.log 2>&1
  echo "$name rc=$? at $((SECONDS - t0)) s"
}
peers bwd 110 --op bwd --impls flashattn,flashattn_det,cudnn
peers bwd_gqa_long 90 --op bwd --grid gqa-long --impls flashattn,cudnn
san() {  # tool, gtest filter, limit: scripts/gpu's sanitizer step on the change's build
  FLASHATTN_GPU_STEPS=$1 FLASHATTN_SANITIZER_FILTER=$2 FLASHATTN_SANITIZER_TIMEOUT=$3 scripts/gpu $L/$1 | tail -2
  echo "$1 at $((SECONDS - t0)) s"
}
san racecheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys' 30
san synccheck 'CudaBackwardSm90.Deterministic*' 30
san memcheck 'CudaBackwardSm90.VarlenCausalRowsWithoutKeys:CudaBackwardSm90.CallerWorkspace:CudaBackwardSm90.ShortQueries*' 40
echo "done at $((SECONDS - t0)) s"
