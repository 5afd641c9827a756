// flashattn CLI — JSON report output.
#include "json_report.hpp"

#include <fstream>
#include <stdexcept>

namespace flashattn::cli {

void write_json(const std::string& path, const nlohmann::json& report) {
  std::ofstream file(path);
  if (!(file << report.dump(2) << '\n' << std::flush))
    throw std::runtime_error("cannot write the JSON report to " + path);
}

}  // namespace flashattn::cli
