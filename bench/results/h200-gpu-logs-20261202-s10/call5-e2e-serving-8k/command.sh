# Session 10 call 5 (call 4's warm machine, 967c9e0; run as one command line): the e2e serving workload,
# 8k prompts at concurrency 1 and 32, flashattn / cuDNN / FA2 (call 4's 8k+32k part ran past its limit).
mkdir -p $OUT/logs; PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 FLASHATTN_COMMIT=967c9e0 timeout 195 python3 bench/e2e/report.py run --workloads serving --serve-args "--prompts 8192 --concurrency 1,32 --repeats 2 --attention flashattn,cudnn,fa2" --json $OUT/e2e-part-serving-8k.json > $OUT/logs/e2e_serving_8k.log 2>&1; echo "rc=$?"; tail -12 $OUT/logs/e2e_serving_8k.log
