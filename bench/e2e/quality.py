"""Quality checks of the end-to-end evaluation: each attention implementation against the `math` path
(standard attention) on the same weights and prompts (bench/e2e/README.md).

    python bench/e2e/quality.py --json out.json [--attention flashattn,cudnn,fa2] [--config serving|tiny]

- logits of whole prompts, in float32, against math: max and mean absolute difference;
- greedy decoding of `--steps` tokens (through each implementation's KV cache) in the run's dtype: the
  fraction of tokens equal to math's, and the first step where they part;
- training loss over `--train-steps` steps on a fixed synthetic corpus from the same initial weights: the
  largest difference from math's curve.
"""

import argparse
import json
import pathlib
import sys

import torch
from torch.nn import functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from model import SERVING, TINY, TRAINING, KVCache, Transformer, make_attention  # noqa: E402


def logits_difference(model, reference_model, name, prompt):
    """Max and mean |logits of `model` with attention `name` - logits of `reference_model` (float32) with
    the math path| over whole prompts."""
    with torch.inference_mode():
        mine = model(prompt, make_attention(name)).float()
        reference = reference_model(prompt, make_attention("math")).float()
    difference = (mine - reference).abs()
    return {"max_abs": difference.max().item(), "mean_abs": difference.mean().item()}


def greedy(model, name, prompt, steps, page_size=16):
    """`steps` greedy tokens after `prompt`, decoded through the implementation's KV cache."""
    attention = make_attention(name)
    batch, length = prompt.shape
    cache = KVCache(model.config, batch, length + steps, next(model.parameters()).dtype, prompt.device,
                    page_size if attention.paged else None)
    with torch.inference_mode():
        token = model(prompt, attention, cache, prefill=True)[:, -1].argmax(-1, keepdim=True)
        tokens = [token]
        for _ in range(steps - 1):
            token = model(token, attention, cache)[:, -1].argmax(-1, keepdim=True)
            tokens.append(token)
    return torch.cat(tokens, dim=1)


def agreement(mine, reference):
    same = mine == reference
    parted = (~same).any(dim=0).nonzero()
    return {"fraction_equal": same.float().mean().item(),
            "first_difference": int(parted[0]) if parted.numel() else None}


def loss_curve(config, name, steps, seqlen, batch, device, dtype, seed=0):
    """Training loss per step from fixed initial weights on a fixed synthetic corpus (a repeating pattern
    with noise, so the loss falls)."""
    torch.manual_seed(seed)
    model = Transformer(config).to(device=device, dtype=dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    generator = torch.Generator(device="cpu").manual_seed(seed)
    attention = make_attention(name)
    losses = []
    for _ in range(steps):
        base = torch.randint(0, config.vocab, (batch, 1), generator=generator)
        tokens = (base + torch.arange(seqlen + 1)) % config.vocab
        tokens = tokens.to(device)
        logits = model(tokens[:, :-1], attention)
        loss = F.cross_entropy(logits.float().reshape(-1, config.vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--attention", default="flashattn,cudnn,fa2")
    p.add_argument("--config", choices=["serving", "tiny"], default="serving")
    p.add_argument("--prompt-tokens", type=int, default=2048)
    p.add_argument("--steps", type=int, default=256)
    p.add_argument("--train-steps", type=int, default=50)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args()
    device = torch.device(args.device)
    low = torch.bfloat16 if device.type == "cuda" else torch.float32
    config = SERVING if args.config == "serving" else TINY
    torch.manual_seed(0)
    prompt = torch.randint(0, config.vocab, (2, args.prompt_tokens), device=device)
    names = args.attention.split(",")
    report = {"config": args.config, "rows": []}
    model32 = Transformer(config).to(device=device, dtype=torch.float32).eval()
    model_low = Transformer(config).to(device=device, dtype=low).eval()
    model_low.load_state_dict(model32.state_dict())
    reference_tokens = greedy(model_low, "math", prompt, args.steps)
    # The baseline of the logits check: standard attention in the same dtype against float32. What the
    # dtype costs the whole model (weights and activations in bf16) is in it, so an implementation's own
    # error is its difference beyond this one.
    report["math_logits_vs_fp32"] = logits_difference(model_low, model32, "math", prompt)
    train_config = TRAINING if args.config == "serving" else TINY
    reference_losses = loss_curve(train_config, "math", args.train_steps, 1024 if args.config == "serving" else 64,
                                  4, device, low)
    for name in names:
        row = {"attention": name}
        try:
            # Against math in float32; the GPU kernels run in bf16 (fp32 is a CPU-only dtype for them).
            row["logits_vs_math_fp32"] = logits_difference(model_low, model32, name, prompt)
            row["greedy_vs_math"] = agreement(greedy(model_low, name, prompt, args.steps), reference_tokens)
            losses = loss_curve(train_config, name, args.train_steps, 1024 if args.config == "serving" else 64, 4,
                                device, low)
            row["loss"] = losses
            row["loss_max_abs_difference_vs_math"] = max(abs(a - b) for a, b in zip(losses, reference_losses))
        except Exception as error:
            row["error"] = f"{type(error).__name__}: {error}"[:300]
        report["rows"].append(row)
        print(json.dumps(row)[:300], flush=True)
    report["math_loss"] = reference_losses
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
