"""flashattn: exact FlashAttention kernels for PyTorch (C++/CUDA).

Importing the package registers the ops under ``torch.ops.flashattn``.
"""

from flashattn._api import (fallback_count, flash_attn_func, flash_attn_kvpacked_func, flash_attn_qkvpacked_func,
                            flash_attn_varlen_func, flash_attn_with_kvcache, last_run, sdpa)

__all__ = ["flash_attn_func", "flash_attn_qkvpacked_func", "flash_attn_kvpacked_func", "flash_attn_varlen_func",
           "flash_attn_with_kvcache", "sdpa", "last_run", "fallback_count"]
