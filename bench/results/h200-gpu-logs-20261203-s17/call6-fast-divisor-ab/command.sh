#!/usr/bin/env bash
# Session 17 call 6 (fresh machine, the session's last 277 s of device time): A/B of the tile order's
# host-precomputed divisors (HEAD) against 3aee33b, D 64 only (the per-tile cost weighs most there: 4-step
# tiles at S 512), both masks, S 512-16k, two runs a side; the timing runs check every cell's output.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
gunzip -f .ab/base.tar.gz
AB_CHANGE_STEPS=build FLASHATTN_HEAD_DIMS="64" AB_PEERS_ARGS="--head-dims 64" timeout 150 scripts/ab $L/ab .ab/base.tar > $L/ab.log 2>&1
echo "ab rc=$? at $((SECONDS - t0)) s"; cat $L/ab/ab.txt
python3 -c "import json,sys; [print(f, r['D'], r['causal'], r['Sq'], r['verified'], r['max_abs_err']) for f in sys.argv[1:] for r in json.load(open(f))['rows'] if not r.get('verified')]" $L/ab/*.json
awk '/spill/{s=s" "$5} /compiled/{print $3, s; s=""}' $L/ab/change/kernels.txt | grep fwd_sm90
rm -rf $L/ab/change/build.log
echo "done at $((SECONDS - t0)) s"
