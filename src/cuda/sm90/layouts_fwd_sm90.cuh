// flashattn — compile-time layouts of the Hopper forward kernel: wgmma tiled MMAs, 128-byte swizzled
// shared-memory layouts that TMA writes and wgmma reads directly, the TMA copy types, and the shared
// storage of one CTA.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cutlass/arch/barrier.h>
#include <cute/tensor.hpp>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include "cuda/sm90/tile_fwd_sm90.hpp"
#include "cuda/sm90/wgmma_extra_widths.hpp"
#include "cuda/sm90/wgmma_shapes.hpp"
#include "cuda/sm90/work_fwd_sm90.cuh"
#include "cuda/sm90/work_ring_sm90.cuh"

namespace flashattn::cuda::sm90 {

/// kHeadDim: the head dim of Q and K (the K of Q·Kᵀ); kHeadDimV: that of V and O (the N of P·V), at most
/// kHeadDim (O is staged in Q's shared memory).
template <class Element, int kHeadDim, int kHeadDimV, FwdTileRegime kRegime>
struct FwdLayoutsSm90 {
  static constexpr FwdTileSm90 kTile = fwd_tile_sm90(kHeadDim, kHeadDimV, kRegime);
  static constexpr int kBlockM = kTile.block_m;
  static constexpr int kBlockN = kTile.block_n;
  static constexpr int kStagesK = kTile.stages_k;
  static constexpr int kStagesV = kTile.stages_v;
  static constexpr int kConsumerWarpGroups = kTile.consumer_warpgroups;
  static constexpr bool kIntraWarpgroupOverlap = kTile.intra_warpgroup_overlap;
  static constexpr bool kPingPong = kTile.pingpong;
  static constexpr int kQStages = kTile.q_stages;
  static constexpr bool kPackGqa = kTile.pack_gqa;
  static constexpr int kConsumerThreads = 128 * kConsumerWarpGroups;
  static constexpr int kThreads = kConsumerThreads + 128;  // + the producer warpgroup
  static_assert(kBlockM == 64 * kConsumerWarpGroups, "each consumer warpgroup owns 64 query rows");
  static_assert(kQStages >= 1 && kQStages <= 3, "Q has one buffer or a ring of two or three");
  static_assert(!kPackGqa || (kQStages == 1 && !kTile.o_in_rings),
                "GQA packing: the consumers write Q into, and stage O in, the one Q buffer");
  static_assert(kHeadDim % 32 == 0 && kHeadDimV % 32 == 0,
                "rows of a multiple of 32 elements (64 B) fill a 64- or 128-byte swizzle atom");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256, "wgmma N of Q·Kᵀ: a multiple of 16, at most 256");
  static_assert(kHeadDimV <= 256, "wgmma N of P·V is the value head dim: at most 256");
  static_assert(kHeadDimV <= kHeadDim, "a warpgroup's 64 rows of O are staged in its block of Q");
  static_assert(
      ss_op_k_major_is_one_instruction(kBlockN) && cute_wgmma_n_is_one_instruction(kHeadDimV),
      "a GEMM width issued as narrow pieces (cuda/sm90/wgmma_extra_widths.hpp, wgmma_shapes.hpp)");

  // ---- Tensor cores: consumer warpgroup w computes rows [64 w, 64 w + 64) of both products.
  using AtomLayout = cute::Layout<cute::Shape<cute::Int<kConsumerWarpGroups>, cute::_1, cute::_1>>;
  // S = Q·Kᵀ: both operands in shared memory, both K-major (head dim contiguous).
  // One warpgroup's product on its own block of Q (SmemLayoutQWarpGroup), picked by a warpgroup index the
  // compiler knows is warp-uniform: Q's descriptors are then formed in uniform registers rather than moved
  // there from per-thread ones before each wgmma.
  using TiledMmaQK = decltype(cute::make_tiled_mma(ss_op_k_major_f32<Element, kBlockN, kHeadDim>()));
  // O += P·V: P from registers (the softmax's output), V from shared memory, MN-major (V's head dim, the
  // N of this product, is contiguous).
  using TiledMmaPV = decltype(cute::make_tiled_mma(
      cute::GMMA::rs_op_selector<Element, Element, float,
                                 cute::Shape<cute::_64, cute::Int<kHeadDimV>, cute::Int<kBlockN>>,
                                 cute::GMMA::Major::K, cute::GMMA::Major::MN>(),
      AtomLayout{}));

