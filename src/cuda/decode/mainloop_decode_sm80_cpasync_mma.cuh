// flashattn — the main loop of the decode kernel: one CTA's 16 packed query rows against the key tiles of
// its split, streamed through a ring of kStages shared-memory buffers with cp.async. Each 16-byte chunk is
// gathered from its own cache row (CacheRows: page table or dense entry), so any page size works, pages
// smaller than a tile included; rows at or past the sequence's length are zero-filled, never read (they
// may lie in unallocated pages).
//
// Per tile, each warp computes S = Q·K_wᵀ for its 16 keys with ldmatrix + mma.sync m16n8k16, masks when
// the tile crosses some row's key interval (or always, with score mods), folds S into its own online
// softmax (exp2) and accumulates O_w += P·V_w. The ring is filled kStages - 1 tiles ahead: one barrier per
// tile publishes the landed tile and proves the slot about to be refilled was read by every warp.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>

#include "core/kvcache_plan.hpp"
#include "cuda/common/fragment.cuh"
#include "cuda/common/mask.cuh"
#include "cuda/common/score_mods.cuh"
#include "cuda/common/softmax.cuh"
#include "cuda/decode/cache_rows.cuh"
#include "cuda/decode/decode_kernel_params.hpp"
#include "cuda/decode/layouts_decode_sm80.cuh"
#include "cuda/decode/mask_packed_rows.cuh"

namespace flashattn::cuda::decode {

/// 16-byte shared-memory stores and asynchronous 16-byte global -> shared copies (cp.async.cg: K and V are
/// read once, so they bypass L1).
template <class Element>
__device__ __forceinline__ void copy_chunk_async(Element* smem_dst, const Element* gmem_src) {
  cute::SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>::copy(*reinterpret_cast<const cute::uint128_t*>(gmem_src),
                                                         *reinterpret_cast<cute::uint128_t*>(smem_dst));
}
/// copy_chunk_async for a cache row, with an L2 policy that evicts the row's lines first when
/// `evict_first` (DecodeKernelParams::cache_evict_first: the host's core::decode_cache_evict_first), and the
/// plain copy (no policy operand, the memory descriptor's default) otherwise. The policy is a constant the
/// compiler computes once (createpolicy has no side effect). Without `kHints` (head dims above
/// core::kDecodeEvictFirstMaxHeadDim) always the plain copy. Not an explicit evict-normal policy: on an H100
/// it read the same as the plain copy (docs/PERF.md, session 62: 1.001 dense, 0.998 paged 16), and it is the
/// one change on the path of the H200 cells that read 8-15% slower in session 61 than in session 37 (caches
/// of 256 MiB and more, the same graph replayed back to back included; cuDNN within 1% of its session 37
/// numbers); session 63 kept the plain copy on that evidence, its H200 A/B still to run.
template <bool kHints, class Element>
__device__ __forceinline__ void copy_cache_chunk_async(Element* smem_dst, const Element* gmem_src,
                                                       bool evict_first) {
  if (kHints && evict_first) {
    std::uint64_t evict_first_policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0;" : "=l"(evict_first_policy));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                     cute::cast_smem_ptr_to_uint(smem_dst)),
                 "l"(gmem_src), "l"(evict_first_policy)
                 : "memory");
  } else {
    copy_chunk_async(smem_dst, gmem_src);
  }
}
template <class Element>
__device__ __forceinline__ void zero_chunk(Element* smem_dst) {
  *reinterpret_cast<uint4*>(smem_dst) = make_uint4(0u, 0u, 0u, 0u);
}

