// flashattn CLI — the --path option shared by check and bench: which CUDA kernel family to run.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "flashattn/attention.hpp"

namespace flashattn::cli {

/// Registers --path (auto, hopper, portable) on `command`, storing the choice in `path`.
inline void add_cuda_path_option(CLI::App* command, CudaPath& path) {
  const std::map<std::string, CudaPath> names{
      {"auto", CudaPath::automatic}, {"hopper", CudaPath::hopper}, {"portable", CudaPath::portable}};
  command
      ->add_option(
          "--path", path,
          "CUDA kernel family: auto (fastest built, fallback recorded), hopper (sm90 only) or portable "
          "(mma.sync, sm80+)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->option_text("auto|hopper|portable (default: auto)");
}

/// "auto", "hopper" or "portable".
inline const char* to_string(CudaPath path) {
  return path == CudaPath::hopper ? "hopper" : path == CudaPath::portable ? "portable" : "auto";
}

}  // namespace flashattn::cli
