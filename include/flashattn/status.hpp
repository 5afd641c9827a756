// flashattn — the result of every API call: a code and a message that names the argument and the rule.
#pragma once

#include <string>
#include <utility>

namespace flashattn {

/// What kind of failure a Status reports.
enum class StatusCode {
  ok,                ///< Success.
  invalid_argument,  ///< The input breaks a rule of the semantics (shape, stride, dtype, lengths...).
  unsupported,       ///< Valid input that no built kernel handles (head dim not built, no GPU, ...).
  internal,          ///< A bug or a failed runtime call (CUDA error, allocation failure).
};

/// Lowercase name of a code, e.g. "invalid_argument".
const char* to_string(StatusCode code);

/// Result of an API call. On error nothing was launched and no output byte was written.
class Status {
 public:
  /// A success.
  Status() = default;
  /// A result with `code` and a message (for errors: the argument's name, then the rule it breaks).
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  /// A success, spelled out.
  static Status success() { return {}; }

  /// True on success.
  bool ok() const { return code_ == StatusCode::ok; }
  /// What kind of result this is.
  StatusCode code() const { return code_; }
  /// Human-readable message; for argument errors it starts with the argument's name, e.g.
  /// "k: shape[2] (heads_kv = 3) must divide q's heads (8)". Empty on success.
  const std::string& message() const { return message_; }

  /// "ok" or "<code>: <message>".
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

}  // namespace flashattn