template <class Element, int kHeadDim>
struct DecodeMainloopSm80 {
  using Layouts = DecodeLayouts<Element, kHeadDim>;
  static constexpr int kBlockM = Layouts::kBlockM;
  static constexpr int kBlockN = Layouts::kBlockN;
  static constexpr int kWarpN = Layouts::kWarpN;
  static constexpr int kWarps = Layouts::kWarps;
  static constexpr int kThreads = Layouts::kThreads;
  static constexpr int kStages = Layouts::kStages;
  static constexpr int kChunksPerRow = kHeadDim / 8;  ///< 16-byte chunks of one row.
  static constexpr int kChunksPerThread = kBlockN * kChunksPerRow / kThreads;
  static_assert(kBlockN * kChunksPerRow % kThreads == 0, "a K or V tile is a whole number of copy passes");
  /// Whether a row's chunks divide the CTA, so that each thread copies one column of every kRowsPerPass-th
  /// row (load_kv_tile_strided).
  static constexpr bool kStridedRows = kThreads % kChunksPerRow == 0;
  static constexpr int kRowsPerPass = kStridedRows ? kThreads / kChunksPerRow : 0;
  /// Whether the cache copies carry an L2 policy operand (core::kDecodeEvictFirstMaxHeadDim says why not at
  /// D = 256).
  static constexpr bool kCacheHints = kHeadDim <= core::kDecodeEvictFirstMaxHeadDim;
  /// A thread holds 2 rows of the m16n8 accumulator (rows lane / 4 and lane / 4 + 8).
  using Softmax = OnlineSoftmax<2>;

  /// Where one CTA's work lies.
  struct Work {
    int batch;
    int head_kv;
    int row0;      ///< First packed row of the CTA.
    int seqlen_k;  ///< Keys of the sequence (cache plus appended).
    int n_begin;   ///< The split's key tiles [n_begin, n_end).
    int n_end;
    int key_begin;  ///< Keys [key_begin, key_end) are kept by every valid row: tiles inside need no mask.
    int key_end;
  };

  /// Issues the loads of the CTA's 16 packed query rows (rows past the last are zero-filled); they are
  /// committed with the first tile's group by run(), which must follow.
  __device__ __forceinline__ static void load_q(const DecodeKernelParams& params,
                                                typename Layouts::SharedStorage& smem, const Work& work) {
    using namespace cute;
    const ForwardParams& p = params.fwd.problem;
    const Element* q = static_cast<const Element*>(p.q);
    Tensor sQ = make_tensor(make_smem_ptr(smem.loop.q.data()), typename Layouts::SmemLayoutQ{});  // (16, D)
    for (int chunk = threadIdx.x; chunk < kBlockM * kChunksPerRow; chunk += kThreads) {
      const int r = chunk / kChunksPerRow;
      const int col = chunk % kChunksPerRow * 8;
      const int row = work.row0 + r;
      Element* dst = &sQ(r, col);
      if (row < params.rows) {
        int token, head_in_group;
        params.token_and_head(row, token, head_in_group);
        const int head = work.head_kv * params.group + head_in_group;
        copy_chunk_async(dst, q + work.batch * p.q_strides.batch + token * p.q_strides.row +
                                  head * p.q_strides.head + col);
      } else {
        zero_chunk(dst);
      }
    }
  }

  /// Issues the loads of key tile n into ring slot `slot`: warp w's 16 keys go to the slot's block w.
  __device__ __forceinline__ static void load_kv_tile(const DecodeKernelParams& params,
                                                      typename Layouts::SharedStorage& smem,
                                                      const CacheRows& cache, const Work& work, int n,
                                                      int slot) {
    if constexpr (kStridedRows) {
      load_kv_tile_strided(params, smem, cache, work, n, slot);
    } else {
      load_kv_tile_gathered(params, smem, cache, work, n, slot);
    }
  }

  /// Shared-memory destinations of the thread's chunk of tile row `row` (key within the tile), column `col`.
  __device__ __forceinline__ static void chunk_destinations(typename Layouts::SharedStorage& smem, int slot,
                                                            int row, int col, Element*& k_dst,
                                                            Element*& v_dst) {
    using namespace cute;
    const int block = (slot * kWarps + row / kWarpN) * Layouts::kWarpTileElements;
    Tensor sK = make_tensor(make_smem_ptr(smem.loop.k.data() + block), typename Layouts::SmemLayoutKVWarp{});
    Tensor sV = make_tensor(make_smem_ptr(smem.loop.v.data() + block), typename Layouts::SmemLayoutKVWarp{});
    k_dst = &sK(row % kWarpN, col);
    v_dst = &sV(row % kWarpN, col);
  }

