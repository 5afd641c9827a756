"""The flash-attn-compatible functions, over the ``torch.ops.flashattn`` ops."""

import torch

from flashattn import _C  # noqa: F401  (loading the module registers torch.ops.flashattn.*)


@torch.library.register_fake("flashattn::fwd")
def _fwd_fake(q, k, v, softmax_scale=None, causal=False, window_left=-1, window_right=-1, softcap=0.0,
              alibi_slopes=None, path="auto"):
    batch, seqlen_q, heads, _ = q.shape
    out = q.new_empty((batch, seqlen_q, heads, v.shape[-1]))
    lse = q.new_empty((batch, heads, seqlen_q), dtype=torch.float32)
    return out, lse


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                    softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                    path="auto"):
    """Attention over (batch, seqlen, heads, head_dim) tensors, as flash_attn.flash_attn_func.

    Differences from flash-attn: dropout is not supported (``dropout_p`` must be 0); a row that sees no
    key returns out = 0 and lse = -inf. ``return_attn_probs=True`` returns ``(out, lse)`` (the attention
    probabilities are never materialised). ``path`` picks the CUDA kernel family: "auto", "hopper" or
    "portable". Forward only for now: the backward arrives with the GPU backward kernels.
    """
    if dropout_p != 0.0:
        raise ValueError("flashattn: dropout is not supported (dropout_p must be 0.0)")
    del deterministic  # the forward is always deterministic
    out, lse = torch.ops.flashattn.fwd(q, k, v, softmax_scale, causal, window_size[0], window_size[1], softcap,
                                       alibi_slopes, path)
    return (out, lse) if return_attn_probs else out


def last_run():
    """What ran in this thread's last call: backend, kernel, tiles, splits, and any fallback with its reason."""
    return _C.last_run()


def fallback_count():
    """Fallbacks taken by this process so far (a fallback is never silent)."""
    return _C.fallback_count()
