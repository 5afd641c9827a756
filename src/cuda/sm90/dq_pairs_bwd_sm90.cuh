// flashattn — the Hopper backward's key-block pairs: the CTAs of key blocks 2p and 2p + 1 of one (batch, kv
// head) run as a cluster of two (rank r: key block 2p + r) and walk the same query blocks in step
// (core::bwd_pairs_key_blocks_sm90: no mask that bounds a key's rows, not varlen, an even count of key
// blocks). Each step both have a dQ contribution to the same query rows; instead of two TMA reduce-adds into
// the fp32 accumulator, the pair sums them in shared memory and adds once, halving the dQ traffic to L2
// (an experiment that skipped every other step's reduce-add bounded the gain at +2-4% at D 128 full,
// docs/PERF.md, session 46).
//
// The consumers are unchanged: warpgroup w stages its dQ block w (its half of the head-dim columns) and
// hands it to its CTA's dQ writer (kDqFull + w), which hands the buffer back (kDqEmpty + w). The writers
// split the blocks: rank r owns block r and sends block 1 - r. Per step, each writer in both roles at once:
//   - as sender, once its warpgroup 1 - r staged that block, it copies the block into the peer's receive
//     buffer (dq_peer) with one bulk copy across the cluster, which completes on the peer's peer_dq_full;
//   - as owner, once its warpgroup r staged its block, it arms peer_dq_full for the step's bytes, waits for
//     the peer's copy, tells the sender it landed (sent_dq_landed: the sender's staged block is read, its
//     warpgroup may stage the next), adds dq_peer into its staged block (all lanes, 16-byte shared loads:
//     both CTAs use the same swizzled layout, so the sum is element by element), tells the sender its
//     dq_peer is free again (sent_dq_summed), and issues the one TMA reduce-add of the sum.
// Each sends before it waits as owner, so both copies travel at once and neither writer waits on the other's
// sum (session 47: the first form sent block 1 only after the owner of block 0 had summed and added it, and
// the pair's dQ chain of a step then ran longer than the step: 0.45-0.63x). A sender copies again only once
// the owner's sum of its previous copy has read dq_peer (sent_dq_summed, a step later, so rarely a wait).
// Nothing a writer waits for depends on a wait of its peer's that depends on it, so the pair cannot
// deadlock. Each barrier completes one phase per step; the phases run on across a CTA's tiles
// (`exchanges`), and both CTAs of a pair walk the same tiles (a static order over the pairs) with the same
// steps. Every remote access to a CTA's shared memory (the peer's copy and its two arrivals) is one that the
// CTA's writer waits for before it exits (finish), so neither CTA exits while its peer may still reach it.
#pragma once

#include <cstdint>

#include <cutlass/arch/barrier.h>
#include <cute/arch/cluster_sm90.hpp>
#include <cute/tensor.hpp>

#include "cuda/sm90/mainloop_bwd_sm90_tma_wgmma.cuh"

namespace flashattn::cuda::sm90 {

/// One CTA's shared memory in a key-block pair: the kernel's own, the receive buffer of the dQ block its
/// writer owns, and the pair's two barriers.
template <class Layouts>
struct BwdPairedStorageSm90 {
  typename Layouts::SharedStorage base;
  alignas(1024) cute::array_aligned<float, cute::cosize_v<typename Layouts::SmemLayoutdQWarpGroup>> dq_peer;
  /// The peer's dQ block of the step landed in dq_peer (armed by this CTA's writer with the block's bytes).
  cutlass::arch::ClusterTransactionBarrier peer_dq_full;
  /// The block this CTA sent landed in the peer's dq_peer (arrived by the peer's writer): its staged block
  /// was read.
  cutlass::arch::ClusterBarrier sent_dq_landed;
  /// The peer has summed the block this CTA sent it (arrived by the peer's writer): its dq_peer is free.
  cutlass::arch::ClusterBarrier sent_dq_summed;
};

/// A pair's Q / dO pipeline as its consumers use it: PipelineTmaAsync's wait, and each stage released at
/// this CTA's own empty barrier, every consumer thread arriving (the count the pipeline of one CTA inits).
/// The pipeline's own release arrives at its target CTA, cluster rank 0 for a pipeline of one CTA, which in
/// a pair is not always this CTA. (A pipeline of the pair's cluster shape instead couples both CTAs' stages
/// and keeps its per-thread targets live through the step loop, where ptxas spilled them.)
template <class Pipeline>
class BwdPairQdoPipeline {
 public:
  __device__ BwdPairQdoPipeline(Pipeline& pipeline, typename Pipeline::SharedStorage& storage)
      : pipeline_(pipeline), storage_(storage) {}
  __device__ void consumer_wait(typename Pipeline::PipelineState state) { pipeline_.consumer_wait(state); }
  __device__ void consumer_release(typename Pipeline::PipelineState state) {
    storage_.empty_barrier_[state.index()].arrive();
  }

