# Decides whether the CUDA backend is built (FLASHATTN_CUDA = AUTO | ON | OFF) and provides
# flashattn_add_cuda_sources(target) to attach src/cuda/ to the library.
include(CheckLanguage)

set(FLASHATTN_WITH_CUDA OFF)
set(FLASHATTN_CUDA_ARCHS_BUILT "")
if(FLASHATTN_CUDA STREQUAL "OFF")
  message(STATUS "flashattn: CUDA backend disabled (FLASHATTN_CUDA=OFF)")
else()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(FLASHATTN_WITH_CUDA ON)
  elseif(FLASHATTN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "flashattn: FLASHATTN_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  else()
    message(STATUS "flashattn: no CUDA compiler found; building the CPU backend only")
  endif()
endif()

if(FLASHATTN_WITH_CUDA)
  set(CMAKE_CUDA_ARCHITECTURES "${FLASHATTN_CUDA_ARCHS}")
  # C++17 for device code: CuTe needs it, and CMake 3.25 (Debian 12) cannot request C++20 from nvcc.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(FLASHATTN_CUDA_ARCHS_BUILT "${FLASHATTN_CUDA_ARCHS}")
  message(STATUS "flashattn: CUDA backend enabled for architectures ${FLASHATTN_CUDA_ARCHS}")
endif()

include(FlashattnCutlass)

# Kernel manifest filters (src/cuda/generate_instantiations.py holds the manifest). AUTO = everything when
# this machine has a GPU, else head dims 128 and 256 in one dtype: every kernel template still compiles
# (DESIGN.md §4), including the variants only D = 256 takes (the sm90 backward with the head dim split
# between its warpgroups, the one-CTA-per-SM decode tile).
set(FLASHATTN_HEAD_DIMS "AUTO" CACHE STRING "CUDA kernel head dims to build, e.g. 64;128 (AUTO: all with a GPU, else 128;256)")
set(FLASHATTN_DTYPES "AUTO" CACHE STRING "CUDA kernel dtypes to build, e.g. fp16;bf16 (AUTO: all with a GPU, else bf16)")
# Families (op × arch) to build, e.g. fwd_sm90;bwd_sm90: for builds that need only some, such as an A/B of
# one kernel's change (scripts/ab's AB_FAMILIES) or a training-only install without the KV-cache kernels.
set(FLASHATTN_KERNEL_FAMILIES "ALL" CACHE STRING
    "CUDA kernel families to build: ALL, or some of fwd_sm80;fwd_sm90;bwd_sm80;bwd_sm90;kvcache_sm80")
option(FLASHATTN_PTXAS_VERBOSE "Print registers, spills and shared memory of every CUDA kernel (-Xptxas -v)" OFF)
# The kernel TUs' compiler launcher: times each TU and keeps its ptxas report next to its object
# (cmake/check_spills.py reads those), echoing the report with FLASHATTN_PTXAS_VERBOSE.
set(echo_ptxas OFF)
if(FLASHATTN_PTXAS_VERBOSE)
  set(echo_ptxas ON)
endif()
set(FLASHATTN_KERNEL_LAUNCHER ${PROJECT_SOURCE_DIR}/cmake/time_compile.sh --ptxas-echo=${echo_ptxas})
# Measurement builds only (src/cuda/sm90/tile_fwd_sm90.hpp): turn one design choice of the sm90 kernels off.
set(FLASHATTN_SM90_ABLATION "none" CACHE STRING
    "Ablation build of the sm90 kernels (the variants: FwdAblationSm90), none for the real kernels")
set_property(CACHE FLASHATTN_SM90_ABLATION PROPERTY STRINGS none no_pingpong no_overlap no_overlap_no_pingpong stages_3 v_stages_2
                                                     two_consumer_warpgroups q_stages_1 block_n_176 block_n_128
                                                     k_stages_1_v_stages_3)

# Compiles `sources` in an object library `<target>_<name>_kernels` that has the target's include
# directories, definitions and options but its own architectures (`cuda_archs`, OFF when `arch_flags`
# names them), and links the objects into the target.
function(flashattn_add_kernel_objects target name sources cuda_archs arch_flags)
  if(NOT sources)
    return()
  endif()
  set(objects ${target}_${name}_kernels)
  add_library(${objects} OBJECT ${sources})
  set_target_properties(${objects} PROPERTIES CUDA_ARCHITECTURES ${cuda_archs} POSITION_INDEPENDENT_CODE ON
                        CUDA_COMPILER_LAUNCHER "${FLASHATTN_KERNEL_LAUNCHER}")
  # CUTLASS as a system include, as on the target (the property below would pass it as a plain -I and
  # with it CUTLASS's own warnings).
  target_include_directories(${objects} SYSTEM PRIVATE ${FLASHATTN_CUTLASS_INCLUDE_DIR})
  target_include_directories(${objects} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  target_compile_options(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_OPTIONS> ${arch_flags})
  target_link_libraries(${objects} PRIVATE CUDA::cudart)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${objects}>)
endfunction()

function(flashattn_add_cuda_sources target)
  file(GLOB_RECURSE cuda_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu ${PROJECT_SOURCE_DIR}/src/cuda/*.cpp)
  target_sources(${target} PRIVATE ${cuda_sources})
  target_compile_definitions(${target} PRIVATE FLASHATTN_WITH_CUDA=1)
  target_link_libraries(${target} PRIVATE CUDA::cudart)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  if(NOT FLASHATTN_SM90_ABLATION STREQUAL "none")
    message(WARNING "flashattn: ablation build (${FLASHATTN_SM90_ABLATION}): for measurements only")
    target_compile_definitions(${target} PRIVATE FLASHATTN_SM90_ABLATION=${FLASHATTN_SM90_ABLATION})
  endif()

  flashattn_find_cutlass()
  target_include_directories(${target} SYSTEM PRIVATE ${FLASHATTN_CUTLASS_INCLUDE_DIR})
  set(head_dims "${FLASHATTN_HEAD_DIMS}")
  set(dtypes "${FLASHATTN_DTYPES}")
  if(head_dims STREQUAL "AUTO" OR dtypes STREQUAL "AUTO")
    execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
    if(head_dims STREQUAL "AUTO")
      if(no_gpu)
        set(head_dims "128;256")
      else()
        set(head_dims "64;96;128;192;256")
      endif()
    endif()
    if(dtypes STREQUAL "AUTO")
      if(no_gpu)
        set(dtypes "bf16")
      else()
        set(dtypes "fp16;bf16")
      endif()
    endif()
  endif()
  set(generated ${PROJECT_BINARY_DIR}/generated/cuda)
  execute_process(
    COMMAND ${FLASHATTN_PYTHON3} ${PROJECT_SOURCE_DIR}/src/cuda/generate_instantiations.py --out ${generated}
            --head-dims "${head_dims}" --dtypes "${dtypes}" --archs "${FLASHATTN_CUDA_ARCHS}"
            --families "${FLASHATTN_KERNEL_FAMILIES}"
    RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "flashattn: src/cuda/generate_instantiations.py failed (FLASHATTN_HEAD_DIMS=${head_dims}, FLASHATTN_DTYPES=${dtypes}, "
                        "FLASHATTN_KERNEL_FAMILIES=${FLASHATTN_KERNEL_FAMILIES})")
  endif()
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/src/cuda/generate_instantiations.py)
  include(${generated}/sources.cmake)
  list(LENGTH FLASHATTN_KERNEL_NAMES count)
  list(LENGTH FLASHATTN_GENERATED_KERNELS units)
  message(STATUS "flashattn: ${count} CUDA kernel instantiations in ${units} translation units: ${FLASHATTN_KERNEL_NAMES}")
  set_source_files_properties(${FLASHATTN_GENERATED_KERNELS} PROPERTIES COMPILE_OPTIONS -Xptxas=-v)
  # Each family compiles as src/cuda/generate_instantiations.py's FAMILIES says. Per-architecture families
  # and the registry are sources of the target itself (a pass per FLASHATTN_CUDA_ARCHS entry).
  target_sources(${target} PRIVATE ${FLASHATTN_KERNELS_PER_ARCH} ${FLASHATTN_GENERATED_REGISTRY})
  set_target_properties(${target} PROPERTIES CUDA_COMPILER_LAUNCHER "${FLASHATTN_KERNEL_LAUNCHER}")
  # Architecture-neutral families: one compute_80 PTX (cicc once, the bulk of a TU's time), assembled for
  # every real architecture of the build (90a -> sm_90: this code uses no sm_90a-only instruction) and
  # embedded for the driver to JIT on newer GPUs.
  set(real_archs "")
  foreach(arch IN LISTS FLASHATTN_CUDA_ARCHS)
    if(NOT arch MATCHES "^([0-9]+)[a-z]?(-real|-virtual)?$" OR CMAKE_MATCH_1 LESS 80)
      message(FATAL_ERROR "flashattn: FLASHATTN_CUDA_ARCHS entry '${arch}': name SM architectures of 80 or newer, "
                          "e.g. 90a;80 (the kernels need sm_80)")
    endif()
    set(number ${CMAKE_MATCH_1})
    list(APPEND real_archs "sm_${number}")
  endforeach()
  list(REMOVE_DUPLICATES real_archs)
  list(JOIN real_archs "," real_archs)
  flashattn_add_kernel_objects(${target} portable "${FLASHATTN_KERNELS_ONE_PTX}" OFF
                               "--generate-code=arch=compute_80,code=[compute_80,${real_archs}]")
  # The sm90 kernels exist only in the sm_90a pass (wgmma, setmaxnreg): compiled for 90a alone instead of
  # paying an empty pass per other architecture.
  flashattn_add_kernel_objects(${target} sm90 "${FLASHATTN_KERNELS_SM90A}" 90a-real "")
  # CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED (CuTe's wgmma selectors then take every N that is a multiple of 8)
  # costs every TU that defines it ~20 s of compile time (docs/PERF.md, build time): the real kernels take
  # their widths beyond CuTe's default set from src/cuda/sm90/wgmma_extra_widths.hpp, and only the ablation
  # of D = 128's 176-key tile still needs it (layouts_fwd_sm90.cuh static_asserts the widths).
  if(FLASHATTN_SM90_ABLATION STREQUAL "block_n_176")
    set(extended_shape_kernels ${FLASHATTN_KERNELS_SM90A})
    list(FILTER extended_shape_kernels INCLUDE REGEX "fwd_sm90_hd128\\.cu$")
    if(extended_shape_kernels)
      set_property(SOURCE ${extended_shape_kernels} APPEND PROPERTY COMPILE_DEFINITIONS
                   CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)
    endif()
  endif()
  # Printed by every build, next to the per-TU times the launcher prints.
  add_custom_target(flashattn_kernel_manifest
                    COMMAND ${CMAKE_COMMAND} -E echo "flashattn: ${count} CUDA kernel instantiations in ${units} translation units (${FLASHATTN_KERNEL_NAMES})"
                    VERBATIM)
  add_dependencies(${target} flashattn_kernel_manifest)
endfunction()
