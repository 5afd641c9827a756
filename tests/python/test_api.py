"""flashattn's flash-attn-compatible Python API against a float64 PyTorch reference, on every device present.

Run with the binding on the path: ``PYTHONPATH=<build>/python python -m pytest tests/python``.
"""

import math

import pytest
import torch

import flashattn



def _why_no_cuda_kernels():
    """None when this build has the CUDA kernels these tests use (head dim 64, bf16 and fp16: forward,
    backward, KV cache), else why not: no GPU, or a build narrowed with FLASHATTN_HEAD_DIMS/FLASHATTN_DTYPES."""
    if not torch.cuda.is_available():
        return "no CUDA device"
    for dtype in (torch.bfloat16, torch.float16):
        q = torch.randn(1, 8, 2, 64, device="cuda", dtype=dtype, requires_grad=True)
        try:
            flashattn.flash_attn_func(q, q, q).sum().backward()
            flashattn.flash_attn_with_kvcache(q[:, :1].detach(), q.detach(), q.detach(),
                                              cache_seqlens=torch.tensor([8], dtype=torch.int32, device="cuda"))
        except RuntimeError as error:
            if "no CUDA kernel is built" in str(error):
                return f"this build lacks the kernels the tests use: {error}"
            raise
    return None


_NO_CUDA_KERNELS = _why_no_cuda_kernels()
needs_cuda_kernels = pytest.mark.skipif(_NO_CUDA_KERNELS is not None, reason=str(_NO_CUDA_KERNELS))
DEVICES = ["cpu"] + ([pytest.param("cuda", marks=needs_cuda_kernels)] if torch.cuda.is_available() else [])


def reference(q, k, v, causal=False, window=(-1, -1), softcap=0.0, scale=None, seqlens_k=None):
    """Attention in float64 with flashattn's semantics (bottom-right masks, GQA): out and lse (B, H, Sq)."""
    q, k, v = (x.double() for x in (q, k, v))
    batch, seqlen_q, heads, dim = q.shape
    seqlen_k, heads_kv = k.shape[1], k.shape[2]
    k = k.repeat_interleave(heads // heads_kv, dim=2)
    v = v.repeat_interleave(heads // heads_kv, dim=2)
    scale = 1.0 / math.sqrt(dim) if scale is None else scale
    s = torch.einsum("bihd,bjhd->bhij", q, k) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    lengths = seqlens_k if seqlens_k is not None else [seqlen_k] * batch
    keep = torch.zeros(batch, 1, seqlen_q, seqlen_k, dtype=torch.bool, device=q.device)
    for b, length in enumerate(lengths):
        i = torch.arange(seqlen_q, device=q.device)[:, None] + length - seqlen_q
        j = torch.arange(seqlen_k, device=q.device)[None, :]
        row = (j < length).expand(seqlen_q, seqlen_k).clone()
        left, right = window[0], 0 if causal else window[1]
        if left >= 0:
            row &= j >= i - left
        if right >= 0:
            row &= j <= i + right
        keep[b, 0] = row
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).nan_to_num(0.0)
    out = torch.einsum("bhij,bjhd->bihd", p, v)
    return out, lse


def tolerance(dtype):
    return {torch.float32: 2e-5, torch.bfloat16: 2e-2, torch.float16: 4e-3}[dtype]


def dtypes(device):
    return [torch.float32] if device == "cpu" else [torch.bfloat16, torch.float16]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("causal,window,softcap", [(False, (-1, -1), 0.0), (True, (-1, -1), 0.0),
                                                   (False, (8, 3), 0.0), (True, (-1, -1), 5.0)])
def test_flash_attn_func_forward_and_gradients(device, causal, window, softcap):
    torch.manual_seed(0)
    for dtype in dtypes(device):
        q = torch.randn(2, 37, 4, 64, device=device, dtype=dtype, requires_grad=True)
        k = torch.randn(2, 53, 2, 64, device=device, dtype=dtype, requires_grad=True)
        v = torch.randn(2, 53, 2, 64, device=device, dtype=dtype, requires_grad=True)
        out, lse, probs = flashattn.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap,
                                                    return_attn_probs=True)
        assert probs is None  # flash-attn's triple; the probabilities are never materialised
        qr, kr, vr = (x.detach().double().requires_grad_() for x in (q, k, v))
        ref, ref_lse = reference(qr, kr, vr, causal, window, softcap)
        tol = tolerance(dtype)
        torch.testing.assert_close(out.double(), ref, atol=tol, rtol=tol)
        finite = torch.isfinite(ref_lse)
        torch.testing.assert_close(lse.double()[finite], ref_lse[finite], atol=tol, rtol=tol)
        grad = torch.randn_like(out)
        out.backward(grad)
        ref.backward(grad.double())
        for mine, theirs, name in ((q.grad, qr.grad, "dq"), (k.grad, kr.grad, "dk"), (v.grad, vr.grad, "dv")):
            scale = theirs.abs().max().item() + 1e-6
            assert (mine.double() - theirs).abs().max().item() <= 4 * tol * scale, name
        assert flashattn.last_run()["kernel"].startswith("bwd_")


