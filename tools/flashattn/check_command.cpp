// flashattn CLI — `flashattn check`: the correctness sweep of DESIGN.md §3 against the fp64 oracle, one
// table row per case, and an exit code that fails the run on any failing case.
#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "commands.hpp"
#include "env_info.hpp"
#include "flashattn/device.hpp"
#include "flashattn/version.hpp"
#include "json_report.hpp"
#include "progress.hpp"
#include "table.hpp"
#include "testing/check.hpp"
#include "testing/sweeps.hpp"

namespace flashattn::cli {
namespace {

testing::Tier parse_tier(const std::string& name) {
  if (name == "full") return testing::Tier::full;
  if (name == "stress") return testing::Tier::stress;
  return testing::Tier::quick;
}

// How close a comparison is to its bounds (> 1: past one of them).
double bound_ratio(const testing::Comparison& c) {
  const auto ratio = [](double err, double bound) { return bound > 0 ? err / bound : err; };
  return std::max(ratio(c.max_err, c.max_bound), ratio(c.mean_err, c.mean_bound));
}

// The comparison a row reports: a failing one first, else the one closest to its bounds.
const testing::Comparison* worst(const testing::CaseResult& result) {
  const auto& all = result.comparisons;
  const auto it = std::max_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::pair(!a.passed, bound_ratio(a)) < std::pair(!b.passed, bound_ratio(b));
  });
  return it == all.end() ? nullptr : &*it;
}

nlohmann::json to_json(const testing::CaseResult& r) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& c : r.comparisons) {
    comparisons.push_back({{"tensor", c.tensor},
                           {"max_err", c.max_err},
                           {"max_bound", c.max_bound},
                           {"mean_err", c.mean_err},
                           {"mean_bound", c.mean_bound},
                           {"nmse", c.nmse},
                           {"passed", c.passed}});
  }
  return {{"case", testing::describe(r.spec)},
          {"op", testing::to_string(r.op)},
          {"kernel", r.info.kernel},
          {"passed", r.passed},
          {"status", r.status.to_string()},
          {"fallback", r.info.fell_back},
          {"seconds", r.seconds},
          {"comparisons", comparisons}};
}

}  // namespace

int run_check(const CheckOptions& options, const std::vector<std::string>& argv) {
  const bool gpu =
      options.backend.empty() ? build_info().cuda && cuda_device_count() > 0 : options.backend == "cuda";
  testing::Target target;
  target.device = gpu ? Device{DeviceKind::cuda, 0} : Device{DeviceKind::cpu, 0};
  target.num_threads = options.threads;
  target.cuda_path = options.path;
  if (gpu && cuda_device_count() == 0)
    throw std::runtime_error("check: --backend cuda but no CUDA device is visible");
  const testing::Tier tier = parse_tier(options.tier);

  std::vector<std::pair<testing::Case, testing::Op>> cases;
  for (testing::Op op : {testing::Op::forward, testing::Op::backward}) {
    if (options.op == "fwd" && op != testing::Op::forward) continue;
    if (options.op == "bwd" && op != testing::Op::backward) continue;
    const testing::Capabilities caps = testing::capabilities(target.device, target.cuda_path, op);
    if (caps.dtypes.empty()) {
      fmt::print(stderr, "check: no {} kernel is built for this device; {} is not checked\n",
                 testing::to_string(op), testing::to_string(op));
    }
    for (const testing::Case& c : testing::sweep(tier, op, caps)) cases.emplace_back(c, op);
  }
  if (cases.empty())
    throw std::runtime_error("check: nothing to check: no kernel is built for the requested op");

  Table table({"case", "op", "kernel", "tensor", "max err / bound", "mean err / bound", "pass"});
  nlohmann::json results = nlohmann::json::array();
  int passed = 0, failed = 0;
  {
    Progress progress(static_cast<int>(cases.size()), !options.quiet);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& [c, op] = cases[i];
      progress.step(static_cast<int>(i), testing::describe(c));
      const testing::CaseResult result = testing::run_case(c, op, target);
      (result.passed ? passed : failed) += 1;
      results.push_back(to_json(result));
      if (options.quiet && result.passed) continue;
      const testing::Comparison* w = worst(result);
      table.add_row({testing::describe(c), testing::to_string(op), result.info.kernel,
                     w ? w->tensor : (result.status.ok() ? "-" : result.status.to_string()),
                     w ? fmt::format("{:.2e} / {:.2e}", w->max_err, w->max_bound) : "-",
                     w ? fmt::format("{:.2e} / {:.2e}", w->mean_err, w->mean_bound) : "-",
                     result.passed ? "pass" : "FAIL"});
    }
  }
  if (!options.quiet || failed > 0) table.print(stdout);
  fmt::print("{} passed, {} failed\n", passed, failed);

  if (!options.json_path.empty()) {
    write_json(options.json_path, {{"env", environment_json(argv)},
                                   {"backend", gpu ? "cuda" : "cpu"},
                                   {"tier", testing::to_string(tier)},
                                   {"summary", {{"passed", passed}, {"failed", failed}}},
                                   {"cases", results}});
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace flashattn::cli
