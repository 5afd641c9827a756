// flashattn — compile-time tile configuration of the Hopper (sm90) backward kernel, one per head dim.
//
// One CTA owns BLOCK_N keys of one (batch, kv head) and walks BLOCK_M query rows at a time. The transposed
// products Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ put the keys in the wgmma M mode. dK and dV (BLOCK_N x HEAD_DIM fp32
// each) stay in registers for the whole CTA, which is what bounds the tile. The two consumer warpgroups
// share that work in one of two ways:
// - by keys (D <= 128): each warpgroup owns 64 keys: their rows of Sᵀ, dPᵀ, dK and dV (2 * 64 * HEAD_DIM
//   / 128 values per thread), and half of dQ's head-dim columns;
// - by head dim (D = 256, where 64 keys over the whole head dim would take 256 registers): the CTA owns 64
//   keys; each warpgroup computes Sᵀ and dPᵀ for half of the step's query rows (its own softmax and dS),
//   and then its half of the head-dim columns of dV, dK and dQ.
//
// Limits behind every choice: 227 KB of shared memory per CTA; 64K registers per SM for 384 threads,
// rebalanced with setmaxnreg within the 168 a thread is launched with (producer 24, two consumer
// warpgroups 240 each: 24 * 128 + 240 * 256 = 64512 = 168 * 384, register_split_fits); wgmma covers 64 rows
// of one warpgroup and N <= 256 columns.
#pragma once