@pytest.mark.parametrize("device", DEVICES)
def test_value_head_dim_may_differ(device):
    """D 192 with Dv 128 (the shape of multi-head latent attention's prefill), forward and gradients: on CUDA
    by the pair's kernels (the sm90 forward on Hopper, else the portable one; the portable backward), and a
    build without them refuses the call with an error naming v."""
    torch.manual_seed(2)
    for dtype in dtypes(device):
        q = torch.randn(2, 150, 4, 192, device=device, dtype=dtype, requires_grad=True)
        k = torch.randn(2, 170, 2, 192, device=device, dtype=dtype, requires_grad=True)
        v = torch.randn(2, 170, 2, 128, device=device, dtype=dtype, requires_grad=True)
        try:
            out = flashattn.flash_attn_func(q, k, v, causal=True)
        except RuntimeError as error:
            refused = "v: head_dim_v 128 differs from head_dim 192" in str(error) and "no portable" in str(error)
            if device == "cuda" and refused:
                pytest.skip("this build has no CUDA kernel for D 192 / Dv 128")
            raise
        assert out.shape == (2, 150, 4, 128)
        qr, kr, vr = (x.detach().double().requires_grad_() for x in (q, k, v))
        ref, _ = reference(qr, kr, vr, causal=True)
        tol = tolerance(dtype)
        torch.testing.assert_close(out.double(), ref, atol=tol, rtol=tol)
        if device == "cuda":
            arch = "sm90" if torch.cuda.get_device_capability()[0] == 9 else "sm80"
            name = {torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]
            assert flashattn.last_run()["kernel"] == f"fwd_{arch}_{name}_hd192_dv128"
        grad = torch.randn_like(out)
        out.backward(grad)
        ref.backward(grad.double())
        for mine, theirs, name in ((q.grad, qr.grad, "dq"), (k.grad, kr.grad, "dk"), (v.grad, vr.grad, "dv")):
            assert mine.shape == theirs.shape, name
            scale = theirs.abs().max().item() + 1e-6
            assert (mine.double() - theirs).abs().max().item() <= 4 * tol * scale, name
        if device == "cuda":
            assert flashattn.last_run()["kernel"].endswith("_hd192_dv128")


@pytest.mark.parametrize("device", DEVICES)
def test_deterministic_backward_is_bitwise_reproducible(device):
    torch.manual_seed(1)
    dtype = dtypes(device)[0]
    q, k, v = (torch.randn(1, 300, 4, 64, device=device, dtype=dtype) for _ in range(3))
    grads = []
    for _ in range(3):
        qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
        flashattn.flash_attn_func(qg, kg, vg, causal=True, deterministic=True).sum().backward()
        grads.append(torch.cat([qg.grad.flatten(), kg.grad.flatten(), vg.grad.flatten()]))
    assert all(torch.equal(grads[0], g) for g in grads[1:])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("page_size", [None, 1, 16])
