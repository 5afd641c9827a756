// flashattn CLI — a plain-text table with columns sized to their widest cell.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace flashattn::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  /// Prints the header, a rule and the rows, columns separated by two spaces.
  void print(std::FILE* stream) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace flashattn::cli
