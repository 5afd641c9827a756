#!/usr/bin/env bash
# Session 61, call 5: this is ../bwd-d64-128x128-rerun-undeferred-ab/command.sh as it ran (252 s). The call
# asked for any GPU and an H200 came, so its device_evidence_on_h200 restored src and tests from
# .ab/base.tar.gz (git archive of 92889f5) and ran session 47's evidence grids
# (../../h200-gpu-logs-20261206-s47/call3-evidence-grids/command.sh) instead of the A/B. The JSONs' `commit`
# says 87d0af1 (the carried .commit); the kernels built were 92889f5's, whose only differences from 87d0af1
# are in the sm90 backward (D 64 tile, unused options removed): D 128's backward SASS is the same, instruction
# for instruction (checked with nvdisasm), and this call built D 128 only.
exec bash bench/results/h200-gpu-logs-20261207-s61/bwd-d64-128x128-rerun-undeferred-ab/command.sh
