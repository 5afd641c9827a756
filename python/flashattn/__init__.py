"""flashattn: exact FlashAttention kernels for PyTorch (C++/CUDA).

Importing the package registers the ops under ``torch.ops.flashattn``.
"""

from flashattn._api import fallback_count, flash_attn_func, flash_attn_with_kvcache, last_run

__all__ = ["flash_attn_func", "flash_attn_with_kvcache", "last_run", "fallback_count"]
