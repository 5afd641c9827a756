// flashattn CLI — the subcommands: their options (filled from the command line by main.cpp) and how each
// runs from them, returning the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "flashattn/attention.hpp"

namespace flashattn::cli {

struct InfoOptions {
  std::string json_path;
};

struct CheckOptions {
  std::string backend;  ///< Empty: the best available.
  std::string tier = "quick";
  std::string op = "all";
  int threads = 0;
  CudaPath path = CudaPath::automatic;
  std::string json_path;
  bool quiet = false;
};

struct BenchOptions {
  std::vector<std::string> backends;  ///< Empty: the best available.
  std::string op = "fwd";
  std::string dtype;  ///< Empty: fp32 on the CPU, bf16 on a GPU.
  std::vector<int> batch{1}, heads{8}, heads_kv, seqlen_q{1024}, seqlen_k, head_dim{128};
  bool causal = false;
  std::vector<int> window;     ///< Empty, or {left, right}.
  std::optional<int> samples;  ///< Unset: the backend's default (bench_measure.hpp).
  std::optional<int> warmup;   ///< Unset: the backend's default.
  int threads = 0;
  CudaPath path = CudaPath::automatic;
  int sgemm_n = 4096;
  std::string json_path;
  bool quiet = false;
};

/// `argv` is recorded in the JSON reports.
int run_info(const InfoOptions& options, const std::vector<std::string>& argv);
int run_check(const CheckOptions& options, const std::vector<std::string>& argv);
int run_bench(const BenchOptions& options, const std::vector<std::string>& argv);

}  // namespace flashattn::cli
