#!/usr/bin/env bash
# Session 38, call 2 (ran on an H100: two fresh starts for an H200 came as H100s): session 37's
# prepared-h200-diagnostics with its H200 guards turned into H100 guards, as the device command line ran it.
D=bench/results/h200-gpu-logs-20261205-s37
for p in prepared-h200-diagnostics prepared-decode-order prepared-bwd-gqa-long-profile; do
  mkdir -p /tmp/h100/$p
  sed -e 's/device_only H200/device_only H100/' -e 's/\*H200\*/*H100*/' $D/$p/command.sh > /tmp/h100/$p/command.sh
done
bash /tmp/h100/prepared-h200-diagnostics/command.sh
