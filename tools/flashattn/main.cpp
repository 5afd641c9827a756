// flashattn — the command-line tool: `info` (what is built and found), `check` (correctness against the
// fp64 oracle) and `bench` (verified timings with memory and % of the machine's matmul ceiling).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"

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