namespace flashattn::cuda::sm90 {

/// How one CTA tiles the backward: K and V (BLOCK_N, HEAD_DIM) are loaded once; Q and dO (BLOCK_M,
/// HEAD_DIM) stream through a ring of `stages` (dO in one stage of its own when the head dim is split);
/// dS (BLOCK_M, BLOCK_N) is double-buffered in shared memory for dQ = dS·K, which the two consumer
/// warpgroups split by head dim or by query rows.
///
/// Measured and dropped (the code is in history): dQ handed to the writer in the next step once its dV is
/// issued rather than right after its staging (1.008-1.060x on D 64's 64-row tile, session 29; 0.982-0.997x
/// at D 128; on D 64's 128-row tile the undeferred hand-over read 1.023 / 1.029x, session 62; in history up
/// to e7e01cd); with the 64-row D 64 tile (session 61; in history up to d44dd29, removed in 526dc1d): dQ over
/// each warpgroup's own keys (no barrier joining the warpgroups within a step, twice the dQ reduce-adds),
/// the next step's Sᵀ / dPᵀ issued ahead after dK (1.048x at 64 rows, session 26; C7512 at 128 rows and at
/// D 128), and K / V held in registers as the RS A operand of Sᵀ / dPᵀ (416 / 540 bytes of spill at 128
/// rows).
struct BwdTileSm90 {
  int block_m;          ///< Query rows per main-loop step (the N of Sᵀ and dPᵀ, the K of dV and dK).
  int block_n;          ///< Keys per CTA: 64 per consumer warpgroup, or 64 when they split the head dim.
  int stages;           ///< Depth of the Q (/ dO) ring.
  bool split_head_dim;  ///< The consumer warpgroups split the head dim rather than the keys (see above).
  /// With an unbounded right window and not deterministic (core::bwd_rotated_walk), key block n walks the
  /// query blocks from n mod blocks (wrapping) rather than from 0, so that the CTAs running at once
  /// (consecutive key blocks of a head) add their dQ into different rows: L2 serialises reduce-adds into the
  /// same address. It pays where a step adds the most dQ per FLOP (D 256: 64 keys a CTA, twice the CTAs per
  /// head of D 128), and costs the L2 reuse of Q and dO by CTAs walking together elsewhere. Measured full
  /// attention, B·S = 16k (docs/PERF.md, backward session 23): D 256 1.01-1.13x, D 128 0.99-1.00x, D 64
  /// 0.99-1.01x.
  bool rotated_walk;
  /// One CTA per SM taking tiles in order from the workspace counter (the next once the current tile's
  /// loads are issued, so its first stages load under the previous tile's last steps), rather than one CTA
  /// per tile. Measured 0.990-1.057x at D 64 / 128 (docs/PERF.md, backward session 29). At D 256 the
  /// persistent kernel ran 0.978x its parent (session 36, bisected on an H100); one CTA per tile with a
  /// one-tile kernel body (no tile ring or cross-tile state) and K / V loaded first measured 1.008x it
  /// (0.997-1.023, S 512-1k full +2%), so D 256 takes that; without the kv_full wait for a tile without
  /// steps, which a one-tile CTA does not need and whose path alone made ptxas spill its consumers,
  /// 1.013x more (session 37).
  bool persistent_ctas;
  /// Keys split only: dQ is computed transposed, dQᵀ = Kᵀ·dSᵀ (the head dim in the wgmma M mode, split
  /// between the warpgroups; the query rows in its N mode), with dS stored keys-contiguous for it (a
  /// transposed stmatrix) and the accumulator staged with 4-byte stores, its adjacent values being adjacent
  /// query rows (dq_staging_sm90.cuh). The query rows are then an N of any multiple of 16, so BLOCK_M need
  /// not be a multiple of 64 (FlashAttention-3's 80-row D 128 tile; measured at D 128 in session 60: 0.96x).
  bool dq_transposed = false;
  /// Keys split only: a step computes dS (once dPᵀ landed) before it issues dV += Pᵀ·dO, FlashAttention-3's
  /// order, rather than issuing dV as soon as P is in registers so that it runs under the dS arithmetic;
  /// and Sᵀ / dPᵀ are cleared before their zero-initialising wgmmas (see issue_scores in the mainloop), so
  /// that their registers are free from dS to the next step's products. The fp32 P and dPᵀ die as their
  /// bf16 copies are made, where the early dV holds P's bf16 copy in flight beside both. With products
  /// issued ahead at D 128, ptxas serialised the wgmmas for want of registers (issued after dK), or the step
  /// ran 0.938x (issued after the dQ staging; docs/PERF.md, session 60).
  bool dv_after_ds = false;
  /// Keys split only: the consumer warpgroups split dQ = dS·K by query rows rather than by head-dim
  /// halves: warpgroup w computes rows [64 w, 64 w + 64) of BLOCK_M = 128 over every head-dim column and
  /// all BLOCK_N keys (an m64nD wgmma, 32 fp32 a thread at D 64), and stages its own 64-row block, which the
  /// writer reduce-adds at those rows. With BLOCK_M 128, halving dQ by head dim would take two m64 tiles a
  /// warpgroup (D 64: 32 columns each). FlashAttention-3's D 64 split.
  bool dq_by_rows = false;
};

/// The tile of head dim `head_dim` (0 fields for a head dim with no sm90 backward kernel).
constexpr BwdTileSm90 bwd_tile_sm90(int head_dim) {
  switch (head_dim) {
    // 128x128 (FlashAttention-3's D 64 tile): dK + dV take 64 fp32 per thread, Sᵀ and dPᵀ (64 keys x 128
    // rows) 64 each, the warpgroup's 64x64 dQ rows 32. 192 KB smem (Q, dO 2 x 16 KB each, K, V 16 KB each,
    // dS 2 x 32 KB, dQ 32 KB fp32). Half the steps of 64 rows, so half the per-step barriers, statistics
    // and dQ hand-overs: 1.021-1.048x over the 64x128 tile with four stages, products ahead 2 and K / V in
    // registers (docs/PERF.md, session 61). It compiles without serialised wgmmas only with dv_after_ds
    // (Sᵀ / dPᵀ cleared before their wgmmas; without it C7512, sessions 20 and 24); products ahead do not
    // fit (C7512 at 1 and 2), K in registers spills 416 / 540 bytes. Three stages (224 KB): 0.996-1.051x
    // over the 64x128 tile, geomean 1.025 against two stages' 1.035. dQ handed over right after its staging,
    // as at every head dim: 1.023 and 1.029x (1.010-1.050, every cell) over the deferred hand-over that paid
    // on the 64-row tile (session 62, two A/Bs).
    case 64: {
      BwdTileSm90 tile{128, 128, 2, false, false, true};
      tile.dv_after_ds = true;
      tile.dq_by_rows = true;
      return tile;
    }
    // 64x128 (FlashAttention-3's choice under a causal mask): dK + dV take 128 fp32 per thread, Sᵀ and dPᵀ
    // 32 each, the warpgroup's 64x64 dQᵀ half 32. 192 KB smem (Q, dO 2 x 16 KB each, K, V 32 KB each, dS
    // 2 x 16 KB, dQ 32 KB fp32). dQ transposed with dS computed before dV: 1.015-1.030x over dQ = dS·K with
    // the early dV (docs/PERF.md, session 60, two A/Bs). Apart (session 61), dS before dV with the clears
    // carries it (1.006 / 1.002 full / GQA-long over this form, i.e. even), the transposed dQ alone read
    // 0.983 / 0.968; the transposed form is kept as the one measured twice. FA3's 80 rows for
    // full masks, in the same form: 0.908-1.000 (S 512 pays 9% of padded rows, and the step took 1.25x as
    // long at S 16k), with 100 / 136 bytes more spill. BLOCK_M = 128 would double Sᵀ and dPᵀ and no longer
    // fit 240 registers. A third stage (224 KB) ran 0.971-0.986x (backward session 24).
    case 128: {
      BwdTileSm90 tile{64, 128, 2, false, false, true};
      tile.dq_transposed = true;
      tile.dv_after_ds = true;
      return tile;
    }
    // 64x64, head dim split (FlashAttention-3 takes 64x80): dK + dV halves take 128 fp32 per thread, Sᵀ and
    // dPᵀ of the warpgroup's 32 rows 16 each, one 64-column dQ slice 32. 225 KB smem (Q 2 x 32 KB, dO one
    // 32 KB stage, K, V 32 KB each, Pᵀ and dSᵀ 2 x 8 KB each, dQ 2 x 16 KB fp32, one slice per warpgroup).
    // 32 rows a step (the first version) ran each warpgroup's softmax phase alone and paid the step's
    // barriers and dQ hand-over per 32 rows: 1.10-1.21x slower (docs/PERF.md, backward session 22).
    case 256:
      return {64, 64, 2, true, true, false};
    default:
      return {0, 0, 0, false, false, false};
  }
}

}  // namespace flashattn::cuda::sm90
