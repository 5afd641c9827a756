#!/usr/bin/env bash
# Session 64, call 1 (00:47 UTC, an H100 came): session 63's prepared any-GPU decode call, unchanged.
# Ran through ../../h200-gpu-logs-20261204-s28/wrap.sh with limit 560, carry [".ab", ".commit"].
exec bash bench/results/h200-gpu-logs-20261207-s63/decode-any-gpu/command.sh
