import statistics
import sys

import torch
import peers

peers._HOST_LEAD_CYCLES = int(2000 * 1980)
batch, length, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
torch.manual_seed(batch)
q = torch.randn(batch, 1, 32, 128, dtype=torch.bfloat16, device="cuda")
k, v = (torch.randn(batch, length, 8, 128, dtype=torch.bfloat16, device="cuda") for _ in range(2))
a = torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
graphs = {}
for name in names:
    if name == "gemm":
        run = lambda: a @ a
    elif name == "softmax":
        run = lambda: torch.softmax(a, dim=-1)
    else:
        k_in, v_in, _ = peers.kv_for(name, q, k, v, False, "auto")
        run, _ = peers.make_decode_impl(name, q, k_in, v_in, 16 if name.endswith("16") else None)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(stream):
        run()
        with torch.cuda.graph(graph, stream=stream):
            out = run()
    torch.cuda.synchronize()
    graphs[name] = (graph, out, run)
    print(f"  captured {name}", flush=True)
for name, (graph, out, run) in graphs.items():
    times = sorted(peers.flushed_sample_ms(graph.replay) * 1e3 for _ in range(20))
    same = torch.equal(out, run())
    print(f"  {name:<18} median {statistics.median(times):7.1f} us  p10 {times[2]:7.1f}  replay == eager: {same}",
          flush=True)
