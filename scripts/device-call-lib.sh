# shellcheck shell=bash
# Helpers for device call scripts (bench/results/*/command.sh), sourced after `set -uo pipefail`, so that
# each call script states only what it measures:
#   source scripts/device-call-lib.sh
#   device_only H200 || exit 0           # on any other GPU: say so and run nothing
#   device_evidence_on_h200              # on an H200: issues 4-6's evidence grids instead of the rest
#   device_build "$L/build" 200          # scripts/gpu build + torch with the FLASHATTN_* variables set
#   device_peers "$L" fwd 90 --op fwd --impls flashattn,cudnn
#   AB_TESTS='CudaBackwardSm90.*' AB_PEERS_ARGS="--op bwd" device_ab "$L/ab" 360   # scripts/ab, .ab/base.tar
#   device_memcheck "$L/memcheck" 'CudaBackwardSm90.LengthsOffTileMultiples' 60
#   device_cli_tflops "$L/run.json"     # "TFLOP/s verdict kernel" of a `flashattn bench --json` report
# Every helper but device_cli_tflops and device_evidence_on_h200 prints one line with the seconds since the
# first helper's call.
# Sourcing it also sets L to $OUT/logs (created) and exports FLASHATTN_COMMIT from .commit when the call
# carried one, the two lines every call script began with; and unpacks .ab/cutlass.tgz when the headers
# are not there.
device_t0=${device_t0:-$SECONDS}
# shellcheck disable=SC2034  # L is the sourcing script's
L=${OUT:?device-call-lib.sh: OUT must name the device call output folder}/logs
mkdir -p "$L"
# The CUTLASS headers travel packed (26 MB of headers and the tracked tree together pass the device's 64 MiB
# carry limit; `tar czf .ab/cutlass.tgz -C third_party/cutlass include`, carry [".ab"]).
if [[ ! -d third_party/cutlass/include && -f .ab/cutlass.tgz ]]; then
  mkdir -p third_party/cutlass && tar xzf .ab/cutlass.tgz -C third_party/cutlass
fi
if [[ -f .commit ]]; then
  FLASHATTN_COMMIT=$(cat .commit)
  export FLASHATTN_COMMIT
fi

# device_only NAME: true when the GPU's name contains NAME; otherwise prints that nothing ran.
device_only() {
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  [[ $gpu == *"$1"* ]] && return 0
  echo "not an $1 ($gpu): nothing run"
  return 1
}

# device_evidence_on_h200: on an H200, replaces the calling script with issues 4-6's evidence grids on main
# (session 47's call3-evidence-grids/command.sh), main's src and tests first restored from .ab/base.tar.gz
# over a candidate's; on any other GPU, returns and the caller goes on (an A/B, usually).
device_evidence_on_h200() {
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  [[ $gpu == *H200* ]] || return 0
  tar xzf .ab/base.tar.gz src tests
  exec bash bench/results/h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh
}

# device_build OUTDIR LIMIT: builds the kernels the FLASHATTN_* variables select (sm_90a) with the torch
# binding (FLASHATTN_GPU_STEPS overrides the steps), scripts/gpu's summary last; the build log is dropped
# (kernels.txt and spills.txt stay).
device_build() {
  FLASHATTN_CUDA_ARCHS=${FLASHATTN_CUDA_ARCHS:-90a} FLASHATTN_GPU_STEPS=${FLASHATTN_GPU_STEPS:-build torch} \
    timeout "$2" "$(dirname "${BASH_SOURCE[0]}")/gpu" "$1" | tail -3
  echo "build rc=${PIPESTATUS[0]} at $((SECONDS - device_t0)) s"
  rm -f "$1/build.log"
}

# device_peers LOGDIR NAME LIMIT ARGS...: bench/peers.py ARGS with the build's binding, into NAME.json and
# NAME.log under LOGDIR.
device_peers() {
  local dir=$1 name=$2 limit=$3
  shift 3
  PYTHONPATH=build-gpu/python timeout "$limit" python3 bench/peers.py --json "$dir/$name.json" "$@" \
    >"$dir/$name.log" 2>&1
  echo "$name rc=$? at $((SECONDS - device_t0)) s"
}

# device_ab OUTDIR LIMIT [CANDIDATE_TARBALL ...]: scripts/ab of the working tree, and of each candidate tarball
# (made like the base's), against .ab/base.tar (gzipped when carried; AB_BASE_TARBALL names another, so that
# one carry can hold the bases of two calls), with the AB_* and FLASHATTN_* variables
# the caller set; by default the change's build steps "build", its tests at the quick tier as a gate
# (AB_TESTS). Prints the ratios and the tests' verdicts; the whole log is OUTDIR.log.
device_ab() {
  local out=$1 limit=$2
  shift 2
  gunzip -f .ab/*.tar.gz 2>/dev/null
  AB_CHANGE_STEPS=${AB_CHANGE_STEPS:-build} FLASHATTN_GPU_TIER=${FLASHATTN_GPU_TIER:-quick} \
    AB_TESTS_GATE=${AB_TESTS_GATE:-1} timeout "$limit" "$(dirname "${BASH_SOURCE[0]}")/ab" "$out" "${AB_BASE_TARBALL:-.ab/base.tar}" "$@" \
    >"$out.log" 2>&1
  echo "ab rc=$? at $((SECONDS - device_t0)) s"
  grep -E "^(ab:|[0-9]|rows|D |geometric)" "$out.log"
  grep -hE "^\[  (     OK|FAILED|  SKIPPED) \]" "$out"/tests*.log 2>/dev/null | head -20
  rm -f "$out/change/build.log"
}

# device_cli_tflops JSON: "TFLOP/s verdict kernel" of the first result of a `flashattn bench --json` report.
device_cli_tflops() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(round(r["gflops"] / 1e3, 1), "TFLOP/s", "verified" if r["verify"]["passed"] else "NOT VERIFIED", r["kernel"])' "$1" 2>&1
}

# device_memcheck OUTDIR FILTER SECONDS: compute-sanitizer memcheck of the GPU tests FILTER names (the build
# in build-gpu), when at least 40 of SECONDS are left for it.
device_memcheck() {
  (($3 > 40)) || { echo "memcheck skipped (no time)"; return; }
  FLASHATTN_GPU_STEPS=memcheck FLASHATTN_SANITIZER_FILTER=$2 FLASHATTN_SANITIZER_TIMEOUT=$(($3 - 10)) \
    "$(dirname "${BASH_SOURCE[0]}")/gpu" "$1" | tail -2
}
