// flashattn — facts about the library as built.
#include "core/build_facts.hpp"
#include "flashattn/version.hpp"

namespace flashattn {

BuildInfo build_info() {
  BuildInfo info{};
  info.version = kVersion;
  info.commit = FLASHATTN_BUILD_COMMIT;
  info.build_type = FLASHATTN_BUILD_TYPE;
  info.compiler = FLASHATTN_BUILD_COMPILER;
  info.cuda_archs = FLASHATTN_BUILD_CUDA_ARCHS;
#if defined(FLASHATTN_WITH_CUDA)
  info.cuda = true;
#else
  info.cuda = false;
#endif
  return info;
}

}  // namespace flashattn
