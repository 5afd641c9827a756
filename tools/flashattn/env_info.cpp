// flashattn CLI — environment facts for the reports.
#include "env_info.hpp"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <ctime>
#include <fstream>
#include <thread>

#include "baseline/standard_attention.hpp"
#include "flashattn/device.hpp"
#include "flashattn/version.hpp"

namespace flashattn::cli {
namespace {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

std::string operating_system() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

}  // namespace

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
  }
  return "unknown";
}

nlohmann::json cuda_device_json(int index) {
  const auto props = cuda_device_properties(index);
  if (!props) return nullptr;
  return {{"index", index},
          {"name", props->name},
          {"sm", props->sm_major * 10 + props->sm_minor},
          {"multiprocessors", props->multiprocessors},
          {"max_shared_memory_per_block", props->max_shared_memory_per_block},
          {"l2_cache_bytes", props->l2_cache_bytes},
          {"memory_bytes", props->memory_bytes},
          {"driver_version", props->driver_version},
          {"runtime_version", props->runtime_version}};
}

nlohmann::json cuda_devices_json() {
  nlohmann::json devices = nlohmann::json::array();
  for (int index = 0; index < cuda_device_count(); ++index) {
    nlohmann::json device = cuda_device_json(index);
    if (!device.is_null()) devices.push_back(std::move(device));
  }
  return devices;
}

nlohmann::json environment_json(const std::vector<std::string>& argv) {
  const BuildInfo build = build_info();
  return {{"version", build.version},
          {"commit", build.commit},
          {"build_type", build.build_type},
          {"compiler", build.compiler},
          {"cuda_built", build.cuda},
          {"cuda_archs", build.cuda_archs},
          {"cpu_model", cpu_model()},
          {"cores", std::thread::hardware_concurrency()},
          {"omp_max_threads", omp_get_max_threads()},
          {"blas", baseline::blas_description()},
          {"os", operating_system()},
          {"host", host_name()},
          {"date", utc_now_iso8601()},
          {"cuda_devices", cuda_devices_json()},
          {"argv", argv}};
}

}  // namespace flashattn::cli