  // ---- Shared memory: the canonical wgmma layouts with the widest swizzle the head dim fills (128-byte
  // rows of 64 elements; 64-byte rows when D is an odd multiple of 32, e.g. 96).
  template <int kColumns>
  using SmemAtomKMajor = std::conditional_t<kColumns % 64 == 0, cute::GMMA::Layout_K_SW128_Atom<Element>,
                                            cute::GMMA::Layout_K_SW64_Atom<Element>>;
  using SmemAtomQK = SmemAtomKMajor<kHeadDim>;
  // Q is blocked by consumer warpgroup: warpgroup w's 64 rows are one contiguous (64, HEAD_DIM) block
  // (64-column slabs), which only its own Q·Kᵀ reads, which its TMA load writes as one box, and into which
  // its epilogue stages its rows of O once that Q·Kᵀ is done — without waiting for the other warpgroups.
  using SmemLayoutQWarpGroup =
      decltype(cute::tile_to_shape(SmemAtomQK{}, cute::Shape<cute::_64, cute::Int<kHeadDim>>{}));
  using SmemLayoutQ = decltype(cute::tile_to_shape(
      SmemLayoutQWarpGroup{},
      cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDim>>{}));  // (BLOCK_M, HEAD_DIM)
  using SmemLayoutK = decltype(cute::tile_to_shape(
      SmemAtomQK{}, cute::Shape<cute::Int<kBlockN>, cute::Int<kHeadDim>,
                                cute::Int<kStagesK>>{}));  // (BLOCK_N, HEAD_DIM, PIPE)
  // V is stored transposed, as the (HEAD_DIM_V, BLOCK_N) B operand of P·V with the head dim contiguous;
  // its TMA reads global V through a (head dim, key) view, so no transpose ever runs.
  using SmemAtomVt = std::conditional_t<kHeadDimV % 64 == 0, cute::GMMA::Layout_MN_SW128_Atom<Element>,
                                        cute::GMMA::Layout_MN_SW64_Atom<Element>>;
  // The atoms (64 head-dim columns x 8 keys) are stacked along the keys first, so that a 64-column slab of
  // the tile is one contiguous TMA box of BLOCK_N keys: HEAD_DIM_V / 64 copies per stage. Stacked along the
  // head dim first (tile_to_shape's default order), a box could span only one atom's 8 keys: 1 KB copies,
  // HEAD_DIM_V / 64 * BLOCK_N / 8 of them per stage (64 at D = 256 with 128 keys).
  using SmemLayoutVt = decltype(cute::tile_to_shape(
      SmemAtomVt{}, cute::Shape<cute::Int<kHeadDimV>, cute::Int<kBlockN>, cute::Int<kStagesV>>{},
      cute::Step<cute::_2, cute::_1, cute::_3>{}));  // (HEAD_DIM_V, BLOCK_N, PIPE)
  // The epilogue stages each warpgroup's 64 rows of O in a 64 x HEAD_DIM_V block laid out as Q's (the same
  // layout when Dv = D): with two Q buffers at the start of its own block of the tile's Q buffer; with one
  // and without kTile.o_in_rings, there in the only Q buffer; with kTile.o_in_rings, the stage of its last K
  // tile (warpgroup 0) and of its last V tile (warpgroup 1), held back from the producer until the stores
  // have read them, so that Q can go back after the tile's last Q·Kᵀ: staged in the only Q buffer, O kept
  // the next tile's Q from loading until its store had read it, a bubble of a store and a 48-64 KB load per
  // tile (16% of the stall samples at D = 256, S 512; docs/PERF.md, session 18).
  static constexpr bool kStageOInRings = kTile.o_in_rings;
  static_assert(
      !kStageOInRings || (kQStages == 1 && kConsumerWarpGroups == 2 && kBlockN >= 64),
      "O staged in the rings: one Q buffer; a K stage and a V stage each hold one warpgroup's 64 rows");
  using SmemLayoutOWarpGroup = decltype(cute::tile_to_shape(SmemAtomKMajor<kHeadDimV>{},
                                                            cute::Shape<cute::_64, cute::Int<kHeadDimV>>{}));
  using SmemLayoutO = decltype(cute::tile_to_shape(
      SmemLayoutOWarpGroup{},
      cute::Shape<cute::Int<kBlockM>, cute::Int<kHeadDimV>>{}));  // (BLOCK_M, HEAD_DIM_V)
  static_assert(sizeof(Element) * cute::cosize_v<SmemLayoutOWarpGroup> % 1024 == 0,
                "every warpgroup's block of O starts on a swizzle repeat");