def test_flash_attn_with_kvcache_appends_and_attends(device, page_size):
    torch.manual_seed(2)
    dtype = dtypes(device)[0]
    batch, new, heads, heads_kv, dim, capacity = 3, 2, 8, 2, 64, 64
    lengths = [0, 17, 40]
    q = torch.randn(batch, new, heads, dim, device=device, dtype=dtype)
    k_new, v_new = (torch.randn(batch, new, heads_kv, dim, device=device, dtype=dtype) for _ in range(2))
    dense_k = torch.randn(batch, capacity, heads_kv, dim, device=device, dtype=dtype)
    dense_v = torch.randn(batch, capacity, heads_kv, dim, device=device, dtype=dtype)
    seqlens = torch.tensor(lengths, dtype=torch.int32, device=device)
    if page_size is None:
        k_cache, v_cache, block_table = dense_k.clone(), dense_v.clone(), None
    else:
        pages = capacity // page_size
        order = torch.randperm(batch * pages, device=device)
        block_table = order.view(batch, pages).to(torch.int32)
        k_cache = torch.empty(batch * pages, page_size, heads_kv, dim, device=device, dtype=dtype)
        v_cache = torch.empty_like(k_cache)
        k_cache[order] = dense_k.reshape(batch * pages, page_size, heads_kv, dim)
        v_cache[order] = dense_v.reshape(batch * pages, page_size, heads_kv, dim)
    out, lse = flashattn.flash_attn_with_kvcache(q, k_cache, v_cache, k=k_new, v=v_new, cache_seqlens=seqlens,
                                                 block_table=block_table, causal=True, return_softmax_lse=True)
    # The reference: the dense cache with the new tokens written at each sequence's end.
    for b, length in enumerate(lengths):
        dense_k[b, length:length + new] = k_new[b]
        dense_v[b, length:length + new] = v_new[b]
    ref, ref_lse = reference(q, dense_k, dense_v, causal=True, seqlens_k=[n + new for n in lengths])
    tol = tolerance(dtype)
    torch.testing.assert_close(out.double(), ref, atol=tol, rtol=tol)
    torch.testing.assert_close(lse.double(), ref_lse, atol=tol, rtol=tol)
    appended_k = k_cache if block_table is None else k_cache[block_table.long().flatten()].view_as(dense_k)
    for b, length in enumerate(lengths):
        assert torch.equal(appended_k[b, length:length + new], k_new[b])


