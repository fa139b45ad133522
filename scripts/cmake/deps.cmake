# deps.cmake — third-party static libraries built from the pinned sources that
# scripts/setup.sh fetches into .deps/ (same code for native and emscripten builds).
#   tm_zlib      zlib 1.2.13 C sources (compiled as C), include dir .deps/zlib
#   tm_simdjson  simdjson 3.9.4 amalgamation, C++17, SIMDJSON_EXCEPTIONS=0 (PUBLIC)
# Usage from the top-level CMakeLists.txt:  include(scripts/cmake/deps.cmake)
include_guard(GLOBAL)

# Repo root = two levels up from this file (equals CMAKE_SOURCE_DIR for the top-level project).
get_filename_component(_tm_repo_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(TRACEMERGE_DEPS_DIR "${_tm_repo_root}/.deps" CACHE PATH
    "Folder with third-party sources fetched by scripts/setup.sh")

set(_tm_zlib_dir "${TRACEMERGE_DEPS_DIR}/zlib")
set(_tm_simdjson_dir "${TRACEMERGE_DEPS_DIR}/simdjson")
foreach(_f "${_tm_zlib_dir}/zlib.h" "${_tm_zlib_dir}/inflate.c"
           "${_tm_simdjson_dir}/simdjson.h" "${_tm_simdjson_dir}/simdjson.cpp")
  if(NOT EXISTS "${_f}")
    message(FATAL_ERROR "tracemerge: third-party source ${_f} is missing.\n"
                        "Run `bash scripts/setup.sh` first (it fetches zlib and simdjson into .deps/).")
  endif()
endforeach()

enable_language(C)

# ---- zlib ---------------------------------------------------------------------------
set(_tm_zlib_sources)
foreach(_n adler32 compress crc32 deflate gzclose gzlib gzread gzwrite
           infback inffast inflate inftrees trees uncompr zutil)
  list(APPEND _tm_zlib_sources "${_tm_zlib_dir}/${_n}.c")
endforeach()
add_library(tm_zlib STATIC ${_tm_zlib_sources})
target_include_directories(tm_zlib SYSTEM PUBLIC "${_tm_zlib_dir}")
if(NOT WIN32)
  # What zlib's ./configure would put into zconf.h (PUBLIC: it changes z_off_t for users too).
  target_compile_definitions(tm_zlib PUBLIC HAVE_UNISTD_H HAVE_STDARG_H)
endif()
target_compile_options(tm_zlib PRIVATE $<IF:$<C_COMPILER_ID:MSVC>,/w,-w>)
set_target_properties(tm_zlib PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ---- simdjson -----------------------------------------------------------------------
add_library(tm_simdjson STATIC "${_tm_simdjson_dir}/simdjson.cpp")
target_include_directories(tm_simdjson SYSTEM PUBLIC "${_tm_simdjson_dir}")
target_compile_features(tm_simdjson PUBLIC cxx_std_17)
target_compile_definitions(tm_simdjson PUBLIC SIMDJSON_EXCEPTIONS=0)
target_compile_options(tm_simdjson PRIVATE $<IF:$<CXX_COMPILER_ID:MSVC>,/w,-w>)
set_target_properties(tm_simdjson PROPERTIES POSITION_INDEPENDENT_CODE ON)