  // ---- TMA: global tensors as (rows, head dim, heads, batch); V as (head dim, rows, heads, batch); V and O
  // with head dim Dv. Varlen
  // inputs are one batch of total rows, each sequence a row offset. Rows past the extent read as zero.
  using GmemShape = cute::Shape<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;
  using GmemStride = cute::Stride<std::int64_t, cute::_1, std::int64_t, std::int64_t>;
  using GmemStrideVt = cute::Stride<cute::_1, std::int64_t, std::int64_t, std::int64_t>;
  // Q arrives a consumer warpgroup's 64 rows (one block) per copy.
  using TmaQ = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)), GmemShape{}, GmemStride{}),
      SmemLayoutQWarpGroup{}));
  using TmaK = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)), GmemShape{}, GmemStride{}),
      cute::take<0, 2>(SmemLayoutK{})));
  using TmaV = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)), GmemShape{},
                        GmemStrideVt{}),
      cute::take<0, 2>(SmemLayoutVt{})));
  // K and V multicast to both CTAs of a cluster pair (kKvMulticast): the same whole boxes as TmaK and TmaV,
  // each issued by one CTA of the pair with a CTA mask.
  using TmaKMulticast = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD_MULTICAST{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)), GmemShape{}, GmemStride{}),
      cute::take<0, 2>(SmemLayoutK{}), cute::_1{}));
  using TmaVMulticast = decltype(cute::make_tma_copy(
      cute::SM90_TMA_LOAD_MULTICAST{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<const Element*>(nullptr)), GmemShape{},
                        GmemStrideVt{}),
      cute::take<0, 2>(SmemLayoutVt{}), cute::_1{}));
  /// Cluster pairs (the *_paired regimes): the two CTAs of a cluster compute two query heads of one kv
  /// head (the same query tile of the same batch entry) or two neighbouring query tiles of one head under a
  /// full mask (FwdParamsSm90::pairs), so they walk the same key tiles in the same order, and each K / V
  /// tile is loaded once, by one of them, into both CTAs' stages (half the K / V traffic from L2: bounded at
  /// +1.4-4% at D = 128 by an experiment that skipped half the loads, docs/PERF.md, session 45).
  static constexpr bool kKvMulticast = kTile.kv_multicast;
  static constexpr int kClusterSize = kKvMulticast ? 2 : 1;
  static_assert(!kKvMulticast || (!kPackGqa && !kStageOInRings),
                "cluster pairs: neither GQA packing nor O staged in the K / V stages");
  // O leaves by TMA store, a warpgroup's 64 rows at a time; rows past the tensor's extent are not written.
  using TmaO = decltype(cute::make_tma_copy(
      cute::SM90_TMA_STORE{},
      cute::make_tensor(cute::make_gmem_ptr(static_cast<Element*>(nullptr)), GmemShape{}, GmemStride{}),
      SmemLayoutOWarpGroup{}));
  // A TMA box always delivers its full byte count (out-of-bounds rows arrive as zeros).
  static constexpr std::uint32_t kTmaBytesQ = kBlockM * kHeadDim * sizeof(Element);
  static constexpr std::uint32_t kTmaBytesK = kBlockN * kHeadDim * sizeof(Element);
  static constexpr std::uint32_t kTmaBytesV = kBlockN * kHeadDimV * sizeof(Element);

  // ---- Global stores of O: 16 bytes per thread; the threads of a row take the largest power of two of
  // its 16-byte chunks (all of them at Dv = 64, 128, 256; 4 of 12 at Dv = 96), so 128 threads tile the rows.
  static constexpr int kStoreThreadsPerRow = (kHeadDimV / 8) & -(kHeadDimV / 8);
  using GmemTiledCopyO = decltype(cute::make_tiled_copy(
      cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>, Element>{},
      cute::Layout<cute::Shape<cute::Int<128 / kStoreThreadsPerRow>, cute::Int<kStoreThreadsPerRow>>,
                   cute::Stride<cute::Int<kStoreThreadsPerRow>, cute::_1>>{},
      cute::Layout<cute::Shape<cute::_1, cute::_8>>{}));

  using PipelineK = cutlass::PipelineTmaAsync<kStagesK>;
  using PipelineV = cutlass::PipelineTmaAsync<kStagesV>;

  struct Barriers {
    typename PipelineK::SharedStorage pipeline_k;
    typename PipelineV::SharedStorage pipeline_v;
    cutlass::arch::ClusterTransactionBarrier q_full[kQStages];  ///< Q of the tile landed (TMA bytes).
    /// Every consumer thread is done with the buffer: its Q·Kᵀ reads, and the TMA store of the O staged in
    /// it has read it.
    cutlass::arch::ClusterBarrier q_free[kQStages];
  };
  // 1024-byte alignment: a 128-byte swizzle pattern repeats every 8 rows of 128 bytes, and TMA and
  // wgmma compute it from address bits.
  struct SharedStorage {
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>> q[kQStages];  // Q, then O
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutK>> k;
    alignas(1024) cute::array_aligned<Element, cute::cosize_v<SmemLayoutVt>> v;
    Barriers barriers;
    typename WorkRingSm90<FwdWorkSm90, kConsumerThreads>::SharedStorage work_ring;
  };
  static_assert(sizeof(Element) * cute::cosize_v<SmemLayoutQ> % 1024 == 0,
                "every buffer of the Q ring starts on a swizzle repeat");
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage));
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one CTA is at most 227 KB (sm90)");
};

}  // namespace flashattn::cuda::sm90
