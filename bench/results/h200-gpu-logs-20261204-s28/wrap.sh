#!/usr/bin/env bash
# Runs the call script $1 with an overall limit of $2 seconds, then packs $OUT/logs into $OUT/logs.tgz
# (the device returns at most 8 files).
timeout "$2" bash "$1"; echo "script rc=$?"
cd "$OUT" && [[ -d logs ]] && tar czf logs.tgz logs && rm -rf logs
ls "$OUT"
