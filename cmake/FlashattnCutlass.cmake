# Finds the CUTLASS/CuTe 4.2 headers the CUDA kernels are built on (DESIGN.md §2): from
# FLASHATTN_CUTLASS_DIR (a folder holding cute/ and cutlass/; relative paths are taken from the source
# root), else third_party/cutlass/include (where scripts/setup unpacks them), else the nvidia-cutlass PyPI
# package of python3 (<site-packages>/cutlass_library/source/include).
# Sets FLASHATTN_CUTLASS_INCLUDE_DIR, or stops the configure with the way to provide the headers.
find_program(FLASHATTN_PYTHON3 NAMES python3 REQUIRED)
set(FLASHATTN_CUTLASS_DIR "" CACHE PATH "Folder holding the CUTLASS 4.2 headers (cute/, cutlass/); empty = ask python3")

function(flashattn_find_cutlass)
  set(dir "")
  if(FLASHATTN_CUTLASS_DIR)
    get_filename_component(dir "${FLASHATTN_CUTLASS_DIR}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  elseif(EXISTS "${PROJECT_SOURCE_DIR}/third_party/cutlass/include/cute/tensor.hpp")
    set(dir "${PROJECT_SOURCE_DIR}/third_party/cutlass/include")
  else()
    execute_process(
      COMMAND "${FLASHATTN_PYTHON3}" -c
              "import os, cutlass_library; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source', 'include'))"
      OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT dir OR NOT EXISTS "${dir}/cute/tensor.hpp" OR NOT EXISTS "${dir}/cutlass/version.h")
    message(FATAL_ERROR
      "flashattn: the CUDA backend needs the CUTLASS/CuTe 4.2 headers and found none"
      "${dir}${FLASHATTN_CUTLASS_DIR}. Install them with `python3 -m pip install --no-deps nvidia-cutlass==4.2.0.0` "
      "or pass -DFLASHATTN_CUTLASS_DIR=<folder holding cute/ and cutlass/> (or build without CUDA: -DFLASHATTN_CUDA=OFF).")
  endif()
  file(STRINGS "${dir}/cutlass/version.h" major REGEX "#define CUTLASS_MAJOR [0-9]+")
  file(STRINGS "${dir}/cutlass/version.h" minor REGEX "#define CUTLASS_MINOR [0-9]+")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" major "${major}")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" minor "${minor}")
  if(NOT "${major}.${minor}" STREQUAL "4.2")
    message(FATAL_ERROR "flashattn: CUTLASS 4.2 is required, ${dir} holds ${major}.${minor} "
                        "(python3 -m pip install --no-deps nvidia-cutlass==4.2.0.0)")
  endif()
  message(STATUS "flashattn: CUTLASS ${major}.${minor} headers in ${dir}")
  set(FLASHATTN_CUTLASS_INCLUDE_DIR "${dir}" PARENT_SCOPE)
endfunction()
