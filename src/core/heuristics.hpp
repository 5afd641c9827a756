// flashattn — the launch heuristics, each with the model behind it (STYLE: heuristics live in one place).
// Pure functions of the call's shape, usable from host code and from the kernels' launchers.
#pragma once

namespace flashattn::core {

/// Whether the key loop of a forward CTA is short: up to 1024 keys per query row on average (causal rows
/// keep half the keys on average). A CTA pays a fixed cost besides its key loop (Q and the first K tile
/// loaded before any MMA, O staged and stored after the last), which a one-CTA-per-SM tile leaves exposed
/// and a smaller tile with two co-resident CTAs hides, at twice the K/V reads from L2 per query row. On the
/// H200 the portable kernel's D = 256 128x64 tile ran 1.04-1.22x FlashAttention-2 from 2048 keys per row up
/// but 0.89-1.02x below, where a 64x64 tile ran 1.02-1.14x (docs/PERF.md, portable path).
constexpr bool short_key_loop(int max_seqlen_k, bool causal) {
  const int mean_keys = causal ? max_seqlen_k / 2 : max_seqlen_k;
  return mean_keys <= 1024;
}

}  // namespace flashattn::core
