#!/usr/bin/env bash
# Runs .run/$1 with an overall limit of $2 seconds, then packs $OUT/logs into $OUT/logs.tgz.
timeout "$2" bash ".run/$1"; echo "script rc=$?"
cd "$OUT" && [[ -d logs ]] && tar czf logs.tgz logs && rm -rf logs
ls -la "$OUT"
