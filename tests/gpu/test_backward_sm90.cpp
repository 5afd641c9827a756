// The Hopper CUDA backward kernel (sm90 path) against the fp64 oracle: the backward sweep of DESIGN.md §3
// forced onto CudaPath::hopper for every built sm90 dtype and head dim, the regression cases known to
// break attention backwards (short query blocks with large logits, varlen causal rows that see no key,
// unused keys past seqused_k, non-contiguous dO, lengths that are not tile multiples), GQA group sums,
// deterministic reruns, and what RunInfo reports. Every test skips without an sm90 device or without a
// built sm90 backward kernel (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/sm90/tile_bwd_sm90.hpp"
#include "flashattn/flashattn.hpp"
#include "forward_suite.hpp"

namespace flashattn::testing {
namespace {

constexpr Device kDevice{DeviceKind::cuda, 0};
constexpr Target kHopper{kDevice, CudaPath::hopper, 0};

/// Seeds of the cases below, apart from the sweeps' (which start at 1'000'000) and the portable suite's.
std::uint64_t next_seed() {
  static std::uint64_t seed = 91'000;
  return ++seed;
}

/// Every case passes the calibrated rule against the oracle on this suite's path.
void expect_all_pass(const std::vector<Case>& cases) {
  flashattn::testing::expect_all_pass(cases, Op::backward, kHopper);
}

/// A dense GQA case of the first built dtype, with this suite's next seed.
Case dense(const Capabilities& caps, int head_dim, int seqlen_q, int seqlen_k) {
  return dense_gqa_case(caps, head_dim, seqlen_q, seqlen_k, next_seed());
}

TEST(CudaBackwardSm90, SweepMatchesOracle) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  expect_sweep_matches_oracle(caps, kHopper, Op::backward);
}

// Few query rows against many keys with inputs x5: large logits, a P concentrated on few keys, and query
// blocks that are mostly past the sequence end.
TEST(CudaBackwardSm90, ShortQueriesWithLargeLogits) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    for (int seqlen_q : {1, 2, 5, 17, 128}) {
      Case c = dense(caps, head_dim, seqlen_q, 300);
      c.input_scale = 5.0f;
      c.causal = seqlen_q % 2 == 1;
      cases.push_back(c);
    }
  }
  expect_all_pass(cases);
}

// Causal with more queries than keys per sequence: the first rows keep no key (lse = -inf) and must get
// zero gradients, never NaN; empty sequences on either side. The tails of the last query and key blocks
// of each sequence hold the next sequence's rows in shared memory unless the kernel zeroes them.
TEST(CudaBackwardSm90, VarlenCausalRowsWithoutKeys) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  std::vector<Case> cases;
  for (DType dtype : caps.dtypes) {
    for (int head_dim : caps.head_dims) {
      Case c;
      c.dtype = dtype;
      c.head_dim = head_dim;
      c.heads = 4;
      c.heads_kv = 1;
      c.seqlens_q = {70, 0, 129, 3, 200};
      c.seqlens_k = {10, 5, 64, 0, 130};
      c.causal = true;
      c.seed = next_seed();
      cases.push_back(c);
    }
  }
  expect_all_pass(cases);
}

// Keys past seqused_k are read by no query and get zero gradients; their rows in k and v are poisoned.
TEST(CudaBackwardSm90, VarlenUnusedKeys) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    Case c;
    c.dtype = caps.dtypes.front();
    c.head_dim = head_dim;
    c.heads = 4;
    c.heads_kv = 2;
    c.seqlens_q = {100, 65, 1};
    c.seqlens_k = {300, 129, 64};
    c.seqused_k = {200, 127, 0};
    c.window_left = 40;
    c.seed = next_seed();
    cases.push_back(c);
  }
  expect_all_pass(cases);
}

// Padded, permuted views for every tensor, dO included (its batch and sequence dimensions swapped in
// memory), with NaN in the padding; with softcap and ALiBi, which take the transformed-score steps.
TEST(CudaBackwardSm90, NonContiguousTensorsAndScoreMods) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    Case c = dense(caps, head_dim, 150, 211);
    c.strided = true;
    c.causal = true;
    cases.push_back(c);
    Case mods = dense(caps, head_dim, 190, 190);
    mods.softcap = 20.0f;
    mods.alibi = true;
    mods.window_left = 70;
    mods.window_right = 30;
    cases.push_back(mods);
  }
  expect_all_pass(cases);
}

