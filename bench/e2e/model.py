"""A decoder-only transformer in plain PyTorch (RMSNorm, rotary embeddings, GQA attention, SwiGLU MLP) whose
attention is pluggable, for the end-to-end evaluation (bench/e2e/README.md).

Every implementation computes the same function: causal attention over (batch, seqlen, heads, head_dim)
tensors with rotary embedding applied by the model, and a KV cache for decoding. Weights are random: speed
does not depend on their values, and the quality checks compare implementations on the same weights.
"""

import copy
import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


@dataclasses.dataclass(frozen=True)
class Config:
    layers: int = 16
    hidden: int = 2048
    heads: int = 32
    kv_heads: int = 8
    head_dim: int = 64
    ffn: int = 5632
    vocab: int = 32000
    rope_theta: float = 500000.0

    def parameters(self):
        attention = self.hidden * self.head_dim * (self.heads + 2 * self.kv_heads) + self.heads * self.head_dim * self.hidden
        mlp = 3 * self.hidden * self.ffn
        return self.layers * (attention + mlp + 2 * self.hidden) + 2 * self.vocab * self.hidden + self.hidden


# 0.85B parameters, Llama-like heads (the serving workload); GPT-2-medium-sized (the training workload).
SERVING = Config()
TRAINING = Config(layers=24, hidden=1024, heads=16, kv_heads=16, head_dim=64, ffn=2816, vocab=50304)
# A small model for smoke runs (`--config tiny`, on the CPU too) and the tests.
TINY = Config(layers=2, hidden=256, heads=8, kv_heads=2, head_dim=32, ffn=512, vocab=1000)


class KVCache:
    """The decode-time cache of every layer: dense (batch, capacity, kv_heads, head_dim) tensors, or for
    flashattn paged ones (pages of `page_size` tokens, one page table for all layers)."""

    def __init__(self, config, batch, capacity, dtype, device, page_size=None):
        self.lengths = torch.zeros(batch, dtype=torch.int32, device=device)
        # The same lengths on the host, advanced with them: the peers' dense path and the rotary tables need
        # them as numbers, and reading them off the device would stall every layer of every decode step
        # (session 9's first serving run did, two syncs per layer, and so charged the peers for it). A view
        # of some rows (rows()) shares this list and sees its own part of it through `_rows`.
        self._host_lengths = [0] * batch
        self._rows = range(batch)
        self.page_size = page_size
        shape = (batch, capacity, config.kv_heads, config.head_dim)
        if page_size is not None:
            pages = math.ceil(capacity / page_size)
            # Pages handed out in a shuffled order, as an allocator serving many requests would.
            order = torch.randperm(batch * pages, device=device)
            self.page_table = order.view(batch, pages).to(torch.int32)
            shape = (batch * pages, page_size, config.kv_heads, config.head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(config.layers)]

    @property
    def host_lengths(self):
        return [self._host_lengths[i] for i in self._rows]

    def advance(self, tokens):
        """Every sequence of this cache (or view) grew by `tokens`."""
        self.lengths += tokens
        for i in self._rows:
            self._host_lengths[i] += tokens

    def rows(self, start, stop):
        """The cache of sequences start .. stop - 1, sharing this one's storage and lengths: a prefill through
        the view fills those sequences of this cache."""
        view = copy.copy(self)
        view.lengths = self.lengths[start:stop]
        view._rows = self._rows[start:stop]
        if self.page_size is None:
            view.k = [t[start:stop] for t in self.k]
            view.v = [t[start:stop] for t in self.v]
        else:
            view.page_table = self.page_table[start:stop]
        return view

    def bytes(self):
        return sum(t.numel() * t.element_size() for t in self.k + self.v)