  /// Copies the chunk at column `col` of key `key`'s K and V rows to k_dst / v_dst, or zero-fills them when
  /// the key lies past the sequence (its row may be in an unallocated page).
  __device__ __forceinline__ static void copy_or_zero_chunk(const DecodeKernelParams& params,
                                                            const CacheRows& cache, const Work& work, int key,
                                                            int col, Element* k_dst, Element* v_dst) {
    if (key < work.seqlen_k) {
      const bool evict_first = params.cache_evict_first;
      std::int64_t k_offset, v_offset;
      cache.offsets(key, k_offset, v_offset);
      copy_cache_chunk_async<kCacheHints>(
          k_dst, static_cast<const Element*>(params.fwd.problem.k) + k_offset + col, evict_first);
      copy_cache_chunk_async<kCacheHints>(
          v_dst, static_cast<const Element*>(params.fwd.problem.v) + v_offset + col, evict_first);
    } else {
      zero_chunk(k_dst);
      zero_chunk(v_dst);
    }
  }

  /// D = 64, 128, 256: a row's chunks divide the CTA, so the thread copies one column of the rows
  /// first_row + i * kRowsPerPass.
  __device__ __forceinline__ static void load_kv_tile_strided(const DecodeKernelParams& params,
                                                              typename Layouts::SharedStorage& smem,
                                                              const CacheRows& cache, const Work& work, int n,
                                                              int slot) {
    const Element* k = static_cast<const Element*>(params.fwd.problem.k);
    const Element* v = static_cast<const Element*>(params.fwd.problem.v);
    const int tid = static_cast<int>(threadIdx.x);
    __builtin_assume(tid < kThreads);  // lets the compiler fold each pass's warp block into a constant
    const int first_row = tid / kChunksPerRow;
    const int col = tid % kChunksPerRow * 8;
    const int first_key = n * kBlockN + first_row;
    const bool full = (n + 1) * kBlockN <= work.seqlen_k;  // uniform over the CTA
    const bool evict_first = params.cache_evict_first;
    if (full && cache.paged() && cache.narrow()) {
      // A whole tile of a paged cache with 32-bit strides (any realistic one): no bound checks, and each
      // row's page lookup and address in a handful of instructions.
      CUTE_UNROLL
      for (int i = 0; i < kChunksPerThread; ++i) {
        Element *k_dst, *v_dst;
        chunk_destinations(smem, slot, first_row + i * kRowsPerPass, col, k_dst, v_dst);
        std::int64_t k_offset, v_offset;
        cache.paged_offsets_narrow(first_key + i * kRowsPerPass, k_offset, v_offset);
        copy_cache_chunk_async<kCacheHints>(k_dst, k + k_offset + col, evict_first);
        copy_cache_chunk_async<kCacheHints>(v_dst, v + v_offset + col, evict_first);
      }
      return;
    }
    if (full && !cache.paged()) {
      // A whole tile of a dense cache (every tile of a split but the sequence's last): no bound checks,
      // and each row's address is the one kRowsPerPass rows before plus a fixed step.
      std::int64_t k_offset, v_offset;
      cache.offsets(first_key, k_offset, v_offset);
      const Element* k_src = k + k_offset + col;
      const Element* v_src = v + v_offset + col;
      const std::int64_t k_step = cache.k_step(kRowsPerPass);
      const std::int64_t v_step = cache.v_step(kRowsPerPass);
      CUTE_UNROLL
      for (int i = 0; i < kChunksPerThread; ++i) {
        Element *k_dst, *v_dst;
        chunk_destinations(smem, slot, first_row + i * kRowsPerPass, col, k_dst, v_dst);
        copy_cache_chunk_async<kCacheHints>(k_dst, k_src, evict_first);
        copy_cache_chunk_async<kCacheHints>(v_dst, v_src, evict_first);
        k_src += k_step;
        v_src += v_step;
      }
      return;
    }
    CUTE_UNROLL
    for (int i = 0; i < kChunksPerThread; ++i) {
      Element *k_dst, *v_dst;
      chunk_destinations(smem, slot, first_row + i * kRowsPerPass, col, k_dst, v_dst);
      copy_or_zero_chunk(params, cache, work, first_key + i * kRowsPerPass, col, k_dst, v_dst);
    }
  }

