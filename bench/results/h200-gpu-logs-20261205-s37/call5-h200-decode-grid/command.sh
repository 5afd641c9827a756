#!/usr/bin/env bash
# Session 37, call 5 (the H200 of call 4, warm; run inline as the device command, recorded here as it ran):
# add the KV-cache kernels to call 4's build (same head dims and dtypes: only their TUs compile) and run
# issue 6's decode grid (flashattn dense and paged 16, FA2, cuDNN, efficient; CUDA-graph replay).
L=$OUT/logs; mkdir -p $L; t0=$SECONDS; export FLASHATTN_COMMIT=$(cat .commit) FLASHATTN_HEAD_DIMS="64;128;256" FLASHATTN_DTYPES="fp16;bf16" FLASHATTN_KERNEL_FAMILIES="fwd_sm90;bwd_sm90;kvcache_sm80"; FLASHATTN_CUDA_ARCHS=90a FLASHATTN_GPU_STEPS="build torch" timeout 110 scripts/gpu $L/build | tail -3; rm -f $L/build/build.log; echo "build at $((SECONDS-t0))"; PYTHONPATH=build-gpu/python timeout $((225-SECONDS+t0)) python3 bench/peers.py --json $L/decode.json --op decode > $L/decode.log 2>&1; echo "decode rc=$? at $((SECONDS-t0))"; sed -n '/^ceilings/,$p' $L/decode.log | head -40; cd $OUT && tar czf logs.tgz logs && rm -rf logs
