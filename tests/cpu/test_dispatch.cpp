// Kernel selection against a described device (no GPU needed): a built kernel whose shared memory per block
// exceeds the device's opt-in limit is never selected, is_supported() and run() refuse it alike with the
// kernel and both sizes named, and a Hopper kernel that does not fit falls back visibly (or is an error
// under FLASHATTN_STRICT or the explicit Hopper path). The kernels' sizes come from the generated
// registry, so the CUDA cases run wherever the CUDA backend is compiled, GPU or not.
#include <gtest/gtest.h>

#include <string>

#include "core/dispatch.hpp"

namespace flashattn::core {
namespace {

constexpr int kHeadDim = 128;

/// The smallest validated problem select_kernel looks at: bf16, D = Dv = 128, aligned (null) pointers.
BackwardParams problem() {
  BackwardParams params;
  params.dtype = DType::bf16;
  params.batch = 1;
  params.heads = params.heads_kv = 1;
  params.head_dim = params.head_dim_v = kHeadDim;
  params.max_seqlen_q = params.max_seqlen_k = 128;
  const OperandStrides strides{128 * kHeadDim, kHeadDim, kHeadDim};
  params.q_strides = params.k_strides = params.v_strides = params.out_strides = strides;
  params.dout_strides = params.dq_strides = params.dk_strides = params.dv_strides = strides;
  return params;
}

DeviceContext device(int arch, int max_smem_per_block) {
  DeviceContext context;
  context.kind = DeviceKind::cuda;
  context.arch = arch;
  context.cuda_built = true;
  context.device_present = true;
  context.max_smem_per_block = max_smem_per_block;
  return context;
}

KernelKey key(OpKind op, int arch) { return {Backend::cuda, op, DType::bf16, arch, kHeadDim}; }

/// select_kernel() of `op` with its own params type.
Selection select(OpKind op, const DeviceContext& context) {
  const BackwardParams params = problem();
  if (op == OpKind::backward) return select_kernel(op, params, context);
  if (op == OpKind::kvcache) {
    KVCacheParams kvcache;
    static_cast<ForwardParams&>(kvcache) = params;
    return select_kernel(op, kvcache, context);
  }
  return select_kernel(op, static_cast<const ForwardParams&>(params), context);
}

TEST(Dispatch, KernelSharedMemoryComesFromTheRegistry) {
  EXPECT_EQ(kernel_smem_bytes({Backend::cpu, OpKind::forward, DType::fp32, 0, 0}), 0);
  EXPECT_EQ(kernel_smem_bytes({Backend::cuda, OpKind::forward, DType::bf16, 80, 40}), -1) << "never built";
  for (const OpKind op : {OpKind::forward, OpKind::backward, OpKind::kvcache}) {
    for (const int arch : {80, 90}) {
      const int bytes = kernel_smem_bytes(key(op, arch));
      if (bytes < 0) continue;  // not in this build's manifest
      EXPECT_GT(bytes, 0) << key(op, arch).name();
      EXPECT_LE(bytes, 227 * 1024) << key(op, arch).name() << ": more than any GPU gives one block";
    }
  }
}

TEST(Dispatch, PortableKernelThatDoesNotFitTheDeviceIsRefusedWithBothSizes) {
  for (const OpKind op : {OpKind::forward, OpKind::backward, OpKind::kvcache}) {
    const int needed = kernel_smem_bytes(key(op, 80));
    if (needed < 0) GTEST_SKIP() << key(op, 80).name() << " is not built";
    const Selection refused = select(op, device(86, needed - 1));
    EXPECT_FALSE(refused.key) << key(op, 80).name();
    EXPECT_EQ(refused.status.code(), StatusCode::unsupported);
    const std::string& message = refused.status.message();
    EXPECT_NE(message.find(key(op, 80).name()), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(needed) + " bytes of shared memory"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(needed - 1)), std::string::npos) << message;

    for (const int limit : {needed, 0}) {  // exactly enough, and a limit the device did not report
      const Selection taken = select(op, device(86, limit));
      ASSERT_TRUE(taken.key) << taken.status.message();
      EXPECT_EQ(*taken.key, key(op, 80));
      EXPECT_FALSE(taken.fell_back);
    }
  }
}

TEST(Dispatch, HopperKernelThatDoesNotFitFallsBackVisiblyOrIsAnError) {
  const int hopper = kernel_smem_bytes(key(OpKind::forward, 90));
  const int portable = kernel_smem_bytes(key(OpKind::forward, 80));
  if (hopper < 0 || portable < 0) GTEST_SKIP() << "needs both forward kernels of D = 128 in the build";
  ASSERT_LT(portable, hopper) << "the case below needs a limit between the two kernels' needs";
  const DeviceContext small = device(90, hopper - 1);

  const Selection automatic = select(OpKind::forward, small);
  ASSERT_TRUE(automatic.key) << automatic.status.message();
  EXPECT_EQ(*automatic.key, key(OpKind::forward, 80));
  EXPECT_TRUE(automatic.fell_back);
  EXPECT_NE(automatic.fallback_reason.find("shared memory"), std::string::npos) << automatic.fallback_reason;

  DeviceContext strict = small;
  strict.strict = true;
  const Selection refused = select(OpKind::forward, strict);
  EXPECT_FALSE(refused.key);
  EXPECT_NE(refused.status.message().find("FLASHATTN_STRICT"), std::string::npos) << refused.status.message();

  DeviceContext hopper_path = small;
  hopper_path.path = CudaPath::hopper;
  const Selection requested = select(OpKind::forward, hopper_path);
  EXPECT_FALSE(requested.key);
  EXPECT_NE(requested.status.message().find("shared memory"), std::string::npos)
      << requested.status.message();

  const Selection fits = select(OpKind::forward, device(90, hopper));
  ASSERT_TRUE(fits.key) << fits.status.message();
  EXPECT_EQ(*fits.key, key(OpKind::forward, 90));
  EXPECT_FALSE(fits.fell_back);
}

}  // namespace
}  // namespace flashattn::core