class Attention:
    """One implementation: `causal(q, k, v)` for training and prefill, `decode(q, k_new, v_new, cache,
    layer)` appending the new tokens to `cache` and attending over it (cache.lengths is advanced by the
    model after the last layer). A prefill attends with `causal` and stores its keys and values with
    `store` (rows 0 .. S-1 of every sequence)."""

    name = "?"
    paged = False

    def causal(self, q, k, v):
        raise NotImplementedError

    def decode(self, q, k_new, v_new, cache, layer):
        raise NotImplementedError

    @staticmethod
    def store(cache, layer, k, v):
        seqlen = k.shape[1]
        if cache.page_size is None:
            cache.k[layer][:, :seqlen] = k
            cache.v[layer][:, :seqlen] = v
            return
        rows = torch.arange(seqlen, device=k.device)
        pages = cache.page_table[:, rows // cache.page_size].long()  # (batch, seqlen)
        cache.k[layer][pages, rows % cache.page_size] = k
        cache.v[layer][pages, rows % cache.page_size] = v


class FlashAttn(Attention):
    name = "flashattn"
    paged = True

    def causal(self, q, k, v):
        import flashattn

        return flashattn.flash_attn_func(q, k, v, causal=True)

    def decode(self, q, k_new, v_new, cache, layer):
        import flashattn

        return flashattn.flash_attn_with_kvcache(q, cache.k[layer], cache.v[layer], k=k_new, v=v_new,
                                                 cache_seqlens=cache.lengths, block_table=cache.page_table,
                                                 causal=True)


class Sdpa(Attention):
    """PyTorch SDPA restricted to one backend (cuDNN, FlashAttention-2 or the math path, i.e. standard
    attention); the decode step writes the new tokens into a dense cache and attends over the valid rows."""

    BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "fa2": SDPBackend.FLASH_ATTENTION, "math": SDPBackend.MATH}

    def __init__(self, name):
        self.name = name
        self.backend = self.BACKENDS[name]

    def _sdpa(self, q, k, v, causal, mask=None):
        with sdpa_kernel(self.backend):
            return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                  attn_mask=mask, is_causal=causal,
                                                  enable_gqa=q.shape[2] != k.shape[2]).transpose(1, 2)

    def causal(self, q, k, v):
        return self._sdpa(q, k, v, causal=True)

    def decode(self, q, k_new, v_new, cache, layer):
        batch, new = q.shape[:2]
        rows = cache.lengths[:, None].long() + torch.arange(new, device=q.device)
        index = torch.arange(batch, device=q.device)[:, None]
        cache.k[layer][index, rows] = k_new
        cache.v[layer][index, rows] = v_new
        end = max(cache.host_lengths) + new
        k, v = cache.k[layer][:, :end], cache.v[layer][:, :end]
        if new == 1 and len(set(cache.host_lengths)) == 1:
            return self._sdpa(q, k, v, causal=False)
        # Mixed lengths (or several new tokens): mask each row to its own prefix, bottom-right aligned.
        key = torch.arange(end, device=q.device)
        keep = key[None, None, :] <= rows[:, :, None]
        return self._sdpa(q, k, v, causal=False, mask=keep[:, None])


def make_attention(name):
    return FlashAttn() if name == "flashattn" else Sdpa(name)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rotary_tables(config, positions, device):
    """cos and sin (positions, head_dim / 2) of the half-split rotary embedding."""
    inverse = config.rope_theta ** (-torch.arange(0, config.head_dim, 2, device=device).float() / config.head_dim)
    angles = torch.arange(positions, device=device).float()[:, None] * inverse[None, :]
    return angles.cos(), angles.sin()


def rotate(x, cos, sin):
    """x (batch, seqlen, heads, head_dim) rotated by cos/sin (batch or 1, seqlen, head_dim / 2), half-split."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half].float(), x[..., half:].float()
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    return torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], dim=-1).type_as(x)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        c = config
        self.attention_norm = RMSNorm(c.hidden)
        self.wqkv = nn.Linear(c.hidden, (c.heads + 2 * c.kv_heads) * c.head_dim, bias=False)
        self.wo = nn.Linear(c.heads * c.head_dim, c.hidden, bias=False)
        self.mlp_norm = RMSNorm(c.hidden)
        self.w_gate_up = nn.Linear(c.hidden, 2 * c.ffn, bias=False)
        self.w_down = nn.Linear(c.ffn, c.hidden, bias=False)

    def forward(self, x, cos, sin, attention, cache=None, layer=0, prefill=False):
        c = self.config
        batch, seqlen, _ = x.shape
        qkv = self.wqkv(self.attention_norm(x)).view(batch, seqlen, c.heads + 2 * c.kv_heads, c.head_dim)
        q, k, v = qkv.split([c.heads, c.kv_heads, c.kv_heads], dim=2)
        q, k, v = rotate(q, cos, sin), rotate(k, cos, sin), v.contiguous()
        if cache is None or prefill:
            o = attention.causal(q, k, v)
            if prefill:
                attention.store(cache, layer, k, v)
        else:
            o = attention.decode(q, k, v, cache, layer)
        x = x + self.wo(o.reshape(batch, seqlen, -1))
        gate, up = self.w_gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.w_down(F.silu(gate) * up)


class Transformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.hidden)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.norm = RMSNorm(config.hidden)
        self.lm_head = nn.Linear(config.hidden, config.vocab, bias=False)
        self.rotary = None

    def _tables(self, positions, device):
        if self.rotary is None or self.rotary[0].shape[0] < positions:
            self.rotary = rotary_tables(self.config, max(positions, 4096), device)
        return self.rotary

    def forward(self, tokens, attention, cache=None, prefill=False, last_only=False):
        """Logits (batch, seqlen, vocab) of `tokens` — of the last position only with `last_only` (a prefill
        that samples one token need not materialise the rest): whole sequences (no cache), a prefill that
        fills an empty `cache`, or new tokens appended to `cache`."""
        batch, seqlen = tokens.shape
        x = self.embed(tokens)
        start = cache.lengths.long() if cache is not None else torch.zeros(batch, dtype=torch.long, device=x.device)
        cos, sin = self._tables(max(cache.host_lengths) + seqlen if cache is not None else seqlen, x.device)
        positions = start[:, None] + torch.arange(seqlen, device=x.device)
        cos, sin = cos[positions], sin[positions]
        for layer, block in enumerate(self.blocks):
            x = block(x, cos, sin, attention, cache, layer, prefill)
        if cache is not None:
            cache.advance(seqlen)
        return self.lm_head(self.norm(x[:, -1:] if last_only else x))