@pytest.mark.parametrize("device", DEVICES)
def test_ops_pass_opcheck(device):
    torch.manual_seed(3)
    options = {"device": device, "dtype": dtypes(device)[0]}
    q = torch.randn(2, 9, 4, 64, **options)
    k, v = torch.randn(2, 11, 2, 64, **options), torch.randn(2, 11, 2, 64, **options)
    torch.library.opcheck(torch.ops.flashattn.fwd.default, (q, k, v), {"causal": True})
    out, lse = torch.ops.flashattn.fwd(q, k, v, None, True)
    # deterministic: opcheck compares runs, and on a GPU dq's atomics would otherwise differ by rounding
    torch.library.opcheck(torch.ops.flashattn.bwd.default, (torch.randn_like(out), q, k, v, out, lse),
                          {"causal": True, "deterministic": True})
    k_cache, v_cache = torch.randn(2, 32, 2, 64, **options), torch.randn(2, 32, 2, 64, **options)
    seqlens = torch.tensor([3, 20], dtype=torch.int32, device=device)
    k_new, v_new = torch.randn(2, 9, 2, 64, **options), torch.randn(2, 9, 2, 64, **options)
    torch.library.opcheck(torch.ops.flashattn.fwd_kvcache.default, (q, k_cache, v_cache, seqlens, k_new, v_new),
                          {"causal": True})


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_inputs(device):
    """Views with batch, sequence and head strides of their own (a (B, H, S, D) tensor seen as (B, S, H, D),
    K and V sliced out of one packed tensor) give the result of their contiguous copies."""
    torch.manual_seed(7)
    dtype = dtypes(device)[0]
    q = torch.randn(2, 4, 29, 64, device=device, dtype=dtype).transpose(1, 2).requires_grad_()
    kv = torch.randn(2, 41, 2, 2, 64, device=device, dtype=dtype)
    k, v = kv[:, :, 0].requires_grad_(), kv[:, :, 1].requires_grad_()
    assert not (q.is_contiguous() or k.is_contiguous() or v.is_contiguous())
    grad = torch.randn(2, 29, 4, 64, device=device, dtype=dtype).transpose(0, 1).contiguous().transpose(0, 1)
    out = flashattn.flash_attn_func(q, k, v, causal=True)
    out.backward(grad)
    qc, kc, vc = (x.detach().contiguous().requires_grad_() for x in (q, k, v))
    expected = flashattn.flash_attn_func(qc, kc, vc, causal=True)
    expected.backward(grad.contiguous())
    tol = tolerance(dtype)
    torch.testing.assert_close(out, expected, atol=tol, rtol=tol)
    for mine, theirs in ((q.grad, qc.grad), (k.grad, kc.grad), (v.grad, vc.grad)):
        torch.testing.assert_close(mine, theirs, atol=tol, rtol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_drop_in_for_flash_attn(device):
    import flashattn as flash_attn  # a flash-attn user's script, unchanged but for the import

    options = {"device": device, "dtype": dtypes(device)[0]}
    q = torch.randn(1, 16, 2, 64, requires_grad=True, **options)
    k = torch.randn(1, 16, 2, 64, requires_grad=True, **options)
    v = torch.randn(1, 16, 2, 64, requires_grad=True, **options)
    out = flash_attn.flash_attn_func(q, k, v, causal=True)
    out.sum().backward()
    assert q.grad is not None and torch.isfinite(q.grad).all()
    k_cache, v_cache = torch.zeros(1, 32, 2, 64, **options), torch.zeros(1, 32, 2, 64, **options)
    out = flash_attn.flash_attn_with_kvcache(q.detach()[:, :1], k_cache, v_cache, k=k.detach()[:, :1],
                                             v=v.detach()[:, :1], cache_seqlens=0, causal=True)
    torch.testing.assert_close(out, v.detach()[:, :1])  # one key: the output is its value


def test_bad_inputs_raise_clear_errors():
    q = torch.randn(1, 4, 2, 32)
    with pytest.raises(ValueError, match="dropout"):
        flashattn.flash_attn_func(q, q, q, dropout_p=0.1)
    with pytest.raises(ValueError, match="k: kv heads"):
        flashattn.flash_attn_func(q, torch.randn(1, 4, 3, 32), torch.randn(1, 4, 3, 32))
    k_cache = torch.randn(2, 16, 2, 32)
    with pytest.raises(ValueError, match="block_table|page_table"):
        flashattn.flash_attn_with_kvcache(q, k_cache, k_cache.clone(), cache_seqlens=5,
                                          block_table=torch.tensor([[7]], dtype=torch.int32))


def test_torch_compile_fullgraph_has_no_graph_break():
    def block(q, k, v):
        return flashattn.flash_attn_func(q, k, v, causal=True).relu().sum()

    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    q, k, v = (torch.randn(1, 32, 2, 32, requires_grad=True) for _ in range(3))
    loss = compiled(q, k, v)
    loss.backward()
    q2, k2, v2 = (x.detach().clone().requires_grad_() for x in (q, k, v))
    block(q2, k2, v2).backward()
    torch.testing.assert_close(q.grad, q2.grad)


@pytest.mark.parametrize("device", DEVICES)
def test_flash_attn_varlen_func_forward_and_gradients(device):
    torch.manual_seed(4)
    lengths_q, lengths_k = [5, 0, 33, 1], [7, 4, 33, 0]
    cu_q = torch.tensor([0] + list(torch.tensor(lengths_q).cumsum(0)), dtype=torch.int32, device=device)
    cu_k = torch.tensor([0] + list(torch.tensor(lengths_k).cumsum(0)), dtype=torch.int32, device=device)
    for dtype in dtypes(device):
        q = torch.randn(sum(lengths_q), 4, 64, device=device, dtype=dtype, requires_grad=True)
        k = torch.randn(sum(lengths_k), 2, 64, device=device, dtype=dtype, requires_grad=True)
        v = torch.randn(sum(lengths_k), 2, 64, device=device, dtype=dtype, requires_grad=True)
        out, lse, _ = flashattn.flash_attn_varlen_func(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k),
                                                       causal=True, return_attn_probs=True)
        grad = torch.randn_like(out)
        out.backward(grad)
        tol = tolerance(dtype)
        for b in range(len(lengths_q)):
            rq, rk = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
            qr, kr, vr = (x.detach()[r][None].double().requires_grad_() for x, r in ((q, rq), (k, rk), (v, rk)))
            ref, ref_lse = reference(qr, kr, vr, causal=True)
            torch.testing.assert_close(out[rq].double(), ref[0], atol=tol, rtol=tol)
            if lengths_k[b] == 0:
                assert torch.all(out[rq] == 0) and torch.all(lse[:, rq] == float("-inf"))
                continue
            ref.backward(grad[rq][None].double())
            scale = max(x.grad.abs().max().item() for x in (qr, kr, vr) if x.grad.numel()) + 1e-6
            for mine, theirs in ((q.grad[rq], qr.grad[0]), (k.grad[rk], kr.grad[0]), (v.grad[rk], vr.grad[0])):
                if mine.numel():
                    assert (mine.double() - theirs).abs().max().item() <= 4 * tol * scale