  /// D = 96, 192 (12 or 24 chunks a row, which do not divide 128 threads): each chunk finds its own row.
  __device__ __forceinline__ static void load_kv_tile_gathered(const DecodeKernelParams& params,
                                                               typename Layouts::SharedStorage& smem,
                                                               const CacheRows& cache, const Work& work,
                                                               int n, int slot) {
    auto load_chunk = [&](int i) __attribute__((always_inline)) {
      const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
      const int row = chunk / kChunksPerRow;  // key within the tile
      const int col = chunk % kChunksPerRow * 8;
      Element *k_dst, *v_dst;
      chunk_destinations(smem, slot, row, col, k_dst, v_dst);
      copy_or_zero_chunk(params, cache, work, n * kBlockN + row, col, k_dst, v_dst);
    };
    if constexpr (kChunksPerThread <= 8) {
      CUTE_UNROLL
      for (int i = 0; i < kChunksPerThread; ++i) load_chunk(i);
    } else {
      // D = 192: fully unrolled, the 64-bit row offsets of all chunks stay live at once and the kernel
      // spills; four at a time keep enough loads in flight.
#pragma unroll 4
      for (int i = 0; i < kChunksPerThread; ++i) load_chunk(i);
    }
  }

  /// Accumulates this warp's O (16, HEAD_DIM) and softmax state over its keys of the split's tiles.
  /// Returns with every cp.async complete and a CTA barrier passed: shared memory is free for reuse.
  template <class AccO>
  __device__ __forceinline__ static void run(const DecodeKernelParams& params,
                                             typename Layouts::SharedStorage& smem, const Work& work,
                                             const KeyRange& range, AccO& acc_o, Softmax& softmax) {
    using namespace cute;
    const ForwardParams& p = params.fwd.problem;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const CacheRows cache(p, params.page_divmod, work.batch, work.head_kv);

    Tensor sQ = make_tensor(make_smem_ptr(smem.loop.q.data()), typename Layouts::SmemLayoutQ{});  // (16, D)
    Tensor sK0 = make_tensor(make_smem_ptr(smem.loop.k.data() + warp * Layouts::kWarpTileElements),
                             typename Layouts::SmemLayoutKVWarp{});  // (16 keys, D) of slot 0
    Tensor sVt0 = make_tensor(make_smem_ptr(smem.loop.v.data() + warp * Layouts::kWarpTileElements),
                              typename Layouts::SmemLayoutVtWarp{});  // (D, 16 keys) of slot 0

    typename Layouts::WarpMma mma;
    auto thr_mma = mma.get_thread_slice(lane);
    Tensor tSrQ = thr_mma.partition_fragment_A(sQ);     // (MMA, MMA_M, MMA_K)
    Tensor tSrK = thr_mma.partition_fragment_B(sK0);    // (MMA, MMA_N, MMA_K)
    Tensor tOrVt = thr_mma.partition_fragment_B(sVt0);  // (MMA, MMA_N = D / 8, MMA_K = 1)
    // Shared -> register (ldmatrix; transposing for V, which is key-major in memory).
    auto smem_copy_q = make_tiled_copy_A(typename Layouts::SmemCopyAtom{}, mma);
    auto smem_copy_k = make_tiled_copy_B(typename Layouts::SmemCopyAtom{}, mma);
    auto smem_copy_v = make_tiled_copy_B(typename Layouts::SmemCopyAtomTransposed{}, mma);
    auto copy_q = smem_copy_q.get_slice(lane);
    auto copy_k = smem_copy_k.get_slice(lane);
    auto copy_v = smem_copy_v.get_slice(lane);
    Tensor tSsQ = copy_q.partition_S(sQ);
    Tensor tSrQ_view = copy_q.retile_D(tSrQ);
    Tensor tSrK_view = copy_k.retile_D(tSrK);
    Tensor tOrVt_view = copy_v.retile_D(tOrVt);

    // (row, col) within the warp's 16 x 16 score tile of each score this thread holds.
    Tensor tScS = thr_mma.partition_C(make_identity_tensor(Shape<Int<kBlockM>, Int<kWarpN>>{}));
    Tensor tScS_rc = make_tensor(tScS.data(), acc_rowcol_layout(tScS.layout()));  // (2, 4)
    Tensor acc_o_rc = acc_rowcol(acc_o);                                          // (2, HEAD_DIM / 4)
    const PackedRowMask<2> mask(
        tScS_rc, work.row0, params.rows, params.group_divmod, work.head_kv * params.group, range,
        params.fwd.has_alibi ? p.alibi_slopes + work.batch * p.alibi_batch_stride : nullptr);

    // Q's loads were issued by the kernel (load_q) before it read the sequence length: they join the first
    // group committed here.
    // Not unrolled: one copy of load_kv_tile's code for the prologue instead of kStages - 1 (each CTA runs
    // this code once, cold in the instruction cache, which ncu found a third of the stalls at B 1 L 1k).
#pragma unroll 1
    for (int s = 0; s < kStages - 1; ++s) {
      if (work.n_begin + s < work.n_end) load_kv_tile(params, smem, cache, work, work.n_begin + s, s);
      cp_async_fence();  // one group per ring slot, empty or not, so the wait count below holds
    }

    int slot = 0;
    for (int n = work.n_begin; n < work.n_end; ++n) {
      cp_async_wait<kStages - 2>();
      __syncthreads();
      if (n + kStages - 1 < work.n_end) {
        // The slot of tile n - 1: every warp is past the barrier above, so done reading it.
        load_kv_tile(params, smem, cache, work, n + kStages - 1, slot == 0 ? kStages - 1 : slot - 1);
      }
      cp_async_fence();

      const int block = (slot * kWarps + warp) * Layouts::kWarpTileElements;
      Tensor sK =
          make_tensor(make_smem_ptr(smem.loop.k.data() + block), typename Layouts::SmemLayoutKVWarp{});
      Tensor sVt =
          make_tensor(make_smem_ptr(smem.loop.v.data() + block), typename Layouts::SmemLayoutVtWarp{});
      Tensor tSsK = copy_k.partition_S(sK);
      Tensor tOsVt = copy_v.partition_S(sVt);

      Tensor acc_s = partition_fragment_C(mma, Shape<Int<kBlockM>, Int<kWarpN>>{});  // (MMA, 1, 2) fp32
      clear(acc_s);
      CUTE_UNROLL
      for (int kk = 0; kk < size<2>(tSrQ); ++kk) {
        copy(smem_copy_q, tSsQ(_, _, kk), tSrQ_view(_, _, kk));
        copy(smem_copy_k, tSsK(_, _, kk), tSrK_view(_, _, kk));
        gemm(mma, tSrQ(_, _, kk), tSrK(_, _, kk), acc_s);
      }

      Tensor scores = acc_rowcol(acc_s);  // (2, 4)
      const int key0 = n * kBlockN + warp * kWarpN;
      // Uniform over the CTA: the tile lies inside every valid row's interval and no score mod applies.
      const bool bulk =
          !params.fwd.score_mods && n * kBlockN >= work.key_begin && (n + 1) * kBlockN <= work.key_end;
      if (!bulk) {
        if (params.fwd.score_mods) {
          scores_to_log2(params.fwd, scores);
          if (params.fwd.has_alibi) {
            mask.template apply<true>(scores, tScS_rc, key0);
          } else {
            mask.template apply<false>(scores, tScS_rc, key0);
          }
        } else {
          mask.template apply<false>(scores, tScS_rc, key0);
        }
      }
      softmax.update(scores, acc_o_rc);

      Tensor rP = convert_fragment<Element>(acc_s);
      Tensor tOrP = make_tensor(rP.data(), acc_as_a_layout(rP.layout()));  // (MMA, 1, MMA_K = 1)
      CUTE_UNROLL
      for (int kk = 0; kk < size<2>(tOrP); ++kk) {
        copy(smem_copy_v, tOsVt(_, _, kk), tOrVt_view(_, _, kk));
        gemm(mma, tOrP(_, _, kk), tOrVt(_, _, kk), acc_o);
      }
      slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    cp_async_wait<0>();  // with no tile (an empty split) the Q load is still in flight
    __syncthreads();
  }
};

}  // namespace flashattn::cuda::decode
