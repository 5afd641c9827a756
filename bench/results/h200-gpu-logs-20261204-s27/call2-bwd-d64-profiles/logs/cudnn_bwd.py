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
