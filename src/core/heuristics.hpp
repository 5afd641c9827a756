// flashattn — the launch heuristics, each with the model behind it (STYLE: heuristics live in one place).
// Pure functions of the call's shape, usable from host code and from the kernels' launchers.
#pragma once

namespace flashattn::core {

/// Keys a query row of a forward call keeps on average: causal rows keep half (bottom-right, Sq = Sk).
constexpr int mean_keys_per_row(int max_seqlen_k, bool causal) {
  return causal ? max_seqlen_k / 2 : max_seqlen_k;
}

/// Whether the key loop of a forward CTA is short: up to 1024 keys per query row on average (causal rows
/// keep half the keys on average). A CTA pays a fixed cost besides its key loop (Q and the first K tile
/// loaded before any MMA, O staged and stored after the last), which a one-CTA-per-SM tile leaves exposed
/// and a smaller tile with two co-resident CTAs hides, at twice the K/V reads from L2 per query row. On the
/// H200 the portable kernel's D = 256 128x64 tile ran 1.04-1.22x FlashAttention-2 from 2048 keys per row up
/// but 0.89-1.02x below, where a 64x64 tile ran 1.02-1.14x (docs/PERF.md, portable path).
constexpr bool short_key_loop(int max_seqlen_k, bool causal) {
  return mean_keys_per_row(max_seqlen_k, causal) <= 1024;
}

/// Whether the Hopper forward at D = 64 takes its 128x128 tile (two consumer warpgroups) rather than its
/// 192x96 tile (three): sequences of up to 1024 keys, whatever the mask. At D = 64 a warpgroup's softmax of a
/// score tile outlasts its two GEMMs on it, so only a third warpgroup's GEMMs hide it, and the 192-row tile
/// wins on long key loops (+10-18% in v3). On short sequences its fixed cost per tile, the rows it wastes
/// (S 1024 -> 6 tiles of 192 = 1152 rows) and its coarser last round dominate. Measured on the H200
/// (docs/PERF.md): v3, the 128x128 tile +6% full / +8% causal at S 512 and +5% causal at S 1k; session 19
/// (interleaved A/B, three Q buffers in both tiles), full S 1k +4.4% but causal S 2k -5.1% (1024 mean keys
/// either way: the mean is not what decides).
constexpr bool short_key_loop_sm90_d64(int max_seqlen_k) { return max_seqlen_k <= 1024; }

/// Whether the Hopper forward at D = 256 takes its 128x64 tile (2 K + 3 V stages) rather than its 128x80
/// one (2 K + 2 V): up to 512 keys per query row on average. The 80-key tile takes 20% fewer key steps
/// (cuda/sm90/tile_fwd_sm90.hpp), but it has no room for the third V stage, so the producer runs less far
/// ahead, which costs most where a tile is only a few steps long. Measured on the H200 (docs/PERF.md, forward
/// session 15; interleaved A/B, kernel time): the 80-key tile ran +1.9% (full) at 1024 keys per row rising to
/// +5.3% at 16k, +2.5 ... +4.4% causal from S 4k, even (0.997) at causal S 2k (1024 mean keys), and lost
/// below: -2.8% full S 512, -6.2% causal S 512, -3.1% causal S 1k. Measured again with V in whole TMA boxes
/// (session 17, ablation wider_short_tiles): the 80-key tile still loses at 512 mean keys (-2.6% full S 512,
/// -4.8% causal S 512, -3.1% causal S 1k) and is even beyond.
constexpr bool narrow_key_tile_sm90_d256(int max_seqlen_k, bool causal) {
  return mean_keys_per_row(max_seqlen_k, causal) <= 512;
}

/// Whether the Hopper forward at D = 128 takes its 128x144 tile rather than its 128x128 one: without a
/// causal mask, from 8192 keys per row. The wider tile has 11% fewer key steps, so less per-step softmax
/// bookkeeping, O rescaling and barrier waiting per key, but to fit 227 KB of shared memory beside two Q
/// buffers it keeps two V stages instead of three, so the producer runs less far ahead and each tile's
/// fixed cost grows. Measured on the H200 (docs/PERF.md, forward session 14): against the 128x128 tile,
/// full masks +1.9% at 8k keys and +2.2% at 16k (interleaved A/B, kernel time), and in one run per tile
/// +0.6% at 4k, -4% at 2k, -10% at 512-1k, causal -3 ... 0% up to 8k. Measured again with V in whole TMA
/// boxes (session 17, ablation wider_short_tiles, against the 128-key tile): full -11% at 512 and 1k, -5% at
/// 2k, -2% at 4k, even from 8k; causal -10% at 512 and 1k, -4% at 2k, -2% at 4k, even from 8k.
constexpr bool wide_key_tile_sm90_d128(int max_seqlen_k, bool causal) {
  return !causal && max_seqlen_k >= 8192;
}

/// Whether the Hopper forward packs the `group` query heads of each kv head into its tiles' rows (GQA
/// packing, cuda/sm90/tile_fwd_sm90.hpp) for a call of up to `max_seqlen_q` query rows per sequence, with
/// tiles of `block_m` rows. Every tile, full or not, costs one pass over its keys (the K and V loads, the
/// wgmmas of all its rows), so the work is the number of tiles: ceil(Sq / block_m) per query head unpacked,
/// ceil(Sq * group / block_m) per kv head packed. Packing is taken when packed tiles <= 2/3 of unpacked
/// ones: a packed tile costs more than an unpacked one (Q and O move as 16-byte vectors row by row instead
/// of TMA boxes, the Q load is no longer issued a tile ahead by the producer, and a wide-key unpacked tile
/// gives way to the short-key one). Measured on the H200 (session 32, B 8, Hq 32 / Hkv 8, D 128, Sk 1k and
/// 8k, interleaved CLI A/B, docs/PERF.md): packed / unpacked 1.50-1.97x at 1/4 of the tiles (Sq 1, 16),
/// 1.42-1.74x at 1/2 (Sq 64), but 0.88-0.98x at 7/8 (Sq 200). FlashAttention-3's margin, a tenth, packed
/// that last shape; the bound between 1/2 and 7/8 is placed at 2/3 (Sq 150: 5/8 packs, Sq 96: 3/4 does not;
/// measured in session 34 on an H100: Sq 150 packed 1.11-1.27x, Sq 96 unpacked either way).
/// Fewer tiles only pay where they take fewer rounds of the persistent CTAs (one per SM of `sms`, over the
/// `batch_heads_kv` (batch, kv head) pairs' tiles): within one round the call lasts as long as its longest
/// tile, and a packed tile is the longer one. Measured (session 34, H100, B 1, Hq 32 / Hkv 8, D 128, 32
/// unpacked tiles and 8 or 16 packed, one round either way): packed / unpacked 0.97-0.98x at Sq 64, 1.005x at
/// Sq 16; so such calls are not packed.
constexpr bool pack_gqa_sm90(long long max_seqlen_q, long long group, long long block_m,
                             long long batch_heads_kv, long long sms) {
  if (group <= 1 || max_seqlen_q <= 0 || batch_heads_kv <= 0 || sms <= 0) return false;
  const long long unpacked_tiles = group * ((max_seqlen_q + block_m - 1) / block_m);
  const long long packed_tiles = (max_seqlen_q * group + block_m - 1) / block_m;
  if (3 * packed_tiles > 2 * unpacked_tiles) return false;
  const auto rounds = [&](long long tiles) { return (batch_heads_kv * tiles + sms - 1) / sms; };
  return rounds(packed_tiles) < rounds(unpacked_tiles);
}

/// Whether the Hopper forward runs a GQA call's query heads in cluster pairs that share their K / V loads
/// (the cuda/sm90 *_paired regimes): two query heads of one kv head (an even group) walk the same key
/// tiles, so each K / V tile crosses from L2 to the SMs once for both. An experiment that skipped half the
/// K / V loads bounded the gain at +2-4% at D = 128 (docs/PERF.md, session 45).
constexpr bool pairs_query_heads_sm90(long long heads, long long heads_kv) {
  return heads_kv > 0 && heads % heads_kv == 0 && (heads / heads_kv) % 2 == 0;
}

/// Whether the Hopper forward runs a call's query tiles in cluster pairs that share their K / V loads, where
/// its query heads do not pair (pairs_query_heads_sm90): two neighbouring query tiles of one head walk the
/// same key tiles only without a mask that bounds keys by row (causal or a window), and both tiles of a
/// pair must hold rows (every sequence's query tiles the same count, even: not varlen).
constexpr bool pairs_query_tiles_sm90(bool masked, bool varlen, long long m_blocks) {
  return !masked && !varlen && m_blocks >= 2 && m_blocks % 2 == 0;
}

/// Whether a Hopper forward call's query rows walk keys enough for its cluster pairs (pairs_query_heads_sm90,
/// pairs_query_tiles_sm90) to pay: `max_seqlen_k` keys, or a window's width where both its sides are bounded
/// (`window_width`, 0 otherwise), at least 8192. A pair's two CTAs wait for each other's release of every
/// K / V stage and meet at each tile's start, a cost per tile that only a long key walk repays. Measured on
/// an H100 (docs/PERF.md, session 46; interleaved A/B of 41f30f9, pairs wherever they fit, against unpaired
/// tiles): D 128 full S 512 / 1k / 2k / 4k 0.984 / 0.985 / 0.990 / 0.992, S 8k / 16k 1.008 / 1.009; GQA-long
/// (causal) S 4k 1.001, 8k-128k 0.997-1.013.
inline constexpr long long kFwdPairsMinKeys = 8192;
constexpr bool pairs_walk_keys_enough_sm90(long long max_seqlen_k, long long window_width) {
  const long long walk = window_width > 0 && window_width < max_seqlen_k ? window_width : max_seqlen_k;
  return walk >= kFwdPairsMinKeys;
}

/// What the two CTAs of a Hopper forward cluster pair split (cuda/sm90, the *_paired regimes), or that a
/// call runs unpaired (`none`, last so that the two pairings keep the values the kernels compare against).
enum class FwdPairsSm90 : int { query_heads, query_tiles, none };

/// How a Hopper forward call pairs its CTAs, where the device holds a pair on every two SMs (the launch
/// asks): only where its rows walk keys enough (pairs_walk_keys_enough_sm90); then two query heads of one kv
/// head (pairs_query_heads_sm90), else two query tiles of one head (pairs_query_tiles_sm90; `m_blocks` of
/// the paired tile).
constexpr FwdPairsSm90 fwd_pairs_sm90(long long heads, long long heads_kv, long long max_seqlen_k,
                                      long long window_width, bool masked, bool varlen, long long m_blocks) {
  if (!pairs_walk_keys_enough_sm90(max_seqlen_k, window_width)) return FwdPairsSm90::none;
  if (pairs_query_heads_sm90(heads, heads_kv)) return FwdPairsSm90::query_heads;
  if (pairs_query_tiles_sm90(masked, varlen, m_blocks)) return FwdPairsSm90::query_tiles;
  return FwdPairsSm90::none;
}

/// Whether the Hopper forward walks a partial last round of equal tiles (unmasked, one length) as a stream of
/// key tiles cut into equal stretches, a tile cut between two CTAs merged through the workspace
/// (cuda/sm90/split_tail_sm90.cuh), given the tiles' `seqlen_k` keys and `head_dim_v`. The stream saves up to
/// half a tile's time where the last round is partial (D 128 S 4k ran 3.1% slower than the whole rounds of S
/// 4224), but the cut tiles' partials (every CTA writes one at its stretch's start and merges one at its end,
/// fp32 O and lse) cost ~10 us at D 64 / 128 and ~20-25 us at D 256 a call, on every CTA's path. Measured
/// against the unsplit order (H100, docs/PERF.md, session 51): S 512-2k 0.876-1.012 (D 256 S 512 -20 us),
/// from 4k 0.996-1.025 (D 64 S 4k +2.5%, D 128 S 4k +1.5%, D 256 S 8k / 16k +1.4 / +2.1%). So from 4,096
/// keys: against the unsplit order there (session 52, cluster pairs included) 0.991-1.024, geomean 1.012. At
/// Dv <= 128 the stream saves more inside the kernel than its fixup costs from 2,048 keys (session 53, ncu:
/// D 64 / 128 S 1k -1.9 / -2.2 us; D 256 S 512 +14.8 us, of which the partials' write and merge 8.8).
/// Measured from 2,048 keys at Dv <= 128 against 4,096 (session 54, H100, two runs a side): S 2k D 64 / 128
/// +2.0 / +2.3%, every other full-mask cell 0.997-1.007, causal (never cut) 0.996-1.002.
constexpr long long fwd_split_tail_min_keys_sm90(int head_dim_v) { return head_dim_v <= 128 ? 2048 : 4096; }
constexpr bool fwd_split_tail_sm90(long long seqlen_k, int head_dim_v) {
  return seqlen_k >= fwd_split_tail_min_keys_sm90(head_dim_v);
}

/// Whether the Hopper forward's persistent CTAs take a masked problem's query tiles in pairs — a head's
/// longest tile, then its shortest; its second longest, then its second shortest; ... — rather than in
/// one global longest-first order (cuda/sm90/tile_scheduler_sm90.hpp). Both balance the CTAs (a causal pair
/// is as long as any other of its head). They differ in L2 reuse: the global order runs a round of the CTAs
/// on one tile of each of `ctas` heads, so with more heads than half the CTAs no two tiles of a head run at
/// once, and a head's later tiles come rounds later, after the K and V of every other head went through L2.
/// Every tile then reads its K / V from HBM: ncu at causal B 32, H 16, S 512, D 128 measured 457 MB of DRAM
/// traffic against cuDNN's 257 MB (Q, K, V and O once) and 134 µs against 100 (docs/PERF.md). Pairs keep a
/// head's tiles in neighbouring positions of one round, so they run together. They halve the work items,
/// so they are taken only when there are at least two per multiprocessor (the grid's last round then
/// leaves as much idle as the global order's: the causal cells of B·S = 16k that take pairs, S <= 2k at
/// D 64 / 128 and S <= 1k at D 256, have 512-2048 pairs on 132 SMs).
/// Measured on the H200 (interleaved A/B, docs/PERF.md, session 16): causal S 512 / 1k / 2k +5 / +12 / +13%
/// at D 128, S 512 / 1k +9 / +13% at D 256; D 64 (not bound by those re-reads) -1.5 ... +1%.
constexpr bool fwd_tiles_paired(bool unequal_tiles, long long batch_heads, long long m_blocks, int sms) {
  const long long pairs = batch_heads * ((m_blocks + 1) / 2);
  return unequal_tiles && 2 * batch_heads > sms && pairs >= 2LL * sms;
}

/// Bytes of L2 the Hopper forward's longest-first order gives the K and V of the heads it runs at once.
/// The H200's L2 holds 50 MB; the rest is left to the Q and O streams and to what other heads' CTAs still
/// read.
inline constexpr long long kFwdSectionL2Bytes = 32LL << 20;

/// How many kv heads (of the batch * heads_kv of a call) the Hopper forward's longest-first order
/// (cuda/sm90/tile_scheduler_sm90.hpp) runs as one section: the most that divide the call's kv heads and
/// whose K and V (`kv_head_bytes` each) fit in kFwdSectionL2Bytes together, at least one.
/// The model: a static order keeps the CTAs in step only on average. Each walks its tiles' keys from the
/// diagonal down, and over tens of rounds they drift apart, so a key tile one CTA read is read by the next
/// long after; with every head of a call in flight (GQA 32/8 at 128k keys: 512 MB of K and V) it has left L2
/// by then. Within a section whose K and V fit L2 (or of one kv head, whose CTAs all walk the same keys) the
/// later reads still hit. Measured on the H200 (docs/PERF.md, session 19): at GQA 32/8, S 64k, DRAM reads
/// 45.6 -> 1.6 GB and the L2 hit rate 56 -> 98%; interleaved A/B of the final order against the global list:
/// GQA S 32k-128k +1-5%, causal D 128 S 4k-16k +4-10%, D 256 S 2k-16k +2-13%, D 64 -0.4...+1.8%.
/// The most of `heads` (at least one) that divide `heads` and whose `head_bytes` each fit `budget` together:
/// the heads of one section of a longest-first order (the forward's and the backward's).
constexpr long long heads_per_section(long long heads, long long head_bytes, long long budget) {
  long long fit = head_bytes > 0 ? budget / head_bytes : heads;
  if (fit < 1) fit = 1;
  for (long long section = fit < heads ? fit : heads; section > 1; --section) {
    if (heads % section == 0) return section;
  }
  return 1;
}

constexpr long long fwd_kv_heads_per_section(long long kv_heads, long long kv_head_bytes) {
  return heads_per_section(kv_heads, kv_head_bytes, kFwdSectionL2Bytes);
}

/// Bytes of L2 the Hopper backward's sectioned order (bwd_heads_per_section) gives the Q, dO and fp32 dQ
/// accumulator rows of the heads whose key blocks run at once: the forward's budget.
inline constexpr long long kBwdSectionL2Bytes = kFwdSectionL2Bytes;

/// The order of the Hopper backward's tiles (key block, batch * kv head) as the size of its sections: the
/// order runs `s` of the call's `batch_heads` (batch, kv head) pairs at a time, and within them longest
/// first (key blocks slowest: each pair's key block 0, then each key block 1, ...). s = batch_heads is one
/// global longest-first order, s = 1 runs one pair's key blocks after another (key blocks fastest).
/// Only a bounded right window (causal) makes a key block's work fall with its index. Key blocks fastest then
/// ends the grid with the last pairs' longest blocks, a tail that bench/bwd_schedule_sim.py puts at 5-7% of
/// the grid at D 64 / 128 / 256, S <= 8k (B·S = 16k), and longest first shortens it; but a global order
/// spreads the CTAs that run at once over every head, and a head's Q and dO (and its dQ rows, added into in
/// L2) are no longer read by several CTAs while they stay in L2. Measured on the H200 (docs/PERF.md, backward
/// session 13, interleaved A/B): at GQA 32/8, D 128, causal, global longest first ran 1.146x at B 1, S 8k
/// (512 CTAs, 3.9 waves of 132), 0.984x at S 16k (7.8 waves), 0.966-1.007x at 15.5 waves, and 0.69-1.00x on
/// the causal grid of B·S = 16k (15.5-31 waves; worst at S 512, where the loads dominate). Hence one global
/// order up to 4 waves, and beyond, sections of pairs whose Q, dO and dQ rows (`pair_bytes` each) fit
/// kBwdSectionL2Bytes together, as the forward's sections keep its K and V (fwd_kv_heads_per_section): the
/// model's tail at S <= 8k falls to 0-2% (docs/PERF.md, backward session 29). Measured (session 34, H100,
/// interleaved A/B on the causal grid of B·S = 16k): sections ran 1.005-1.040x where a pair has 16 key
/// blocks or more (S >= 2k; D 256 from S 1k), and 0.949-0.990x where it has 4 or 8 (D 64 S 512 / 1k, D 256
/// S 512), where a pair's tiles are short, the tail small, and the L2 reuse of key blocks fastest (a pair's
/// CTAs running together) is worth more; so those keep key blocks fastest.
constexpr long long bwd_heads_per_section(bool right_window_bounded, long long batch_heads, long long ctas,
                                          int sms, long long pair_bytes) {
  constexpr long long kMaxWaves = 4;
  constexpr long long kMinSectionKeyBlocks = 16;
  if (!right_window_bounded) return 1;
  if (ctas <= kMaxWaves * sms) return batch_heads;
  if (ctas < kMinSectionKeyBlocks * batch_heads) return 1;
  return heads_per_section(batch_heads, pair_bytes, kBwdSectionL2Bytes);
}

/// Whether the Hopper backward's key block n walks its query blocks from n mod blocks (wrapping) rather
/// than from the first: for a tile that asks for it (BwdTileSm90::rotated_walk, where a step adds the most
/// dQ per FLOP), only with an unbounded right window and only when not deterministic.
/// With an unbounded right window every key block's walk would start at query block 0, and the CTAs running
/// at once (consecutive key blocks of a head: bwd_heads_per_section's sections are for a bounded window only)
/// would add their dQ into the same rows together; L2 serialises reduce-adds into one address. A bounded
/// window (causal) starts the walks on the diagonal, apart already. Deterministic runs keep the ascending
/// order their semaphores assume. Measured at D 256, full attention, B·S = 16k: 1.01-1.13x (docs/PERF.md,
/// backward session 23).
constexpr bool bwd_rotated_walk(bool tile_rotates, bool right_window_bounded, bool deterministic) {
  return tile_rotates && !right_window_bounded && !deterministic;
}

/// Whether the Hopper backward's deterministic dQ additions into a query block take turns in descending key
/// block, with the CTAs started in descending key block (shortest walk first), rather than ascending.
/// Under a bounded right window (causal) each key block walks up from its diagonal, so a query block is
/// reached first by the last key block that sees it and then by each lower one in turn: its walk started
/// at a later query block, or it started later. Ascending turns make key block n wait at its first query
/// block for blocks 0 .. n - 1 to climb to it, a wavefront in which a CTA idles for as long as it works.
/// Descending turns match the order of arrival, and every block waited for was started earlier (no
/// deadlock however few CTAs are resident). With an unbounded right window every walk starts at query
/// block 0 in either order, so ascending (launch order) stays.
constexpr bool bwd_deterministic_descending(bool right_window_bounded, bool deterministic) {
  return deterministic && right_window_bounded;
}

}  // namespace flashattn::core
