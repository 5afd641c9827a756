"""The flash-attn-compatible functions, over the ``torch.ops.flashattn`` ops."""

import torch

from flashattn import _C  # noqa: F401  (loading the module registers torch.ops.flashattn.*)


@torch.library.register_fake("flashattn::fwd")
def _fwd_fake(q, k, v, softmax_scale=None, causal=False, window_left=-1, window_right=-1, softcap=0.0,
              alibi_slopes=None, deterministic=False, path="auto"):
    batch, seqlen_q, heads, _ = q.shape
    out = q.new_empty((batch, seqlen_q, heads, v.shape[-1]))
    lse = q.new_empty((batch, heads, seqlen_q), dtype=torch.float32)
    return out, lse


@torch.library.register_fake("flashattn::bwd")
def _bwd_fake(dout, q, k, v, out, lse, softmax_scale=None, causal=False, window_left=-1, window_right=-1,
              softcap=0.0, alibi_slopes=None, deterministic=False, path="auto"):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


@torch.library.register_fake("flashattn::fwd_kvcache")
def _fwd_kvcache_fake(q, k_cache, v_cache, cache_seqlens, k=None, v=None, rotary_cos=None, rotary_sin=None,
                      cache_batch_idx=None, block_table=None, softmax_scale=None, causal=False, window_left=-1,
                      window_right=-1, softcap=0.0, rotary_interleaved=True, alibi_slopes=None, num_splits=0):
    batch, seqlen_q, heads, _ = q.shape
    out = q.new_empty((batch, seqlen_q, heads, v_cache.shape[-1]))
    lse = q.new_empty((batch, heads, seqlen_q), dtype=torch.float32)
    return out, lse


# Autograd of the forward op: the gradients come from the backward op (recomputation from lse, no N x N
# storage). lse is an output for the caller, not differentiated (as in flash-attn).
_FWD_OPTIONS = ("softmax_scale", "causal", "window_left", "window_right", "softcap", "alibi_slopes",
                "deterministic", "path")


def _kernel_ready(t):
    """t itself when the kernels take its layout (unit last stride, other strides and offset whole 16-byte
    rows of 2-byte elements), else a contiguous copy: a transposed dO needs no copy."""
    if t.stride(-1) == 1 and t.storage_offset() % 8 == 0 and all(s % 8 == 0 for s in t.stride()[:-1]):
        return t
    return t.contiguous()


def _fwd_setup_context(ctx, inputs, output):
    q, k, v, *options = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.options = dict(zip(_FWD_OPTIONS, options))


def _fwd_backward(ctx, dout, dlse):
    del dlse  # lse is not differentiated
    q, k, v, out, lse = ctx.saved_tensors
    o = ctx.options
    dq, dk, dv = torch.ops.flashattn.bwd(_kernel_ready(dout), q, k, v, out, lse, o["softmax_scale"], o["causal"],
                                         o["window_left"], o["window_right"], o["softcap"], o["alibi_slopes"],
                                         o["deterministic"], o["path"])
    return (dq, dk, dv) + (None,) * len(_FWD_OPTIONS)


torch.library.register_autograd("flashattn::fwd", _fwd_backward, setup_context=_fwd_setup_context)


@torch.library.register_fake("flashattn::fwd_varlen")
def _fwd_varlen_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k=None,
                     softmax_scale=None, causal=False, window_left=-1, window_right=-1, softcap=0.0,
                     alibi_slopes=None, deterministic=False, path="auto"):
    total_q, heads, _ = q.shape
    return q.new_empty((total_q, heads, v.shape[-1])), q.new_empty((heads, total_q), dtype=torch.float32)


@torch.library.register_fake("flashattn::bwd_varlen")
def _bwd_varlen_fake(dout, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                     seqused_k=None, softmax_scale=None, causal=False, window_left=-1, window_right=-1, softcap=0.0,
                     alibi_slopes=None, deterministic=False, path="auto"):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


_VARLEN_INPUTS = ("cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k", "seqused_k")


def _fwd_varlen_setup_context(ctx, inputs, output):
    q, k, v, *rest = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.rest = rest  # the varlen group, then the options, in the op's order


def _fwd_varlen_backward(ctx, dout, dlse):
    del dlse  # lse is not differentiated
    q, k, v, out, lse = ctx.saved_tensors
    dq, dk, dv = torch.ops.flashattn.bwd_varlen(_kernel_ready(dout), q, k, v, out, lse, *ctx.rest)
    return (dq, dk, dv) + (None,) * len(ctx.rest)


torch.library.register_autograd("flashattn::fwd_varlen", _fwd_varlen_backward,
                                setup_context=_fwd_varlen_setup_context)