 private:
  Pipeline& pipeline_;
  typename Pipeline::SharedStorage& storage_;
};

template <class Element, int kHeadDim>
struct BwdDqPairsSm90 {
  using Mainloop = BwdMainloopSm90<Element, kHeadDim>;
  using Layouts = typename Mainloop::Layouts;
  using Params = typename Mainloop::Params;
  using Work = typename Mainloop::Work;
  using StepCoord = typename Mainloop::StepCoord;
  using Storage = BwdPairedStorageSm90<Layouts>;
  static constexpr int kBlockFloats = cute::cosize_v<typename Layouts::SmemLayoutdQWarpGroup>;
  static constexpr std::uint32_t kBlockBytes = kBlockFloats * sizeof(float);
  static constexpr int kSmemBytes = static_cast<int>(sizeof(Storage));
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
  static_assert(
      Layouts::kConsumerWarpGroups == 2 && !Layouts::kSplitHeadDim && !Layouts::kDqOwnKeys &&
          Layouts::kDqSlices == 1 && !Layouts::kDeferDqHandOver,
      "a pair's writers own one dQ block each: one block per warpgroup and step, handed over at once");
  static_assert(kBlockFloats % (4 * 32) == 0, "the sum: whole 16-byte vectors for every lane");

  /// Thread 0, before the cluster barrier that publishes every barrier to both CTAs.
  __device__ static void init(Storage& pair) {
    pair.peer_dq_full.init(1);
    pair.sent_dq_landed.init(1);
    pair.sent_dq_summed.init(1);
    cutlass::arch::fence_barrier_init();
  }

