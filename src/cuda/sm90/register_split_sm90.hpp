// flashattn — the register budget of a warp-specialised Hopper kernel. setmaxnreg moves registers between
// the warpgroups of a CTA within the registers the CTA was launched with, never beyond them: a
// setmaxnreg.inc that asks for more than the others released waits for ever (session 28: a producer raised
// from 24 to 32 registers, with two consumer warpgroups at 240, hung the backward's first launch).
#pragma once

namespace flashattn::cuda::sm90 {

/// Registers per thread of a CTA of `threads` threads launched one per SM (__launch_bounds__(threads, 1)):
/// the SM's 65536 shared out, in the allocation's granularity of 8 per thread.
constexpr int launch_registers_per_thread(int threads) { return 65536 / threads / 8 * 8; }

/// Whether one producer warpgroup at `producer` registers per thread and `consumer_threads` consumer
/// threads at `consumer` fit in the registers of the CTA they form at launch.
constexpr bool register_split_fits(int producer, int consumer, int consumer_threads) {
  const int threads = 128 + consumer_threads;
  return producer * 128 + consumer * consumer_threads <= launch_registers_per_thread(threads) * threads;
}

static_assert(launch_registers_per_thread(384) == 168 && !register_split_fits(32, 240, 256) &&
                  register_split_fits(24, 240, 256) && register_split_fits(24, 160, 384),
              "two consumer warpgroups at 240 leave the producer 24 registers; three at 160 the same");

}  // namespace flashattn::cuda::sm90
