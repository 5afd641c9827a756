#!/usr/bin/env bash
# Session 61, call 1: session 60's prepared call, run as it stands there (its header lists the preparation).
exec bash bench/results/h200-gpu-logs-20261207-s60/prepared-bwd-d128-ablation-ab/command.sh
