// flashattn CLI — plain-text table.
#include "table.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace flashattn::cli {

void Table::print(std::FILE* stream) const {
  std::vector<std::size_t> width(header_.size(), 0);
  const auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  const auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < row.size() ? row[c] : std::string();
      line += fmt::format("{:<{}}", cell, c + 1 < width.size() ? width[c] + 2 : 0);
    }
    fmt::print(stream, "{}\n", line);
  };
  print_row(header_);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  fmt::print(stream, "{}\n", std::string(total > 2 ? total - 2 : 0, '-'));
  for (const auto& row : rows_) print_row(row);
}

}  // namespace flashattn::cli
