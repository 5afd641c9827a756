#!/usr/bin/env bash
# Prepared in session 52 (not run; any GPU with 132 SMs, ~330 s). What the split tail's code costs the calls
# that cut no tiles: main (b6af8b6 and after: the stream from 4,096 keys) against 2a0b6c8 (main before it), the
# paper grid below 4k keys, full and causal, where both sides walk the same order. The cells that cut nothing
# read 0.991-0.999 in both split-tail A/Bs (session 51: D 64 / 128 S 512 0.994 / 0.992; session 52: S 2k
# 0.999 / 0.991 / 0.994), mean 0.994 in five cells: the work items' two fields (partial_role, partial_slot,
# published through shared memory every tile) and the epilogue's branches may cost ~0.5%, or it is the noise
# (~1% a cell). Reading: a geomean below 0.997 over these 18 cells says the unsplit path pays; then the next
# step is a kernel without the stream's code for the calls that cut nothing, or fewer per-tile fields.
# Prepare: the working tree is main; .ab/base.tar.gz from 2a0b6c8 (git archive 2a0b6c8 -o .ab/base.tar -- .
# ':!bench/results', gzip); git rev-parse HEAD > .commit; carry [".ab", "third_party/cutlass", ".commit"]; run
# through ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 380).
set -uo pipefail
source scripts/device-call-lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
FLASHATTN_HEAD_DIMS="64;128;256" AB_FAMILIES="fwd_sm90" AB_TREE_JOBS=8 AB_CHANGE_STEPS=build \
  AB_PEERS_ARGS="--op fwd --seqlens 512,1024,2048" device_ab "$L/ab" 370
echo "done at $((SECONDS - device_t0)) s"
