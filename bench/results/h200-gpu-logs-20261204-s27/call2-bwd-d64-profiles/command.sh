#!/usr/bin/env bash
# Session 27 call 2: profiles of the D 64 backward, no code change. main (commit in .ab/change_commit:
# products ahead + whole query blocks) built for D 64, bf16, with the torch binding; ncu --set full (natural
# clock) of our main backward kernel and of cuDNN's backward kernels at B 1, H 32, S 16k, full, exported as
# details and (ours) per-SASS-instruction samples.
set -uo pipefail
export FLASHATTN_COMMIT=$(cat .ab/change_commit)
L=$OUT/logs; mkdir -p $L; t0=$SECONDS
FLASHATTN_CUDA_ARCHS=90a FLASHATTN_HEAD_DIMS="64" FLASHATTN_DTYPES=bf16 FLASHATTN_GPU_STEPS="build torch" \
  timeout 200 scripts/gpu $L/gpu > $L/gpu.log 2>&1
echo "build rc=$? at $((SECONDS - t0)) s"; rm -f $L/gpu/build.log
timeout 70 ncu --clock-control none --set full -k regex:bwd_sm90 --launch-skip 1 -c 1 -o $L/ncu_bwd64 \
  build-gpu/flashattn bench --backend cuda --op bwd --batch 1 --heads 32 --seqlen-q 16384 --head-dim 64 \
  --samples 2 --warmup 1 --quiet > $L/ncu_bwd64.log 2>&1
echo "ncu ours rc=$? at $((SECONDS - t0)) s"
cat > $L/cudnn_bwd.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
torch.manual_seed(0)
q, k, v = (torch.randn(1, 16384, 32, 64, dtype=torch.bfloat16, device="cuda").transpose(1, 2).requires_grad_()
           for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(2):
        o = F.scaled_dot_product_attention(q, k, v)
        o.backward(torch.randn_like(o))
torch.cuda.synchronize()
PY
timeout 120 ncu --clock-control none --set full -k regex:'bprop|dgrad|bwd|backward' --launch-skip 0 -c 4 \
  -o $L/ncu_cudnn64 python3 $L/cudnn_bwd.py > $L/ncu_cudnn64.log 2>&1
echo "ncu cudnn rc=$? at $((SECONDS - t0)) s"
for n in bwd64 cudnn64; do ncu -i $L/ncu_$n.ncu-rep --page details > $L/ncu_${n}_details.txt 2>&1; done
ncu -i $L/ncu_bwd64.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $L/ncu_bwd64_sass.csv.gz
rm -f $L/*.ncu-rep
grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Executed Ipc A|Block Size|Grid Size|Cluster Size|Shared Memory Config|L2 Cache Throughput|Compute \(SM\) Throughput|Dynamic Shared" \
  $L/ncu_*_details.txt | head -60
echo "done at $((SECONDS - t0)) s"