  /// The dQ writer (every lane of warp Mainloop::kDqWriterWarp) of the pair's CTA of rank `rank` over the
  /// steps of `work`; `exchanges` counts the steps of the CTA's earlier tiles (the barriers' phases).
  __device__ static void store_dq(const Params& params, Storage& pair, const Work& work, int rank,
                                  std::uint32_t& exchanges) {
    using namespace cute;
    const BackwardParams& p = params.base.problem;
    const BwdWorkspace& ws = params.base.workspace;
    const int steps = work.steps();
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int peer = 1 - rank;
    float* const owned = pair.base.dq.data() + rank * kBlockFloats;
    const float* const sent = pair.base.dq.data() + peer * kBlockFloats;
    const int token0 = static_cast<int>(ws.token(p, work.batch, 0));  // tokens < 2^31 (see params)
    StepCoord at = work.first_step();
    for (int s = 0; s < steps; ++s, at = work.after(at), ++exchanges) {
      const std::uint32_t parity = exchanges & 1;
      // Sender: the peer's dq_peer is free once it summed this CTA's previous copy.
      dq_barrier_sync(BwdBarrier::kDqFull, peer);
      if (exchanges > 0) pair.sent_dq_summed.wait(parity ^ 1);
      if (lane == 0) copy_block_to_peer(sent, pair.dq_peer.data(), pair.peer_dq_full, peer);
      // Owner: the peer's block landed; sum, then one reduce-add.
      dq_barrier_sync(BwdBarrier::kDqFull, rank);
      if (lane == 0) pair.peer_dq_full.arrive_and_expect_tx(kBlockBytes);
      pair.peer_dq_full.wait(parity);
      if (lane == 0) pair.sent_dq_landed.arrive(static_cast<std::uint32_t>(peer));
      add_peer_block(owned, pair.dq_peer.data(), lane);
      cutlass::arch::fence_view_async_shared();  // the sums, seen by the TMA unit (async proxy)
      __syncwarp();
      if (lane == 0) {
        // As a multicast pipeline's consumers release a stage to its remote producers: the warp's reads of
        // dq_peer have returned (their sums are stored) before the arrival.
        pair.sent_dq_summed.arrive(static_cast<std::uint32_t>(peer));
        Tensor mdQ = domain_offset(make_coord(token0, _0{}),
                                   params.tma_dq.get_tma_tensor(params.shape_dq)(_, _, at.head));
        Tensor sdQ = make_tensor(make_smem_ptr(owned), typename Layouts::SmemLayoutdQWarpGroup{});
        Tensor gdQ = local_tile(mdQ, Shape<Int<Layouts::kBlockM>, Int<Layouts::kDqCols>>{},
                                make_coord(at.m_block, rank * Layouts::kDqWarpGroupBlockStride));
        auto [tdQgdQ, tdQsdQ] = tma_partition(params.tma_dq, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sdQ),
                                              group_modes<0, 2>(gdQ));
        copy(params.tma_dq, tdQsdQ, tdQgdQ);
        tma_store_arrive();
        tma_store_wait<0>();  // the block is read: the warpgroup may stage its next one
      }
      __syncwarp();
      dq_barrier_arrive(BwdBarrier::kDqEmpty, rank);
      // Sender: the staged block was read once the copy landed.
      pair.sent_dq_landed.wait(parity);
      dq_barrier_arrive(BwdBarrier::kDqEmpty, peer);
    }
  }

  /// The dQ writer after its last tile: the peer's last arrival on this CTA's sent_dq_summed (the other
  /// remote accesses precede ones this writer waited for).
  __device__ static void finish(Storage& pair, std::uint32_t exchanges) {
    if (exchanges > 0) pair.sent_dq_summed.wait((exchanges - 1) & 1);
  }

 private:
  __device__ static void dq_barrier_sync(BwdBarrier id, int w) {
    cutlass::arch::NamedBarrier::sync(Mainloop::kDqBarrierThreads, static_cast<std::uint32_t>(id) + w);
  }
  __device__ static void dq_barrier_arrive(BwdBarrier id, int w) {
    cutlass::arch::NamedBarrier::arrive(Mainloop::kDqBarrierThreads, static_cast<std::uint32_t>(id) + w);
  }

  /// block += peer, 16 bytes a lane at a time.
  __device__ static void add_peer_block(float* block, const float* peer, int lane) {
    auto* sums = reinterpret_cast<float4*>(block);
    const auto* addends = reinterpret_cast<const float4*>(peer);
#pragma unroll 2
    for (int i = lane; i < kBlockFloats / 4; i += 32) {
      float4 sum = sums[i];
      const float4 addend = addends[i];
      sum.x += addend.x;
      sum.y += addend.y;
      sum.z += addend.z;
      sum.w += addend.w;
      sums[i] = sum;
    }
  }

  /// The address of this CTA's shared-memory object `local` in the shared memory of cluster rank `cta`.
  __device__ static std::uint32_t peer_address(const void* local, int cta) {
    std::uint32_t mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(mapped)
                 : "r"(cute::cast_smem_ptr_to_uint(local)), "r"(static_cast<std::uint32_t>(cta)));
    return mapped;
  }

  /// One bulk copy of this CTA's staged block into rank `cta`'s receive buffer (the same offset there),
  /// completing on its barrier `landed` (the same offset too) with the block's bytes.
  __device__ static void copy_block_to_peer(const float* block, const float* receive,
                                            cutlass::arch::ClusterTransactionBarrier& landed, int cta) {
    asm volatile(
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            peer_address(receive, cta)),
        "r"(cute::cast_smem_ptr_to_uint(block)), "r"(kBlockBytes), "r"(peer_address(&landed, cta))
        : "memory");
  }
};

}  // namespace flashattn::cuda::sm90
