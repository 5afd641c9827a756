// flashattn — which of a head dim's forward tiles a call takes, for the kernel families that build two.
#pragma once

namespace flashattn::cuda {

/// `long_keys` is every head dim's tile; `short_keys` exists where another tile pays off while each CTA's
/// key loop is short — or, for the sm90 forward at D = 128, wherever its long-key tile does not pay, causal
/// masks included (each family's tile header says where and when, core/heuristics.hpp why). `packed_gqa`
/// (the sm90 forward only) is a tile whose rows hold the query heads of one kv head together, for GQA calls
/// with few query rows (core::pack_gqa_sm90). `long_keys_paired` and `short_keys_paired` (the sm90 forward
/// only) are those tiles run by clusters of two CTAs that walk the same key tiles (two query heads of one
/// kv head, or two query tiles of one head under a full mask) and load each K / V tile once for both
/// (core::fwd_pairs_sm90).
enum class FwdTileRegime { long_keys, short_keys, packed_gqa, long_keys_paired, short_keys_paired };

}  // namespace flashattn::cuda