def _check_no_dropout(dropout_p):
    if dropout_p != 0.0:
        raise ValueError("flashattn: dropout is not supported (dropout_p must be 0.0)")


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                    softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                    path="auto"):
    """Attention over (batch, seqlen, heads, head_dim) tensors, as flash_attn.flash_attn_func.

    Differentiable: ``loss.backward()`` runs flashattn's backward kernels. Differences from flash-attn:
    dropout is not supported (``dropout_p`` must be 0); a row that sees no key returns out = 0 and
    lse = -inf (and zero gradients). ``return_attn_probs=True`` returns ``(out, lse, None)``, flash-attn's
    triple with no probabilities (they are never materialised). ``deterministic=True`` (or
    ``torch.use_deterministic_algorithms(True)``) makes the backward bitwise reproducible. ``path`` picks
    the CUDA kernel family: "auto", "hopper" or "portable".
    """
    _check_no_dropout(dropout_p)
    deterministic = bool(deterministic) or torch.are_deterministic_algorithms_enabled()
    out, lse = torch.ops.flashattn.fwd(q, k, v, softmax_scale, causal, window_size[0], window_size[1], softcap,
                                       alibi_slopes, deterministic, path)
    return (out, lse, None) if return_attn_probs else out


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                              softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                              path="auto"):
    """flash_attn_func over one packed (batch, seqlen, 3, heads, head_dim) tensor, as flash-attn's."""
    q, k, v = qkv.unbind(dim=2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                           deterministic, return_attn_probs, path=path)


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                             softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                             path="auto"):
    """flash_attn_func with k and v packed as (batch, seqlen_k, 2, heads_kv, head_dim), as flash-attn's."""
    k, v = kv.unbind(dim=2)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                           deterministic, return_attn_probs, path=path)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                           softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                           deterministic=False, return_attn_probs=False, block_table=None, *, seqused_k=None,
                           path="auto"):
    """Attention over a batch of variable-length sequences packed as (total, heads, head_dim) with int32
    offsets ``cu_seqlens_q/k`` (batch + 1), as flash_attn.flash_attn_varlen_func; differentiable.

    Returns ``out`` (total_q, heads, head_dim_v), or ``(out, lse, None)`` with lse (heads, total_q) when
    ``return_attn_probs`` (flash-attn's triple; the probabilities are never materialised). ``seqused_k`` (batch) limits each sequence's keys. Differences from flash-attn:
    no dropout, no ``block_table`` here (use flash_attn_with_kvcache for a paged cache); a row that sees no
    key returns out = 0 and lse = -inf.
    """
    _check_no_dropout(dropout_p)
    if block_table is not None:
        raise ValueError("flashattn: block_table is not supported by flash_attn_varlen_func; use "
                         "flash_attn_with_kvcache for a paged cache")
    deterministic = bool(deterministic) or torch.are_deterministic_algorithms_enabled()
    out, lse = torch.ops.flashattn.fwd_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                              seqused_k, softmax_scale, causal, window_size[0], window_size[1],
                                              softcap, alibi_slopes, deterministic, path)
    return (out, lse, None) if return_attn_probs else out


def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """torch.nn.functional.scaled_dot_product_attention over flashattn: (batch, heads, seqlen, head_dim)
    tensors, ``is_causal`` aligned to the top-left corner (query i sees keys j <= i), ``enable_gqa`` for
    fewer key/value heads. Refused (ValueError) where flashattn cannot compute exactly SDPA's result: an
    ``attn_mask``, dropout, and a top-left causal mask with more keys than queries (keys past the
    diagonal of a short query block), which no bottom-right window expresses.
    """
    _check_no_dropout(dropout_p)
    if attn_mask is not None:
        raise ValueError("flashattn.sdpa: attn_mask is not supported (use is_causal or flash_attn_func's window)")
    if query.shape[1] != key.shape[1] and not enable_gqa:
        raise ValueError("flashattn.sdpa: key has fewer heads than query; pass enable_gqa=True")
    seqlen_q, seqlen_k = query.shape[2], key.shape[2]
    window_right = -1
    if is_causal:
        if seqlen_q < seqlen_k:
            raise ValueError("flashattn.sdpa: is_causal with more keys than queries (top-left alignment) is "
                             "not supported; flash_attn_func's causal is bottom-right aligned")
        window_right = seqlen_q - seqlen_k  # top-left j <= i is bottom-right j <= i + (Sk - Sq) + right
    out = flash_attn_func(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2), softmax_scale=scale,
                          window_size=(-1, window_right))
    return out.transpose(1, 2)


def flash_attn_with_kvcache(q, k_cache, v_cache, k=None, v=None, rotary_cos=None, rotary_sin=None,
                            cache_seqlens=None, cache_batch_idx=None, cache_leftpad=None, block_table=None,
                            softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                            rotary_interleaved=True, alibi_slopes=None, num_splits=0, return_softmax_lse=False):
    """Attention of new tokens over a KV cache, as flash_attn.flash_attn_with_kvcache.

    ``k`` / ``v`` (new keys and values) are appended into ``k_cache`` / ``v_cache`` in place at
    ``cache_seqlens`` before attending; ``block_table`` makes the cache paged (any page size); rotary
    embedding applies to q and the new k. Differences from flash-attn: ``cache_leftpad`` is not supported;
    a row that sees no key returns out = 0 and lse = -inf.
    """
    if cache_leftpad is not None:
        raise ValueError("flashattn: cache_leftpad is not supported")
    if cache_seqlens is None:
        cache_seqlens = 0
    if isinstance(cache_seqlens, int):
        cache_seqlens = torch.full((q.shape[0],), cache_seqlens, dtype=torch.int32, device=q.device)
    out, lse = torch.ops.flashattn.fwd_kvcache(q, k_cache, v_cache, cache_seqlens, k, v, rotary_cos, rotary_sin,
                                               cache_batch_idx, block_table, softmax_scale, causal, window_size[0],
                                               window_size[1], softcap, rotary_interleaved, alibi_slopes,
                                               num_splits)
    return (out, lse) if return_softmax_lse else out


def last_run():
    """What ran in this process's last call (a backward included: autograd runs it on its own thread): backend, kernel, tiles, splits, and any fallback with its reason."""
    return _C.last_run()


def fallback_count():
    """Fallbacks taken by this process so far (a fallback is never silent)."""
    return _C.fallback_count()
