"""The end-to-end model (bench/e2e) at a tiny size: flashattn computes the math path's function through the
whole transformer, and decoding through its paged KV cache gives the logits of a full recomputation."""

import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "e2e"))
from model import Config, KVCache, Transformer, make_attention  # noqa: E402
from quality import agreement, greedy, logits_difference  # noqa: E402

TINY = Config(layers=2, hidden=128, heads=4, kv_heads=2, head_dim=32, ffn=256, vocab=500)


def test_flashattn_matches_the_math_path_through_the_model():
    torch.manual_seed(0)
    model = Transformer(TINY).eval()
    prompt = torch.randint(0, TINY.vocab, (2, 70))
    difference = logits_difference(model, model, "flashattn", prompt)
    assert difference["max_abs"] < 1e-4
    assert agreement(greedy(model, "flashattn", prompt, 12), greedy(model, "math", prompt, 12))["fraction_equal"] == 1.0


def test_cached_decoding_gives_the_logits_of_a_full_recomputation():
    torch.manual_seed(1)
    model = Transformer(TINY).eval()
    tokens = torch.randint(0, TINY.vocab, (3, 40))
    with torch.inference_mode():
        full = model(tokens, make_attention("math"))
        for name, page_size in (("flashattn", 16), ("flashattn", 1), ("math", None)):
            attention = make_attention(name)
            cache = KVCache(TINY, 3, 64, torch.float32, torch.device("cpu"), page_size)
            steps = [model(tokens[:, :30], attention, cache, prefill=True)]
            steps += [model(tokens[:, t:t + 1], attention, cache) for t in range(30, 40)]
            torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-4, rtol=1e-4)


def test_micro_batched_prefill_fills_the_cache_as_one_batch():
    """Prefilling requests through views of some rows of one cache (bench/e2e/serve.py's micro-batches) leaves
    the cache, its lengths and the decoded logits as one whole-batch prefill would."""
    torch.manual_seed(2)
    model = Transformer(TINY).eval()
    tokens = torch.randint(0, TINY.vocab, (3, 40))
    with torch.inference_mode():
        full = model(tokens, make_attention("math"))
        for name, page_size in (("flashattn", 16), ("math", None)):
            attention = make_attention(name)
            cache = KVCache(TINY, 3, 64, torch.float32, torch.device("cpu"), page_size)
            first = [model(tokens[lo:hi, :30], attention, cache.rows(lo, hi), prefill=True, last_only=True)
                     for lo, hi in ((0, 1), (1, 3))]
            assert cache.host_lengths == [30, 30, 30] and cache.lengths.tolist() == [30, 30, 30]
            torch.testing.assert_close(torch.cat(first), full[:, 29:30], atol=1e-4, rtol=1e-4)
            steps = [model(tokens[:, t:t + 1], attention, cache) for t in range(30, 40)]
            torch.testing.assert_close(torch.cat(steps, dim=1), full[:, 30:], atol=1e-4, rtol=1e-4)

