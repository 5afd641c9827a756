#!/usr/bin/env bash
# Session 47, call 1: session 46's prepared call, run as
#   bash bench/results/h200-gpu-logs-20261206-s46/dispatch.sh first 575
# (on an H100 it runs bench/results/h200-gpu-logs-20261206-s46/prepared-bwd-key-block-pairs-ab/command.sh in a
# tree of f996a82, with b4b9a07 as candidate c1, against main b2b0374).
exec bash bench/results/h200-gpu-logs-20261206-s46/dispatch.sh first "${1:-575}"