@pytest.mark.parametrize("device", DEVICES)
def test_packed_functions_match_the_unpacked_one(device):
    dtype = dtypes(device)[0]
    qkv = torch.randn(2, 20, 3, 4, 64, device=device, dtype=dtype)
    q, k, v = qkv.unbind(dim=2)
    expected = flashattn.flash_attn_func(q, k, v, causal=True)
    assert torch.equal(flashattn.flash_attn_qkvpacked_func(qkv, causal=True), expected)
    assert torch.equal(flashattn.flash_attn_kvpacked_func(q, torch.stack([k, v], dim=2), causal=True), expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seqlen_q,seqlen_k,is_causal,gqa", [(24, 24, True, False), (40, 24, True, True),
                                                             (24, 40, False, True)])
def test_sdpa_has_sdpa_semantics(device, seqlen_q, seqlen_k, is_causal, gqa):
    torch.manual_seed(5)
    dtype = dtypes(device)[0]
    heads_kv = 2 if gqa else 4
    q = torch.randn(2, 4, seqlen_q, 64, device=device, dtype=dtype)
    k, v = (torch.randn(2, heads_kv, seqlen_k, 64, device=device, dtype=dtype) for _ in range(2))
    mine = flashattn.sdpa(q, k, v, is_causal=is_causal, enable_gqa=gqa)
    theirs = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                                              is_causal=is_causal, enable_gqa=gqa)
    tol = tolerance(dtype)
    torch.testing.assert_close(mine.double(), theirs, atol=tol, rtol=tol)


def test_varlen_op_passes_opcheck():
    q, k, v = torch.randn(9, 4, 32), torch.randn(11, 2, 32), torch.randn(11, 2, 32)
    cu_q, cu_k = torch.tensor([0, 4, 9], dtype=torch.int32), torch.tensor([0, 6, 11], dtype=torch.int32)
    torch.library.opcheck(torch.ops.flashattn.fwd_varlen.default, (q, k, v, cu_q, cu_k, 5, 6), {"causal": True})


