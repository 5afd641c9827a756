// The quick sweep of DESIGN.md §3 on the CPU backend, forward and backward: one test per case, named by
// its description, judged against the fp64 oracle with the calibrated rule.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <set>
#include <string>

#include "testing/check.hpp"
#include "testing/sweeps.hpp"

namespace flashattn::testing {
namespace {

struct SweepCase {
  Op op;
  Case spec;
  int index;  // position in its sweep: keeps names unique
};

std::vector<SweepCase> quick_cases(Op op) {
  std::vector<SweepCase> cases;
  int index = 0;
  for (const Case& c : sweep(Tier::quick, op, cpu_capabilities())) cases.push_back({op, c, index++});
  return cases;
}

// "bf16 B2 H8/2 Sq113 Sk203 D64 causal" -> "i007_bf16_B2_H8_2_Sq113_Sk203_D64_causal"
std::string test_name(const ::testing::TestParamInfo<SweepCase>& info) {
  std::string name = "i" +
                     std::string(info.param.index < 10    ? "00"
                                 : info.param.index < 100 ? "0"
                                                          : "") +
                     std::to_string(info.param.index) + "_";
  for (char ch : describe(info.param.spec)) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch));
    if (keep) {
      name += ch;
    } else if (name.back() != '_') {
      name += '_';
    }
  }
  while (name.back() == '_') name.pop_back();
  return name;
}

class QuickSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(QuickSweep, MatchesOracle) {
  const SweepCase& param = GetParam();
  const CaseResult result = run_case(param.spec, param.op, Target{});
  ASSERT_TRUE(result.status.ok()) << summary(result);
  EXPECT_TRUE(result.passed) << summary(result);
}

INSTANTIATE_TEST_SUITE_P(Forward, QuickSweep, ::testing::ValuesIn(quick_cases(Op::forward)), test_name);
INSTANTIATE_TEST_SUITE_P(Backward, QuickSweep, ::testing::ValuesIn(quick_cases(Op::backward)), test_name);

TEST(QuickSweepShape, SeedsAreDistinctAcrossOpsAndCasesCoverEveryDtypeAndHeadDim) {
  std::set<std::uint64_t> seeds;
  std::size_t count = 0;
  const Capabilities caps = cpu_capabilities();
  for (Op op : {Op::forward, Op::backward}) {
    std::set<DType> dtypes;
    std::set<int> head_dims;
    for (const Case& c : sweep(Tier::quick, op, caps)) {
      seeds.insert(c.seed);
      dtypes.insert(c.dtype);
      head_dims.insert(c.head_dim);
      ++count;
    }
    EXPECT_EQ(dtypes.size(), caps.dtypes.size());
    for (int dim : caps.head_dims) EXPECT_TRUE(head_dims.count(dim)) << "head dim " << dim;
  }
  EXPECT_EQ(seeds.size(), count);
}

TEST(QuickSweepShape, TiersGrow) {
  const Capabilities caps = cpu_capabilities();
  EXPECT_LT(sweep(Tier::quick, Op::forward, caps).size(), sweep(Tier::full, Op::forward, caps).size());
  EXPECT_LT(sweep(Tier::full, Op::forward, caps).size(), sweep(Tier::stress, Op::forward, caps).size());
}

TEST(CaseDescription, NamesWhatDistinguishesACase) {
  Case c;
  c.dtype = DType::bf16;
  c.batch = 2;
  c.heads = 8;
  c.heads_kv = 2;
  c.seqlen_q = 113;
  c.seqlen_k = 203;
  c.causal = true;
  c.strided = true;
  EXPECT_EQ(describe(c), "bf16 B2 H8/2 Sq113 Sk203 D64 causal strided");
  c.seqlens_q = {0, 3};
  c.seqlens_k = {1, 4};
  c.seqused_k = {1, 2};
  c.causal = false;
  c.window_left = 4;
  c.head_dim_v = 32;
  EXPECT_EQ(describe(c), "bf16 varlen q[0,3] k[1,4] used[1,2] H8/2 D64 Dv32 window(4,-1) strided");
}

// forward_flops counts exactly the kept (i, j) pairs, 2 (D + Dv) flops each.
TEST(CaseFlops, CountsKeptPairsExactly) {
  Case c;
  c.batch = 2;
  c.heads = 3;
  c.heads_kv = 1;
  c.head_dim = 8;
  c.seqlen_q = 5;
  c.seqlen_k = 7;
  EXPECT_EQ(forward_flops(c), 4.0 * 2 * 3 * 5 * 7 * 8);
  const double per_pair = 2.0 * 3 * (8 + 8) * 2;  // heads, D + Dv, batch
  c.seqlen_q = c.seqlen_k = 4;
  c.causal = true;
  EXPECT_EQ(forward_flops(c), 10 * per_pair);  // 1 + 2 + 3 + 4
  c.seqlen_q = 6;
  c.seqlen_k = 2;
  EXPECT_EQ(forward_flops(c), 3 * per_pair);  // rows 4 and 5 keep 1 and 2 keys, rows 0-3 none
  c.causal = false;
  c.seqlen_q = c.seqlen_k = 4;
  c.window_left = c.window_right = 1;
  EXPECT_EQ(forward_flops(c), 10 * per_pair);  // 2 + 3 + 3 + 2
  Case varlen;
  varlen.head_dim = 4;
  varlen.head_dim_v = 2;
  varlen.seqlens_q = {2, 0, 3};
  varlen.seqlens_k = {3, 5, 4};
  varlen.seqused_k = {1, 5, 4};
  EXPECT_EQ(forward_flops(varlen), 2.0 * (4 + 2) * (2 * 1 + 0 + 3 * 4));
}

}  // namespace
}  // namespace flashattn::testing
