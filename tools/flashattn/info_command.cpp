// flashattn CLI — `flashattn info`: what this build contains and what the machine offers.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/dispatch.hpp"
#include "env_info.hpp"
#include "json_report.hpp"

namespace flashattn::cli {
namespace {

// The CUDA head dims that have a built forward kernel, read from the kernel table itself so the
// answer can never disagree with dispatch.
nlohmann::json built_cuda_kernels() {
  nlohmann::json kernels = nlohmann::json::array();
  for (int arch : {80, 90}) {
    for (DType dtype : {DType::fp16, DType::bf16}) {
      std::vector<int> head_dims;
      for (int head_dim = 8; head_dim <= 256; head_dim += 8) {
        if (core::find_forward_launcher({Backend::cuda, core::OpKind::forward, dtype, arch, head_dim})) {
          head_dims.push_back(head_dim);
        }
      }
      if (!head_dims.empty()) {
        kernels.push_back({{"arch", arch}, {"dtype", to_string(dtype)}, {"head_dims", head_dims}});
      }
    }
  }
  return kernels;
}

}  // namespace

int run_info(const InfoOptions& options, const std::vector<std::string>& argv) {
  const nlohmann::json env = environment_json(argv);
  const nlohmann::json cuda_kernels = built_cuda_kernels();
  const nlohmann::json backends = {
      {"cpu", {{"built", true}, {"dtypes", {"fp32", "fp16", "bf16"}}, {"head_dims", "any"}}},
      {"cuda", {{"built", env["cuda_built"]}, {"archs", env["cuda_archs"]}, {"kernels", cuda_kernels}}}};

  fmt::print("flashattn {} (commit {}, {} build, {})\n", env["version"].get<std::string>(),
             env["commit"].get<std::string>(), env["build_type"].get<std::string>(),
             env["compiler"].get<std::string>());
  fmt::print("cpu backend:  built; fp32, fp16, bf16; any head dim\n");
  if (!env["cuda_built"].get<bool>()) {
    fmt::print("cuda backend: not built (configure with -DFLASHATTN_CUDA=ON)\n");
  } else if (cuda_kernels.empty()) {
    fmt::print("cuda backend: built for archs {}; no kernels instantiated yet\n",
               env["cuda_archs"].get<std::string>());
  } else {
    fmt::print("cuda backend: built for archs {}\n", env["cuda_archs"].get<std::string>());
    for (const auto& k : cuda_kernels) {
      fmt::print("  sm{} {}: head dims {}\n", k["arch"].get<int>(), k["dtype"].get<std::string>(),
                 k["head_dims"].dump());
    }
  }
  fmt::print("cpu:          {} ({} cores, {} OpenMP threads)\n", env["cpu_model"].get<std::string>(),
             env["cores"].get<unsigned>(), env["omp_max_threads"].get<int>());
  fmt::print("blas:         {}\n", env["blas"].get<std::string>());
  if (env["cuda_devices"].empty()) {
    fmt::print("cuda devices: none found\n");
  } else {
    for (const auto& d : env["cuda_devices"]) {
      fmt::print("cuda device {}: {} (sm{}, {} SMs, {:.1f} GiB)\n", d["index"].get<int>(),
                 d["name"].get<std::string>(), d["sm"].get<int>(), d["multiprocessors"].get<int>(),
                 static_cast<double>(d["memory_bytes"].get<std::uint64_t>()) / (1 << 30));
    }
  }
  if (!options.json_path.empty()) write_json(options.json_path, {{"env", env}, {"backends", backends}});
  return 0;
}

}  // namespace flashattn::cli