@needs_cuda_kernels
def test_cuda_graph_capture_and_replay():
    torch.manual_seed(6)
    q, k, v = (torch.randn(2, 300, 4, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    k_cache = torch.zeros(2, 512, 2, 64, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.zeros_like(k_cache)
    seqlens = torch.tensor([100, 7], dtype=torch.int32, device="cuda")
    k_new, v_new = (torch.randn(2, 1, 2, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))

    def step():
        out = flashattn.flash_attn_func(q, k, v, causal=True)
        decoded = flashattn.flash_attn_with_kvcache(q[:, :1], k_cache, v_cache, k=k_new, v=v_new,
                                                    cache_seqlens=seqlens, causal=True)
        return out, decoded

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()  # warm-up outside the capture (module load, shared-memory opt-in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step()
    for x in (q, k, v, k_new, v_new):
        x.copy_(torch.randn_like(x))
    seqlens.copy_(torch.tensor([300, 40], dtype=torch.int32))  # the same launch serves any lengths
    graph.replay()
    torch.cuda.synchronize()
    k_cache_after, v_cache_after = k_cache.clone(), v_cache.clone()
    expected = step()  # appends again at the same rows: the same values
    for mine, theirs in zip(captured, expected):
        assert torch.equal(mine, theirs)
    assert torch.equal(k_cache, k_cache_after) and torch.equal(v_cache, v_cache_after)


@needs_cuda_kernels
def test_cuda_graph_captures_a_training_step():
    """Forward and backward captured in one CUDA graph (the backward's workspace comes from PyTorch's
    allocator, so the graph holds no allocation of its own) replay to the eager gradients, bitwise."""
    torch.manual_seed(7)
    q, k, v = (torch.randn(2, 300, 4, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad = torch.randn(2, 300, 4, 64, device="cuda", dtype=torch.bfloat16)

    def step():
        for x in (q, k, v):
            x.grad = None
        flashattn.flash_attn_func(q, k, v, causal=True, deterministic=True).backward(grad)
        return q.grad, k.grad, v.grad

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step()
    with torch.no_grad():
        for x in (q, k, v, grad):
            x.copy_(torch.randn_like(x))
    graph.replay()
    torch.cuda.synchronize()
    replayed = [g.clone() for g in captured]
    expected = step()
    for mine, theirs in zip(replayed, expected):
        assert torch.equal(mine, theirs)


@needs_cuda_kernels
def test_kernels_are_named_in_the_profiler():
    """The PyTorch profiler shows which flashattn kernel family ran, matching last_run()."""
    q, k, v = (torch.randn(1, 256, 4, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    k_cache = torch.randn(1, 256, 4, 64, device="cuda", dtype=torch.bfloat16)
    seqlens = torch.tensor([200], dtype=torch.int32, device="cuda")
    ran = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        out = flashattn.flash_attn_func(q, k, v, causal=True)
        ran.append(flashattn.last_run()["kernel"])
        out.sum().backward()
        ran.append(flashattn.last_run()["kernel"])
        flashattn.flash_attn_with_kvcache(q.detach()[:, :1], k_cache, k_cache, cache_seqlens=seqlens)
        ran.append(flashattn.last_run()["kernel"])
        torch.cuda.synchronize()
    names = [event.name for event in profile.events() if "flashattn::" in event.name]
    # last_run names a key such as fwd_sm90_bf16_hd64; its kernel is flashattn::cuda::sm90::fwd_sm90_kernel<...>
    # (the decode family's kvcache_sm80 key runs decode_sm80_kernel).
    for key in ran:
        op, arch = key.split("_")[:2]
        family = f"{'decode' if op == 'kvcache' else op}_{arch}_kernel"
        assert any(family in name for name in names), (key, sorted(set(names)))
