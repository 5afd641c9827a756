#!/usr/bin/env bash
# Compiler launcher for the CUDA kernel TUs: runs the compile command and prints the source and its wall
# time, so every build shows the per-TU compile times of DESIGN.md §4. The kernel TUs compile with
# -Xptxas -v: their ptxas report (registers and spills of each kernel) goes to OBJECT.ptxas, which
# cmake/check_spills.py holds against src/cuda/spill_budget.txt, and into the build output only with
# --ptxas-echo=ON (FLASHATTN_PTXAS_VERBOSE).
echo_ptxas=OFF
if [[ ${1:-} == --ptxas-echo=* ]]; then
  echo_ptxas=${1#--ptxas-echo=}
  shift
fi
start=$EPOCHREALTIME
stderr=$(mktemp)
"$@" 2>"$stderr"
status=$?
source_file="" object=""
for ((i = 1; i < $#; i++)); do
  next=$((i + 1))
  case ${!i} in
    -c) source_file=${!next} ;;
    -o) object=${!next} ;;
  esac
done
report='^ptxas info|bytes stack frame'
if [[ -n $object ]] && grep -qE "$report" "$stderr"; then
  grep -E "$report" "$stderr" >"$object.ptxas"
fi
if [[ $echo_ptxas == ON ]]; then
  cat "$stderr" >&2
else
  grep -vE "$report" "$stderr" >&2
fi
rm -f "$stderr"
awk -v s="$start" -v e="$EPOCHREALTIME" -v f="${source_file##*/}" \
  'BEGIN { printf "flashattn: compiled %s in %.1f s\n", f, e - s }'
exit $status
