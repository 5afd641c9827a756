// flashattn — the command-line tool: `info` (what is built and found), `check` (correctness against the
// fp64 oracle) and `bench` (verified timings with memory and % of the machine's matmul ceiling). This file
// turns the command line into the commands' options; it is the only one that compiles CLI11 (a header-only
// library that costs ~5 s of compile time in every file that includes it).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"

namespace flashattn::cli {
namespace {

/// Registers --path (auto, hopper, portable) on `command`, storing the choice in `path`.
void add_cuda_path_option(CLI::App* command, CudaPath& path) {
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

CLI::App* add_info_command(CLI::App& app, InfoOptions& options) {
  CLI::App* command =
      app.add_subcommand("info", "Version, build, backends and head dims built, devices found");
  command->add_option("--json", options.json_path, "Also write the facts as JSON to this path");
  return command;
}

CLI::App* add_check_command(CLI::App& app, CheckOptions& options) {
  CLI::App* command = app.add_subcommand("check", "Correctness sweep against the fp64 oracle");
  command->add_option("--backend", options.backend, "cpu or cuda (default: the best available)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  command->add_option("--tier", options.tier, "quick (CI), full (GPU machine) or stress")
      ->check(CLI::IsMember({"quick", "full", "stress"}));
  command->add_option("--op", options.op, "fwd, bwd or all")->check(CLI::IsMember({"fwd", "bwd", "all"}));
  command->add_option("--threads", options.threads, "CPU threads (0 = OpenMP's default)");
  add_cuda_path_option(command, options.path);
  command->add_option("--json", options.json_path,
                      "Write every case's errors and bounds as JSON to this path");
  command->add_flag("--quiet", options.quiet, "No progress; list only failing cases");
  return command;
}

CLI::App* add_bench_command(CLI::App& app, BenchOptions& options) {
  CLI::App* command =
      app.add_subcommand("bench", "Verified timings; list-valued options sweep their product");
  std::vector<std::string> backend_names{"cpu", "standard", "cuda"};
  command
      ->add_option("--backend", options.backends,
                   "Comma-separated: cpu, standard, cuda (default: the best available)")
      ->delimiter(',')
      ->check(CLI::IsMember(backend_names));
  command->add_option("--op", options.op, "fwd or bwd")->check(CLI::IsMember({"fwd", "bwd"}));
  command
      ->add_option("--dtype", options.dtype, "bf16, fp16 or fp32 (default: fp32 on the CPU, bf16 on a GPU)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}));
  const auto positive = CLI::PositiveNumber;
  command->add_option("--batch", options.batch, "Batch sizes")->delimiter(',')->check(positive);
  command->add_option("--heads", options.heads, "Query heads")->delimiter(',')->check(positive);
  command->add_option("--heads-kv", options.heads_kv, "Key/value heads (default: = heads)")
      ->delimiter(',')
      ->check(positive);
  command->add_option("--seqlen-q", options.seqlen_q, "Query lengths")->delimiter(',')->check(positive);
  command->add_option("--seqlen-k", options.seqlen_k, "Key lengths (default: = seqlen-q)")
      ->delimiter(',')
      ->check(positive);
  command->add_option("--head-dim", options.head_dim, "Head dims")->delimiter(',')->check(positive);
  command->add_flag("--causal", options.causal, "Bottom-right aligned causal mask");
  command->add_option("--window", options.window, "Sliding window L,R (-1 = unbounded side)")
      ->delimiter(',')
      ->expected(2);
  command
      ->add_option("--samples", options.samples,
                   "Timed samples per point and backend (default: 10 on the CPU, 20 for cuda)")
      ->check(positive);
  command
      ->add_option("--warmup", options.warmup,
                   "Untimed runs before the samples (default: 1 on the CPU, 10 for cuda)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--threads", options.threads, "CPU threads (0 = OpenMP's and OpenBLAS' default)")
      ->check(CLI::NonNegativeNumber);
  add_cuda_path_option(command, options.path);
  command->add_option("--sgemm-n", options.sgemm_n, "Size of the sgemm ceiling measurement")->check(positive);
  command->add_option("--json", options.json_path, "Write the report as JSON to this path");
  command->add_flag("--quiet", options.quiet, "No progress on stderr");
  return command;
}

}  // namespace
}  // namespace flashattn::cli

int main(int argc, char** argv) {
  using namespace flashattn::cli;
  CLI::App app{"flashattn: exact attention, verified and measured"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows every default
  InfoOptions info_options;
  CheckOptions check_options;
  BenchOptions bench_options;
  CLI::App* info = add_info_command(app, info_options);
  CLI::App* check = add_check_command(app, check_options);
  CLI::App* bench = add_bench_command(app, bench_options);
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> arguments(argv, argv + argc);
  try {
    if (info->parsed()) return run_info(info_options, arguments);
    if (check->parsed()) return run_check(check_options, arguments);
    if (bench->parsed()) return run_bench(bench_options, arguments);
  } catch (const std::exception& error) {
    fmt::print(stderr, "flashattn: {}\n", error.what());
    return 2;
  }
  return 2;
}
