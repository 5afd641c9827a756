#include <omp.h>
#include <chrono>
#include <cstdio>
#include "reference/reference.hpp"
#include "testing/case.hpp"
#include "testing/case_tensors.hpp"
using namespace flashattn;
using namespace flashattn::testing;
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char** argv) {
  int D = atoi(argv[1]);
  double t0 = now();
  Case c = make_dense_case(DType::bf16, D, 1, 67, 67, 200, 4200, 5001 + D);
  CaseTensors t = make_case_tensors(c, Op::forward);
  double t1 = now();
  auto r = reference::forward(t.problem);
  double t2 = now();
  auto b = reference::base_forward(t.problem, precision_of(c.dtype));
  double t3 = now();
  printf("D %d threads %d tensors %.2f oracle %.2f base %.2f\n", D, omp_get_max_threads(), t1 - t0, t2 - t1,
         t3 - t2);
}
