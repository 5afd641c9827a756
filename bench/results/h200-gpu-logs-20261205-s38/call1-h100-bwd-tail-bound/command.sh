#!/usr/bin/env bash
# Session 38, call 1 (H100): session 37's prepared command, run as it is, through
# ../../h200-gpu-logs-20261204-s28/wrap.sh (limit 240), build-bin carried.
bash bench/results/h200-gpu-logs-20261205-s37/prepared-bwd-tail-bound/command.sh
