// flashattn CLI — writing the JSON reports of `info`, `check` and `bench`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flashattn::cli {

/// Writes `report` to `path` (pretty-printed, trailing newline). Throws std::runtime_error naming the
/// path when it cannot be written.
void write_json(const std::string& path, const nlohmann::json& report);

}  // namespace flashattn::cli
