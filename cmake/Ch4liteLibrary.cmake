# SPDX-License-Identifier: MIT
# libmpi is compiled once per (netmod, force_am) variant: the device, api, shm
# and rma layers are templates/inline code over the active netmod, so they
# cannot be shared between variants. util and dame are netmod-independent
# static libraries linked into every variant.

file(GLOB CH4LITE_CORE_SOURCES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/api/*.cpp
  ${PROJECT_SOURCE_DIR}/src/device/*.cpp
  ${PROJECT_SOURCE_DIR}/src/coll/*.cpp
  ${PROJECT_SOURCE_DIR}/src/shm/*.cpp
  ${PROJECT_SOURCE_DIR}/src/rma/*.cpp
  ${PROJECT_SOURCE_DIR}/src/topo/*.cpp)

# The reduction kernels (device/op.cpp: one loop per op and type, compiled for
# baseline, AVX2 and AVX-512) are vectorized only with GCC's -O3 cost model:
# at -O2 GCC 12 will not add the run-time overlap check the loops need, and
# they stay scalar at every level (1 MiB MPI_SUM on doubles 72 -> 22 us).
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/device/op.cpp PROPERTIES COMPILE_OPTIONS -O3)

# The bootstrap (launcher detection, PMI-1 / PMI-2 / PMIx clients) does not
# depend on the netmod: one static library, linked into every variant, into
# the launcher tests' pmi_prog and into the PMI unit tests. libpmix is loaded
# at run time (device/pmix_client.hpp); only its headers are needed here.
set(CH4LITE_BOOTSTRAP_SOURCES)
foreach(f bootstrap.cpp bootstrap_kvs.cpp pmi_client.cpp pmi2_client.cpp pmix_client.cpp)
  list(APPEND CH4LITE_BOOTSTRAP_SOURCES ${PROJECT_SOURCE_DIR}/src/device/${f})
endforeach()
list(REMOVE_ITEM CH4LITE_CORE_SOURCES ${CH4LITE_BOOTSTRAP_SOURCES})
add_library(ch4lite_bootstrap STATIC ${CH4LITE_BOOTSTRAP_SOURCES})
target_include_directories(ch4lite_bootstrap PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_compile_options(ch4lite_bootstrap PRIVATE ${CH4LITE_WARNINGS} -fvisibility=hidden)
target_link_libraries(ch4lite_bootstrap PUBLIC ch4lite_util ${CMAKE_DL_LIBS})
if(PMIX_FOUND)
  target_include_directories(ch4lite_bootstrap SYSTEM PRIVATE ${PMIX_INCLUDE_DIRS})
  target_compile_definitions(ch4lite_bootstrap PRIVATE CH4LITE_HAVE_PMIX=1)
endif()

# Headers nearly every core file includes, precompiled once per variant:
# parsing them was about 70 % of compiling a core file (-ftime-report of
# device/comm_create.cpp: 4.1 of 5.7 s), most of it the standard library's
# 150 headers.
set(CH4LITE_PCH_HEADERS <algorithm> <array> <atomic> <climits> <cstddef> <cstdint> <cstdio>
  <cstdlib> <cstring> <memory> <new> <string> <utility> <vector>
  <rdma/fabric.h> <rdma/fi_endpoint.h> <rdma/fi_errno.h> <rdma/fi_rma.h> <rdma/fi_tagged.h>)

function(ch4lite_variant_config outdir netmod force_am)
  if(force_am)
    set(CH4LITE_FORCE_AM_VALUE 1)
  else()
    set(CH4LITE_FORCE_AM_VALUE 0)
  endif()
  set(CH4LITE_NETMOD_NAME ${netmod})
  configure_file(${PROJECT_SOURCE_DIR}/src/netmod/active_netmod.hpp.in
                 ${outdir}/active_netmod.hpp @ONLY)
  set(CH4LITE_FORCE_AM_VALUE ${CH4LITE_FORCE_AM_VALUE} PARENT_SCOPE)
endfunction()

# The ofi netmod's stand-ins for libpsm_infinipath.so.1 and libpsm2.so.2
# (src/netmod/ofi/ofi_fastload.hpp): two small libraries under those sonames,
# embedded in every ofi libmpi (ofi_standin_images.cpp), never installed.
function(ch4lite_add_psm_standins)
  if(TARGET ch4lite_psm1_standin)
    return()
  endif()
  set(dir ${PROJECT_SOURCE_DIR}/src/netmod/ofi/psm_stub)
  foreach(v 1 2)
    add_library(ch4lite_psm${v}_standin SHARED ${dir}/psm_stub.c)
    target_compile_definitions(ch4lite_psm${v}_standin PRIVATE CH4LITE_PSM_STUB_VERSION=${v})
    target_compile_options(ch4lite_psm${v}_standin PRIVATE -Wall -Wextra -g0)
    if(v EQUAL 1)
      set(soname libpsm_infinipath.so.1)
    else()
      set(soname libpsm2.so.2)
    endif()
    target_link_options(ch4lite_psm${v}_standin PRIVATE "LINKER:-soname,${soname}" "LINKER:-s"
      "LINKER:--version-script=${dir}/psm${v}_stub.map")
    set_target_properties(ch4lite_psm${v}_standin PROPERTIES NO_SONAME ON
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/generated/psm-standins
      LINK_DEPENDS ${dir}/psm${v}_stub.map)
  endforeach()
  # Compiled into each ofi libmpi, in the directory that makes them.
  set(images ${PROJECT_SOURCE_DIR}/src/netmod/ofi/ofi_standin_images.cpp)
  set(out ${CMAKE_BINARY_DIR}/generated/psm-standins)
  set_property(SOURCE ${images} APPEND PROPERTY COMPILE_DEFINITIONS
    "CH4LITE_PSM1_IMAGE=\"${out}/libch4lite_psm1_standin.so\""
    "CH4LITE_PSM2_IMAGE=\"${out}/libch4lite_psm2_standin.so\"")
  set_property(SOURCE ${images} APPEND PROPERTY OBJECT_DEPENDS
    ${out}/libch4lite_psm1_standin.so ${out}/libch4lite_psm2_standin.so)
  set_property(SOURCE ${images} PROPERTY SKIP_PRECOMPILE_HEADERS ON)
endfunction()

function(ch4lite_add_mpi_library target libdir netmod force_am)
  set(gen ${CMAKE_BINARY_DIR}/generated/${target})
  ch4lite_variant_config(${gen} ${netmod} ${force_am})
  file(GLOB nm_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/netmod/${netmod}/*.cpp)
  add_library(${target} SHARED ${CH4LITE_CORE_SOURCES} ${nm_sources}
    ${PROJECT_SOURCE_DIR}/src/netmod/exchange.cpp)
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    PRIVATE ${gen} ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${target} PRIVATE ${CH4LITE_WARNINGS} -fvisibility=hidden)
  # export.hpp comes first in every file: in the precompiled header, whose
  # -include must be the first (GCC ignores a precompiled header after
  # another -include), or forced in without one.
  if(CMAKE_DISABLE_PRECOMPILE_HEADERS)
    target_compile_options(${target} PRIVATE -include ${PROJECT_SOURCE_DIR}/src/api/export.hpp)
  else()
    target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/api/export.hpp
      ${CH4LITE_PCH_HEADERS})
  endif()
  # Every file of the variant (the netmod's own .cpp files too, which do not
  # include the generated header) sees the same build of the netmod.
  target_compile_definitions(${target} PRIVATE CH4LITE_FORCE_AM=${CH4LITE_FORCE_AM_VALUE})
  target_compile_definitions(${target} PRIVATE CH4LITE_BUILDING_LIBMPI
    CH4LITE_VERSION_STRING="${PROJECT_VERSION}"
    CH4LITE_INSTALL_PREFIX="${CMAKE_INSTALL_PREFIX}")
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${PROJECT_SOURCE_DIR}/src/api/libmpi.map")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/api/libmpi.map)
  # libfabric's headers only: the ofi netmod loads the library at run time,
  # when a job needs it (ofi_lib.hpp).
  target_include_directories(${target} SYSTEM PRIVATE ${FABRIC_INCLUDE_DIRS})
  target_compile_options(${target} PRIVATE ${FABRIC_CFLAGS_OTHER})
  target_link_libraries(${target} PRIVATE ch4lite_bootstrap ch4lite_dame ch4lite_util PkgConfig::HWLOC
    Threads::Threads rt ${CMAKE_DL_LIBS})
  if(netmod STREQUAL "ofi")
    ch4lite_add_psm_standins()
    add_dependencies(${target} ch4lite_psm1_standin ch4lite_psm2_standin)
  endif()
  # UCX is linked (its calls are exported functions, not operation tables
  # as libfabric's): only into the ucx variants.
  if(netmod STREQUAL "ucx")
    target_link_libraries(${target} PRIVATE PkgConfig::UCX)
  endif()
  # Every variant is named libmpi.so.1 so that programs built once run against
  # any of them; the forced-AM variant lives in its own directory.
  set_target_properties(${target} PROPERTIES OUTPUT_NAME mpi
    VERSION ${PROJECT_VERSION} SOVERSION 1 LIBRARY_OUTPUT_DIRECTORY ${libdir})
  # libmpi_abi.so: the same library under the standard-ABI name.
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E create_symlink libmpi.so.1 ${libdir}/libmpi_abi.so.1
    COMMAND ${CMAKE_COMMAND} -E create_symlink libmpi_abi.so.1 ${libdir}/libmpi_abi.so
    VERBATIM)
endfunction()

function(ch4lite_add_netmod_check netmod)
  set(gen ${CMAKE_BINARY_DIR}/generated/check_${netmod})
  ch4lite_variant_config(${gen} ${netmod} OFF)
  file(GLOB nm_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/netmod/${netmod}/*.cpp)
  add_library(netmod_check_${netmod} STATIC ${nm_sources}
    ${PROJECT_SOURCE_DIR}/src/netmod/${netmod}_check.cpp)
  target_include_directories(netmod_check_${netmod} PRIVATE ${gen} ${PROJECT_SOURCE_DIR}/src
    ${PROJECT_SOURCE_DIR}/include)
  target_compile_options(netmod_check_${netmod} PRIVATE ${CH4LITE_WARNINGS})
  target_link_libraries(netmod_check_${netmod} PRIVATE PkgConfig::FABRIC)
  if(netmod STREQUAL "ofi")
    ch4lite_add_psm_standins()
    add_dependencies(netmod_check_${netmod} ch4lite_psm1_standin ch4lite_psm2_standin)
  endif()
endfunction()