// Lengths that are not tile multiples (the partial last query and key blocks), with and without causal,
// and MQA (8 query heads summed into one kv head's dK and dV).
TEST(CudaBackwardSm90, LengthsOffTileMultiples) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  std::vector<Case> cases;
  for (int head_dim : caps.head_dims) {
    for (int length : {238, 1023}) {
      for (bool causal : {false, true}) {
        Case c = dense(caps, head_dim, length, length);
        c.batch = 1;
        c.heads = 8;
        c.heads_kv = causal ? 1 : 2;
        c.causal = causal;
        cases.push_back(c);
      }
    }
  }
  expect_all_pass(cases);
}

TEST(CudaBackwardSm90, RunInfoNamesTheHopperKernel) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  for (int head_dim : caps.head_dims) {
    const Case c = dense(caps, head_dim, 200, 300);
    // The head dim's tile (bwd_tile_sm90): block_m query rows a step, block_n keys a CTA.
    const cuda::sm90::BwdTileSm90 tile = cuda::sm90::bwd_tile_sm90(head_dim);
    // The automatic path takes the sm90 kernel whenever one is built for the key: no fallback.
    for (CudaPath path : {CudaPath::automatic, CudaPath::hopper}) {
      const CaseResult result = run_case(c, Op::backward, Target{kDevice, path, 0});
      ASSERT_TRUE(result.status.ok()) << summary(result);
      EXPECT_EQ(result.info.backend, Backend::cuda);
      EXPECT_EQ(result.info.kernel,
                std::string("bwd_sm90_") + to_string(c.dtype) + "_hd" + std::to_string(c.head_dim));
      EXPECT_TRUE(result.info.launched);
      EXPECT_EQ(result.info.block_m, tile.block_m) << "D " << head_dim;
      EXPECT_EQ(result.info.block_n, tile.block_n) << "D " << head_dim;
      EXPECT_FALSE(result.info.fell_back) << result.info.fallback_reason;
    }
  }
}

// deterministic = true: dQ, dK and dV within the oracle's bound and bitwise identical over 50 reruns, for a
// dense causal GQA case with many key blocks per query block (its dQ turns descend, see
// core::bwd_deterministic_descending), a varlen causal case with a left window, empty sequences and rows
// that see no key (descending, sequences of unequal blocks), and a varlen case with a left window, softcap,
// ALiBi and no right bound (ascending).
TEST(CudaBackwardSm90, DeterministicRunsMatchOracleAndAreBitwiseIdentical) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  Target deterministic = kHopper;
  deterministic.deterministic = true;
  for (int head_dim : caps.head_dims) {
    Case gqa = dense(caps, head_dim, 1023, 1024);
    gqa.causal = true;
    Case varlen_causal = gqa;
    varlen_causal.seqlens_q = {0, 1, 300, 700, 129};
    varlen_causal.seqlens_k = {5, 0, 511, 640, 64};
    varlen_causal.window_left = 300;  // a query block's first contributor is not key block 0
    Case varlen = varlen_causal;
    varlen.seqlens_q = {0, 1, 300, 129};
    varlen.seqlens_k = {5, 0, 511, 64};
    varlen.causal = false;
    varlen.window_left = 100;
    varlen.softcap = 30.0f;
    varlen.alibi = true;
    flashattn::testing::expect_all_pass({gqa, varlen_causal, varlen}, Op::backward, deterministic);
    for (const Case& c : {gqa, varlen_causal, varlen}) {
      EXPECT_TRUE(reruns_bitwise_equal(c, Op::backward, kHopper, 50)) << describe(c);
    }
  }
}

TEST(CudaBackwardSm90, ABatchOf60IsStableAcrossReruns) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  expect_backward_batch_of_60_stable(caps, kHopper, next_seed);
}

TEST(CudaBackwardSm90, CallerWorkspace) {
  HOPPER_CAPABILITIES_OR_SKIP(caps, Op::backward);
  expect_backward_caller_workspace(caps, kHopper);
}

}  // namespace
}  // namespace flashattn::testing
