#!/usr/bin/env bash
# Compiler launcher for the CUDA kernel TUs: runs the compile command and prints the source and its wall
# time, so every build shows the per-TU compile times of DESIGN.md §4.
start=$EPOCHREALTIME
"$@"
status=$?
source_file=""
for ((i = 1; i < $#; i++)); do
  if [[ ${!i} == "-c" ]]; then
    next=$((i + 1))
    source_file=${!next}
  fi
done
awk -v s="$start" -v e="$EPOCHREALTIME" -v f="${source_file##*/}" \
  'BEGIN { printf "flashattn: compiled %s in %.1f s\n", f, e - s }'
exit $status
