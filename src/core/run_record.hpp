// flashattn — internal side of RunInfo: counting fallbacks.
#pragma once

namespace flashattn {

/// Counts one fallback in the process-wide counter read by fallback_count().
void record_fallback();

}  // namespace flashattn
