// flashattn — the baseline's BLAS as a runtime thing: how many threads it uses and what it is.
#include <cblas.h>
#include <omp.h>

#include "baseline/standard_attention.hpp"

namespace flashattn::baseline {

void set_num_threads(int num_threads) {
  if (num_threads <= 0) return;
  openblas_set_num_threads(num_threads);
  omp_set_num_threads(num_threads);
}

std::string blas_description() {
  return std::string(openblas_get_config()) + " (core " + openblas_get_corename() + ", " +
         std::to_string(openblas_get_num_threads()) + " threads)";
}

}  // namespace flashattn::baseline
